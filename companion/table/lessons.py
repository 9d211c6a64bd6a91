"""What a learning game explains, and when: each rule at the moment it first matters (issue 53).

A group that has never played learns the game as it goes: before the step that needs a
rule, the table shows that rule in a few words. This module only decides the moments, from
the game's state and the reveal being tapped; the words are the rules' texts
(``help.entries.lesson``: ``companion/help/lessons.<locale>.json``, one file per language,
and a soldier's one-line ability), and which lessons a table or a player has already seen
is the caller's to keep.

- :func:`due`: the lessons whose moment is now, in the order they are best read: first
  what the last reveal just did (an ability, the double agent's move, a broken order, a
  caught lie), then what the step asked for now needs.
- :func:`moments`: over a whole record, where each lesson is first due (the tests read a
  game through it; a table that has seen them all is taught nothing more).

>>> from companion.engine.simulate import random_record
>>> import random
>>> rec = random_record(random.Random(3))
>>> first = moments(rec.options, rec.events)
>>> [k for k, at in first.items() if at == 0]
['exhaust']
>>> first["deploy"] < first["intel"] < first["start"] < first["reveal"]
True
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

from ..engine import Draft, Event, Options, Reveal, expected, new_game
from ..engine.referee import advance
from ..engine.results import UseExhausted
from ..engine.state import Phase, State

#: every lesson a game can give, in the order a game usually meets them; a soldier's
#: ability is ``ability-<rank>`` (R40-R49)
STEP_LESSONS: tuple[str, ...] = ("exhaust", "deploy", "intel", "start", "reveal", "deception",
                                 "flag", "check", "last-day")
AFTER_LESSONS: tuple[str, ...] = ("da", "order", "lie")
LESSONS: tuple[str, ...] = (*STEP_LESSONS[:6], *(f"ability-{r}" for r in range(1, 11)),
                            *AFTER_LESSONS, *STEP_LESSONS[6:])


def due(state: State, draft: Draft | None = None) -> list[str]:
    """The lessons whose moment is the step ``state`` waits for (``draft``: the reveal
    being tapped, if any), each at most once, best read first."""
    out: list[str] = []
    last = state.reveals[-1] if state.reveals else None
    if last is not None and last.index == state.event_count - 1:
        # what the reveal just entered did, before the next step is asked
        if last.outcome == "activated":
            out.append(f"ability-{last.actual}")
        # an exhausted soldier a Captain used acts as if activated (R45)
        out += [f"ability-{e.rank}" for e in last.effects if isinstance(e, UseExhausted)]
        kinds = {e.kind for e in last.effects}
        if kinds & {"da", "infiltrate"}:
            out.append("da")
        if last.rule == "R60" or "order_broken" in kinds:
            out.append("order")
        if last.rule == "R61":
            out.append("lie")
    if state.phase == Phase.OVER:
        return out
    if abs(state.da) == state.wall and state.phase != Phase.CAPTURE_CHECK:
        out.append("flag")
    step = expected(state)
    kind = step.type
    if kind == "exhaust":
        out.append("exhaust")
        if state.phase == Phase.ROUND_END and state.day == 2:
            out.append("last-day")                      # the day that comes is day 3 (R72)
    elif kind == "intel":
        out.append("deploy")
    elif kind == "tokens":
        out.append("intel")
    elif kind == "start" and not step.sides:
        out.append("start")         # (days 2 and 3: the rules say who starts, R12: no tap)
    elif kind == "reveal":
        draft = draft or Draft.begin(state)
        if draft is not None and draft.guess is None and draft.actual is None:
            out.append("reveal")
            if draft.can_deceive:
                out.append("deception")
        if draft is not None and draft.step == "choice" and draft.actual:
            out.append(f"ability-{draft.actual}")    # the Captain's or Marshal's choice
    elif kind == "check" and state.capturer and len(state.revealed[state.capturer]) < 4:
        out.append("check")      # (all four face up: the table records the empty check)
    return list(dict.fromkeys(out))


class Moments:
    """:func:`moments` as a fold that goes on: each lesson's first moment over the events
    so far (``first``), and what it needs to take the next events (the game's state, the
    lessons given). :meth:`extended` makes a new one: a view made for a newer version
    takes its new events only, and the one kept is never changed (issue 53: a learning
    table's every change replayed its whole game for its lessons)."""

    def __init__(self, options: Options, seen: Iterable[str] = (), start: int = 0) -> None:
        self.state = new_game(options)
        self.shown = set(seen)
        self.first: dict[str, int] = {}
        self.count = 0
        self.start = start          # no moment before this many events ("Teach again")
        self._note(0)

    def _note(self, n: int, draft: Draft | None = None) -> None:
        if n < self.start:
            return
        for lesson in due(self.state, draft):
            if lesson not in self.shown:
                self.shown.add(lesson)
                self.first[lesson] = n

    def extended(self, events: Iterable[Event]) -> Moments:
        """These moments with ``events`` entered after the ones so far."""
        out = copy.copy(self)
        out.state, out.shown, out.first = self.state.copy(), set(self.shown), dict(self.first)
        for event in events:
            n = out.count
            if isinstance(event, Reveal) and event.choice is not None:
                # the Captain's or Marshal's choice step: the moment before its reveal
                step: Draft | Reveal | None = Draft.begin(out.state)
                for tap, value in (("deception", event.deception), ("guess", event.guess),
                                   ("actual", event.actual)):
                    if isinstance(step, Draft) and (step.step == tap or (
                            tap == "deception" and value)):
                        step = step.tap(tap, value)
                if isinstance(step, Draft):
                    out._note(n, step)
            advance(out.state, event)
            out.count = n + 1
            out._note(n + 1)
        return out


def moments(options: Options, events: Iterable[Event], seen: Iterable[str] = (),
            start: int = 0) -> dict[str, int]:
    """Each lesson's first moment in a game: the number of events entered before it is
    due (``seen``: lessons given before, left out; ``start``: none before this many
    events). The Captain's and Marshal's choice steps count as the moment before their
    reveal.

    >>> from companion.engine.simulate import random_record
    >>> import random
    >>> rec = random_record(random.Random(3))
    >>> again = moments(rec.options, rec.events, start=12)   # taught again at step 12
    >>> min(again.values()), again["reveal"], again["exhaust"]   # (day 2's exhaust)
    (12, 12, 14)
    """
    return Moments(options, seen, start).extended(events).first


def now(state: State, first: dict[str, int], draft: Draft | None = None) -> list[str]:
    """The lessons a learning table shows now, at ``state`` (``first``: the game's
    :class:`Moments` up to it; ``draft``: the reveal being tapped): those due at this
    step that no earlier step of this game gave. A reveal's lessons stay until its guess
    is named; what a reveal did stays until the next event; a Captain's or Marshal's
    ability shows before its choice."""
    n = state.event_count
    return [key for key in due(state, draft) if first.get(key, n) == n]
