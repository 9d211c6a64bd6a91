"""The deduction aid (issue 13, part 2): opt-in when the table is opened, stored on the
table, carried in the view for the side being guessed; off, the view is unchanged."""

from __future__ import annotations

from companion.engine import Record, replay
from companion.engine.deduce import deduce_side

from .conftest import ORIGIN, Player, sit


def _open(client, **body) -> Player:
    r = client.post("/api/tables", json={"wall_distance": 3, **body}, headers={"Origin": ORIGIN})
    assert r.status_code == 201, r.get_json()
    host = Player(client, r.get_json()["code"], r.get_json()["host_secret"])
    host.refresh()
    return host


def _play_to_the_first_guess(host: Player) -> tuple[Player, Player]:
    red, blue = sit(host, "red", "Ann"), sit(host, "blue", "Bob")
    red.event({"type": "exhaust", "side": "red", "ranks": [1]})
    blue.event({"type": "exhaust", "side": "blue", "ranks": [10]})
    host.event({"type": "intel", "ranks": [3, 5, 8, 9]})
    red.event({"type": "tokens", "side": "red", "missions": [2, 4]})
    blue.event({"type": "tokens", "side": "blue", "missions": [1, 3]})
    host.event({"type": "start", "side": "red"})
    return red, blue


def test_the_aid_is_off_unless_asked_and_then_the_view_is_unchanged(client):
    off = _open(client)
    on = _open(client, deduction=True)
    for host in (off, on):
        _play_to_the_first_guess(host)
    v_off, v_on = off.refresh(), on.refresh()
    assert "deduction" not in v_off
    assert set(v_on) - set(v_off) == {"deduction"}
    def same(v):
        seats = [{**x, "id": None} for x in v["seats"]]
        return {**{k: x for k, x in v.items() if k not in ("code", "deduction")}, "seats": seats}
    assert same(v_on) == same(v_off)
    assert "deduction" not in _open(client, deduction=False).view


def test_the_view_carries_the_deduction_for_the_side_being_guessed(client):
    host = _open(client, deduction=True)
    assert host.view["deduction"] is None            # nothing to guess yet
    red, blue = _play_to_the_first_guess(host)
    d = host.refresh()["deduction"]
    assert (d["side"], d["mission"]) == ("blue", 1)  # red guesses blue's mission 1
    rec = Record.from_dict(client.get(f"/api/tables/{host.code}/record").get_json())
    assert {k: d[k] for k in ("lineups", "missions")} == deduce_side(replay(rec), "blue").to_dict()
    assert set(d["missions"]["1"]) <= {"3", "4", "5", "8", "9"}   # token: on the card or 4
    assert sum(d["missions"]["1"].values()) == d["lineups"] > 0
    # blue's mission 1 turns up a 3: now red's mission 1 is guessed
    blue.draft("deception", False)
    red.draft("guess", 7)
    blue.draft("actual", 3, expect=201)
    d = host.refresh()["deduction"]
    assert (d["side"], d["mission"]) == ("red", 1)


def test_a_bad_deduction_field_is_refused(client):
    r = client.post("/api/tables", json={"deduction": "yes"}, headers={"Origin": ORIGIN})
    assert r.status_code == 400 and r.get_json()["field"] == "deduction"


def test_an_import_may_opt_in_too(client):
    rec = {"format": "spies-and-lies-record/1", "options": {"wall_distance": 2}, "events": []}
    r = client.post("/api/tables/import", json={"record": rec, "deduction": True},
                    headers={"Origin": ORIGIN})
    host = Player(client, r.get_json()["code"], r.get_json()["host_secret"])
    assert "deduction" in host.refresh()
