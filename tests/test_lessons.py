"""A learning game's lessons (issue 53): each rule explained once, at the moment it first
matters and before the step that uses it; nothing explained again to a table that has seen
it; every lesson short and in the four languages.

Read over random legal games through the public engine (``random_record``), as the table
would meet them step by step (``companion.table.lessons.moments``)."""

from __future__ import annotations

import random

import pytest

from companion.engine import Check, Exhaust, Intel, Reveal, Start, Tokens, replay
from companion.engine.simulate import random_record
from companion.help.entries import LOCALES, lesson
from companion.table.lessons import LESSONS, moments

GAMES = 200
# the step a lesson is due before: the event entered right after its moment
BEFORE = {"exhaust": Exhaust, "deploy": Intel, "intel": Tokens, "start": Start,
          "reveal": Reveal, "deception": Reveal, "check": Check}


def games() -> list:
    return [random_record(random.Random(seed), wall_distance=random.Random(seed).randint(2, 5))
            for seed in range(GAMES)]


def test_each_lesson_comes_once_before_the_step_that_uses_it_and_never_twice():
    met = dict.fromkeys(LESSONS, 0)
    for rec in games():
        events = rec.events
        first = moments(rec.options, events)
        # the first steps of any game, in their order (R3, R10, R11, R12, R13, R14, R30)
        assert [k for k in first if k in BEFORE][:6] == [
            "exhaust", "deploy", "intel", "start", "reveal", "deception"]
        for key, at in first.items():
            met[key] += 1
            state = replay(rec.options, events[:at])
            nxt = events[at] if at < len(events) else None
            last = state.reveals[-1] if state.reveals else None
            just = last if last is not None and last.index == at - 1 else None
            if key in BEFORE:
                assert isinstance(nxt, BEFORE[key]), (key, at, nxt)
            elif key == "last-day":               # R72, before day 3's first step
                assert isinstance(nxt, Exhaust) and state.day == 2, (at, state.day)
            elif key == "flag":                   # R70: the double agent on a wall
                assert abs(state.da) == state.wall, (at, state.da)
            elif key == "da":                     # R31, R32: the move just made
                assert just and {e.kind for e in just.effects} & {"da", "infiltrate"}
            elif key in ("order", "lie"):         # R60, R61: the reveal just decided so
                assert just and (just.rule == {"order": "R60", "lie": "R61"}[key]
                                 or key == "order" and any(e.kind == "order_broken"
                                                           for e in just.effects)), just
            else:                                 # a soldier's ability (R40-R49)
                rank = int(key.split("-")[1])
                chosen = isinstance(nxt, Reveal) and nxt.actual == rank and nxt.choice
                used = just and any(getattr(e, "rank", None) == rank and e.kind == "use"
                                    for e in just.effects)             # R45
                assert chosen or used or (just and just.actual == rank
                                          and just.outcome == "activated"), (key, at, just)
        # the same players' next game: every lesson seen, nothing explained again
        assert moments(rec.options, events, seen=LESSONS) == {}
        # and a lesson seen in an earlier game is left out of this one
        assert "reveal" not in moments(rec.options, events, seen={"reveal"})
    # every lesson met in these games (the rare ones: a capture check, a broken order)
    assert all(met.values()), met


@pytest.mark.parametrize("locale", LOCALES)
def test_every_lesson_is_short_and_written_in_each_language(locale):
    for key in LESSONS:
        words = lesson(key, locale)
        assert words["title"] and words["rules"], (key, locale)
        assert len(words["text"].split()) <= 40, (key, locale, words["text"])
        assert all(r.startswith("R") for r in words["rules"])
        if locale != "en" and not key.startswith("ability"):
            assert words["text"] != lesson(key, "en")["text"], (key, locale)
    with pytest.raises(KeyError):
        lesson("no-such-lesson", locale)
