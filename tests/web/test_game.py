"""A whole game over HTTP: two seats and the host screen, with an undo, a deception,
a Captain choice, a flag capture and the capture check (RULES R3-R71)."""

from __future__ import annotations

from companion.engine import Record, replay

from .conftest import sit


def same_view(*screens):
    """Every screen, once refreshed, shows the same version and state."""
    views = [s.refresh() for s in screens]
    assert len({v["version"] for v in views}) == 1
    assert all(v["state"] == views[0]["state"] for v in views)
    return views[0]


def taps(*steps):
    """Each ``(screen, step, value[, status])`` of a reveal: the screen catches up, then
    taps (status 200 by default); the last answer is returned."""
    r = None
    for who, step, value, *status in steps:
        who.refresh()
        r = who.draft(step, value, expect=status[0] if status else 200)
    return r


def test_a_whole_game_with_undo_deception_captain_and_flag(table):
    host = table(wall_distance=2)
    assert host.view["state"]["phase"] == "setup"
    red = sit(host, "red", "Ann")
    blue = sit(host, "blue", "Bob")
    v = same_view(host, red, blue)
    assert [(s["side"], s["name"]) for s in v["seats"]] == [("red", "Ann"), ("blue", "Bob")]
    assert v["notice"] == "Bob sits down as Blue"
    assert "secret" not in str(v) and red.secret not in str(v)

    # R3: the opening exhaustion, one per side, each phone its own side
    assert v["state"]["next"]["type"] == "exhaust"
    assert sorted(v["state"]["next"]["sides"]) == ["blue", "red"]
    red.event({"type": "exhaust", "side": "red", "ranks": [1]})
    blue.event({"type": "exhaust", "side": "blue", "ranks": [10]})
    v = same_view(host, red, blue)
    assert v["state"]["phase"] == "intel"
    assert v["state"]["exhausted"] == {"red": [1], "blue": [10]}
    assert v["state"]["next"] == {"type": "intel", "sides": [],
                                  "text": "Day 1: record the intel card"}

    # the intel card, from the host screen (anyone may); a wrong card is undone
    host.event({"type": "intel", "ranks": [2, 4, 6, 7]})
    assert host.view["state"]["intel"] == [2, 4, 6, 7]
    red.refresh()
    r = red.undo()
    assert r.get_json()["undone"].startswith("Intel card: 2 Spy") is False
    assert "Intel card" in r.get_json()["undone"]
    v = same_view(host, red, blue)
    assert v["state"]["intel"] is None and v["notice"].startswith("Ann undid: Intel card")
    blue.event({"type": "intel", "ranks": [3, 5, 8, 9]})
    red.refresh()
    red.event({"type": "tokens", "side": "red", "missions": [2, 4]})
    blue.refresh()
    blue.event({"type": "tokens", "side": "blue", "missions": [2, 4]})
    v = same_view(host, red, blue)
    assert v["state"]["tokens"] == {"red": [2, 4], "blue": [2, 4]}
    assert v["seen_intel"] == [[3, 5, 8, 9]]
    assert v["state"]["next"]["text"] == "Spin for the starting side"
    host.event({"type": "start", "side": "red"})

    # reveal 1, built in taps: blue (owner) plays deception, red guesses, blue turns up the Spy
    v = same_view(host, red, blue)
    d = v["draft"]
    assert (d["step"], d["side"], d["guesser"], d["owner"], d["mission"]) == \
        ("deception", "blue", "red", "blue", 1)
    assert v["state"]["next"]["text"] == "Red: guess blue's mission 1"
    blue.draft("deception", True)
    v = same_view(host, red, blue)
    d = v["draft"]
    assert (d["step"], d["side"], d["deception"]) == ("guess", "red", True)
    red.draft("guess", 4)
    blue.refresh()
    assert blue.view["draft"]["step"] == "actual" and 1 in blue.view["draft"]["ranks"]
    assert 10 not in blue.view["draft"]["ranks"]            # blue's Marshal is exhausted
    r = blue.draft("actual", 1, expect=201)
    assert "deception token played" in r.get_json()["text"]
    v = same_view(host, red, blue)
    assert v["state"]["ip"] == {"red": 0, "blue": 5}         # Spy +1, deception pays +4 (R50)
    assert v["state"]["dt"] == {"red": 1, "blue": 1, "supply": 1}
    assert v["state"]["reveals"][-1]["outcome"] == "activated"
    assert v["log"][-1]["text"] == v["state"]["reveals"][-1]["narration"]

    # reveal 2: red holds a DT but declines; blue names the Scout: identified
    taps((red, "deception", False), (blue, "guess", 2), (red, "actual", 2, 201))
    # reveal 3 (blue has a DT): blue declines, red names the Miner
    taps((blue, "deception", False), (red, "guess", 3), (blue, "actual", 3, 201),
         # reveal 4: a wrong guess is taken back by undo
         (red, "deception", False), (blue, "guess", 8))
    v = same_view(host, red, blue)
    assert v["draft"]["guess"] == 8
    blue.undo()
    v = same_view(host, red, blue)
    assert v["draft"]["guess"] is None and v["draft"]["step"] == "guess"
    assert v["notice"] == "Bob took back the guess"
    taps((blue, "guess", 9), (red, "actual", 5, 201))       # Lieutenant: DA one step up
    v = same_view(host, red, blue)
    assert v["state"]["da"] == 1 and v["state"]["ip"] == {"red": 2, "blue": 7}
    # reveal 5: red identifies blue's Bomb
    taps((blue, "deception", False), (red, "guess", 7), (blue, "actual", 7, 201))

    # reveal 6: the Captain; red sees a preview of each choice before choosing
    taps((red, "deception", False), (blue, "guess", 3), (red, "actual", 6))
    v = same_view(host, red, blue)
    d = v["draft"]
    assert d["step"] == "choice" and d["side"] == "red"
    options = {o["choice"]: o for o in d["choices"]}
    assert set(options) == {"ip", "use:1"}
    assert options["ip"]["da"] == 2 and options["ip"]["ip"]["red"] == 0      # infiltrates
    assert options["use:1"]["ip"]["red"] == 5 and options["use:1"]["dt"]["red"] == 2
    r = blue.draft("choice", "ip", expect=403)
    assert "red" in r.get_json()["error"]
    r = red.draft("choice", "ip", expect=201)
    assert "infiltrates" in r.get_json()["text"]
    v = same_view(host, red, blue)
    assert v["state"]["da"] == 2 and v["state"]["ip"]["red"] == 0

    # reveal 7 and 8: the General starts on blue's wall: red captures the flag (R32, R70)
    taps((blue, "deception", False), (red, "guess", 8), (blue, "actual", 8, 201),
         (red, "deception", False), (blue, "guess", 1), (red, "actual", 9, 201))
    v = same_view(host, red, blue)
    assert v["state"]["phase"] == "capture_check"
    assert (v["state"]["winner"], v["state"]["reason"]) == ("red", "flag")
    assert v["state"]["next"]["sides"] == ["red"] and v["draft"] is None
    assert v["state"]["da"] == 3

    # R71: only red may record its face-down cards (none are left)
    blue.event({"type": "check", "side": "red", "ranks": {}}, expect=403)
    red.event({"type": "check", "side": "red", "ranks": {}})
    v = same_view(host, red, blue)
    assert v["state"]["phase"] == "over"
    assert v["state"]["end"] == "Red captured the flag and wins (R70)."
    assert v["state"]["stats"]["red"]["infiltrations"] == 1
    assert v["state"]["next"]["type"] is None
    r = red.event({"type": "intel", "ranks": [1, 2, 3, 4]}, expect=409)
    assert "game is over" in r.get_json()["error"]

    # the record of the game replays to the same result
    rec = host.client.get(f"/api/tables/{host.code}/record").get_json()
    assert len(rec["events"]) == 15 and rec["options"] == {"wall_distance": 2}
    final = replay(Record.from_dict(rec))
    assert (final.winner, final.reason) == ("red", "flag")


def test_random_draws_and_spin(table):
    host = table()
    red = sit(host, "red", "Ann")
    blue = sit(host, "blue", "Bob")
    red.refresh()
    r = red.event({"type": "exhaust", "side": "red", "random": True})
    assert len(r.get_json()["event"]["ranks"]) == 1
    blue.refresh()
    blue.event({"type": "exhaust", "side": "blue", "random": True})
    host.refresh()
    host.event({"type": "intel", "ranks": [1, 2, 3, 4]})
    red.refresh()
    red.event({"type": "tokens", "side": "red", "missions": []})
    blue.refresh()
    blue.event({"type": "tokens", "side": "blue", "missions": []})
    r = blue.event({"type": "start", "random": True})
    assert r.get_json()["event"]["side"] in ("red", "blue")
    assert blue.view["state"]["phase"] == "mission"


def test_team_play_parts(table):
    host = table(teams=True)
    r1 = sit(host, "red", "Ann", part=1)
    r2 = sit(host, "red", "Cid", part=2)
    b1 = sit(host, "blue", "Bob", part=1)
    b2 = sit(host, "blue", "Dee", part=2)
    for p, e in [(r1, {"type": "exhaust", "side": "red", "ranks": [1]}),
                 (b2, {"type": "exhaust", "side": "blue", "ranks": [2]}),
                 (host, {"type": "intel", "ranks": [3, 5, 8, 9]}),
                 (r2, {"type": "tokens", "side": "red", "missions": []}),
                 (b1, {"type": "tokens", "side": "blue", "missions": []}),
                 (host, {"type": "start", "side": "blue"})]:
        p.refresh()
        p.event(e)
    # mission 1 belongs to part 1 (R80): red's missions 3-4 player cannot answer it
    r = taps((r2, "deception", False, 403))
    assert "missions 1-2" in r.get_json()["error"]
    taps((r1, "deception", False), (b2, "guess", 4, 403), (b1, "guess", 4))


def test_takeover_needs_the_host(table):
    host = table()
    red = sit(host, "red", "Ann")
    before = host.refresh()["version"]
    other = sit(host, "red", "Eve")
    assert other.seat["status"] == "pending"
    # the request waits outside the versioned view: the players' next taps stay valid
    assert host.refresh()["version"] == before
    assert [s["name"] for s in host.view["seats"]] == ["Ann"]
    asks = host.client.get(f"/api/tables/{host.code}/requests").get_json()["requests"]
    assert [(s["name"], s["side"], s["status"]) for s in asks] == [("Eve", "red", "pending")]
    # the pending phone cannot play, and another seat cannot decide
    other.refresh()
    r = other.event({"type": "exhaust", "side": "red", "ranks": [1]}, expect=403)
    assert "waiting for the host" in r.get_json()["error"]
    red.refresh()
    red.post(f"/seats/{other.seat['id']}/decision", {"approve": True}, expect=403)
    host.refresh()
    host.post(f"/seats/{other.seat['id']}/decision", {"approve": True}, expect=200)
    # the old phone's key no longer works; the new one plays
    r = red.client.get(f"/api/tables/{red.code}/me", headers=red.headers())
    assert r.status_code == 401 and "taken over" in r.get_json()["error"]
    other.refresh()
    other.event({"type": "exhaust", "side": "red", "ranks": [1]})
    assert [s["name"] for s in other.view["seats"]] == ["Eve"]
