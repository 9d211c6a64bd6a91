"""A reveal being entered tap by tap at the table: a pure value (R13, R14, R45, R49, R60, R80).

As the box is played, with as few hand-offs as possible:

1. ``guess`` by the guesser: the rank it names, 1-10 (R13). Before it, while the
   guess is awaited, the owner *may* tap ``deception`` to play a deception token
   on the mission (R14): no token is the default, so nobody waits for it. After
   R60 fired for the owner this round, no guess is needed: the card counts as
   identified whatever is named (the reveal records the card's own rank).
2. ``actual``: the rank turned up, face up for everyone, so either side's phone
   may tap it (the first tap counts), one the owner may still show (not revealed,
   not exhausted this round).
3. ``choice`` by the owner, only when the soldier activated is a Captain or
   Marshal with choices (R45, R49).

:meth:`Draft.tap` returns the next draft, or the complete :class:`Reveal` once
nothing is left to tap; :meth:`Draft.undo` takes back the last tap.

>>> from companion.engine import Record, replay
>>> from companion.engine.simulate import random_record
>>> import random
>>> rec = random_record(random.Random(3))
>>> state = replay(rec.options, rec.events[:7])      # day 1's first reveal is due
>>> d = Draft.begin(state)
>>> d.step, str(d.side), d.mission
('guess', 'blue', 1)
>>> d = d.tap("guess", 5)
>>> d.step, sorted(map(str, d.sides)), d.guess
('actual', ['blue', 'red'], 5)
>>> d.undo().step
'guess'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .errors import IllegalEvent, MalformedEvent, OutOfTurn
from .events import RANKS, Reveal, Side, other
from .expect import team_part
from .preview import choice_options
from .referee import apply
from .state import State
from .words import N_, Msg, side
from .words import rank as rank_word

Step = Literal["deception", "guess", "actual", "choice"]
STEPS: tuple[Step, ...] = ("deception", "guess", "actual", "choice")
# a step named in a refusal ("actual": the card turned up)
STEP_WORDS = {"deception": N_("deception"), "guess": N_("guess"), "actual": N_("actual"),
              "choice": N_("choice")}


@dataclass(frozen=True, slots=True)
class Draft:
    """The taps so far of the reveal due in ``state`` (``None`` for a step not tapped yet).

    ``auto_deception``: the owner held no deception token, so ``deception`` was
    set to ``False`` without a tap (R14) and cannot be taken back.
    """

    state: State = field(compare=False, repr=False)
    deception: bool = False
    guess: int | None = None
    actual: int | None = None
    auto_deception: bool = False
    by: Side | None = None          # the side whose phone tapped the card turned up

    # --- making one ---------------------------------------------------------------

    @classmethod
    def begin(cls, state: State) -> Draft | None:
        """A new draft for the reveal ``state`` waits for; ``None`` when no reveal is due."""
        nxt = state.next_reveal()
        if nxt is None:
            return None
        auto = state.dt[other(nxt[0])] < 1      # R14: no token, nothing to decide
        return cls(state, False, auto_deception=auto)

    @classmethod
    def from_dict(cls, state: State, d: Mapping[str, Any] | None) -> Draft | None:
        """The stored draft ``d`` for ``state``; a fresh one if ``d`` is missing or stale.

        A stored draft is stale when it was made for another event count (an event
        was recorded or undone since) or its taps do not fit the reveal due now.
        ``None`` when no reveal is due. A draft stored by an older version (with
        ``deception`` still undecided, ``None``) reads as no token played.
        """
        fresh = cls.begin(state)
        if fresh is None or not d or d.get("events") != state.event_count:
            return fresh
        deception = d.get("deception") or False
        guess, actual, by = d.get("guess"), d.get("actual"), d.get("by")
        ok = (type(deception) is bool and (not deception or fresh.can_deceive)
              and (guess is None or (type(guess) is int and guess in RANKS))
              and (actual is None or (type(actual) is int and actual in fresh.ranks
                                      and (guess is not None or not fresh.guess_needed)))
              and by in (None, "red", "blue"))
        if not ok:
            return fresh
        draft = cls(state, deception, guess, actual, fresh.auto_deception,
                    Side(by) if by else None)
        if actual is not None and not draft.choices:
            return fresh            # a card turned up without a choice ends the reveal
        return draft

    def to_dict(self) -> dict[str, Any]:
        """What to store between taps: the taps and the event count they belong to.

        >>> from companion.engine import new_game
        >>> Draft(new_game()).to_dict()
        {'deception': False, 'guess': None, 'actual': None, 'events': 0, 'auto_deception': False}
        """
        out: dict[str, Any] = {"deception": self.deception, "guess": self.guess,
                               "actual": self.actual, "events": self.state.event_count,
                               "auto_deception": self.auto_deception}
        if self.by is not None:
            out["by"] = str(self.by)
        return out

    # --- the reveal it belongs to ---------------------------------------------------

    @property
    def guesser(self) -> Side:
        """The side that guesses (R13)."""
        nxt = self.state.next_reveal()
        assert nxt is not None, "a draft is made only while a reveal is due"
        return nxt[0]

    @property
    def owner(self) -> Side:
        """The side whose card is turned up."""
        return other(self.guesser)

    @property
    def mission(self) -> int:
        """The owner's mission 1-4 being guessed (R13)."""
        nxt = self.state.next_reveal()
        assert nxt is not None, "a draft is made only while a reveal is due"
        return nxt[1]

    @property
    def part(self) -> int:
        """R80: the team part (1: missions 1-2, 2: missions 3-4) that taps for each side."""
        return team_part(self.mission)

    @property
    def token(self) -> bool:
        """Whether the owner put an intel token on this mission (R11)."""
        return self.mission in (self.state.tokens[self.owner] or ())

    @property
    def ranks(self) -> list[int]:
        """The ranks the owner may still turn up: not revealed, not exhausted."""
        return self.state.hand_ranks(self.owner)

    @property
    def can_deceive(self) -> bool:
        """R14: the owner holds a deception token."""
        return self.state.dt[self.owner] > 0

    @property
    def guess_needed(self) -> bool:
        """R60: after the owner's order broke this round, its cards need no guess."""
        return not self.state.broken[self.owner]

    @property
    def step(self) -> Step:
        """The step waited for now (``deception`` is never waited for: it is optional)."""
        if self.guess is None and self.guess_needed:
            return "guess"
        if self.actual is None:
            return "actual"
        return "choice"

    @property
    def side(self) -> Side:
        """The side whose phone is asked to tap now: the guesser for the guess and the
        card, the owner for its choice."""
        return self.owner if self.step == "choice" else self.guesser

    @property
    def sides(self) -> tuple[Side, ...]:
        """Every side that may tap the step now: the card is face up for both."""
        if self.step == "actual":
            return (self.guesser, self.owner)
        return (self.side,)

    @property
    def may_deceive(self) -> bool:
        """The owner may still play a deception token: it holds one and the guess is
        still awaited (R14)."""
        return self.can_deceive and not self.deception and self._before_guess

    @property
    def _before_guess(self) -> bool:
        """Nothing named or turned up yet: the time to lay a deception token."""
        return self.guess is None and self.actual is None

    def may_tap(self, step: str) -> tuple[Side, ...]:
        """The sides that may tap ``step`` now (empty: that step is not open)."""
        if step == "deception":
            return (self.owner,) if self.can_deceive and self._before_guess else ()
        return self.sides if step == self.step else ()

    @property
    def choices(self) -> list[dict[str, Any]]:
        """At the ``choice`` step, the owner's options with what each would do (R45, R49)."""
        if self.actual is None or (self.guess is None and self.guess_needed):
            return []
        return choice_options(self.state, self._guess(self.actual), self.actual,
                              self.deception)

    def _guess(self, actual: int) -> int:
        """The guess the reveal records: the one named, or (R60, none needed) the card."""
        return self.guess if self.guess is not None else actual

    def view(self) -> dict[str, Any]:
        """The draft as the screens show it: the reveal, the taps so far, the step."""
        return {"guesser": self.guesser, "owner": self.owner, "mission": self.mission,
                "part": self.part, "token": self.token, "ranks": self.ranks,
                "can_deceive": self.can_deceive, "deception": self.deception,
                "guess": self.guess, "actual": self.actual, "choices": self.choices,
                "step": self.step, "side": self.side, "sides": list(self.sides),
                "may_deceive": self.may_deceive, "guess_needed": self.guess_needed}

    # --- tapping --------------------------------------------------------------------

    def tap(self, step: str, value: object, by: Side | None = None) -> Draft | Reveal:
        """Tap ``value`` for ``step`` (from ``by``'s phone): the next draft, or the reveal.

        Refusals: :class:`OutOfTurn` for a step that is not open now;
        :class:`MalformedEvent` for a value of the wrong type or range;
        :class:`IllegalEvent` for a token the owner does not hold, a rank the owner
        cannot turn up or a choice not offered (and any refusal of the referee).
        """
        if step not in STEPS:
            raise MalformedEvent(Msg("the step must be deception, guess, actual or choice, "
                                     "not {value}", value=_show(step)))
        if step == "deception":
            if type(value) is not bool:
                raise MalformedEvent(Msg("'{key}' must be true or false, not {value}",
                                         key="value", value=_show(value)))
            if value and not self.can_deceive:
                raise IllegalEvent(Msg("{side} holds no deception token", side=self.owner))
            if not self._before_guess:
                raise OutOfTurn(Msg("a deception token is played before the guess, and "
                                    "{side} has guessed already", side=self.guesser))
            return replace(self, deception=value)
        if step != self.step:
            raise OutOfTurn(Msg("this reveal waits for the {step} from {side}, not the {sent}",
                                step=Msg(STEP_WORDS[self.step]), side=self.side,
                                sent=Msg(STEP_WORDS[step])))
        if step == "guess":
            return replace(self, guess=_rank(value))
        if step == "actual":
            rank = _rank(value)
            if rank not in self.ranks:
                raise IllegalEvent(Msg("{side} cannot turn up the {name} now: it is already "
                                       "revealed or exhausted", side=self.owner,
                                       name=rank_word(rank)))
            options = choice_options(self.state, self._guess(rank), rank, self.deception)
            reveal = self._reveal(rank, options[0]["choice"] if options else None)
            return replace(self, actual=rank, by=by) if options else reveal
        offered = [o["choice"] for o in self.choices]
        if not isinstance(value, str) or value not in offered:
            raise IllegalEvent(Msg("'value' must be one of: {offered}, not {value}",
                                   offered=", ".join(offered), value=_show(value)))
        assert self.actual is not None
        return self._reveal(self.actual, value)

    def _reveal(self, actual: int, choice: str | None) -> Reveal:
        """The reveal with these taps, checked by the referee (it raises its refusal)."""
        event = Reveal(self.guesser, self.mission, self._guess(actual), actual,
                       self.deception, choice)
        apply(self.state, event)
        return event

    def undo(self) -> Draft | None:
        """The draft without its last tap; ``None`` when there is none to take back."""
        if self.actual is not None:
            return replace(self, actual=None, by=None)
        if self.guess is not None:
            return replace(self, guess=None)
        if self.deception:
            return replace(self, deception=False)
        return None

    @property
    def undone(self) -> Msg:
        """Words for the tap :meth:`undo` takes back."""
        if self.actual is not None:
            return Msg("the {name} turned up on {owner}'s mission {mission}",
                       name=rank_word(self.actual), owner=side(self.owner),
                       mission=self.mission)
        if self.guess is not None:
            return Msg("{guesser}'s guess {name} on {owner}'s mission {mission}",
                       guesser=side(self.guesser), name=rank_word(self.guess),
                       owner=side(self.owner), mission=self.mission)
        return Msg("{owner}'s deception token on mission {mission}", owner=side(self.owner),
                   mission=self.mission)

    @property
    def undone_by(self) -> Side:
        """The side that tapped what :meth:`undo` takes back."""
        if self.actual is not None:
            return self.by or self.guesser
        return self.guesser if self.guess is not None else self.owner


def _rank(value: object) -> int:
    if type(value) is not int or value not in RANKS:
        raise MalformedEvent(Msg("'value' must be a rank 1-10, not {value}", value=_show(value)))
    return value


def _show(value: object) -> str:
    try:
        return json.dumps(value)[:40]
    except (TypeError, ValueError):
        return repr(value)[:40]
