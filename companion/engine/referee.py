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
function whose docstring starts with its id: here the events' rules (setup,
intel, the start R3, R10-R15; a reveal R13, R14, R20-R24, R50, R60, R61; the end
R70-R72), in :mod:`~companion.engine.scoring` IP and the double agent (R30-R33,
R60's undoing), in :mod:`~companion.engine.abilities` the soldiers (R40-R49).
``grep -rn R45 companion/engine/`` finds the Captain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from .abilities import parse_choice, use_ability
from .errors import GameOver, IllegalEvent, OutOfTurn, RecordError
from .events import (
    BLUE,
    RED,
    Check,
    Event,
    Exhaust,
    Intel,
    Options,
    Record,
    Reveal,
    Start,
    Tokens,
    other,
)
from .expect import expected
from .results import DeceptionPays, DoubleDamage, Outcome, Reason, RevealOutcome, RevealResult
from .scoring import Out, gain, order_broken, r30_identify, r60_incorrect_order
from .state import (
    CAPTURE_CHECK,
    DAYS,
    INTEL,
    MISSION,
    OVER,
    REVEALS_PER_ROUND,
    ROUND_END,
    SETUP,
    TURNS,
    State,
)
from .words import Msg, numbers
from .words import rank as rank_word
from .words import side as side_word

# made once and shared, as the effects of scoring are
_double_damage = cache(DoubleDamage)
_deception_pays = cache(DeceptionPays)


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

    out: Out = []
    index = s.event_count
    if e.deception:
        s.dt[owner] -= 1                      # R14, R51: spent whatever happens
    effects = s.effects[guesser]              # the guesser's round effects (R40-R46)
    bomb = effects["bomb"]
    effects["bomb"] = False                   # R46: the next reveal uses the effect up

    outcome: RevealOutcome
    if s.broken[owner]:
        outcome, rule = "identified", "R60"
    elif revealed and order_broken(revealed.items(), mission, rank):
        r60_incorrect_order(s, owner, out)
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
        choice = parse_choice(s, owner, rank, e.choice)

    revealed[mission] = rank
    s.round_reveals += 1

    if outcome == "identified":
        r30_identify(s, guesser, out)
        if bomb:
            s.double[owner] = True            # R47
            out.append(_double_damage(owner))
    elif outcome == "activated":
        s.stats[owner]["activated"] += 1
        use_ability(s, owner, rank, choice, out)
        if e.deception and not s.outcome:
            out.append(_deception_pays(owner))  # R50
            gain(s, owner, 4, out, "deception")

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
                               want=numbers(face_down), given=numbers(given)))
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
