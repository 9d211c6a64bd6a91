"""One shared screen (issue 23): a side may sit on the big screen, whose host key then
enters every step a seat there would; phones stay optional. Tested as the table meets it:
over HTTP, as the host screen, as a phone, and as a stranger."""

from __future__ import annotations

import random
from typing import Any

from companion.engine import replay, replay_output
from companion.engine.simulate import random_record

from .conftest import ORIGIN, Player, enter, sit


def _screen_table(client, seats: list[dict[str, Any]], wall: int = 3,
                  teams: bool = False) -> Player:
    r = client.post("/api/tables", json={"wall_distance": wall, "teams": teams,
                                         "screen": seats}, headers={"Origin": ORIGIN})
    assert r.status_code == 201, r.get_json()
    d = r.get_json()
    host = Player(client, d["code"], d["host_secret"])
    host.refresh()
    return host


def test_a_whole_game_entered_from_the_host_screen_alone_is_the_same_record(client, table):
    rec = random_record(random.Random(11))
    host = _screen_table(client, [{"side": "red", "name": "Anja"}, {"side": "blue"}],
                         rec.options.wall_distance)
    seats = host.view["seats"]
    assert [(s["side"], s["name"], s["screen"]) for s in seats] == [
        ("red", "Anja", True), ("blue", "Blue", True)]
    enter(host, {"red": host, "blue": host}, rec.events)
    final = host.refresh()["state"]
    want = replay_output(replay(rec))
    for k in ("phase", "winner", "reason", "ip", "da", "dt", "day"):
        assert final[k] == want[k], k
    # the same game entered from two phones leaves the same record
    phones = table(wall_distance=rec.options.wall_distance)
    enter(phones, {"red": sit(phones, "red", "Anja"), "blue": sit(phones, "blue", "Bo")},
          rec.events)
    saved = [client.get(f"/api/tables/{t.code}/record").get_json() for t in (host, phones)]
    assert saved[0]["events"] == saved[1]["events"]
    assert len(saved[0]["events"]) == len(rec.events)
    # the screen's sides are who played: the history names them
    listed = client.get("/api/history").get_json()["games"][0]
    assert "Anja" in str(listed)


def test_a_mixed_table_each_side_enters_its_own_steps_and_undo_asks_the_phone(client):
    host = _screen_table(client, [{"side": "blue", "name": "Ben"}])
    red = sit(host, "red", "Ria")
    # the setup's exhausted soldiers: the screen enters blue's, never red's
    r = host.event({"type": "exhaust", "side": "red", "ranks": [3]}, expect=403)
    assert r.get_json()["code"] == "wrong_seat"
    red.event({"type": "exhaust", "side": "blue", "ranks": [3]}, expect=403)
    red.event({"type": "exhaust", "side": "red", "ranks": [3]})
    host.event({"type": "exhaust", "side": "blue", "ranks": [5]})
    events = host.refresh()
    blue_seat = next(s for s in events["seats"] if s["side"] == "blue")
    assert events["log"][-1]["by"] == "Ben" and blue_seat["screen"] is True
    host.event({"type": "intel", "ranks": [1, 4, 6, 9]})          # anyone's step
    red.event({"type": "tokens", "side": "red", "missions": [2]})
    host.event({"type": "tokens", "side": "blue", "missions": []})
    host.event({"type": "start", "side": "blue"})
    # blue guesses red's mission 1 from the screen: red's phone cannot, the screen can
    red.draft("guess", 2, expect=403)
    host.draft("guess", 2)
    host.draft("actual", 4, expect=201)             # a wrong guess: a plain reveal
    assert len(host.refresh()["state"]["reveals"]) == 1
    # undoing a completed reveal from the screen waits for red's phone to agree; the
    # screen (blue) cannot agree to its own request
    r = host.undo()
    assert r.get_json()["asked"] == "red"
    assert host.view["undo"]["by"] == "blue" and host.view["undo"]["needs"] == "red"
    assert host.post("/undo", {"confirm": True}, expect=403).get_json()["code"] == "wrong_seat"
    red.post("/undo", {"confirm": True}, expect=200)
    assert host.refresh()["state"]["reveals"] == []
    # red's own undo of a blue tap asks the screen, and the screen answers
    host.draft("guess", 7)
    red.undo()
    assert host.refresh()["undo"]["needs"] == "blue"
    host.post("/undo", {"confirm": False}, expect=200)
    assert host.refresh()["draft"]["guess"] == 7


def test_both_sides_on_the_screen_undo_a_reveal_without_a_phone(client):
    host = _screen_table(client, [{"side": "red"}, {"side": "blue"}])
    for side in ("red", "blue"):
        host.event({"type": "exhaust", "side": side, "ranks": [9]})
    host.event({"type": "intel", "ranks": [1, 4, 6, 9]})
    for side in ("red", "blue"):
        host.event({"type": "tokens", "side": side, "missions": []})
    host.event({"type": "start", "side": "red"})
    host.draft("guess", 2)
    host.draft("actual", 4, expect=201)
    r = host.undo()
    assert "asked" not in r.get_json() and host.view["state"]["reveals"] == []


def test_a_team_game_with_one_part_on_the_screen(client):
    host = _screen_table(client, [{"side": "red", "part": 1, "name": "Screen"}], teams=True)
    phones = {("red", 2): sit(host, "red", "Rob", part=2),
              ("blue", 1): sit(host, "blue", "Bea", part=1),
              ("blue", 2): sit(host, "blue", "Bo", part=2)}
    rec = random_record(random.Random(5), wall_distance=3)
    for e in rec.events:
        view = host.refresh()
        d = e.to_dict()
        if d["type"] != "reveal":
            if d["type"] == "start" and view["state"]["next"]["type"] != "start":
                continue                                   # R12 started it
            who = host if d.get("side", "red") == "red" else phones[("blue", 1)]
            who.event(d)
            continue
        part = view["draft"]["part"]
        if part == 2 and e.guesser == "red" and view["draft"]["step"] == "guess":
            # the screen holds red's missions 1-2 only: red's 3-4 is the phone's
            assert host.draft("guess", e.guess, expect=403).get_json()["code"] == "wrong_seat"
        by = {s: host if (s, part) == ("red", 1) else phones.get((s, part))
              for s in ("red", "blue")}
        if e.deception:
            by[e.owner].draft("deception", True)
        if view["draft"]["guess_needed"]:
            by[e.guesser].draft("guess", e.guess)
        if by[e.guesser].draft("actual", e.actual, expect=None).status_code == 200:
            by[e.owner].draft("choice", e.choice, expect=201)
    assert host.refresh()["state"]["winner"] == replay_output(replay(rec))["winner"]
    saved = client.get(f"/api/tables/{host.code}/record").get_json()
    assert len(saved["events"]) == len(rec.events)


def test_the_screen_takes_a_side_from_a_phone_and_gives_it_back(client, table):
    host = table()
    red = sit(host, "red", "Ria")
    # a stranger, a phone and a bad body: refused with reasons
    stranger = Player(client, host.code, None, "x")
    stranger.refresh()
    assert stranger.post("/screen", {"side": "red", "on": True, "name": "Z"},
                         expect=403).get_json()["code"] == "not_host"
    assert red.post("/screen", {"side": "red", "on": True, "name": "Z"},
                    expect=403).get_json()["code"] == "not_host"
    assert host.post("/screen", {"side": "green", "on": True, "name": "Z"},
                     expect=400).get_json()["field"] == "side"
    assert host.post("/screen", {"side": "red", "on": True},
                     expect=400).get_json()["field"] == "name"
    assert host.post("/screen", {"side": "red", "on": False},
                     expect=409).get_json()["code"] == "not_on_screen"
    # the screen takes red from its phone: the phone's key no longer holds a seat
    host.post("/screen", {"side": "red", "on": True, "name": "Ria"}, expect=200)
    seats = host.view["seats"]
    assert [(s["side"], s["screen"]) for s in seats] == [("red", True)]
    r = client.get(f"/api/tables/{host.code}/me", headers=red.headers())
    assert r.status_code == 401
    # a phone asking for the screen's side waits for the screen to let it in
    again = sit(host, "red", "Ria")
    assert again.seat["status"] == "pending"
    # freed, a phone sits down without asking
    host.post("/screen", {"side": "red", "on": False}, expect=200)
    assert host.view["seats"] == []
    assert sit(host, "red", "Ria").seat["status"] == "active"


def test_a_table_refuses_a_bad_screen_field(client):
    for bad, field in (([{"side": "pink"}], "screen.side"), ("red", "screen"),
                       ([{"side": "red"}, {"side": "red"}], "screen"),
                       ([{"side": "red", "part": 1}], "screen.part"),
                       ([{"side": "red", "name": "\u202e"}], "name")):
        r = client.post("/api/tables", json={"screen": bad}, headers={"Origin": ORIGIN})
        assert r.status_code == 400 and r.get_json()["field"] == field, (bad, r.get_json())
