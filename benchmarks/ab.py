"""Two checkouts timed in turn, A B, B A, … (``--against``), and their ratio: the noise of a
shared machine falls on both alike. Used by ``benchmarks engine`` and ``benchmarks post``."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterator, Sequence


def turns(rounds: int) -> Iterator[str]:
    """``A B B A A B …``: ``rounds`` rounds, neither checkout always first."""
    for i in range(rounds):
        yield from ("A", "B") if i % 2 == 0 else ("B", "A")


def collect(rounds: int, keys: Sequence[str],
            measure: Callable[[str], dict[str, float]]) -> dict[str, dict[str, list[float]]]:
    """``measure(who)`` for each turn: every key's figures of A and of B, in round order."""
    times: dict[str, dict[str, list[float]]] = {who: {k: [] for k in keys} for who in "AB"}
    for who in turns(rounds):
        r = measure(who)
        for key, values in times[who].items():
            values.append(float(r[key]))
    return times


def report(a: list[float], b: list[float], unit: str, digits: int, indent: str) -> None:
    """Each checkout's median (min, max) and B / A: of the medians, and per round."""
    ma, mb = statistics.median(a), statistics.median(b)
    for who, med, v in (("A", ma, a), ("B", mb, b)):
        print(f"{indent}{who}: median {med:.{digits}f} {unit}  "
              f"(min {min(v):.{digits}f}, max {max(v):.{digits}f})")
    # each round's B / A, its two timings taken back to back: a burst of load from
    # elsewhere spoils one round, not the median of the rounds
    ratios = sorted(tb / ta for ta, tb in zip(a, b, strict=True))
    print(f"{indent}B / A = {mb / ma:.2f} x (medians); per round: median "
          f"{statistics.median(ratios):.2f} x, min {ratios[0]:.2f}, max {ratios[-1]:.2f}")
