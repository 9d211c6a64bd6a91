"""Deduction from public information: which line-ups a side can still have.

Everything here reads only what the whole table has seen: a side's exhausted
soldiers (R3, R15), the cards it already turned up this round (fixed on their
missions as they are, even one R61 caught against its token), the order rule
with the Sergeant's exception (R10) across all four missions and, for every
mission still face down, the current intel card and that side's intel token on
it (R11: a token exactly when the rank is on the card, except the Sergeant, who
may go either way). Among the ranks a side can deploy, every ordered choice of
four for missions 1-4 that fits all of that is a *consistent line-up*; the
counts say how many of them put each rank on each mission. A token lie already
caught (R61) says nothing more about the cards still face down, so the aid goes
on deducing them (ruling D3 in docs/RULINGS.md).

>>> d = lineups_fitting(exhausted=(1,), revealed={1: 2, 2: 3, 3: 5},
...                     intel=(2, 7, 9, 10), tokens={1})
>>> d.lineups, d.missions[4]
(3, {4: 1, 6: 1, 8: 1})
>>> d.to_dict()["missions"]["1"]
{'2': 3}

The enumeration is exact: a search over missions 1 to 4 that drops a branch as
soon as a rank breaks the order or its token (at most 10*9*8*7 orderings).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .events import SIDES, Side
from .state import Phase, State

SERGEANT = 4          # R10, R11: exempt from order and intel rules
MISSIONS = (1, 2, 3, 4)
RANKS = tuple(range(1, 11))

Lineup = tuple[int, int, int, int]


@dataclass(frozen=True)
class Deduction:
    """The consistent line-ups of one side: how many, and per mission how many
    of them put each rank there (ranks with no line-up left out)."""

    lineups: int
    missions: dict[int, dict[int, int]] = field(default_factory=dict)

    def possible(self, mission: int) -> set[int]:
        """The ranks that some consistent line-up puts on ``mission``."""
        return set(self.missions.get(mission, {}))

    def to_dict(self) -> dict[str, Any]:
        """JSON form: mission and rank keys are strings, ranks in rising order.

        >>> Deduction(1, {1: {2: 1}, 2: {}, 3: {}, 4: {}}).to_dict()
        {'lineups': 1, 'missions': {'1': {'2': 1}, '2': {}, '3': {}, '4': {}}}
        """
        per = {m: sorted(self.missions.get(m, {}).items()) for m in MISSIONS}
        return {"lineups": self.lineups,
                "missions": {str(m): {str(r): n for r, n in per[m]} for m in MISSIONS}}


def fits_intel(rank: int, tokened: bool, intel: Collection[int]) -> bool:
    """R11: is a token (or none) on a card of ``rank`` honest for this intel card?

    >>> fits_intel(7, True, (2, 7, 9, 10)), fits_intel(7, False, (2, 7, 9, 10))
    (True, False)
    >>> fits_intel(4, True, (1, 2, 3, 5)), fits_intel(4, False, (4, 5, 6, 7))
    (True, True)
    """
    return rank == SERGEANT or tokened == (rank in intel)


def order_legal(ranks: Mapping[int, int]) -> bool:
    """R10: do the ranks placed so far (mission -> rank) rise from left to right,
    the Sergeant aside? Missions not in ``ranks`` are ignored.

    >>> order_legal({1: 2, 2: 7, 3: 4, 4: 10}), order_legal({1: 3, 2: 2})
    (True, False)
    >>> order_legal({1: 8, 4: 9}), order_legal({2: 9, 3: 4, 4: 6})
    (True, False)
    """
    rest = [r for _, r in sorted(ranks.items()) if r != SERGEANT]
    return all(a < b for a, b in zip(rest, rest[1:], strict=False))


def check_lineup(ranks: Sequence[int | None], intel: Collection[int] | None) -> dict[str, Any]:
    """A planned line-up checked in private (the phone's panel does the same in JS).

    ``ranks`` gives missions 1-4 in order, ``None`` for a mission not chosen yet.
    ``legal`` is False when two missions hold one rank or the order breaks R10;
    ``tokens`` lists the missions that must carry an intel token on this card;
    ``either`` the missions whose Sergeant may carry one or not (R11).

    >>> check_lineup([2, 7, 4, 10], (1, 4, 7, 9))
    {'legal': True, 'complete': True, 'tokens': [2], 'either': [3]}
    >>> check_lineup([3, 2, None, None], None)
    {'legal': False, 'complete': False, 'tokens': [], 'either': []}
    """
    placed = {m: r for m, r in zip(MISSIONS, ranks, strict=False) if r is not None}
    legal = len(set(placed.values())) == len(placed) and order_legal(placed)
    card = set(intel or ())
    return {"legal": legal,
            "complete": len(placed) == 4,
            "tokens": [m for m, r in placed.items() if r != SERGEANT and r in card],
            "either": [m for m, r in placed.items() if r == SERGEANT]}


def consistent_lineups(exhausted: Collection[int], revealed: Mapping[int, int],
                       intel: Collection[int], tokens: Collection[int]) -> list[Lineup]:
    """Every line-up (missions 1-4) of distinct deployable ranks that fits the
    turned-up cards, R10 across all four missions and the tokens (R11) of the
    missions still face down.

    >>> consistent_lineups((1, 2, 3, 5, 6, 7), {}, (8, 9, 10, 4), {1, 2, 3, 4})
    [(4, 8, 9, 10), (8, 4, 9, 10), (8, 9, 4, 10), (8, 9, 10, 4)]

    A turned-up card stays where it is even when it broke its token (R61 caught it,
    ruling D3): here the 8 had no token though 8 is on the card; the missions still
    face down carry none either, so they hold ranks off the card, above 8 or the
    Sergeant.

    >>> consistent_lineups((1,), {1: 8}, (8, 2, 3, 5), set())
    [(8, 4, 9, 10), (8, 9, 4, 10), (8, 9, 10, 4)]
    """
    card = frozenset(intel)
    choices: list[list[int]] = []
    for m in MISSIONS:
        if m in revealed:
            choices.append([revealed[m]])
            continue
        tokened = m in tokens
        shown = set(revealed.values())
        choices.append([r for r in RANKS if r not in exhausted and r not in shown
                        and fits_intel(r, tokened, card)])
    out: list[Lineup] = []
    picked: list[int] = []

    def walk(i: int, top: int) -> None:
        # top: the highest non-Sergeant rank on missions before i (0 if none)
        if i == 4:
            out.append((picked[0], picked[1], picked[2], picked[3]))
            return
        for r in choices[i]:
            if r in picked or (r != SERGEANT and r <= top):
                continue
            picked.append(r)
            walk(i + 1, top if r == SERGEANT else r)
            picked.pop()

    walk(0, 0)
    return out


def lineups_fitting(exhausted: Collection[int], revealed: Mapping[int, int],
                    intel: Collection[int], tokens: Collection[int]) -> Deduction:
    """Count :func:`consistent_lineups` per mission and rank."""
    found = consistent_lineups(exhausted, revealed, intel, tokens)
    missions: dict[int, dict[int, int]] = {m: {} for m in MISSIONS}
    for lineup in found:
        for m, r in zip(MISSIONS, lineup, strict=True):
            missions[m][r] = missions[m].get(r, 0) + 1
    return Deduction(len(found), missions)


def in_play(state: State) -> bool:
    """True from the moment both sides' tokens are recorded (phase ``intel``)
    until the round's last reveal (phase ``mission``); after the 8th reveal the
    phase is ``round_end`` or ``over`` and there is nothing left to deduce."""
    if state.phase == Phase.MISSION:
        return True
    return (state.phase == Phase.INTEL and state.intel is not None
            and None not in state.tokens.values())


def deduce_side(state: State, side: Side) -> Deduction | None:
    """The line-ups ``side`` can have this round, or ``None`` outside the round in
    play (:func:`in_play`) or once its order broke this round (R60). A side R61
    caught is still deduced: its caught card is fixed where it turned up and only
    the tokens of its face-down missions count (ruling D3)."""
    tokens = state.tokens[side]
    if not in_play(state) or state.broken[side] or tokens is None or state.intel is None:
        return None
    return lineups_fitting(state.exhausted[side], state.revealed[side], state.intel, tokens)


def deduce(state: State) -> dict[Side, Deduction | None]:
    """:func:`deduce_side` for both sides."""
    return {s: deduce_side(state, s) for s in SIDES}


def deduce_output(state: State) -> dict[str, Any]:
    """The JSON object ``spies-lies deduce`` prints: per side ``null`` or
    ``{"lineups": N, "missions": {"1": {"RANK": COUNT, ...}, ...}}``.

    >>> deduce_output(State())
    {'red': None, 'blue': None}
    """
    return {str(s): (d.to_dict() if d is not None else None) for s, d in deduce(state).items()}
