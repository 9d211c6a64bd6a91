"""What the browser tests measure as they play, printed at the end of the run.

Filled in by the tests (``TAPS``: issue 11's tap counts; ``WEIGHTS``: bytes over the
wire). Under pytest-xdist each worker process fills its own, and sends them to the
process that prints the summary (``tests/conftest.py``).
"""

from __future__ import annotations

TAPS: dict[str, str] = {}
WEIGHTS: dict[str, int] = {}
