"""What a choice would do: the owner's choices for a reveal and the ability calculator.

Both work on copies of the state through the referee's public entry points
(:func:`~companion.engine.referee.apply`, :func:`~companion.engine.abilities.activate`);
the state passed in is left untouched.

>>> from companion.engine import new_game
>>> [p["ip"]["red"] for p in ability_preview(new_game(), Side.RED, 8)]
[8]
"""

from __future__ import annotations

from typing import Any

from .abilities import activate
from .errors import RecordError
from .events import RANK_NAMES, SIDES, Reveal, Side, other
from .expect import describe_choice, owner_choices
from .referee import apply
from .state import State


def _summary(before: State, after: State) -> dict[str, Any]:
    return {"ip": dict(after.ip), "da": after.da,
            "dt": {"red": after.dt[Side.RED], "blue": after.dt[Side.BLUE],
                   "supply": after.supply},
            "winner": after.winner, "reason": after.reason,
            "ip_change": {x: after.ip[x] - before.ip[x] for x in SIDES},
            "da_change": after.da - before.da}


def choice_options(s: State, guess: int, actual: int, deception: bool) -> list[dict[str, Any]]:
    """The owner's choices for this reveal, each with what it would do (empty: no choice).

    Each option is ``{"choice", "label", "ip", "da", "dt", "winner", ...}`` computed by
    applying the reveal with that choice to a copy of ``s``.
    """
    nxt = s.next_reveal()
    if nxt is None:
        return []
    guesser, mission = nxt
    options = []
    for c in owner_choices(s, other(guesser), actual):
        try:
            after = apply(s, Reveal(guesser, mission, guess, actual, deception, c))
        except RecordError:
            return []
        last = after.reveals[-1]
        if last.outcome != "activated":
            return []
        options.append({"choice": c, "label": describe_choice(c), **_summary(s, after),
                        "effects": [e.to_dict() for e in last.effects]})
    return options


def ability_preview(s: State, side: Side, rank: int) -> list[dict[str, Any]]:
    """The ability calculator: if ``side``'s ``rank`` were activated now, what happens?

    One entry per choice the owner would have (one entry when there is none).
    Round-long effects already in play (Spy, Miner against a used card) count.
    """
    choices: list[str | None] = [*owner_choices(s, side, rank)] or [None]
    out = []
    for c in choices:
        after, effects = activate(s, side, rank, c)
        out.append({"choice": c, "label": describe_choice(c) if c else RANK_NAMES[rank],
                    **_summary(s, after), "effects": [e.to_dict() for e in effects]})
    return out
