"""Scoring and the double agent: IP gained, infiltration, the DA's moves (R30-R33, R60).

The referee (:mod:`~companion.engine.referee`) and the abilities
(:mod:`~companion.engine.abilities`) call these to change a state they own; each
appends what it did to ``out``, the effects of the reveal in order. Each rule is
implemented in the function whose docstring starts with its id.

>>> from companion.engine.state import State
>>> s, out = State(), []
>>> gain(s, Side.RED, 11, out, "abilities")          # R31: at 10 red infiltrates
>>> s.ip["red"], s.da, [e.to_dict()["kind"] for e in out]
(0, 1, ['ip', 'infiltrate', 'da'])
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from .events import Side
from .results import DaMove, Effect, FlagCaptured, Infiltrate, IpGain, OrderBroken, Outcome, Reason
from .state import CAPTURE_CHECK, DIRECTION, State

Out = list[Effect]   # what one reveal did, in order (for the screens and the narration)

# Effects are frozen values from small sets (a side and a few small numbers), so
# each is made once and then shared (a frozen dataclass takes ~0.4 us to make);
# the abilities and the referee cache theirs the same way.
_ip_gain = cache(IpGain)
_infiltrate = cache(Infiltrate)
_da_move = cache(DaMove)
_flag_captured = cache(FlagCaptured)
_order_broken_effect = cache(OrderBroken)
_IP_STAT = {"identified": "ip_identified", "abilities": "ip_abilities",
            "deception": "ip_deception"}   # the stat each source of IP adds to


def r30_identify(s: State, guesser: Side, out: Out) -> None:
    """R30 (also R60, R61): the card retreats; the guesser gains 2, or 4 after its Scout."""
    s.stats[guesser]["identified"] += 1
    gain(s, guesser, 4 if s.effects[guesser]["scout"] else 2, out, "identified")


def gain(s: State, side: Side, n: int, out: Out, source: str, rollover: bool = False,
         carried: bool = False) -> None:
    """R31, R33, R48: add IP; reaching 10 infiltrates (excess lost unless Colonel)."""
    if s.outcome or n <= 0:
        return
    ip = s.ip[side] + n
    out.append(_ip_gain(side, n, source, carried))
    s.stats[side][_IP_STAT[source]] += n
    if ip < 10:
        s.ip[side] = ip
        return
    s.ip[side] = 0
    s.stats[side]["infiltrations"] += 1
    out.append(_infiltrate(side, ip - 10, rollover))
    move_da(s, side, s.day, out, "infiltration")
    if rollover and ip > 10:
        gain(s, side, ip - 10, out, source, rollover=True, carried=True)


def move_da(s: State, side: Side, steps: int, out: Out, source: str) -> None:
    """R32, R70: move the DA toward ``side``'s enemy fort. It stops at the enemy wall;
    a move that starts there takes the flag."""
    if s.outcome:
        return
    d = DIRECTION[side]
    wall = d * s.wall
    if steps > 0 and s.da == wall:                  # R70: past the wall, the flag
        s.da = d * (s.wall + 1)
        s.outcome, s.capturer = Outcome(side, Reason.FLAG), side
        s.phase = CAPTURE_CHECK
        out.append(_da_move(side, 0, wall, source))
        out.append(_flag_captured(side))
        return
    left = (wall - s.da) * d                        # steps left to the wall
    moved = steps if steps < left else left
    s.da += d * moved
    s.da_moved[side] += moved
    s.stats[side]["da_steps"] += moved
    out.append(_da_move(side, moved, s.da, source, steps))


def order_broken(earlier: Iterable[tuple[int, int]], mission: int, rank: int) -> bool:
    """R10: does ``rank`` on ``mission`` break the order with the ``earlier`` cards?

    >>> order_broken([(1, 5)], 2, 3), order_broken([(1, 5)], 2, 4), order_broken([(1, 5)], 2, 6)
    (True, False, False)
    """
    if rank == 4:
        return False
    for m, r in earlier:
        if r == 4:
            continue
        if (m < mission and r > rank) or (m > mission and r < rank):
            return True
    return False


def r60_incorrect_order(s: State, owner: Side, out: Out) -> None:
    """R60: undo the owner's actual DA steps this round (never past its own wall); IP to 0."""
    back = s.da_moved[owner]
    d = DIRECTION[owner]
    own_wall = -d * s.wall
    da = s.da - d * back
    da = max(da, own_wall) if d > 0 else min(da, own_wall)
    undone = abs(s.da - da)
    s.da = da
    s.da_moved[owner] = 0
    lost = s.ip[owner]
    s.ip[owner] = 0
    s.broken[owner] = True
    out.append(_order_broken_effect(owner, undone, lost, da))
