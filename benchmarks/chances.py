"""``python -m benchmarks chances``: is the chance to win calibrated (issue 25)?

Games are simulated by the model's own policy (companion/engine/chances.py, POLICY);
after every reveal of each, the estimate is made from the public record only. Then:

- the reliability table: the estimates (red's and blue's chance, pooled) binned by
  tenths; for each bin its mean prediction and how often that side did win;
- the Brier score (red, blue, draw) of the estimates, and of a baseline that looks
  only at the IP lead and the double agent (each side's rate of wins, by those two,
  in as many other games played by the same policy);
- how long an estimate takes on one core, and its standard error.
"""

from __future__ import annotations

import multiprocessing
import random
import time
from collections import defaultdict
from typing import Any

from companion.engine import replay
from companion.engine.chances import POLICY, estimate, standard_error
from companion.engine.events import Options, Record, Reveal
from companion.engine.referee import advance
from companion.engine.simulate import play
from companion.engine.state import State

OUTCOMES = ("red", "blue", "draw")


def game(seed: int) -> Record:
    """One game played by the model's policy (a wall distance 2-8 at random)."""
    rng = random.Random(seed)
    options = Options(rng.randint(2, 8))
    return Record(options, tuple(play(rng, options, **POLICY)))


def _lead(s: State) -> tuple[int, int]:
    return max(-12, min(12, s.ip["red"] - s.ip["blue"])), s.da


def _one(args: tuple[int, int]) -> list[dict[str, Any]]:
    """The estimates after each reveal of game ``seed`` (what the benchmark grades)."""
    seed, playouts = args
    rec = game(seed)
    winner = str(replay(rec).winner)
    s, out = State(rec.options), []
    for i, e in enumerate(rec.events):
        advance(s, e)
        if isinstance(e, Reveal):
            t = time.perf_counter()
            p = estimate(s, playouts, random.Random(f"{seed}:{i}"))
            out.append({"p": p, "lead": _lead(s), "winner": winner,
                        "seconds": time.perf_counter() - t, "over": s.phase == "over"})
    return out


def _leads(seed: int) -> list[tuple[tuple[int, int], str]]:
    """The baseline's training data: (IP lead, double agent) after each reveal, and who won."""
    rec = game(seed)
    winner = str(replay(rec).winner)
    s, out = State(rec.options), []
    for e in rec.events:
        advance(s, e)
        if isinstance(e, Reveal):
            out.append((_lead(s), winner))
    return out


def brier(p: dict[str, float], winner: str) -> float:
    return sum((p[k] - (k == winner)) ** 2 for k in OUTCOMES)


def run(games: int = 2000, playouts: int = 100, workers: int = 2) -> int:
    """Grade ``games`` games (0: only time the live estimate) and time the live figure."""
    started = time.perf_counter()
    ok = better = True
    if games:
        ok, better = _grade(games, playouts, workers)
    _live_figure()
    print(f"calibrated: {'yes' if ok else 'NO'} · {time.perf_counter() - started:.0f} s")
    return 0 if ok and better else 1


def _grade(games: int, playouts: int, workers: int) -> tuple[bool, bool]:
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        graded = [x for xs in pool.imap(_one, [(s, playouts) for s in range(games)], 8)
                  for x in xs]
        training = [x for xs in pool.imap(_leads, range(10**6, 10**6 + games), 32)
                    for x in xs]
    # the baseline: each (IP lead, double agent) cell's outcomes in other games, with
    # one game's worth of the overall rates as a prior
    overall = {k: sum(w == k for _, w in training) / len(training) for k in OUTCOMES}
    cells: dict[tuple[int, int], dict[str, float]] = defaultdict(lambda: dict(overall))
    counts: dict[tuple[int, int], int] = defaultdict(lambda: 1)
    for lead, w in training:
        c = counts[lead]
        cells[lead] = {k: (cells[lead][k] * c + (k == w)) / (c + 1) for k in OUTCOMES}
        counts[lead] = c + 1
    live = [g for g in graded if not g["over"]]      # a finished game is no estimate
    ours = sum(brier(g["p"], g["winner"]) for g in live) / len(live)
    base = sum(brier(cells[g["lead"]], g["winner"]) for g in live) / len(live)
    bins: dict[int, list[tuple[float, bool]]] = defaultdict(list)
    for g in live:
        for side in ("red", "blue"):
            p = g["p"][side]
            bins[min(9, int(p * 10))].append((p, g["winner"] == side))
    print(f"chances: {games} games by the model's policy {POLICY}, an estimate after "
          f"every reveal: {len(live)} estimates ({2 * len(live)} side predictions), "
          f"{playouts} playouts each (standard error <= {standard_error(playouts):.3f})")
    print(f"{'predicted':>12} {'n':>7} {'mean':>7} {'observed':>9} {'diff':>7}  within 5 points")
    ok = True
    for b in range(10):
        xs = bins.get(b, [])
        if not xs:
            continue
        mean = sum(p for p, _ in xs) / len(xs)
        seen = sum(w for _, w in xs) / len(xs)
        graded_bin = len(xs) >= 200
        good = abs(seen - mean) <= 0.05
        ok &= good or not graded_bin
        print(f"{b / 10:>5.1f}-{(b + 1) / 10:<5.1f} {len(xs):>7} {mean:>7.3f} {seen:>9.3f} "
              f"{seen - mean:>+7.3f}  {('yes' if good else 'NO') if graded_bin else '(< 200)'}")
    print(f"Brier score (red, blue, draw): ours {ours:.4f}, the IP/double-agent baseline "
          f"{base:.4f} ({'better' if ours < base else 'NOT better'})")
    return ok, ours < base


def _live_figure() -> None:
    # the live figure: LIVE_PLAYOUTS playouts seeded by the public state (issue 52), from
    # every fourth event of a few games, on one core
    from companion.group.chances import LIVE_PLAYOUTS
    times = []
    for k in range(8):
        rec = game(10**7 + k)
        s = State(rec.options)
        for i, e in enumerate(rec.events):
            if i % 4 == 0 and s.phase != "over":
                t = time.perf_counter()
                estimate(s, LIVE_PLAYOUTS)
                times.append(time.perf_counter() - t)
            advance(s, e)
    times.sort()
    print(f"the live estimate ({LIVE_PLAYOUTS} playouts on one core, standard error <= "
          f"{standard_error(LIVE_PLAYOUTS):.3f}), {len(times)} states: time median "
          f"{1000 * times[len(times) // 2]:.0f} ms, longest {1000 * times[-1]:.0f} ms")
