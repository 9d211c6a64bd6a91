"""The practice round (issue 53): one scripted round on the real screens, every card face
up. The script replays through the referee; a practice table takes only the script's next
step (anything else is refused in words), draws nothing at random, and is never counted:
not in the history, the statistics, the ratings, the intel cards learnt, the tables in
play, nor "back to your game" once it is over."""

from __future__ import annotations

import pytest

from companion.engine import Draft, Phase, apply, event_from_dict, new_game, replay
from companion.store.models import Player as PlayerRow
from companion.store.models import db
from companion.table import practice

from .conftest import ORIGIN, Player, sit

STRANGER = {"REMOTE_ADDR": "127.0.3.2"}       # another device on the network


@pytest.mark.anydb      # the referee alone: no database in it
def test_the_script_plays_through_the_referee_tap_by_tap():
    """Every scripted event is legal, each reveal tapped as the screens tap it (the guess
    offered among the draft's ranks, then the card); the round shows a right guess, a
    wrong one, abilities acting and the double agent moving, and stops at day 1's end."""
    state = new_game(practice.RECORD.options)
    for e in practice.SCRIPT:
        if e["type"] == "reveal":
            draft = Draft.begin(state)
            assert draft is not None and e["guess"] in draft.view()["ranks"]
            draft = draft.tap("guess", e["guess"], by=e["guesser"])
            assert isinstance(draft, Draft) and e["actual"] in draft.view()["ranks"]
            done = draft.tap("actual", e["actual"], by=e["guesser"])
            assert done.to_dict() == event_from_dict(e).to_dict()
        state = apply(state, event_from_dict(e))
    assert state == replay(practice.RECORD)
    assert state.phase == Phase.ROUND_END and state.day == 1 and state.outcome is None
    # right, wrong (the Scout), right for 4, wrong (the Lieutenant: the agent moves),
    # wrong (the Sergeant), right, right (red reaches 10: the agent moves), right
    assert [str(r.outcome) for r in state.reveals] == [
        "identified", "activated", "identified", "activated", "activated", "identified",
        "identified", "identified"]
    das = [r.da for r in state.reveals]
    assert das[0] == 0 and das[-1] == 2 and len(set(das)) == 3     # moved, twice
    assert (state.ip["red"], state.ip["blue"], state.da) == (0, 8, 2)
    # the R10 order of each line-up (the Sergeant free)
    for ranks in practice.LINEUPS.values():
        kept = [r for r in ranks if r != 4]
        assert kept == sorted(kept) and len(set(ranks)) == 4


def _play(host: Player, phone: Player, wants: list) -> None:
    """Tap the script to its end: blue's steps on the phone, the rest on the big screen,
    each as the view's ``practice.want`` names it."""
    while not host.refresh()["practice"]["over"]:
        want = host.view["practice"]["want"][0]
        wants.append(want)
        who = phone if want["side"] == "blue" else host
        if want["step"].startswith("reveal-"):
            who.draft(want["step"][7:], want["value"], expect=None)
        elif want["step"] == "start":
            who.event({"type": "start", "random": True})        # the script's, not chance
        elif want["step"] == "tokens":
            who.event({"type": "tokens", "side": want["side"], "missions": want["missions"]})
        elif want["step"] == "exhaust":
            who.event({"type": "exhaust", "side": want["side"], "random": True})
        else:
            who.event({"type": "intel", "ranks": want["ranks"]})


def test_a_practice_table_takes_only_the_script_and_is_never_counted(client, app):
    r = client.post("/api/tables", json={"practice": True, "wall_distance": 7},
                    headers={"Origin": ORIGIN})
    assert r.status_code == 201, r.get_json()
    host = Player(client, r.get_json()["code"], r.get_json()["host_secret"])
    v = host.refresh()
    # a learning game on the script's board, both sides on the big screen
    assert v["first_game"] is True and v["wall_distance"] == practice.WALL
    assert sorted((s["side"], s["screen"]) for s in v["seats"]) == [("blue", True),
                                                                    ("red", True)]
    assert v["practice"]["lineups"] == {"red": [2, 5, 8, 9], "blue": [1, 3, 4, 8]}
    assert [w["side"] for w in v["practice"]["want"]] == ["red", "blue"]
    # off the script: refused with the view, in the screen's language
    r = host.event({"type": "exhaust", "side": "red", "ranks": [7]}, expect=409)
    assert r.get_json()["code"] == "practice" and r.get_json()["view"]["practice"]
    assert "practice round" in r.get_json()["error"]
    r = client.post(f"/api/tables/{host.code}/events", headers={
        "Origin": ORIGIN, "Authorization": f"Bearer {host.secret}", "Accept-Language": "de"},
        json={"version": host.version, "idempotency_key": "practice-de-1",
              "event": {"type": "exhaust", "side": "red", "ranks": [7]}})
    assert r.status_code == 409 and "Übungsrunde" in r.get_json()["error"], r.get_json()
    # a stranger on the network without the host key cannot post at all
    r = client.post(f"/api/tables/{host.code}/events", environ_base=STRANGER,
                    headers={"Origin": ORIGIN},
                    json={"version": host.version, "idempotency_key": "practice-x-1",
                          "event": practice.SCRIPT[0]})
    assert r.status_code in (401, 403), r.get_json()
    # a phone still takes a side the usual way: the screen gives blue up, a phone sits
    host.post("/screen", {"side": "blue", "on": False}, expect=200)
    phone = sit(host, "blue", "Bea", player="p" * 43)
    # the pair either way round: blue's soldier first, drawn "at random" (the script's)
    r = phone.event({"type": "exhaust", "side": "blue", "random": True})
    assert r.get_json()["event"]["ranks"] == practice.EXHAUSTED["blue"]
    wants: list = []
    _play(host, phone, wants)
    # a wrong guess was refused on the way? try one at the last reveal, undone first
    assert [w["step"] for w in wants].count("reveal-guess") == 8
    host.post("/undo", {}, expect=200)       # the last reveal back, the phone agrees
    if host.refresh()["undo"]:
        phone.post("/undo", {"confirm": True}, expect=200)
    assert not host.refresh()["practice"]["over"]
    r = phone.draft("guess", 2, expect=409)
    assert r.get_json()["code"] == "practice"
    phone.draft("guess", 9)
    r = phone.draft("actual", 8, expect=409)             # the card the script turns up only
    phone.draft("actual", 9, expect=201)
    end = host.refresh()
    assert end["practice"]["over"] and end["state"]["phase"] == "round_end"
    r = host.event({"type": "exhaust", "side": "red", "random": True}, expect=409)
    assert "over" in r.get_json()["error"]
    # never counted: no history, no statistics, nobody listed or rated, no table in play,
    # no intel card learnt for the next table, no "back to your game" to it
    assert client.get("/api/history").get_json()["games"] == []
    stats = client.get("/api/stats").get_json()
    assert stats["games"] == 0 and stats["players"] == [] and stats["ladder"] == []
    assert stats["in_play"] == 0
    r = client.post("/api/tables/mine", json={"tables": [{"code": host.code, "key": host.secret}]},
                    headers={"Origin": ORIGIN})
    assert r.get_json()["tables"] == []
    real = Player(client, client.post("/api/tables", json={}, headers={"Origin": ORIGIN})
                  .get_json()["code"])
    red, blue = sit(real, "red", "Ann"), sit(real, "blue", "Bob")
    red.event({"type": "exhaust", "side": "red", "ranks": [1]})
    blue.event({"type": "exhaust", "side": "blue", "ranks": [2]})
    v = real.refresh()
    assert v["taps"]["cards"] == [] and "practice" not in v and v["first_game"] is False
    # and the lessons the practice showed Bea's phone are not taken as taught: her real
    # learning game explains them again
    with app.app_context():
        assert db.session.query(PlayerRow).filter_by(name="Bea").one().taught is None
