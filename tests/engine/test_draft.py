"""The reveal entered tap by tap (companion.engine.draft): steps, refusals, undo, storage."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import (
    Draft,
    IllegalEvent,
    MalformedEvent,
    OutOfTurn,
    Reveal,
    apply,
    new_game,
    replay,
)
from companion.engine.simulate import random_record

from .builder import Table


def rule(*ids):
    return pytest.mark.rule(*ids)


VIEW_KEYS = ["guesser", "owner", "mission", "part", "token", "ranks", "can_deceive", "deception",
             "guess", "actual", "choices", "step", "side", "sides", "may_deceive",
             "guess_needed"]


def _table() -> Table:
    t = Table(red_exhausted=9, blue_exhausted=9)
    t.day([1, 2, 3, 5], [2, 3, 5, 6], start="red")
    return t


@rule("R13", "R14")
def test_R13_R14_a_reveal_is_a_guess_and_the_card_on_one_phone_with_an_optional_token():
    t = _table()
    d = Draft.begin(t.state)
    assert (d.step, d.side, d.guesser, d.owner, d.mission) == ("guess", "red", "red", "blue", 1)
    assert d.can_deceive and d.may_deceive and d.may_tap("deception") == ("blue",)
    assert d.ranks == [1, 2, 3, 4, 5, 6, 7, 8, 10] and not d.token and not d.deception
    d = d.tap("deception", True)              # the owner lays a token while the guess waits
    assert (d.step, d.side, d.deception, d.may_deceive) == ("guess", "red", True, False)
    d = d.tap("guess", 4)
    assert (d.step, d.side, d.sides, d.guess) == ("actual", "red", ("red", "blue"), 4)
    assert d.may_tap("deception") == ()       # too late once the guess is named
    event = d.tap("actual", 2, by="red")      # the guesser's phone taps the card seen
    assert event == Reveal("red", 1, 4, 2, True)
    after = t.do(event)
    assert after.reveals[-1].outcome == "activated"


@rule("R13")
def test_R13_no_token_is_the_default_two_taps_make_a_reveal():
    t = _table()
    event = Draft.begin(t.state).tap("guess", 3).tap("actual", 3)
    assert event == Reveal("red", 1, 3, 3, False)


@rule("R14")
def test_R14_an_owner_without_a_token_cannot_play_one_and_a_token_comes_before_the_guess():
    t = _table()
    t.reveal(deception=True)              # blue spends its only token on mission 1
    t.reveal()                            # blue guesses red's mission 1
    d = Draft.begin(t.state)
    assert (d.owner, d.can_deceive, d.auto_deception, d.may_deceive) == \
        ("blue", False, True, False)
    with pytest.raises(IllegalEvent, match="blue holds no deception token"):
        d.tap("deception", True)
    assert d.undo() is None
    d = Draft.begin(_table().state).tap("guess", 9)
    with pytest.raises(OutOfTurn, match="before the guess"):
        d.tap("deception", True)


@rule("R60")
def test_R60_after_the_order_broke_no_guess_is_needed():
    t = Table(red_exhausted=9, blue_exhausted=9)
    t.day([1, 2, 3, 5], [5, 2, 3, 6], start="red")
    t.reveal()                              # red guesses blue's mission 1: the Lieutenant
    t.reveal()                              # blue guesses red's mission 1
    t.reveal()                              # red on blue's mission 2: a Scout after it
    assert t.state.broken["blue"]
    t.reveal()                              # blue guesses red's mission 2
    d = Draft.begin(t.state)
    assert (d.owner, d.guess_needed, d.step, d.sides) == ("blue", False, "actual",
                                                          ("red", "blue"))
    event = d.tap("actual", 3)
    assert event == Reveal("red", 3, 3, 3, False)
    assert t.do(event).reveals[-1].outcome == "identified"


@rule("R45")
def test_R45_a_captain_waits_for_its_owners_choice():
    t = Table(red_exhausted=9)
    t.day([6, 7, 8, 10], [1, 2, 3, 5], start="blue")
    d = Draft.begin(t.state).tap("deception", True).tap("guess", 1).tap("actual", 6, by="blue")
    assert isinstance(d, Draft)
    assert (d.step, d.side, d.actual, d.by) == ("choice", "red", 6, "blue")
    assert [(o["choice"], o["ip"]["red"]) for o in d.choices] == [("ip", 0), ("use:9", 4)]
    assert d.view()["choices"] == d.choices
    with pytest.raises(IllegalEvent, match="must be one of: ip, use:9"):
        d.tap("choice", "use:3")
    with pytest.raises(IllegalEvent):
        d.tap("choice", 6)
    assert d.tap("choice", "use:9") == Reveal("blue", 1, 1, 6, True, "use:9")


@rule("R45")
def test_R45_an_identified_captain_has_no_choice():
    t = Table(red_exhausted=9)
    t.day([6, 7, 8, 10], [1, 2, 3, 5], start="blue")
    d = Draft.begin(t.state).tap("guess", 6)
    assert d.tap("actual", 6) == Reveal("blue", 1, 6, 6, False)


@rule("R49")
def test_R49_a_marshal_chooses_ip_or_drain():
    t = Table(red_exhausted=9, blue_exhausted=9)
    t.day([10, 2, 3, 5], [1, 2, 3, 5], start="blue")
    d = Draft.begin(t.state).tap("guess", 1).tap("actual", 10)
    assert [o["choice"] for o in d.choices] == ["ip", "drain"]
    assert d.tap("choice", "drain") == Reveal("blue", 1, 1, 10, False, "drain")


@rule("R80")
def test_R80_the_draft_names_the_team_part_of_its_mission():
    t = _table()
    for _ in range(4):
        t.reveal()
    d = Draft.begin(t.state)
    assert (d.mission, d.part, d.view()["part"]) == (3, 2, 2)
    assert Draft.begin(_table().state).part == 1


@pytest.mark.parametrize("step, value, kind, message", [
    ("actual", 3, OutOfTurn, "this reveal waits for the guess from red, not the actual"),
    ("choice", "ip", OutOfTurn, "waits for the guess from red, not the choice"),
    ("card", 3, MalformedEvent, "the step must be deception, guess, actual or choice"),
    ("deception", "yes", MalformedEvent, "'value' must be true or false, not \"yes\""),
    ("deception", 1, MalformedEvent, "'value' must be true or false, not 1"),
])
def test_R13_a_tap_of_the_wrong_step_or_value_is_refused(step, value, kind, message):
    d = Draft.begin(_table().state)
    with pytest.raises(kind) as err:
        d.tap(step, value)
    assert message in err.value.reason


@pytest.mark.parametrize("value", [0, 11, True, "3", 2.0, None])
def test_R13_a_guess_or_card_must_be_a_rank(value):
    d = Draft.begin(_table().state)
    with pytest.raises(MalformedEvent, match="'value' must be a rank 1-10"):
        d.tap("guess", value)
    d = d.tap("guess", 3)
    with pytest.raises(MalformedEvent, match="'value' must be a rank 1-10"):
        d.tap("actual", value)


def test_the_owner_cannot_turn_up_an_exhausted_or_revealed_card():
    t = _table()
    d = Draft.begin(t.state).tap("guess", 3)
    with pytest.raises(IllegalEvent, match="blue cannot turn up the General now: it is already "
                                           "revealed or exhausted"):
        d.tap("actual", 9)
    t.do(d.tap("actual", 2))
    t.reveal()
    d = Draft.begin(t.state).tap("guess", 3)
    with pytest.raises(IllegalEvent, match="Scout"):
        d.tap("actual", 2)


def test_undo_takes_back_one_tap_at_a_time_and_says_whose_it_was():
    t = Table(red_exhausted=9)
    t.day([6, 7, 8, 10], [1, 2, 3, 5], start="blue")
    d0 = Draft.begin(t.state)
    d1 = d0.tap("deception", True)
    d2 = d1.tap("guess", 2)
    d3 = d2.tap("actual", 6, by="red")
    assert [str(d3.undone), str(d2.undone), str(d1.undone)] == [
        "the Captain turned up on red's mission 1", "blue's guess Scout on red's mission 1",
        "red's deception token on mission 1"]
    assert [d3.undone_by, d2.undone_by, d1.undone_by] == ["red", "blue", "red"]
    assert d3.undo() == d2 and d2.undo() == d1 and d1.undo() == d0
    assert d0.undo() is None
    assert d3.undo().step == "actual"


def test_a_draft_is_a_frozen_value():
    d = Draft.begin(_table().state)
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.guess = 3  # type: ignore[misc]
    assert d.tap("deception", True) != d and d.deception is False


def test_a_draft_round_trips_through_its_stored_dict():
    t = Table(red_exhausted=9)
    t.day([6, 7, 8, 10], [1, 2, 3, 5], start="blue")
    d = Draft.begin(t.state)
    for step, value in [("deception", True), ("guess", 1), ("actual", 6)]:
        stored = json.loads(json.dumps(d.to_dict()))
        assert Draft.from_dict(t.state, stored) == d
        d = d.tap(step, value, by="blue")
    assert d.to_dict() == {"deception": True, "guess": 1, "actual": 6,
                           "events": t.state.event_count, "auto_deception": False, "by": "blue"}
    assert Draft.from_dict(t.state, json.loads(json.dumps(d.to_dict()))) == d


def test_a_stored_draft_of_an_older_version_is_read():
    t = _table()
    stored = {"events": t.state.event_count, "deception": None, "guess": 7, "actual": None}
    d = Draft.from_dict(t.state, stored)
    assert (d.step, d.deception, d.guess) == ("actual", False, 7)


def test_a_stale_stored_draft_is_ignored():
    t = _table()
    d = Draft.begin(t.state).tap("deception", True).tap("guess", 4)
    stored = d.to_dict()
    t.reveal()                                       # an event recorded since
    assert Draft.from_dict(t.state, stored) == Draft.begin(t.state)
    assert Draft.from_dict(t.state, None) == Draft.begin(t.state)
    fresh = Draft.begin(t.state)
    for junk in ({"events": t.state.event_count, "deception": "x"},
                 {"events": t.state.event_count, "guess": 3, "by": "green"},
                 {"events": t.state.event_count, "deception": False, "actual": 3}):
        assert Draft.from_dict(t.state, junk) == fresh   # taps that do not fit: start over


def test_no_draft_when_no_reveal_is_due():
    s = new_game()
    assert Draft.begin(s) is None
    assert Draft.from_dict(s, {"events": 0, "deception": False}) is None
    assert Draft.begin(replay(random_record(random.Random(2)))) is None


def test_the_view_has_the_keys_the_screens_read():
    d = Draft.begin(_table().state)
    view = d.view()
    assert list(view) == VIEW_KEYS
    assert (view["step"], view["side"], view["sides"], view["choices"], view["deception"]) == (
        "guess", "red", ["red"], [], False)
    assert json.loads(json.dumps(view))["owner"] == "blue"


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_R13_R14_R45_R49_R60_tapping_through_gives_the_games_reveals(seed):
    """Every reveal of a random game, tapped step by step, is that game's Reveal event
    (a choice the referee ignores, for a card that was not activated, is not tapped;
    after R60 no guess is asked, and the reveal records the card's own rank)."""
    record = random_record(random.Random(seed))
    state = new_game(record.options)
    for event in record.events:
        if isinstance(event, Reveal):
            d = Draft.begin(state)
            assert d is not None and (d.guesser, d.mission) == (event.guesser, event.mission)
            assert d.to_dict()["events"] == state.event_count
            if event.deception:
                d = d.tap("deception", True)
            if d.step == "guess":
                d = d.tap("guess", event.guess)
            else:
                assert state.broken[event.owner]
                event = dataclasses.replace(event, guess=event.actual)
            out = d.tap("actual", event.actual)
            if isinstance(out, Draft):
                assert Draft.from_dict(state, out.to_dict()) == out
                out = out.tap("choice", event.choice)
            after = apply(state, event)
            used = after.reveals[-1].choice
            assert out == (event if used is not None or event.choice is None
                           else dataclasses.replace(event, choice=None))
            state = after
        else:
            assert Draft.begin(state) is None or event.type == "check"
            state = apply(state, event)
