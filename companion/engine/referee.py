"""The referee: every rule of RULES.md (R1-R80), applied to a :class:`State`.

The state of a game is derived from its events, never stored apart from them:

>>> from companion.engine import Record, replay
>>> state = replay(Record())
>>> state.phase, state.day, state.da, state.ip == {"red": 0, "blue": 0}
(<Phase.SETUP: 'setup'>, 1, 0, True)
>>> state = apply(state, Exhaust("red", (10,)))
>>> state.event_count, state.drawn["red"]
(1, (10,))

:func:`apply` returns a new state and leaves its argument untouched, so undo is
``replay(record.options, events[:-1])``. Each rule is implemented in the
function whose docstring starts with its id: search this file for ``R45`` to
find the Captain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, NamedTuple

from .errors import GameOver, IllegalEvent, OutOfTurn, RecordError
from .events import (
    BLUE,
    RANK_NAMES,
    RED,
    Check,
    Event,
    Exhaust,
    Intel,
    Options,
    Record,
    Reveal,
    Side,
    Start,
    Tokens,
    other,
)
from .expect import expected
from .results import (
    DaMove,
    DeceptionPays,
    DoubleDamage,
    Drain,
    Effect,
    Fizzle,
    FlagCaptured,
    Infiltrate,
    IpGain,
    OrderBroken,
    Outcome,
    Reason,
    RevealOutcome,
    RevealResult,
    RoundEffect,
    TokenGained,
    UseExhausted,
)
from .state import (
    CAPTURE_CHECK,
    DAYS,
    DIRECTION,
    INTEL,
    MISSION,
    OVER,
    REVEALS_PER_ROUND,
    ROUND_END,
    SETUP,
    TURNS,
    State,
)
from .words import Msg
from .words import rank as rank_word
from .words import side as side_word


def _name(rank: int) -> Msg:
    return rank_word(rank)


# --- entry points ---------------------------------------------------------------

def new_game(options: Options | None = None) -> State:
    """The state before any event (R2)."""
    return State(options)


def apply(state: State, event: Event) -> State:
    """Return the state after ``event``; ``state`` is left unchanged.

    Raises an :class:`~companion.engine.errors.IllegalEvent` (or subclass) naming
    the event's index and the reason when the event does not fit.
    """
    s = state.copy()
    _steps(s, (event,))
    return s


def advance(state: State, event: Event) -> None:
    """Apply ``event`` to ``state`` itself (no copy): for a playout's own state
    (issue 25), where :func:`apply`'s copy per event would cost more than the rules."""
    _steps(state, (event,))


def replay(record: Record | Options | None = None, events: Iterable[Event] | None = None) -> State:
    """The state after every event of a record (or of ``options`` and ``events``)."""
    options: Options | None
    if isinstance(record, Record):
        options, events = record.options, record.events
    else:
        options, events = record, events or ()
    s = State(options)
    _steps(s, events)
    return s


def _steps(s: State, events: Iterable[Event]) -> None:
    """Apply ``events`` in turn to ``s``; a refusal names the index of the event refused."""
    try:
        for e in events:
            if s.phase == OVER:
                raise GameOver(Msg("the game is over ({end}); nothing more can be recorded",
                                   end=_describe_end(s)))
            try:
                rules = _RULES[type(e)]
            except KeyError:
                raise IllegalEvent(Msg("{kind} is not an event of this game",
                                       kind=type(e).__name__)) from None
            rules(s, e)
            s.event_count += 1
    except RecordError as err:
        raise err.at(s.event_count) from None   # not counted: the index of the refused one


def _describe_end(s: State) -> Msg:
    if s.winner == "draw":
        return Msg("a draw")
    return Msg("{side} won by {reason}", side=side_word(str(s.winner)), reason=s.reason)


def _expecting(s: State) -> Msg | str:
    """Words for what the game waits for, used in refusals."""
    return expected(s).words or ""


# --- setup, intel, start, round end (R3, R10-R15) ---------------------------------

def _exhaust(s: State, e: Exhaust) -> None:
    """R3, R15, R47: the exhausted soldier(s) drawn for the coming round."""
    if s.phase not in (SETUP, ROUND_END):
        raise OutOfTurn(Msg("no exhaustion draw is due now: {expecting}",
                            expecting=_expecting(s)))
    if s.drawn[e.side] is not None:
        raise OutOfTurn(Msg("{side}'s exhausted soldiers are already recorded", side=e.side))
    if s.phase == SETUP:
        if len(e.ranks) != 1:
            raise IllegalEvent(Msg("before day 1 each side has exactly one exhausted soldier "
                                   "(R3), not {n}", n=len(e.ranks)))
    else:
        need = 2 if s.double[e.side] and s.day < DAYS else 1
        if len(e.ranks) != need:
            raise IllegalEvent(
                Msg("{side} must have 2 soldiers drawn (double damage, R47), not {n}",
                    side=e.side, n=len(e.ranks)) if need == 2
                else Msg("{side} must have 1 soldier drawn, not {n}", side=e.side,
                         n=len(e.ranks)))
        deployed = set(s.revealed[e.side].values())
        for r in e.ranks:
            if r not in deployed:
                raise IllegalEvent(Msg("{side} did not deploy the {name} ({r}) this round; "
                                       "the draw is from {ranks}", side=e.side,
                                       name=_name(r), r=r, ranks=str(sorted(deployed))))
    s.drawn[e.side] = e.ranks
    red, blue = s.drawn[RED], s.drawn[BLUE]
    if red is not None and blue is not None:
        s.exhausted = {RED: red, BLUE: blue}
        s.drawn = {RED: None, BLUE: None}
        if s.phase == ROUND_END:
            s.day += 1
            s.old_intel = s.old_intel + ((s.intel,) if s.intel else ())
            s.intel = None
            s.tokens = {RED: None, BLUE: None}
            s.last_starter, s.starter = s.starter, None
            s.new_round()
        s.phase = INTEL


def _intel(s: State, e: Intel) -> None:
    """R11: the intel card of the round."""
    if s.phase != INTEL or s.intel is not None:
        raise OutOfTurn(Msg("no intel card is due now: {expecting}", expecting=_expecting(s)))
    s.intel = e.ranks


def _tokens(s: State, e: Tokens) -> None:
    """R11: the public placement of one side's intel tokens."""
    if s.phase != INTEL or s.intel is None:
        raise OutOfTurn(Msg("intel tokens come after the intel card: {expecting}",
                            expecting=_expecting(s)))
    if s.tokens[e.side] is not None:
        raise OutOfTurn(Msg("{side}'s intel tokens are already recorded", side=e.side))
    s.tokens[e.side] = frozenset(e.missions)


def _start(s: State, e: Start) -> None:
    """R12: the starting side; rounds 2 and 3 alternate."""
    if s.phase != INTEL or s.intel is None or None in s.tokens.values():
        raise OutOfTurn(Msg("the starting side comes after the intel card and both sides' "
                            "tokens: {expecting}", expecting=_expecting(s)))
    if s.last_starter is not None and e.side == s.last_starter:
        raise IllegalEvent(Msg("{side} started day {before}, so {other} starts day {day} (R12)",
                               side=e.side, before=s.day - 1, other=other(e.side),
                               day=s.day))
    s.starter = e.side
    s.phase = MISSION


# --- scoring and the double agent (R30-R33) ----------------------------------------

_Out = list[Effect]   # what one reveal did, in order (for the screens and the narration)

# Effects are frozen values from small sets (a side and a few small numbers), so
# each is made once and then shared (a frozen dataclass takes ~0.4 us to make).
_ip_gain = cache(IpGain)
_infiltrate = cache(Infiltrate)
_da_move = cache(DaMove)
_round_effect = cache(RoundEffect)
_flag_captured = cache(FlagCaptured)
_order_broken_effect = cache(OrderBroken)
_double_damage = cache(DoubleDamage)
_deception_pays = cache(DeceptionPays)
_token_gained = cache(TokenGained)
_use_exhausted = cache(UseExhausted)
_fizzle = cache(Fizzle)
_drain = cache(Drain)
_IP_STAT = {"identified": "ip_identified", "abilities": "ip_abilities",
            "deception": "ip_deception"}   # the stat each source of IP adds to


def _gain(s: State, side: Side, n: int, out: _Out, source: str, rollover: bool = False,
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
    _move_da(s, side, s.day, out, "infiltration")
    if rollover and ip > 10:
        _gain(s, side, ip - 10, out, source, rollover=True, carried=True)


def _move_da(s: State, side: Side, steps: int, out: _Out, source: str) -> None:
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


def _order_broken(earlier: Iterable[tuple[int, int]], mission: int, rank: int) -> bool:
    """R10: does ``rank`` on ``mission`` break the order with the ``earlier`` cards?"""
    if rank == 4:
        return False
    for m, r in earlier:
        if r == 4:
            continue
        if (m < mission and r > rank) or (m > mission and r < rank):
            return True
    return False


def _r60_incorrect_order(s: State, owner: Side, out: _Out) -> None:
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


# --- a reveal (R13, R14, R20-R24, R50, R60, R61) -----------------------------------

def _reveal(s: State, e: Reveal) -> None:
    """R20-R24: resolve one reveal; the first step that applies decides the outcome."""
    if s.phase != MISSION:
        raise OutOfTurn(Msg("no reveal is due now: {expecting}", expecting=_expecting(s)))
    guesser, owner, mission = TURNS[s.starter or RED][s.round_reveals]   # R13
    if e.guesser != guesser or e.mission != mission:
        raise OutOfTurn(Msg("it is {guesser}'s turn to guess {owner}'s mission {mission} "
                            "(R13), not {sent}'s on mission {sent_mission}", guesser=guesser,
                            owner=owner, mission=mission, sent=e.guesser,
                            sent_mission=e.mission))
    rank = e.actual
    revealed = s.revealed[owner]              # the owner's cards turned up this round
    if rank in revealed.values():
        raise IllegalEvent(Msg("{side}'s {name} ({r}) was already revealed this round",
                               side=owner, name=_name(rank), r=rank))
    if rank in s.exhausted[owner]:
        raise IllegalEvent(Msg("{side}'s {name} ({r}) is exhausted this round",
                               side=owner, name=_name(rank), r=rank))
    if e.deception and s.dt[owner] < 1:
        raise IllegalEvent(Msg("{side} holds no deception token", side=owner))

    out: _Out = []
    index = s.event_count
    if e.deception:
        s.dt[owner] -= 1                      # R14, R51: spent whatever happens
    effects = s.effects[guesser]              # the guesser's round effects (R40-R46)
    bomb = effects["bomb"]
    effects["bomb"] = False                   # R46: the next reveal uses the effect up

    outcome: RevealOutcome
    if s.broken[owner]:
        outcome, rule = "identified", "R60"
    elif revealed and _order_broken(revealed.items(), mission, rank):
        _r60_incorrect_order(s, owner, out)
        outcome, rule = "identified", "R60"
    elif rank != 4 and (mission in (s.tokens[owner] or ())) != (rank in (s.intel or ())):
        outcome, rule = "identified", "R61"   # a token where the card is not on the intel
    elif e.guess == rank:
        outcome, rule = "identified", "R30"
    elif bomb:
        outcome, rule = "neutralised", "R46"
    elif rank == 10 and effects["spy"]:
        outcome, rule = "neutralised", "R40"
    elif rank == 7 and effects["miner"]:
        outcome, rule = "neutralised", "R42"
    else:
        outcome, rule = "activated", "R24"

    choice = None
    if outcome == "activated" and rank in (6, 10):
        choice = _parse_choice(s, owner, rank, e.choice)

    revealed[mission] = rank
    s.round_reveals += 1

    if outcome == "identified":
        _r30_identify(s, guesser, out)
        if bomb:
            s.double[owner] = True            # R47
            out.append(_double_damage(owner))
    elif outcome == "activated":
        s.stats[owner]["activated"] += 1
        _activate(s, owner, rank, choice, out)
        if e.deception and not s.outcome:
            out.append(_deception_pays(owner))  # R50
            _gain(s, owner, 4, out, "deception")

    dt = s.dt
    s.reveals += (RevealResult(   # by position, in the order of its fields (cheaper)
        index, s.day, guesser, owner, mission, e.guess, rank, e.deception,
        e.choice if choice else None, outcome, rule,
        s.ip.copy(), s.da, {"red": dt[RED], "blue": dt[BLUE], "supply": s.supply},
        tuple(out)),)

    if s.outcome:
        return                               # R70: the game stops at once
    if s.round_reveals == REVEALS_PER_ROUND:
        if s.day == DAYS:
            _r72_end_of_day_three(s)
        else:
            s.phase = ROUND_END


def _r30_identify(s: State, guesser: Side, out: _Out) -> None:
    """R30 (also R60, R61): the card retreats; the guesser gains 2, or 4 after its Scout."""
    s.stats[guesser]["identified"] += 1
    _gain(s, guesser, 4 if s.effects[guesser]["scout"] else 2, out, "identified")


class _Choice(NamedTuple):
    """A checked choice: "ip", "drain", or "use" of the exhausted ``rank`` (then ``then``)."""

    kind: str
    rank: int = 0
    then: str | None = None


def _parse_choice(s: State, owner: Side, rank: int, choice: str | None) -> _Choice:
    """R45, R49: check the owner's choice for an activated Captain or Marshal."""
    if rank == 10:
        if choice not in ("ip", "drain"):
            raise IllegalEvent(Msg("{side}'s Marshal was activated: its owner must choose "
                                   "\"ip\" or \"drain\" (R49), not {choice}", side=owner,
                                   choice=_show(choice)))
        return _Choice(choice)
    usable = s.exhausted[owner]
    if choice == "ip":
        return _Choice("ip")
    parts = choice.split(":") if isinstance(choice, str) else []
    if len(parts) >= 2 and parts[0] == "use" and parts[1].isdigit():
        n = int(parts[1])
        if n not in usable:
            what = _name(n) if n in RANK_NAMES else n
            raise IllegalEvent(Msg("{side}'s Captain cannot use the {what}: it is not one of "
                                   "{side}'s exhausted soldiers ({usable}) (R45)", side=owner,
                                   what=what, usable=_numbers(usable)))
        if n == 10 and len(parts) == 3 and parts[2] in ("ip", "drain"):
            return _Choice("use", 10, parts[2])
        if n == 10 and len(parts) == 2 and s.effects[other(owner)]["spy"]:
            return _Choice("use", 10)     # R45: it fizzles (R40), so its choice is not needed
        if n != 10 and len(parts) == 2:
            return _Choice("use", n)
    options = ["ip"] + [f"use:{r}" if r != 10 else "use:10:ip / use:10:drain" for r in usable]
    raise IllegalEvent(Msg("{side}'s Captain was activated: its owner must choose one of "
                           "{options} (R45), not {choice}", side=owner,
                           options=", ".join(options), choice=_show(choice)))


def _show(choice: str | None) -> Msg | str:
    return Msg("no choice") if choice is None else f"\"{choice}\""


def _numbers(ns: Iterable[int]) -> Msg | str:
    """``1, 2, 3``, or "none"."""
    return ", ".join(map(str, ns)) or Msg("none")


# --- abilities (R40-R49) ---------------------------------------------------------

def activate(state: State, side: Side, rank: int,
             choice: str | None = None) -> tuple[State, tuple[Effect, ...]]:
    """R40-R49: the state after ``side``'s soldier ``rank`` were activated now, and its effects.

    A what-if for the ability calculator: ``state`` is left unchanged and the
    ``choice`` of a Captain or Marshal ("ip", "drain", "use:N", "use:10:ip"...)
    is taken as given, not checked against the exhausted soldiers.

    >>> import json
    >>> from companion.engine import new_game
    >>> after, effects = activate(new_game(), BLUE, 9)
    >>> after.da, [json.dumps(e.to_dict()) for e in effects]
    (-2, ['{"kind": "da", "side": "blue", "steps": 2, "asked": 2, "to": -2, "source": "General"}'])
    """
    parsed = None
    if choice is not None:
        parts = choice.split(":")
        parsed = (_Choice("use", int(parts[1]), parts[2] if len(parts) > 2 else None)
                  if parts[0] == "use" else _Choice(choice))
    after = state.copy()
    out: _Out = []
    _activate(after, side, rank, parsed, out)
    return after, tuple(out)


def _activate(s: State, side: Side, rank: int, choice: _Choice | None, out: _Out) -> None:
    """R40-R49: the ability of ``side``'s soldier ``rank``."""
    if rank == 1:                             # R40 Spy
        _gain(s, side, 1, out, "abilities")
        if s.outcome:
            return
        if s.dt[side] < 2 and s.supply > 0:   # R51
            s.dt[side] += 1
            s.supply -= 1
            out.append(_token_gained(side, 1))
        s.effects[side]["spy"] = True
        out.append(_round_effect(side, "spy"))
    elif rank == 2:                           # R41 Scout
        _gain(s, side, 2, out, "abilities")
        s.effects[side]["scout"] = True
        out.append(_round_effect(side, "scout"))
    elif rank == 3:                           # R42 Miner
        _gain(s, side, 3, out, "abilities")
        s.effects[side]["miner"] = True
        out.append(_round_effect(side, "miner"))
    elif rank == 4:                           # R43 Sergeant
        _gain(s, side, 4, out, "abilities")
    elif rank == 5:                           # R44 Lieutenant
        _move_da(s, side, 1, out, "Lieutenant")
    elif rank == 6:                           # R45 Captain
        assert choice is not None
        if choice.kind == "ip":
            _gain(s, side, 6, out, "abilities")
            return
        used = choice.rank
        out.append(_use_exhausted(side, used))
        enemy_effects = s.effects[other(side)]
        if (used == 10 and enemy_effects["spy"]) or (used == 7 and enemy_effects["miner"]):
            out.append(_fizzle(side, used, "R40" if used == 10 else "R42"))
            return
        _activate(s, side, used, _Choice(choice.then) if choice.then else None, out)
    elif rank == 7:                           # R46 Bomb
        s.effects[side]["bomb"] = True
        out.append(_round_effect(side, "bomb"))
    elif rank == 8:                           # R48 Colonel
        _gain(s, side, 8, out, "abilities", rollover=True)
    elif rank == 9:                           # General: two steps, as R44 does one
        _move_da(s, side, 2, out, "General")
    elif rank == 10:                          # R49 Marshal
        assert choice is not None
        if choice.kind == "ip":
            _gain(s, side, 10, out, "abilities")
        else:
            _gain(s, side, 5, out, "abilities")
            if s.outcome:
                return
            enemy = other(side)
            drained = min(5, s.ip[enemy])
            s.ip[enemy] -= drained
            out.append(_drain(enemy, drained))


# --- end of the game (R70-R72) -----------------------------------------------------

def _check(s: State, e: Check) -> None:
    """R71: the capturer's face-down cards; a broken order cancels the flag."""
    if s.phase != CAPTURE_CHECK:
        raise OutOfTurn(Msg("a capture check comes only right after a flag capture: "
                            "{expecting}", expecting=_expecting(s)))
    side = s.capturer
    assert side is not None
    if e.side != side:
        raise IllegalEvent(Msg("the capture check is for {side}, who captured the flag, "
                               "not {sent}", side=side, sent=e.side))
    revealed = s.revealed[side]
    face_down = [m for m in range(1, 5) if m not in revealed]
    given = [m for m, _ in e.ranks]
    if given != face_down:
        raise IllegalEvent(Msg("{side}'s face-down missions are {want}; the check must give "
                               "exactly those, not {given}", side=side,
                               want=_numbers(face_down), given=_numbers(given)))
    seen = set(revealed.values())
    for _, r in e.ranks:
        if r in seen:
            raise IllegalEvent(Msg("{side}'s {name} ({r}) cannot be on two missions",
                                   side=side, name=_name(r), r=r))
        if r in s.exhausted[side]:
            raise IllegalEvent(Msg("{side}'s {name} ({r}) is exhausted this round",
                                   side=side, name=_name(r), r=r))
        seen.add(r)
    four = sorted({**revealed, **dict(e.ranks)}.items())
    ranks = [r for _, r in four if r != 4]
    if any(a >= b for a, b in zip(ranks, ranks[1:], strict=False)):
        s.outcome = Outcome(other(side), Reason.FLAG_CANCELLED)
    s.phase = OVER


def _r72_end_of_day_three(s: State) -> None:
    """R72: territory decides; at the centre, IP; equal IP is a draw."""
    s.phase = OVER
    red, blue = s.ip[RED], s.ip[BLUE]
    if s.da > 0:
        s.outcome = Outcome(RED, Reason.TERRITORY)
    elif s.da < 0:
        s.outcome = Outcome(BLUE, Reason.TERRITORY)
    elif red != blue:
        s.outcome = Outcome(RED if red > blue else BLUE, Reason.IP)
    else:
        s.outcome = Outcome(None, Reason.DRAW)


# Each event type to the function with its rules (one look-up per event, where a
# chain of isinstance checks cost up to six).
_RULES: dict[type[Event], Callable[[State, Any], None]] = {
    Reveal: _reveal, Exhaust: _exhaust, Tokens: _tokens, Intel: _intel, Start: _start,
    Check: _check}
