"""Any legal game can be entered from the phones: random games replayed tap by tap."""

from __future__ import annotations

import random

import pytest

from companion.engine import replay, replay_output
from companion.engine.simulate import random_record
from harness.steps import steps

from .conftest import sit


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_random_game_entered_through_the_api_ends_as_the_referee_says(table, seed):
    rec = random_record(random.Random(seed))
    host = table(wall_distance=rec.options.wall_distance)
    seats = {"red": sit(host, "red", "Ann"), "blue": sit(host, "blue", "Bob")}
    screens = {**seats, "host": host}
    for e in rec.events:
        view = host.refresh()
        if e.type == "reveal":
            assert view["draft"]["mission"] == e.mission
        todo = steps(e, view)
        status = None
        try:
            while True:
                who, path, body = todo.send(status)
                r = screens[who].post(path, body)
                assert r.status_code in (200, 201), r.get_json()
                status = r.status_code
        except StopIteration:
            pass
    final = host.refresh()["state"]
    want = replay_output(replay(rec))
    for k in ("phase", "winner", "reason", "ip", "da", "dt", "day"):
        assert final[k] == want[k], k
    assert final["phase"] == "over"
