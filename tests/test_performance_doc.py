"""The benchmark commands written in docs/PERFORMANCE.md do what it says (issue 51):
``chances --games 0`` times the live figure alone, it does not grade 2,000 games first.
"""

from __future__ import annotations

import benchmarks.chances
from benchmarks import __main__ as bench


def test_chances_games_zero_times_the_live_figure_alone(monkeypatch):
    asked: dict[str, int] = {}

    def run(games: int, playouts: int) -> int:
        asked.update(games=games, playouts=playouts)
        return 0

    monkeypatch.setattr(benchmarks.chances, "run", run)
    assert bench.main(["chances", "--games", "0"]) == 0
    assert asked == {"games": 0, "playouts": 100}
    assert bench.main(["chances"]) == 0
    assert asked == {"games": 2000, "playouts": 100}
