"""Settings for the whole suite."""

import os

from hypothesis import settings

# CI replays the same examples every run (a red CI must mean a real change);
# local runs explore new random games each time.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
