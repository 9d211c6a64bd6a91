"""The words and the legal taps the server puts in the view, so the screens need not
work them out again: at each phase of a game played over HTTP, and in imported games
(a day's end, a capture check with face-down cards, a draw), and in the calculator."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from companion.engine import Record, replay, replay_output
from companion.engine.narrate import narrate_effect
from companion.engine.simulate import random_record

from .conftest import ORIGIN, Player, sit

RECORDS = Path(__file__).parent.parent / "records"
EVERY = list(range(1, 11))
NAMES = {"1": "Spy", "2": "Scout", "3": "Miner", "4": "Sergeant", "5": "Lieutenant",
         "6": "Captain", "7": "Bomb", "8": "Colonel", "9": "General", "10": "Marshal"}


def imported(client, events, wall: int = 2) -> Player:
    """A table opened from the first events of a game, as its host screen sees it."""
    rec = {"format": "spies-and-lies-record/1", "options": {"wall_distance": wall},
           "events": events}
    r = client.post("/api/tables/import", json={"record": rec}, headers={"Origin": ORIGIN})
    assert r.status_code == 201, r.get_json()
    host = Player(client, r.get_json()["code"], r.get_json()["host_secret"])
    host.refresh()
    return host


def test_words_and_taps_through_a_game_played_over_http(table):
    host = table(wall_distance=2)
    red, blue = sit(host, "red", "Ann"), sit(host, "blue", "Bob")
    v = host.refresh()
    assert v["words"] == {"da": "at the centre", "da_short": "centre", "winner": None,
                          "reason": None, "next": v["state"]["next"]["text"],
                          "waiting": None, "ranks": NAMES}
    assert v["taps"] == {"step": "exhaust", "sides": ["red", "blue"], "part": None,
                         "count": {"red": 1, "blue": 1}, "ranks": {"red": EVERY, "blue": EVERY}}

    red.event({"type": "exhaust", "side": "red", "ranks": [1]})
    t = red.view["taps"]
    assert (t["sides"], t["count"], t["ranks"]) == (["blue"], {"blue": 1}, {"blue": EVERY})
    blue.event({"type": "exhaust", "side": "blue", "ranks": [10]})
    v = host.refresh()
    assert v["taps"] == {"step": "intel", "sides": [], "part": None, "ranks": EVERY, "count": 4,
                         "cards": []}          # no card seen on this server yet
    assert v["words"]["next"] == "Day 1: record the intel card"

    host.event({"type": "intel", "ranks": [3, 5, 8, 9]})
    assert host.view["taps"] == {"step": "tokens", "sides": ["red", "blue"], "part": None,
                                 "missions": [1, 2, 3, 4]}
    red.event({"type": "tokens", "side": "red", "missions": [2, 4]})
    blue.event({"type": "tokens", "side": "blue", "missions": [2, 4]})
    v = host.refresh()
    assert v["taps"] == {"step": "start", "sides": [], "part": None,
                         "starts": ["red", "blue"], "spin": True}
    assert v["words"]["next"] == "Spin for the starting side"
    host.event({"type": "start", "side": "red"})

    # a reveal built over taps: each step says what it waits for, and who; the owner's
    # deception token is offered beside the guess, never waited for
    v = host.refresh()
    # (issue 22 item 12) blue's exhausted 10 is no guess: blue cannot hold it this round
    assert v["taps"] == {"step": "guess", "sides": ["red"], "part": 1, "ranks": EVERY[:-1],
                         "deceive": {"side": "blue", "mission": 1}}
    assert v["words"]["next"] == "Red: guess blue's mission 1"
    assert v["words"]["waiting"] == "Waiting for red to guess."
    blue.draft("deception", True)
    v = host.refresh()
    # the token laid lies on blue's card: blue holds none while the guess waits (issue 52)
    assert v["state"]["dt"] == {"red": 1, "blue": 0, "supply": 2}
    assert v["taps"] == {"step": "guess", "sides": ["red"], "part": 1, "ranks": EVERY[:-1]}
    assert v["words"]["next"] == "Red: guess blue's mission 1 · deception token played"
    red.draft("guess", 4)
    v = host.refresh()
    assert v["taps"]["step"] == "actual" and v["taps"]["sides"] == ["red", "blue"]
    assert v["taps"]["ranks"] == v["draft"]["ranks"] and 10 not in v["taps"]["ranks"]
    assert v["words"]["next"] == ("Turn up blue's mission 1 (Red guessed Sergeant)"
                                  " · deception token played")
    assert v["words"]["waiting"] == "Waiting for red to tap the rank turned up."
    red.draft("actual", 1, expect=201)
    v = host.refresh()
    assert v["state"]["next"]["text"] == "Blue: guess red's mission 1"
    assert v["words"]["next"] == "Blue: guess red's mission 1"
    assert v["taps"]["deceive"] == {"side": "red", "mission": 1}

    # the rest of test_game's day, up to the Captain's choice: two taps a reveal
    steps = [(blue, "guess", 2, 200), (blue, "actual", 2, 201),
             (red, "guess", 3, 200), (red, "actual", 3, 201),
             (blue, "guess", 9, 200), (blue, "actual", 5, 201),
             (red, "guess", 7, 200), (red, "actual", 7, 201),
             (blue, "guess", 3, 200), (blue, "actual", 6, 200)]
    for who, step, value, code in steps:
        who.draft(step, value, expect=code)
    v = host.refresh()
    assert v["state"]["da"] == 1
    assert (v["words"]["da"], v["words"]["da_short"]) == ("1 toward blue", "1 blue")
    assert v["taps"] == {"step": "choice", "sides": ["red"], "part": 2,
                         "choices": ["ip", "use:1"]}
    assert v["words"]["next"] == "Red: choose what the Captain does"
    summary = {o["choice"]: o["summary"] for o in v["draft"]["choices"]}
    assert summary == {
        # from where each side stands, in words (issue 22 item 5: not "0 IP (−4)")
        "ip": "Then red 4 → 10 → 0 IP (infiltrates) · blue 7 IP · DA 2 toward blue "
              "(1 toward blue)",
        "use:1": "Then red 4 → 5 IP · blue 7 IP · DA 1 toward blue"}
    red.draft("choice", "ip", expect=201)

    # the General walks the double agent onto blue's flag: the capture check, then the end
    for who, step, value, code in [(red, "guess", 8, 200), (red, "actual", 8, 201),
                                   (blue, "guess", 1, 200), (blue, "actual", 9, 201)]:
        who.draft(step, value, expect=code)
    # (red's four cards are face up: its empty check is recorded with the capture, R71)
    v = host.refresh()
    assert v["words"]["winner"] == "Red wins" and v["words"]["reason"] == "flag captured"
    assert v["words"]["next"] == v["state"]["end"] == "Red captured the flag and wins."
    assert v["words"]["da"] == "on blue's flag"
    assert v["taps"] == {"step": "over", "sides": [], "part": None}
    # an undo takes the empty check back with the reveal that took the flag (undone alone
    # it asked again for a check with nothing to turn up): blue's last guess is due again
    assert v["undo_next"]["by"] == "reveal" and v["undo_next"]["what"].startswith("Undo: Blue")
    red.undo()
    blue.post("/undo", {"confirm": True}, expect=200)
    v = host.refresh()
    assert v["state"]["phase"] == "mission" and v["log"][-1]["type"] == "reveal"
    assert v["taps"]["step"] == "guess" and v["taps"]["sides"] == ["blue"]


def test_team_play_says_which_part_is_waited_for(table):
    host = table(teams=True)
    r1, b2 = sit(host, "red", "Ann", part=1), sit(host, "blue", "Dee", part=2)
    r1.event({"type": "exhaust", "side": "red", "ranks": [1]})
    b2.event({"type": "exhaust", "side": "blue", "ranks": [2]})
    host.event({"type": "intel", "ranks": [3, 5, 8, 9]})
    r1.event({"type": "tokens", "side": "red", "missions": []})
    b2.event({"type": "tokens", "side": "blue", "missions": []})
    host.event({"type": "start", "side": "blue"})
    v = host.refresh()
    assert v["taps"] == {"step": "guess", "sides": ["blue"], "part": 1,
                         "ranks": [2, 3, 4, 5, 6, 7, 8, 9, 10],      # red's 1 is exhausted
                         "deceive": {"side": "red", "mission": 1}}
    assert v["words"]["waiting"] == "Waiting for blue (missions 1–2) to guess."


def test_a_days_end_draws_from_the_cards_turned_up_and_the_next_day_starts_in_turn(client):
    rec = json.loads((RECORDS / "random-draw-98.json").read_text())
    events = rec["events"]
    game = Record.from_dict(rec)
    end = next(i for i in range(len(events))
               if replay(Record(game.options, game.events[:i])).phase == "round_end")
    host = imported(client, events[:end], game.options.wall_distance)
    state = replay(Record(game.options, game.events[:end]))
    t = host.view["taps"]
    assert t["step"] == "exhaust" and t["sides"] == ["red", "blue"]
    assert t["count"] == host.view["state"]["next"]["count"]
    assert t["ranks"] == {x: sorted(state.revealed[x].values()) for x in ("red", "blue")}
    # day 2 opens: the side that did not start day 1 starts, no spin
    start = next(i for i in range(end, len(events)) if events[i]["type"] == "start")
    host = imported(client, events[:start], game.options.wall_distance)
    first = next(e for e in events if e["type"] == "start")["side"]
    second = "blue" if first == "red" else "red"
    assert host.view["taps"] == {"step": "start", "sides": [second], "part": None,
                                 "starts": [second], "spin": False}
    assert host.view["words"]["next"] == f"{second.capitalize()} starts day 2"
    # the whole game: a draw
    host = imported(client, events, game.options.wall_distance)
    want = replay_output(replay(game))
    assert want["winner"] == "draw"
    assert host.view["words"]["winner"] == "A draw"
    assert host.view["words"]["reason"] == "equal after day 3"
    assert host.view["words"]["next"] == want["end"]


def test_a_capture_check_lists_the_face_down_missions_and_the_ranks_they_may_hold(client):
    rec = random_record(random.Random(50), wall_distance=2, disorder=0, lie=0)
    events = [e.to_dict() for e in rec.events]
    assert events[-1]["type"] == "check" and events[-1]["side"] == "red"
    host = imported(client, events[:-1])
    state = replay(Record(rec.options, rec.events[:-1]))
    t = host.view["taps"]
    assert t["step"] == "check" and t["sides"] == ["red"]
    assert t["missions"] == {"red": sorted(int(m) for m in events[-1]["ranks"])}
    assert t["ranks"] == {"red": state.hand_ranks("red")}
    assert set(events[-1]["ranks"].values()) <= set(t["ranks"]["red"])


def test_the_calculator_says_each_option_and_its_effects_in_the_narrations_words(table):
    host = table()
    r = host.client.get(f"/api/tables/{host.code}/preview?side=red&rank=10")
    d = r.get_json()
    assert d["name"] == "Marshal" and [o["choice"] for o in d["options"]] == ["ip", "drain"]
    for o in d["options"]:
        words = [w for w in map(narrate_effect, o["effects"]) if w]
        assert o["effect_words"] == "; ".join(words) and words
        assert o["summary"].startswith("Then red ")
    drain = d["options"][1]
    assert drain["summary"] == "Then red 0 → 5 IP · blue 0 IP · DA at the centre"
    spy = host.client.get(f"/api/tables/{host.code}/preview?side=blue&rank=1").get_json()
    assert spy["name"] == "Spy" and spy["options"][0]["effect_words"]


@pytest.mark.anydb
def test_a_choice_that_would_fizzle_says_so_before_it_is_tapped():
    """R45 with R40: a Captain using the exhausted Marshal against the enemy Spy gains
    nothing, and its button says so (issue 11)."""
    from companion.engine import choice_options
    from companion.table.words import choice_label

    from ..engine.builder import Table as Game
    t = Game(red_exhausted=10)
    t.day([1, 2, 6, 7], [1, 2, 3, 5], start="red")
    t.reveal(guess=2)                         # blue's Spy activates: spy effect for blue
    for _ in range(4):
        t.right()
    options = {o["choice"]: o for o in choice_options(t.state, 1, 6, False)}
    assert str(choice_label(options["use:10:ip"], "red")) == (
        "Use the exhausted Marshal (+10 IP): fizzles, the enemy Spy is in play, "
        "nothing gained")
    assert str(choice_label(options["ip"], "red")).startswith("+6 IP: red reaches 10")
