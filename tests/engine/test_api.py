"""The engine's public API: values, purity, refusals, what can happen next, narration."""

from __future__ import annotations

import ast
import dataclasses
import json
import pathlib
import random

import pytest

from companion.engine import (
    Check,
    Exhaust,
    GameOver,
    IllegalEvent,
    Intel,
    MalformedEvent,
    Options,
    OutOfTurn,
    Record,
    RecordError,
    Reveal,
    Start,
    Tokens,
    ability_preview,
    apply,
    choice_options,
    event_from_dict,
    expected,
    narrate_end,
    narrate_reveal,
    new_game,
    replay,
    replay_output,
    reveal_options,
)
from companion.engine.simulate import random_record

from .builder import Table

ENGINE = pathlib.Path(__file__).resolve().parents[2] / "companion" / "engine"


def test_engine_imports_neither_flask_nor_sqlalchemy():
    for path in ENGINE.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            for n in names:
                root = n.split(".")[0]
                assert root not in ("flask", "sqlalchemy", "flask_sqlalchemy", "werkzeug"), \
                    f"{path.name} imports {n}"


def test_engine_runs_without_flask_installed_in_a_fresh_interpreter():
    import subprocess
    import sys
    code = ("import sys; sys.modules['flask'] = None; sys.modules['sqlalchemy'] = None\n"
            "import companion.engine as e, random\n"
            "from companion.engine.simulate import random_record\n"
            "s = e.replay(random_record(random.Random(1)))\n"
            "assert s.phase == 'over'\n"
            "assert 'flask' not in [m for m in sys.modules if sys.modules[m]]\n")
    subprocess.run([sys.executable, "-c", code], check=True)


EVENTS = [
    Exhaust("red", (3,)), Exhaust("blue", (7, 2)), Intel((1, 4, 9, 10)), Tokens("red", ()),
    Tokens("blue", (4, 1)), Start("blue"), Reveal("red", 3, 6, 10, True, "drain"),
    Reveal("blue", 1, 1, 1, False), Check("red", ((4, 9), (2, 5))), Check("blue", ()),
]


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: e.type)
def test_events_round_trip_exactly(event):
    d = event.to_dict()
    assert event_from_dict(d) == event
    assert event_from_dict(json.loads(json.dumps(d))).to_dict() == d
    first = dataclasses.fields(event)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(event, first, "x")


@pytest.mark.parametrize("raw, message", [
    ({"type": "reveal", "guesser": "green", "mission": 1, "guess": 1, "actual": 2,
      "deception": False}, "'guesser' must be \"red\" or \"blue\", not \"green\""),
    ({"type": "reveal", "guesser": "red", "mission": 5, "guess": 1, "actual": 2,
      "deception": False}, "'mission' must be a mission 1-4, not 5"),
    ({"type": "reveal", "guesser": "red", "mission": 1, "guess": True, "actual": 2,
      "deception": False}, "'guess' must be a rank 1-10, not true"),
    ({"type": "reveal", "guesser": "red", "mission": 1, "guess": 1, "actual": 2},
     "'deception' must be true or false, not null"),
    ({"type": "intel", "ranks": [1, 2, 3]}, "'ranks' must hold 4 ranks, not 3"),
    ({"type": "intel", "ranks": [1, 2, 3, 3]}, "'ranks' names the same rank twice"),
    ({"type": "exhaust", "side": "red", "ranks": [1, 2, 3]}, "must hold 1 or 2 ranks"),
    ({"type": "check", "side": "red", "ranks": {"5": 1}}, "keys must be missions"),
    ({"type": "party"}, "unknown event type \"party\""),
    ([1, 2], "an event must be an object"),
])
def test_malformed_events_are_refused_naming_the_key(raw, message):
    with pytest.raises(MalformedEvent) as err:
        event_from_dict(raw)
    assert message in str(err.value)


def test_record_refusals_name_the_event_index():
    good = random_record(random.Random(3)).to_dict()
    good["events"][5]["side"] = "purple"
    with pytest.raises(MalformedEvent, match="^event 5: 'side' must be"):
        Record.from_dict(good)
    with pytest.raises(RecordError, match="'format' must be"):
        Record.from_dict({"format": "other", "events": []})
    with pytest.raises(RecordError, match="not valid JSON"):
        Record.from_json("{")


def test_options_may_be_omitted():
    r = Record.from_dict({"format": "spies-and-lies-record/1", "events": []})
    assert r.options == Options(4)


def test_apply_leaves_the_held_state_untouched():
    t = Table()
    t.day([1, 2, 3, 5], [1, 2, 3, 5])
    before = t.state
    snapshot = json.dumps(before.to_dict(), sort_keys=True)
    after = apply(before, Reveal("red", 1, 3, 1, True))
    assert json.dumps(before.to_dict(), sort_keys=True) == snapshot
    assert after.ip["blue"] == 5 and before.ip["blue"] == 0
    with pytest.raises(OutOfTurn):
        apply(before, Reveal("blue", 1, 3, 9, False))
    assert json.dumps(before.to_dict(), sort_keys=True) == snapshot


def test_every_kind_of_refusal_is_typed_and_in_plain_words():
    t = Table(red_exhausted=10, blue_exhausted=9)
    cases = [
        (Reveal("red", 1, 1, 2), OutOfTurn,
         "event 2: no reveal is due now: Day 1: record the intel card"),
        (Tokens("red", ()), OutOfTurn, "intel tokens come after the intel card"),
        (Check("red", ()), OutOfTurn, "a capture check comes only right after a flag capture"),
        (Exhaust("red", (1,)), OutOfTurn, "no exhaustion draw is due now"),
    ]
    for event, kind, message in cases:
        with pytest.raises(kind) as err:
            t.do(event)
        assert message in str(err.value)
    t.day([1, 2, 3, 5], [1, 2, 3, 5], start="red")
    with pytest.raises(IllegalEvent, match="event 6: blue's General \\(9\\) is exhausted"):
        t.do(Reveal("red", 1, 1, 9))
    with pytest.raises(OutOfTurn) as err:
        t.do(Start("red"))
    assert err.value.code == "out_of_turn"


def test_nothing_after_the_game_ended():
    rec = random_record(random.Random(11))
    state = replay(rec)
    with pytest.raises(GameOver, match=f"event {len(rec.events)}: the game is over"):
        apply(state, Intel((1, 2, 3, 4)))


def test_expected_walks_through_a_round():
    s = new_game()
    assert expected(s).to_dict() == {
        "type": "exhaust", "sides": ["red", "blue"], "count": {"red": 1, "blue": 1},
        "text": "Record the exhausted soldier of red and blue (each drawn by the opponent)"}
    s = replay(Options(), [Exhaust("blue", (1,)), Exhaust("red", (2,))])
    assert (expected(s).type, expected(s).sides) == ("intel", ())
    s = apply(s, Intel((1, 2, 3, 4)))
    assert (expected(s).type, expected(s).sides) == ("tokens", ("red", "blue"))
    s = apply(s, Tokens("blue", ()))
    assert (expected(s).type, expected(s).sides) == ("tokens", ("red",))
    s = apply(s, Tokens("red", ()))
    assert expected(s).text == "Spin for the starting side"
    s = apply(s, Start("blue"))
    assert expected(s).text == "Blue: guess red's mission 1"
    opts = reveal_options(s)
    assert opts["ranks"] == [1, 3, 4, 5, 6, 7, 8, 9, 10] and opts["deception"] is True
    assert expected(replay(random_record(random.Random(5)))).type is None


def test_choice_options_preview_captain_and_marshal():
    t = Table(red_exhausted=9)
    t.day([6, 7, 8, 10], [1, 2, 3, 5], start="blue")
    options = choice_options(t.state, guess=1, actual=6, deception=True)
    assert [(o["choice"], o["ip"]["red"], o["da"]) for o in options] == [
        ("ip", 0, 1), ("use:9", 4, 2)]      # 6+4 infiltrates (DA 1); General DA 2, token 4
    assert options[1]["label"] == "Use the exhausted General"
    assert choice_options(t.state, guess=6, actual=6, deception=False) == []   # identified
    assert choice_options(t.state, guess=1, actual=7, deception=False) == []   # no choice
    assert t.state.ip == {"red": 0, "blue": 0}                                  # untouched


def test_ability_calculator_uses_round_effects():
    t = Table(red_exhausted=10)
    t.day([1, 2, 6, 7], [1, 2, 3, 5], start="red")
    t.reveal(guess=2)                        # blue's Spy: spy effect against red's Marshal
    pre = ability_preview(t.state, "red", 6)
    by = {p["choice"]: p for p in pre}
    assert set(by) == {"ip", "use:10:ip", "use:10:drain"}
    assert by["ip"]["ip"]["red"] == 6
    used = by["use:10:ip"]
    assert used["ip"]["red"] == 0 and "fizzle" in [e["kind"] for e in used["effects"]]
    assert ability_preview(t.state, "blue", 9)[0]["da"] == -2
    assert t.state.ip == {"red": 0, "blue": 1}


def test_ability_calculator_of_an_exhausted_captain_does_not_crash():
    t = Table(red_exhausted=6)
    t.day([1, 2, 3, 5], [1, 2, 3, 5], start="red")
    assert [p["choice"] for p in ability_preview(t.state, "red", 6)] == ["ip"]


def test_narration_is_built_from_the_outcome_data():
    t = Table()
    t.day([2, 3, 5, 6], [1, 3, 5, 6], start="red")
    t.reveal(guess=2)
    assert narrate_reveal(t.last()) == ("Red guessed Scout on blue's mission 1 — it was the Spy: "
                                         "blue +1 IP, a deception token and red's Marshal is "
                                         "powerless against blue this round.")
    out = replay_output(t.state)
    assert out["reveals"][0]["narration"] == narrate_reveal(t.last())
    assert out["next"]["text"] == "Blue: guess red's mission 1"
    assert narrate_end({"winner": "draw", "reason": "draw"}).endswith("a draw.")


def test_narration_of_a_marshal_draining_a_side_at_zero():
    """R49 with the enemy at 0 IP (R33): nothing is lost, and the words say so ("red -0 IP"
    read as a slip of the referee)."""
    t = Table()
    t.day([1, 2, 3, 4], [10, 2, 3, 5], start="red")
    t.reveal(choice="drain")
    assert narrate_reveal(t.last()) == ("Red guessed Spy on blue's mission 1 — it was the "
                                         "Marshal: blue +5 IP and red has no IP to lose.")
    assert t.state.ip == {"red": 0, "blue": 5}


def test_narration_of_a_colonel_rollover():
    t = Table()
    t.day([1, 4, 5, 8], [1, 2, 3, 5], start="blue", intel=(6, 7, 9, 10))
    t.reveal(guess=2); t.right(); t.reveal(); t.reveal(); t.right(); t.reveal()
    t.reveal()                                # red's Colonel at 7
    assert narrate_reveal(t.last()) == (
        "Blue guessed Spy on red's mission 4 — it was the Colonel: red +8 IP, red infiltrates, "
        "the double agent moves 1 step toward blue's fort and red carries the other 5 IP "
        "over.")
