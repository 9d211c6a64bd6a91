"""One timing of a checkout's referee, run as a child by ``python -m benchmarks engine --against``.

``python benchmarks/replay_worker.py RECORDS.json SECONDS`` with ``PYTHONPATH`` set
to the checkout being measured: it imports only what every version of the engine
has (``Record.from_dict``, ``replay``), so an older checkout can be measured with
the same records. It prints one JSON line: the engine's path and microseconds per
game, parse included (``json.loads`` + ``Record.from_dict`` + ``replay``) and not, by
the wall clock and in CPU time.
"""

from __future__ import annotations

import gc
import json
import sys
import time
from collections.abc import Callable


def _per_call(fn: Callable[[int], None], seconds: float) -> tuple[float, float]:
    """Microseconds per call of ``fn(i)`` over about ``seconds`` (i = 0, 1, 2…): by the
    wall clock, and in this process's CPU time (which waiting for a core does not add to)."""
    n, start, cpu = 0, time.perf_counter(), time.process_time()
    deadline = start + seconds
    while True:
        fn(n)
        n += 1
        if n % 16 == 0 and time.perf_counter() >= deadline:
            return ((time.perf_counter() - start) / n * 1e6,
                    (time.process_time() - cpu) / n * 1e6)


def main(path: str, seconds: float) -> None:
    """Time full games of the records in ``path`` (a JSON list of record texts)."""
    import companion
    from companion.engine import Record, replay

    with open(path, encoding="utf-8") as f:
        texts: list[str] = json.load(f)
    records = [Record.from_dict(json.loads(t)) for t in texts]
    gc.collect()
    k = len(texts)

    def from_json(i: int) -> None:
        replay(Record.from_dict(json.loads(texts[i % k])))

    def held(i: int) -> None:
        replay(records[i % k])

    _per_call(from_json, min(seconds, 0.2))       # warm up
    from_json_us, from_json_cpu_us = _per_call(from_json, seconds)
    replay_us, replay_cpu_us = _per_call(held, seconds)
    print(json.dumps({"engine": companion.__file__,
                      "from_json_us": from_json_us, "from_json_cpu_us": from_json_cpu_us,
                      "replay_us": replay_us, "replay_cpu_us": replay_cpu_us}))


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
