"""``python -m benchmarks engine``: full games derived per second, and one event's cost.

``--against PATH`` also times another checkout's referee (e.g. a worktree of an
older commit) on the same records: both run as child processes in turn, A B A B…,
so the noise of a shared machine falls on both alike; the medians and their ratio
are printed.
"""

from __future__ import annotations

import json
import os
import pathlib
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from companion.engine.events import Record
from companion.engine.referee import apply, replay
from companion.engine.simulate import random_record

from . import ab

ROOT = pathlib.Path(__file__).resolve().parents[1]
WORKER = pathlib.Path(__file__).with_name("replay_worker.py")


def _rate(fn: Callable[[], None], seconds: float) -> tuple[int, float]:
    """Call ``fn`` for about ``seconds``: (calls, seconds taken)."""
    n, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        fn()
        n += 1
        if n % 16 == 0 and time.perf_counter() >= deadline:
            return n, time.perf_counter() - start


def _line(what: str, n: int, t: float, unit: str) -> None:
    print(f"  {what:<45} {n / t:10.0f} {unit}/s  {t / n * 1e6:8.1f} us per {unit[:-1]}")


def run(seconds: float = 2.0, games: int = 200, against: str | None = None,
        rounds: int = 7) -> int:
    """Print the figures of ``python -m benchmarks engine``; the exit code (0)."""
    rng = random.Random(2026)
    records: list[Record] = [random_record(rng) for _ in range(games)]
    texts = [r.to_json() for r in records]
    n_events = sum(len(r.events) for r in records)
    print(f"engine benchmark: {games} random legal games, {n_events / games:.1f} events each "
          f"on average ({seconds:.1f} s per figure)")

    it = iter(range(10**12))

    def one_game() -> None:
        replay(records[next(it) % games])

    _line("full game replayed (held events)", *_rate(one_game, seconds), "games")

    def from_json() -> None:
        replay(Record.from_dict(json.loads(texts[next(it) % games])))

    _line("full game from record JSON (parse + replay)", *_rate(from_json, seconds), "games")

    # one event applied to a held state (what the web layer does on each tap)
    pairs = []
    for rec in records:
        state = replay(rec.options, ())
        for e in rec.events:
            pairs.append((state, e))
            state = apply(state, e)
    k = iter(range(10**12))

    def one_event() -> None:
        s, e = pairs[next(k) % len(pairs)]
        apply(s, e)

    _line("one event applied", *_rate(one_event, seconds), "events")
    if against is not None:
        return compare(texts, against, seconds, rounds)
    return 0


def _child(root: pathlib.Path, path: str, seconds: float) -> dict[str, float | str]:
    """One timing by the worker with ``root``'s engine on the path."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, str(WORKER), path, str(seconds)], env=env,
                         check=True, capture_output=True, text=True).stdout
    result: dict[str, float | str] = json.loads(out)
    engine = pathlib.Path(str(result["engine"])).resolve()
    if not engine.is_relative_to(root):
        raise SystemExit(f"error: the worker imported {engine}, not the engine of {root}")
    return result


def compare(texts: list[str], against: str, seconds: float, rounds: int) -> int:
    """Time this checkout (A) and ``against`` (B) in turn, ``rounds`` times each."""
    other = pathlib.Path(against).resolve()
    if not (other / "companion" / "engine").is_dir():
        print(f"error: {against} is not a checkout of the companion", file=sys.stderr)
        return 2
    print(f"\nA = this checkout ({ROOT}), B = {other}: {rounds} rounds, A and B in turn, "
          f"each a fresh process timing the same {len(texts)} games for {seconds:.1f} s")
    load = os.getloadavg()
    print(f"  load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    keys = ("from_json_us", "from_json_cpu_us", "replay_us", "replay_cpu_us")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(texts, f)
    try:
        times = ab.collect(rounds, keys, lambda who: _child(ROOT if who == "A" else other,
                                                            f.name, seconds))
    finally:
        os.unlink(f.name)
    for key, what in (("from_json_us", "full game from record JSON (parse + replay)"),
                      ("from_json_cpu_us", "the same in CPU time"),
                      ("replay_us", "full game replayed (held events)"),
                      ("replay_cpu_us", "the same in CPU time")):
        print(f"  {what}:")
        ab.report(times["A"][key], times["B"][key], "us per game", 1, "    ")
    load = os.getloadavg()
    print(f"  load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0
