"""Any legal game can be entered from the phones: random games replayed tap by tap."""

from __future__ import annotations

import random

import pytest

from companion.engine import replay, replay_output
from companion.engine.simulate import random_record

from .conftest import enter, sit


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_random_game_entered_through_the_api_ends_as_the_referee_says(table, seed):
    rec = random_record(random.Random(seed))
    host = table(wall_distance=rec.options.wall_distance)
    seats = {"red": sit(host, "red", "Ann"), "blue": sit(host, "blue", "Bob")}

    def check(e, view):
        if e.type == "reveal":
            assert view["draft"]["mission"] == e.mission
    enter(host, seats, rec.events, check)
    final = host.refresh()["state"]
    want = replay_output(replay(rec))
    for k in ("phase", "winner", "reason", "ip", "da", "dt", "day"):
        assert final[k] == want[k], k
    assert final["phase"] == "over"
