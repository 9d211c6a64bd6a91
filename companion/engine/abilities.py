"""The soldiers' abilities (R40-R49) and the owner's choice for a Captain or Marshal.

The referee (:mod:`~companion.engine.referee`) calls :func:`use_ability` when a
reveal ends in an activation (R24); :func:`activate` is the same on a copy, a
what-if for the ability calculator. Each rule is implemented in the function
whose docstring starts with its id, each soldier in the branch marked with its
rule (``# R45 Captain``).
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

from .errors import IllegalEvent
from .events import RANK_NAMES, Side, other
from .results import Drain, Effect, Fizzle, RoundEffect, TokenGained, UseExhausted
from .scoring import Out, gain, move_da
from .state import State
from .words import Msg, numbers
from .words import rank as rank_word

# made once and shared, as the effects of scoring are
_round_effect = cache(RoundEffect)
_token_gained = cache(TokenGained)
_use_exhausted = cache(UseExhausted)
_fizzle = cache(Fizzle)
_drain = cache(Drain)


class Choice(NamedTuple):
    """A checked choice: "ip", "drain", or "use" of the exhausted ``rank`` (then ``then``)."""

    kind: str
    rank: int = 0
    then: str | None = None


def parse_choice(s: State, owner: Side, rank: int, choice: str | None) -> Choice:
    """R45, R49: check the owner's choice for an activated Captain or Marshal."""
    if rank == 10:
        if choice not in ("ip", "drain"):
            raise IllegalEvent(Msg("{side}'s Marshal was activated: its owner must choose "
                                   "\"ip\" or \"drain\" (R49), not {choice}", side=owner,
                                   choice=_show(choice)))
        return Choice(choice)
    usable = s.exhausted[owner]
    if choice == "ip":
        return Choice("ip")
    parts = choice.split(":") if isinstance(choice, str) else []
    if len(parts) >= 2 and parts[0] == "use" and parts[1].isdigit():
        n = int(parts[1])
        if n not in usable:
            what = rank_word(n) if n in RANK_NAMES else n
            raise IllegalEvent(Msg("{side}'s Captain cannot use the {what}: it is not one of "
                                   "{side}'s exhausted soldiers ({usable}) (R45)", side=owner,
                                   what=what, usable=numbers(usable)))
        if n == 10 and len(parts) == 3 and parts[2] in ("ip", "drain"):
            return Choice("use", 10, parts[2])
        if n == 10 and len(parts) == 2 and s.effects[other(owner)]["spy"]:
            return Choice("use", 10)      # R45: it fizzles (R40), so its choice is not needed
        if n != 10 and len(parts) == 2:
            return Choice("use", n)
    options = ["ip"] + [f"use:{r}" if r != 10 else "use:10:ip / use:10:drain" for r in usable]
    raise IllegalEvent(Msg("{side}'s Captain was activated: its owner must choose one of "
                           "{options} (R45), not {choice}", side=owner,
                           options=", ".join(options), choice=_show(choice)))


def _show(choice: str | None) -> Msg | str:
    return Msg("no choice") if choice is None else f"\"{choice}\""


def activate(state: State, side: Side, rank: int,
             choice: str | None = None) -> tuple[State, tuple[Effect, ...]]:
    """R40-R49: the state after ``side``'s soldier ``rank`` were activated now, and its effects.

    A what-if for the ability calculator: ``state`` is left unchanged and the
    ``choice`` of a Captain or Marshal ("ip", "drain", "use:N", "use:10:ip"...)
    is taken as given, not checked against the exhausted soldiers.

    >>> import json
    >>> from companion.engine import new_game
    >>> after, effects = activate(new_game(), Side.BLUE, 9)
    >>> after.da, [json.dumps(e.to_dict()) for e in effects]
    (-2, ['{"kind": "da", "side": "blue", "steps": 2, "asked": 2, "to": -2, "source": "General"}'])
    """
    parsed = None
    if choice is not None:
        parts = choice.split(":")
        parsed = (Choice("use", int(parts[1]), parts[2] if len(parts) > 2 else None)
                  if parts[0] == "use" else Choice(choice))
    after = state.copy()
    out: Out = []
    use_ability(after, side, rank, parsed, out)
    return after, tuple(out)


def use_ability(s: State, side: Side, rank: int, choice: Choice | None, out: Out) -> None:
    """R40-R49: the ability of ``side``'s soldier ``rank``."""
    if rank == 1:                             # R40 Spy
        gain(s, side, 1, out, "abilities")
        if s.outcome:
            return
        if s.dt[side] < 2 and s.supply > 0:   # R51
            s.dt[side] += 1
            s.supply -= 1
            out.append(_token_gained(side, 1))
        s.effects[side]["spy"] = True
        out.append(_round_effect(side, "spy"))
    elif rank == 2:                           # R41 Scout
        gain(s, side, 2, out, "abilities")
        s.effects[side]["scout"] = True
        out.append(_round_effect(side, "scout"))
    elif rank == 3:                           # R42 Miner
        gain(s, side, 3, out, "abilities")
        s.effects[side]["miner"] = True
        out.append(_round_effect(side, "miner"))
    elif rank == 4:                           # R43 Sergeant
        gain(s, side, 4, out, "abilities")
    elif rank == 5:                           # R44 Lieutenant
        move_da(s, side, 1, out, "Lieutenant")
    elif rank == 6:                           # R45 Captain
        assert choice is not None
        if choice.kind == "ip":
            gain(s, side, 6, out, "abilities")
            return
        used = choice.rank
        out.append(_use_exhausted(side, used))
        enemy_effects = s.effects[other(side)]
        if (used == 10 and enemy_effects["spy"]) or (used == 7 and enemy_effects["miner"]):
            out.append(_fizzle(side, used, "R40" if used == 10 else "R42"))
            return
        use_ability(s, side, used, Choice(choice.then) if choice.then else None, out)
    elif rank == 7:                           # R46 Bomb
        s.effects[side]["bomb"] = True
        out.append(_round_effect(side, "bomb"))
    elif rank == 8:                           # R48 Colonel
        gain(s, side, 8, out, "abilities", rollover=True)
    elif rank == 9:                           # General: two steps, as R44 does one
        move_da(s, side, 2, out, "General")
    elif rank == 10:                          # R49 Marshal
        assert choice is not None
        if choice.kind == "ip":
            gain(s, side, 10, out, "abilities")
        else:
            gain(s, side, 5, out, "abilities")
            if s.outcome:
                return
            enemy = other(side)
            drained = min(5, s.ip[enemy])
            s.ip[enemy] -= drained
            out.append(_drain(enemy, drained))
