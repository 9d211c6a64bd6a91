"""The referee: game state and every rule of RULES.md (R1-R80).

The state of a game is derived from its events, never stored apart from them:

>>> from companion.engine import Record, replay
>>> state = replay(Record())
>>> state.phase, state.day, state.ip, state.da
('setup', 1, {'red': 0, 'blue': 0}, 0)

:func:`apply` returns a new state and leaves its argument untouched, so undo is
``replay(record.options, events[:-1])``. Each rule is implemented in the
function whose docstring starts with its id: search this file for ``R45`` to
find the Captain.
"""

from __future__ import annotations

from typing import Any, Iterable

from .errors import GameOver, IllegalEvent, OutOfTurn, RecordError
from .events import (RANK_NAMES, SIDES, Check, Event, Exhaust, Intel, Options, Record, Reveal,
                     Start, Tokens, other)

PHASES = ("setup", "intel", "mission", "round_end", "capture_check", "over")
EFFECTS = ("scout", "spy", "miner", "bomb")
DIRECTION = {"red": 1, "blue": -1}  # red pushes the DA up, toward blue's fort (R1)
DAYS = 3
REVEALS_PER_ROUND = 8


def _name(rank: int) -> str:
    return RANK_NAMES[rank]


class State:
    """The whole public state of one game after some events.

    Treat it as read-only: :func:`apply` copies before it changes anything.
    ``to_dict()`` is the JSON the replay command prints (RECORD.md).
    """

    __slots__ = (
        "options", "wall", "events", "day", "phase", "ip", "da", "dt", "supply",
        "exhausted", "drawn", "intel", "old_intel", "tokens", "starter", "last_starter",
        "revealed", "effects", "broken", "double", "da_moved", "round_reveals",
        "winner", "reason", "capturer", "reveals", "stats",
    )

    def __init__(self, options: Options | None = None) -> None:
        """R2: both IP at 0, the DA at the centre, day 1, one DT per side and two spare."""
        self.options = options or Options()
        self.wall: int = self.options.wall_distance
        self.events: int = 0                      # how many events are applied
        self.day: int = 1
        self.phase: str = "setup"
        self.ip = {"red": 0, "blue": 0}
        self.da: int = 0
        self.dt = {"red": 1, "blue": 1}
        self.supply: int = 2
        self.exhausted: dict[str, tuple[int, ...]] = {"red": (), "blue": ()}
        self.drawn: dict[str, tuple[int, ...] | None] = {"red": None, "blue": None}
        self.intel: tuple[int, ...] | None = None
        self.old_intel: tuple[tuple[int, ...], ...] = ()
        self.tokens: dict[str, frozenset[int] | None] = {"red": None, "blue": None}
        self.starter: str | None = None
        self.last_starter: str | None = None
        self._new_round()
        self.winner: str | None = None
        self.reason: str | None = None
        self.capturer: str | None = None
        self.reveals: tuple[dict[str, Any], ...] = ()
        self.stats = {s: {"identified": 0, "ip_identified": 0, "ip_abilities": 0,
                          "ip_deception": 0, "infiltrations": 0, "da_steps": 0,
                          "activated": 0} for s in SIDES}

    def _new_round(self) -> None:
        self.revealed: dict[str, dict[int, int]] = {"red": {}, "blue": {}}  # owner's cards
        self.effects = {s: dict.fromkeys(EFFECTS, False) for s in SIDES}
        self.broken = {"red": False, "blue": False}   # R60 fired for that side
        self.double = {"red": False, "blue": False}   # R47: that side has two drawn
        self.da_moved = {"red": 0, "blue": 0}         # actual DA steps this round (R60)
        self.round_reveals = 0

    def copy(self) -> "State":
        c = State.__new__(State)
        c.options, c.wall, c.events, c.day, c.phase = (
            self.options, self.wall, self.events, self.day, self.phase)
        c.da, c.supply, c.intel, c.old_intel = self.da, self.supply, self.intel, self.old_intel
        c.starter, c.last_starter, c.round_reveals = (
            self.starter, self.last_starter, self.round_reveals)
        c.winner, c.reason, c.capturer, c.reveals = (
            self.winner, self.reason, self.capturer, self.reveals)
        c.ip, c.dt, c.exhausted, c.drawn = (
            self.ip.copy(), self.dt.copy(), self.exhausted.copy(), self.drawn.copy())
        c.tokens, c.broken, c.double, c.da_moved = (
            self.tokens.copy(), self.broken.copy(), self.double.copy(), self.da_moved.copy())
        r, e, st = self.revealed, self.effects, self.stats
        c.revealed = {"red": r["red"].copy(), "blue": r["blue"].copy()}
        c.effects = {"red": e["red"].copy(), "blue": e["blue"].copy()}
        c.stats = {"red": st["red"].copy(), "blue": st["blue"].copy()}
        return c

    def __eq__(self, o: object) -> bool:
        if not isinstance(o, State):
            return NotImplemented
        return all(getattr(self, n) == getattr(o, n) for n in State.__slots__)

    __hash__ = None  # type: ignore[assignment]

    # --- reading the state ----------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def next_reveal(self) -> tuple[str, int] | None:
        """R13: the (guesser, mission) of the coming reveal in the mission phase."""
        if self.phase != "mission":
            return None
        k = self.round_reveals
        starter = self.starter or "red"
        return (starter if k % 2 == 0 else other(starter)), k // 2 + 1

    def hand_ranks(self, side: str) -> list[int]:
        """Ranks ``side`` could still turn up this round (not revealed, not exhausted)."""
        used = set(self.revealed[side].values()) | set(self.exhausted[side])
        return [r for r in range(1, 11) if r not in used]

    def to_dict(self) -> dict[str, Any]:
        """The replay output of RECORD.md, with more keys for the screens."""
        return {
            "day": self.day,
            "phase": self.phase,
            "ip": dict(self.ip),
            "da": self.da,
            "dt": {"red": self.dt["red"], "blue": self.dt["blue"], "supply": self.supply},
            "winner": self.winner,
            "reason": self.reason,
            "reveals": [dict(r) for r in self.reveals],
            "wall_distance": self.wall,
            "events": self.events,
            "exhausted": {s: list(self.exhausted[s]) for s in SIDES},
            "drawn": {s: (list(v) if v is not None else None) for s, v in self.drawn.items()},
            "intel": list(self.intel) if self.intel else None,
            "old_intel": [list(c) for c in self.old_intel],
            "tokens": {s: (sorted(v) if v is not None else None) for s, v in self.tokens.items()},
            "starter": self.starter,
            "revealed": {s: {str(m): r for m, r in sorted(v.items())}
                         for s, v in self.revealed.items()},
            "effects": {s: [e for e in EFFECTS if self.effects[s][e]] for s in SIDES},
            "order_broken": dict(self.broken),
            "double_damage": dict(self.double),
            "capturer": self.capturer,
            "stats": {s: dict(v) for s, v in self.stats.items()},
        }


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
    _step(s, event)
    return s


def replay(record: Record | Options | None = None, events: Iterable[Event] | None = None) -> State:
    """The state after every event of a record (or of ``options`` and ``events``)."""
    if isinstance(record, Record):
        options, events = record.options, record.events
    else:
        options, events = record, events or ()
    s = State(options)
    for e in events:
        _step(s, e)
    return s


def _step(s: State, e: Event) -> None:
    index = s.events
    try:
        if s.phase == "over":
            raise GameOver(f"the game is over ({_describe_end(s)}); nothing more can be recorded")
        handler = _HANDLERS.get(type(e))
        if handler is None:
            raise IllegalEvent(f"{type(e).__name__} is not an event of this game")
        handler(s, e)
    except RecordError as err:
        raise err.at(index) from None
    s.events = index + 1


def _describe_end(s: State) -> str:
    if s.winner == "draw":
        return "a draw"
    return f"{s.winner} won by {s.reason}"


def _expecting(s: State) -> str:
    """Plain words for what the game waits for, used in refusals."""
    from .expect import expected  # late import: expect builds on this module
    return expected(s).text


# --- setup, intel, start, round end (R3, R10-R15) ---------------------------------

def _exhaust(s: State, e: Exhaust) -> None:
    """R3, R15, R47: the exhausted soldier(s) drawn for the coming round."""
    if s.phase not in ("setup", "round_end"):
        raise OutOfTurn(f"no exhaustion draw is due now: {_expecting(s)}")
    if s.drawn[e.side] is not None:
        raise OutOfTurn(f"{e.side}'s exhausted soldiers are already recorded")
    if s.phase == "setup":
        if len(e.ranks) != 1:
            raise IllegalEvent(f"before day 1 each side has exactly one exhausted soldier (R3), "
                               f"not {len(e.ranks)}")
    else:
        need = 2 if s.double[e.side] and s.day < DAYS else 1
        if len(e.ranks) != need:
            why = " (double damage, R47)" if need == 2 else ""
            raise IllegalEvent(f"{e.side} must have {need} soldier{'s' if need > 1 else ''} "
                               f"drawn{why}, not {len(e.ranks)}")
        deployed = set(s.revealed[e.side].values())
        for r in e.ranks:
            if r not in deployed:
                raise IllegalEvent(f"{e.side} did not deploy the {_name(r)} ({r}) this round; "
                                   f"the draw is from {sorted(deployed)}")
    s.drawn[e.side] = e.ranks
    if s.drawn["red"] is not None and s.drawn["blue"] is not None:
        s.exhausted = {"red": s.drawn["red"], "blue": s.drawn["blue"]}
        s.drawn = {"red": None, "blue": None}
        if s.phase == "round_end":
            s.day += 1
            s.old_intel = s.old_intel + ((s.intel,) if s.intel else ())
            s.intel = None
            s.tokens = {"red": None, "blue": None}
            s.last_starter, s.starter = s.starter, None
            s._new_round()
        s.phase = "intel"


def _intel(s: State, e: Intel) -> None:
    """R11: the intel card of the round."""
    if s.phase != "intel" or s.intel is not None:
        raise OutOfTurn(f"no intel card is due now: {_expecting(s)}")
    s.intel = e.ranks


def _tokens(s: State, e: Tokens) -> None:
    """R11: the public placement of one side's intel tokens."""
    if s.phase != "intel" or s.intel is None:
        raise OutOfTurn(f"intel tokens come after the intel card: {_expecting(s)}")
    if s.tokens[e.side] is not None:
        raise OutOfTurn(f"{e.side}'s intel tokens are already recorded")
    s.tokens[e.side] = frozenset(e.missions)


def _start(s: State, e: Start) -> None:
    """R12: the starting side; rounds 2 and 3 alternate."""
    if s.phase != "intel" or s.intel is None or None in s.tokens.values():
        raise OutOfTurn(f"the starting side comes after the intel card and both sides' "
                        f"tokens: {_expecting(s)}")
    if s.last_starter is not None and e.side == s.last_starter:
        raise IllegalEvent(f"{e.side} started day {s.day - 1}, so {other(e.side)} starts "
                           f"day {s.day} (R12)")
    s.starter = e.side
    s.phase = "mission"


# --- scoring and the double agent (R30-R33) ----------------------------------------

class _Reveal:
    """Collects what one reveal did, as data (for the screens and the narration)."""

    __slots__ = ("effects",)

    def __init__(self) -> None:
        self.effects: list[dict[str, Any]] = []

    def add(self, kind: str, side: str, **more: Any) -> None:
        self.effects.append({"kind": kind, "side": side, **more})


def _gain(s: State, side: str, n: int, out: _Reveal, source: str, rollover: bool = False,
          carried: bool = False) -> None:
    """R31, R33, R48: add IP; reaching 10 infiltrates (excess lost unless Colonel)."""
    if s.winner or n <= 0:
        return
    ip = s.ip[side] + n
    if carried:
        out.add("ip", side, amount=n, source=source, carried=True)
    else:
        out.add("ip", side, amount=n, source=source)
    s.stats[side]["ip_" + source] += n
    if ip < 10:
        s.ip[side] = ip
        return
    s.ip[side] = 0
    s.stats[side]["infiltrations"] += 1
    out.add("infiltrate", side, excess=ip - 10, kept=rollover)
    _move_da(s, side, s.day, out, "infiltration")
    if rollover and ip > 10:
        _gain(s, side, ip - 10, out, source, rollover=True, carried=True)


def _move_da(s: State, side: str, steps: int, out: _Reveal, source: str) -> None:
    """R32, R70: move the DA step by step toward ``side``'s enemy fort."""
    if s.winner:
        return
    d = DIRECTION[side]
    wall = d * s.wall
    moved = 0
    for _ in range(steps):
        if s.da == wall:
            s.da = d * (s.wall + 1)
            s.winner, s.reason, s.capturer = side, "flag", side
            s.phase = "capture_check"
            out.add("da", side, steps=moved, to=wall, source=source)
            out.add("flag", side)
            s.da_moved[side] += moved
            s.stats[side]["da_steps"] += moved
            return
        s.da += d
        moved += 1
        if s.da == wall:
            break
    s.da_moved[side] += moved
    s.stats[side]["da_steps"] += moved
    out.add("da", side, steps=moved, asked=steps, to=s.da, source=source)


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


def _r60_incorrect_order(s: State, owner: str, out: _Reveal) -> None:
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
    out.add("order_broken", owner, da_undone=undone, ip_lost=lost, to=da)


# --- a reveal (R13, R14, R20-R24, R50, R60, R61) -----------------------------------

def _reveal(s: State, e: Reveal) -> None:
    """R20-R24: resolve one reveal; the first step that applies decides the outcome."""
    if s.phase != "mission":
        raise OutOfTurn(f"no reveal is due now: {_expecting(s)}")
    guesser, mission = s.next_reveal()  # type: ignore[misc]
    owner = other(guesser)
    if (e.guesser, e.mission) != (guesser, mission):
        raise OutOfTurn(f"it is {guesser}'s turn to guess {owner}'s mission {mission} (R13), "
                        f"not {e.guesser}'s on mission {e.mission}")
    rank = e.actual
    if rank in s.revealed[owner].values():
        raise IllegalEvent(f"{owner}'s {_name(rank)} ({rank}) was already revealed this round")
    if rank in s.exhausted[owner]:
        raise IllegalEvent(f"{owner}'s {_name(rank)} ({rank}) is exhausted this round")
    if e.deception and s.dt[owner] < 1:
        raise IllegalEvent(f"{owner} holds no deception token")

    out = _Reveal()
    index = s.events
    if e.deception:
        s.dt[owner] -= 1                      # R14, R51: spent whatever happens
    bomb = s.effects[guesser]["bomb"]
    s.effects[guesser]["bomb"] = False        # R46: the next reveal uses the effect up
    tokened = mission in (s.tokens[owner] or ())

    if s.broken[owner]:
        outcome, rule = "identified", "R60"
    elif _order_broken(s.revealed[owner].items(), mission, rank):
        _r60_incorrect_order(s, owner, out)
        outcome, rule = "identified", "R60"
    elif rank != 4 and tokened != (rank in (s.intel or ())):
        outcome, rule = "identified", "R61"
    elif e.guess == rank:
        outcome, rule = "identified", "R30"
    elif bomb:
        outcome, rule = "neutralised", "R46"
    elif rank == 10 and s.effects[guesser]["spy"]:
        outcome, rule = "neutralised", "R40"
    elif rank == 7 and s.effects[guesser]["miner"]:
        outcome, rule = "neutralised", "R42"
    else:
        outcome, rule = "activated", "R24"

    choice = None
    if outcome == "activated" and rank in (6, 10):
        choice = _parse_choice(s, owner, rank, e.choice)

    s.revealed[owner][mission] = rank
    s.round_reveals += 1

    if outcome == "identified":
        _r30_identify(s, guesser, out)
        if bomb:
            s.double[owner] = True            # R47
            out.add("double_damage", owner)
    elif outcome == "activated":
        s.stats[owner]["activated"] += 1
        _activate(s, owner, rank, choice, out)
        if e.deception and not s.winner:
            out.add("deception_pays", owner)  # R50
            _gain(s, owner, 4, out, "deception")

    s.reveals = s.reveals + ({
        "index": index, "day": s.day, "guesser": guesser, "owner": owner, "mission": mission,
        "guess": e.guess, "actual": rank, "deception": e.deception,
        "choice": e.choice if choice else None,
        "outcome": outcome, "rule": rule,
        "ip": dict(s.ip), "da": s.da, "dt": {"red": s.dt["red"], "blue": s.dt["blue"],
                                              "supply": s.supply},
        "effects": out.effects,
    },)

    if s.winner:
        return                               # R70: the game stops at once
    if s.round_reveals == REVEALS_PER_ROUND:
        if s.day == DAYS:
            _r72_end_of_day_three(s)
        else:
            s.phase = "round_end"


def _r30_identify(s: State, guesser: str, out: _Reveal) -> None:
    """R30 (also R60, R61): the card retreats; the guesser gains 2, or 4 after its Scout."""
    s.stats[guesser]["identified"] += 1
    _gain(s, guesser, 4 if s.effects[guesser]["scout"] else 2, out, "identified")


def _parse_choice(s: State, owner: str, rank: int, choice: str | None) -> tuple:
    """R45, R49: check the owner's choice for an activated Captain or Marshal."""
    if rank == 10:
        if choice not in ("ip", "drain"):
            raise IllegalEvent(f"{owner}'s Marshal was activated: its owner must choose "
                               f"\"ip\" or \"drain\" (R49), not {_show(choice)}")
        return (choice,)
    usable = s.exhausted[owner]
    options = ["ip"] + [f"use:{r}" if r != 10 else "use:10:ip / use:10:drain" for r in usable]
    if choice == "ip":
        return ("ip",)
    parts = choice.split(":") if isinstance(choice, str) else []
    if len(parts) >= 2 and parts[0] == "use" and parts[1].isdigit():
        n = int(parts[1])
        if n not in usable:
            raise IllegalEvent(f"{owner}'s Captain cannot use the {_name(n) if n in RANK_NAMES else n}: "
                               f"it is not one of {owner}'s exhausted soldiers "
                               f"({', '.join(map(str, usable)) or 'none'}) (R45)")
        if n == 10 and len(parts) == 3 and parts[2] in ("ip", "drain"):
            return ("use", 10, parts[2])
        if n != 10 and len(parts) == 2:
            return ("use", n)
    raise IllegalEvent(f"{owner}'s Captain was activated: its owner must choose one of "
                       f"{', '.join(options)} (R45), not {_show(choice)}")


def _show(choice: str | None) -> str:
    return "no choice" if choice is None else f"\"{choice}\""


# --- abilities (R40-R49) ---------------------------------------------------------

def _activate(s: State, side: str, rank: int, choice: tuple | None, out: _Reveal) -> None:
    """R40-R49: the ability of ``side``'s soldier ``rank``."""
    enemy = other(side)
    if rank == 1:                             # R40 Spy
        _gain(s, side, 1, out, "abilities")
        if s.winner:
            return
        if s.dt[side] < 2 and s.supply > 0:   # R51
            s.dt[side] += 1
            s.supply -= 1
            out.add("dt", side, amount=1)
        s.effects[side]["spy"] = True
        out.add("effect", side, effect="spy")
    elif rank == 2:                           # R41 Scout
        _gain(s, side, 2, out, "abilities")
        s.effects[side]["scout"] = True
        out.add("effect", side, effect="scout")
    elif rank == 3:                           # R42 Miner
        _gain(s, side, 3, out, "abilities")
        s.effects[side]["miner"] = True
        out.add("effect", side, effect="miner")
    elif rank == 4:                           # R43 Sergeant
        _gain(s, side, 4, out, "abilities")
    elif rank == 5:                           # R44 Lieutenant
        _move_da(s, side, 1, out, "Lieutenant")
    elif rank == 6:                           # R45 Captain
        assert choice is not None
        if choice[0] == "ip":
            _gain(s, side, 6, out, "abilities")
            return
        used = choice[1]
        out.add("use", side, rank=used)
        if (used == 10 and s.effects[enemy]["spy"]) or (used == 7 and s.effects[enemy]["miner"]):
            out.add("fizzle", side, rank=used, by="R40" if used == 10 else "R42")
            return
        _activate(s, side, used, choice[2:] or None, out)
    elif rank == 7:                           # R46 Bomb
        s.effects[side]["bomb"] = True
        out.add("effect", side, effect="bomb")
    elif rank == 8:                           # R48 Colonel
        _gain(s, side, 8, out, "abilities", rollover=True)
    elif rank == 9:                           # General: two steps, as R44 does one
        _move_da(s, side, 2, out, "General")
    elif rank == 10:                          # R49 Marshal
        assert choice is not None
        if choice[0] == "ip":
            _gain(s, side, 10, out, "abilities")
        else:
            _gain(s, side, 5, out, "abilities")
            if s.winner:
                return
            drained = min(5, s.ip[enemy])
            s.ip[enemy] -= drained
            out.add("drain", enemy, amount=drained)


# --- end of the game (R70-R72) -----------------------------------------------------

def _check(s: State, e: Check) -> None:
    """R71: the capturer's face-down cards; a broken order cancels the flag."""
    if s.phase != "capture_check":
        raise OutOfTurn(f"a capture check comes only right after a flag capture: {_expecting(s)}")
    side = s.capturer
    assert side is not None
    if e.side != side:
        raise IllegalEvent(f"the capture check is for {side}, who captured the flag, "
                           f"not {e.side}")
    revealed = s.revealed[side]
    face_down = [m for m in range(1, 5) if m not in revealed]
    given = [m for m, _ in e.ranks]
    if given != face_down:
        want = ", ".join(map(str, face_down)) or "none"
        raise IllegalEvent(f"{side}'s face-down missions are {want}; the check must give "
                           f"exactly those, not {', '.join(map(str, given)) or 'none'}")
    seen = set(revealed.values())
    for m, r in e.ranks:
        if r in seen:
            raise IllegalEvent(f"{side}'s {_name(r)} ({r}) cannot be on two missions")
        if r in s.exhausted[side]:
            raise IllegalEvent(f"{side}'s {_name(r)} ({r}) is exhausted this round")
        seen.add(r)
    four = sorted({**revealed, **dict(e.ranks)}.items())
    ranks = [r for _, r in four if r != 4]
    if any(a >= b for a, b in zip(ranks, ranks[1:])):
        s.winner, s.reason = other(side), "flag_cancelled"
    s.phase = "over"


def _r72_end_of_day_three(s: State) -> None:
    """R72: territory decides; at the centre, IP; equal IP is a draw."""
    s.phase = "over"
    if s.da > 0:
        s.winner, s.reason = "red", "territory"
    elif s.da < 0:
        s.winner, s.reason = "blue", "territory"
    elif s.ip["red"] != s.ip["blue"]:
        s.winner = "red" if s.ip["red"] > s.ip["blue"] else "blue"
        s.reason = "ip"
    else:
        s.winner, s.reason = "draw", "draw"


_HANDLERS = {Exhaust: _exhaust, Intel: _intel, Tokens: _tokens, Start: _start,
             Reveal: _reveal, Check: _check}
