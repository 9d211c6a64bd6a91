"""``python -m benchmarks.gcwatch serve …``: ``spies-lies serve`` with every pause of
Python's cyclic garbage collector noted (``gc.callbacks``), for the history benchmark.

Each collection's generation and duration go to ``$GCWATCH_FILE`` as JSON lines
(``{"at": unix time, "gen": 0-2, "ms": pause, "collected": n}``), flushed at once, so
the benchmark can read the pauses of any window of its run.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time
from typing import Any

from companion.cli import main


def watch(path: str) -> None:
    out = open(path, "a", buffering=1)        # noqa: SIM115 - open for the process's life
    started: list[float] = [0.0]

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            ms = (time.perf_counter() - started[0]) * 1000
            out.write(json.dumps({"at": time.time(), "gen": info["generation"], "ms": ms,
                                  "collected": info["collected"]}) + "\n")

    gc.callbacks.append(note)


if __name__ == "__main__":
    watch(os.environ["GCWATCH_FILE"])
    if os.environ.get("SWITCH"):
        sys.setswitchinterval(float(os.environ["SWITCH"]))
    raise SystemExit(main(sys.argv[1:]))
