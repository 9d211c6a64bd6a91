"""Any legal game can be entered from the phones: random games replayed tap by tap."""

from __future__ import annotations

import random

import pytest

from companion.engine import replay, replay_output
from companion.engine.simulate import random_record

from .conftest import sit


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_random_game_entered_through_the_api_ends_as_the_referee_says(table, seed):
    rec = random_record(random.Random(seed))
    host = table(wall_distance=rec.options.wall_distance)
    seats = {"red": sit(host, "red", "Ann"), "blue": sit(host, "blue", "Bob")}
    for e in rec.events:
        d = e.to_dict()
        if d["type"] == "reveal":
            owner, guesser = seats[e.owner], seats[e.guesser]
            view = owner.refresh()
            assert view["draft"]["mission"] == e.mission
            if view["draft"]["step"] == "deception":
                owner.draft("deception", e.deception)
            guesser.draft("guess", e.guess)
            if e.choice is None:
                owner.draft("actual", e.actual, expect=201)
            else:
                r = owner.draft("actual", e.actual, expect=None)
                if r.status_code == 200:       # the owner is asked to choose
                    owner.draft("choice", e.choice, expect=201)
                else:                          # no choice needed after all (retreated)
                    assert r.status_code == 201
        elif d["type"] == "start":
            sides = host.refresh()["state"]["next"]["sides"]    # day 1: anyone; later: forced
            (seats[sides[0]] if sides else host).event(d)
        elif d.get("side") is None:
            host.event(d)
        else:
            seats[d["side"]].event(d)
    final = host.refresh()["state"]
    want = replay_output(replay(rec))
    for k in ("phase", "winner", "reason", "ip", "da", "dt", "day"):
        assert final[k] == want[k], k
    assert final["phase"] == "over"
