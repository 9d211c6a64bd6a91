"""Settings for the whole suite."""

import os

from hypothesis import settings

# server_db: a database for real server processes (tests/web, benchmarks share it)
pytest_plugins = ["harness.fixtures"]

# CI replays the same examples every run (a red CI must mean a real change);
# local runs explore new random games each time.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
