"""A reveal being entered tap by tap at the table: a pure value (R13, R14, R45, R49, R80).

The steps come in this order, each tapped by one side:

1. ``deception`` by the owner: does it play a deception token? Skipped (as
   ``False``) when the owner holds none (R14).
2. ``guess`` by the guesser: the rank it names, 1-10 (R13).
3. ``actual`` by the owner: the rank it turns up, one it may still show (not
   revealed, not exhausted this round).
4. ``choice`` by the owner, only when the soldier activated is a Captain or
   Marshal with choices (R45, R49).

:meth:`Draft.tap` returns the next draft, or the complete :class:`Reveal` once
nothing is left to tap; :meth:`Draft.undo` takes back the last tap.

>>> from companion.engine import Record, replay
>>> from companion.engine.simulate import random_record
>>> import random
>>> rec = random_record(random.Random(3))
>>> state = replay(rec.options, rec.events[:7])      # day 1's first reveal is due
>>> d = Draft.begin(state)
>>> d.step, d.side, d.mission
('deception', <Side.RED: 'red'>, 1)
>>> d = d.tap("deception", False).tap("guess", 5)
>>> d.step, d.side, d.guess
('actual', <Side.RED: 'red'>, 5)
>>> d.undo().step
'guess'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .errors import IllegalEvent, MalformedEvent, OutOfTurn
from .events import RANK_NAMES, RANKS, Reveal, Side, other
from .expect import team_part
from .preview import choice_options
from .referee import apply
from .state import State

Step = Literal["deception", "guess", "actual", "choice"]
STEPS: tuple[Step, ...] = ("deception", "guess", "actual", "choice")


@dataclass(frozen=True, slots=True)
class Draft:
    """The taps so far of the reveal due in ``state`` (``None`` for a step not tapped yet).

    ``auto_deception``: the owner held no deception token, so ``deception`` was
    set to ``False`` without a tap (R14) and cannot be taken back.
    """

    state: State = field(compare=False, repr=False)
    deception: bool | None = None
    guess: int | None = None
    actual: int | None = None
    auto_deception: bool = False

    # --- making one ---------------------------------------------------------------

    @classmethod
    def begin(cls, state: State) -> Draft | None:
        """A new draft for the reveal ``state`` waits for; ``None`` when no reveal is due."""
        nxt = state.next_reveal()
        if nxt is None:
            return None
        auto = state.dt[other(nxt[0])] < 1      # R14: no token, nothing to decide
        return cls(state, False if auto else None, auto_deception=auto)

    @classmethod
    def from_dict(cls, state: State, d: Mapping[str, Any] | None) -> Draft | None:
        """The stored draft ``d`` for ``state``; a fresh one if ``d`` is missing or stale.

        A stored draft is stale when it was made for another event count (an event
        was recorded or undone since) or its taps do not fit the reveal due now.
        ``None`` when no reveal is due.
        """
        fresh = cls.begin(state)
        if fresh is None or not d or d.get("events") != state.event_count:
            return fresh
        deception, guess, actual = d.get("deception"), d.get("guess"), d.get("actual")
        ok = ((deception is None or type(deception) is bool)
              and (deception is not True or fresh.can_deceive)
              and (fresh.can_deceive or deception is False)
              and (guess is None or (type(guess) is int and guess in RANKS
                                     and deception is not None))
              and (actual is None or (type(actual) is int and actual in fresh.ranks
                                      and guess is not None)))
        if not ok:
            return fresh
        draft = cls(state, deception, guess, actual, fresh.auto_deception)
        if actual is not None and not draft.choices:
            return fresh            # a card turned up without a choice ends the reveal
        return draft

    def to_dict(self) -> dict[str, Any]:
        """What to store between taps: the taps and the event count they belong to.

        >>> from companion.engine import new_game
        >>> Draft(new_game()).to_dict()
        {'deception': None, 'guess': None, 'actual': None, 'events': 0, 'auto_deception': False}
        """
        return {"deception": self.deception, "guess": self.guess, "actual": self.actual,
                "events": self.state.event_count, "auto_deception": self.auto_deception}

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
    def step(self) -> Step:
        """The step waited for now."""
        if self.deception is None:
            return "deception"
        if self.guess is None:
            return "guess"
        if self.actual is None:
            return "actual"
        return "choice"

    @property
    def side(self) -> Side:
        """The side that must tap now: the guesser for the guess, else the owner."""
        return self.guesser if self.step == "guess" else self.owner

    @property
    def choices(self) -> list[dict[str, Any]]:
        """At the ``choice`` step, the owner's options with what each would do (R45, R49)."""
        if self.actual is None or self.guess is None or self.deception is None:
            return []
        return choice_options(self.state, self.guess, self.actual, self.deception)

    def view(self) -> dict[str, Any]:
        """The draft as the screens show it: the reveal, the taps so far, the step."""
        return {"guesser": self.guesser, "owner": self.owner, "mission": self.mission,
                "part": self.part, "token": self.token, "ranks": self.ranks,
                "can_deceive": self.can_deceive, "deception": self.deception,
                "guess": self.guess, "actual": self.actual, "choices": self.choices,
                "step": self.step, "side": self.side}

    # --- tapping --------------------------------------------------------------------

    def tap(self, step: str, value: object) -> Draft | Reveal:
        """Tap ``value`` for ``step``: the next draft, or the complete reveal.

        Refusals: :class:`OutOfTurn` for a step other than :attr:`step`;
        :class:`MalformedEvent` for a value of the wrong type or range;
        :class:`IllegalEvent` for a rank the owner cannot turn up or a choice not
        offered (and any refusal of the referee for the reveal itself).
        """
        if step not in STEPS:
            raise MalformedEvent(f"the step must be deception, guess, actual or choice, "
                                 f"not {_show(step)}")
        if step != self.step:
            raise OutOfTurn(f"this reveal waits for the {self.step} from {self.side}, "
                            f"not the {step}")
        if step == "deception":
            if type(value) is not bool:
                raise MalformedEvent(f"'value' must be true or false, not {_show(value)}")
            if value and not self.can_deceive:
                raise IllegalEvent(f"{self.owner} holds no deception token")
            return replace(self, deception=value)
        if step == "guess":
            return replace(self, guess=_rank(value))
        assert self.deception is not None and self.guess is not None
        if step == "actual":
            rank = _rank(value)
            if rank not in self.ranks:
                raise IllegalEvent(f"{self.owner} cannot turn up the {RANK_NAMES[rank]} now: "
                                   "it is already revealed or exhausted")
            options = choice_options(self.state, self.guess, rank, self.deception)
            reveal = self._reveal(rank, options[0]["choice"] if options else None)
            return replace(self, actual=rank) if options else reveal
        offered = [o["choice"] for o in self.choices]
        if not isinstance(value, str) or value not in offered:
            raise IllegalEvent(f"'value' must be one of: {', '.join(offered)}, "
                               f"not {_show(value)}")
        assert self.actual is not None
        return self._reveal(self.actual, value)

    def _reveal(self, actual: int, choice: str | None) -> Reveal:
        """The reveal with these taps, checked by the referee (it raises its refusal)."""
        assert self.deception is not None and self.guess is not None
        event = Reveal(self.guesser, self.mission, self.guess, actual, self.deception, choice)
        apply(self.state, event)
        return event

    def undo(self) -> Draft | None:
        """The draft without its last tap; ``None`` when there is none to take back.

        The automatic ``deception`` of a side without a token (R14) is not a tap.
        """
        if self.actual is not None:
            return replace(self, actual=None)
        if self.guess is not None:
            return replace(self, guess=None)
        if self.deception is not None and not self.auto_deception:
            return replace(self, deception=None)
        return None

    @property
    def undone(self) -> str:
        """Plain words for the tap :meth:`undo` takes back."""
        if self.actual is not None:
            return "the card turned up"
        if self.guess is not None:
            return "the guess"
        return "the deception decision"


def _rank(value: object) -> int:
    if type(value) is not int or value not in RANKS:
        raise MalformedEvent(f"'value' must be a rank 1-10, not {_show(value)}")
    return value


def _show(value: object) -> str:
    try:
        return json.dumps(value)[:40]
    except (TypeError, ValueError):
        return repr(value)[:40]
