"""``python -m benchmarks engine``: full games derived per second, and one event's cost."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from companion.engine.events import Record
from companion.engine.referee import apply, replay
from companion.engine.simulate import random_record


def _rate(fn: Callable[[], None], seconds: float) -> tuple[int, float]:
    """Call ``fn`` for about ``seconds``: (calls, seconds taken)."""
    n, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        fn()
        n += 1
        if n % 16 == 0 and time.perf_counter() >= deadline:
            return n, time.perf_counter() - start


def run(seconds: float = 2.0, games: int = 200) -> int:
    """Print the figures of ``spies-lies bench engine``; the exit code (0)."""
    rng = random.Random(2026)
    records: list[Record] = [random_record(rng) for _ in range(games)]
    n_events = sum(len(r.events) for r in records)
    print(f"engine benchmark: {games} random legal games, {n_events / games:.1f} events each "
          f"on average ({seconds:.1f} s per figure)")

    it = iter(range(10**12))

    def one_game() -> None:
        replay(records[next(it) % games])

    n, t = _rate(one_game, seconds)
    print(f"  full game replayed:     {n / t:10.0f} games/s   {t / n * 1e6:8.1f} us per game")

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

    n, t = _rate(one_event, seconds)
    print(f"  one event applied:      {n / t:10.0f} events/s  {t / n * 1e6:8.1f} us per event")
    return 0
