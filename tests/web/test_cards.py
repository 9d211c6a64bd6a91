"""The intel cards a server remembers (issue 11): the box's six cards come back every
game, so at the intel step (R11) the phones offer the cards seen in finished rounds as
one tap; a card mistapped and undone is never learnt, and a game's own old intel (on
its old-intel pile) is never offered again in that game."""

from __future__ import annotations

import random

from companion.engine import Record, replay
from companion.engine.simulate import random_record

from .conftest import ORIGIN, Player, enter, sit


def cards_of(rec: Record) -> list[list[int]]:
    end = replay(rec)
    done = end.phase not in ("intel", "mission")
    return [sorted(c) for c in [*end.old_intel, *([end.intel] if done and end.intel else [])]]


def play(host: Player, seats: dict[str, Player], rec: Record, offered: list) -> None:
    """Enter every event of ``rec``; note what the intel step offers each time."""
    def note(e, view):
        if e.type == "intel":
            assert view["taps"]["step"] == "intel"
            offered.append(view["taps"]["cards"])
    enter(host, seats, rec.events, note)


def test_cards_of_finished_rounds_are_offered_at_the_next_tables_intel_step(table, client):
    first = random_record(random.Random(11), wall_distance=2)
    seen = cards_of(first)
    assert len(seen) >= 2
    host = table(wall_distance=2)
    seats = {"red": sit(host, "red", "Ann"), "blue": sit(host, "blue", "Bob")}
    # a slip at the intel step, undone at once: never learnt
    for e in first.events[:2]:
        seats[e.side].event(e.to_dict())
    seats["red"].event({"type": "intel", "ranks": [1, 2, 3, 4]})
    seats["red"].undo()
    offered: list = []
    play(host, seats, Record(first.options, first.events[2:]), offered)
    assert host.refresh()["state"]["phase"] == "over"
    # nothing known on a fresh server; a game's own cards lie on its old-intel pile
    assert offered and all(o == [] for o in offered), offered

    # the next table: every card of the first game's finished rounds, one tap each
    host2 = table(wall_distance=2)
    red, blue = sit(host2, "red", "Cy"), sit(host2, "blue", "Di")
    red.event({"type": "exhaust", "side": "red", "ranks": [1]})
    blue.event({"type": "exhaust", "side": "blue", "ranks": [2]})
    v = host2.refresh()
    assert sorted(v["taps"]["cards"]) == sorted(seen)
    assert [1, 2, 3, 4] not in v["taps"]["cards"]
    # recorded with one of them, the card is gone from this game's offer on day 2
    card = v["taps"]["cards"][0]
    red.event({"type": "intel", "ranks": card})
    assert "cards" not in host2.refresh()["taps"]   # offered only at the intel step

    # an imported game teaches the server nothing (issue 20): a stranger's records cannot
    # replace the cards a real table learnt
    host3 = table(wall_distance=3)
    a, b = sit(host3, "red", "Ed"), sit(host3, "blue", "Flo")
    a.event({"type": "exhaust", "side": "red", "ranks": [3]})
    b.event({"type": "exhaust", "side": "blue", "ranks": [4]})
    before = host3.refresh()["taps"]["cards"]
    for i in range(9):
        other = random_record(random.Random(100 + i), wall_distance=3)
        r = client.post("/api/tables/import", json={"record": other.to_dict()},
                        headers={"Origin": ORIGIN})
        assert r.status_code == 201, r.get_json()
    assert sorted(before) == sorted(seen)
    assert host3.refresh()["taps"]["cards"] == before
