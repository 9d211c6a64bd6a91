"""The state of one game: a plain value derived from its events (R2).

:mod:`~companion.engine.referee` builds it event by event; everything else only
reads it.

>>> s = State()
>>> s.phase, s.day, s.da, s.outcome
(<Phase.SETUP: 'setup'>, 1, 0, None)
>>> s.ip == {"red": 0, "blue": 0}       # Side members are the strings "red" and "blue"
True
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from .events import BLUE, RED, SIDES, Options, Side, other
from .results import Outcome, Reason, RevealResult


class Phase(StrEnum):
    """Where a game stands; ``str`` members, so JSON shows the plain words."""

    SETUP = "setup"                  # R3: the exhausted soldiers before day 1
    INTEL = "intel"                  # R11, R12: intel card, tokens, starting side
    MISSION = "mission"              # R13: the eight reveals of a day
    ROUND_END = "round_end"          # R15: the exhaustion draw between days
    CAPTURE_CHECK = "capture_check"  # R71: after a flag capture
    OVER = "over"


PHASES = tuple(Phase)
# The members again as module constants: the referee reads them on every event,
# and a module constant is read ~10 times faster than ``Phase.MISSION`` (Python 3.11).
SETUP, INTEL, MISSION, ROUND_END, CAPTURE_CHECK, OVER = PHASES
EFFECTS = ("scout", "spy", "miner", "bomb")
STATS = ("identified", "ip_identified", "ip_abilities", "ip_deception", "infiltrations",
         "da_steps", "activated")
_NO_EFFECTS = dict.fromkeys(EFFECTS, False)   # copied for each side and round (cheaper)
_NO_STATS = dict.fromkeys(STATS, 0)
DIRECTION = {Side.RED: 1, Side.BLUE: -1}  # red pushes the DA up, toward blue's fort (R1)
DAYS = 3
REVEALS_PER_ROUND = 8
# R13: the reveals of a round in order, by the side that starts it: the guesser,
# whose card is turned up, and on which mission (1, 1, 2, 2, ... 4, 4).
TURNS: dict[Side, tuple[tuple[Side, Side, int], ...]] = {
    starter: tuple((starter, other(starter), k // 2 + 1) if k % 2 == 0
                   else (other(starter), starter, k // 2 + 1)
                   for k in range(REVEALS_PER_ROUND))
    for starter in SIDES}

Stats = dict[str, int]


class State:
    """The whole public state of one game after some events.

    Treat it as read-only: :func:`~companion.engine.referee.apply` copies before
    it changes anything. ``to_dict()`` is the JSON the replay command prints
    (RECORD.md).
    """

    __slots__ = (
        "options", "wall", "event_count", "day", "phase", "ip", "da", "dt", "supply",
        "exhausted", "drawn", "intel", "old_intel", "tokens", "starter", "last_starter",
        "revealed", "effects", "broken", "double", "da_moved", "round_reveals",
        "outcome", "capturer", "reveals", "stats",
    )

    def __init__(self, options: Options | None = None) -> None:
        """R2: both IP at 0, the DA at the centre, day 1, one DT per side and two spare."""
        self.options = options or Options()
        self.wall: int = self.options.wall_distance
        self.event_count: int = 0                 # how many events are applied
        self.day: int = 1
        self.phase: Phase = SETUP
        self.ip: dict[Side, int] = {RED: 0, BLUE: 0}
        self.da: int = 0
        self.dt: dict[Side, int] = {RED: 1, BLUE: 1}
        self.supply: int = 2
        self.exhausted: dict[Side, tuple[int, ...]] = {RED: (), BLUE: ()}
        self.drawn: dict[Side, tuple[int, ...] | None] = {RED: None, BLUE: None}
        self.intel: tuple[int, ...] | None = None
        self.old_intel: tuple[tuple[int, ...], ...] = ()
        self.tokens: dict[Side, frozenset[int] | None] = {RED: None, BLUE: None}
        self.starter: Side | None = None
        self.last_starter: Side | None = None
        self.revealed: dict[Side, dict[int, int]]
        self.effects: dict[Side, dict[str, bool]]
        self.broken: dict[Side, bool]
        self.double: dict[Side, bool]
        self.da_moved: dict[Side, int]
        self.round_reveals: int
        self.new_round()
        self.outcome: Outcome | None = None
        self.capturer: Side | None = None
        self.reveals: tuple[RevealResult, ...] = ()
        self.stats: dict[Side, Stats] = {RED: _NO_STATS.copy(), BLUE: _NO_STATS.copy()}

    def new_round(self) -> None:
        """R15: clear what lasts one round (revealed cards, effects, R60 and R47 marks)."""
        self.revealed = {RED: {}, BLUE: {}}         # owner's cards: mission -> rank
        self.effects = {RED: _NO_EFFECTS.copy(), BLUE: _NO_EFFECTS.copy()}
        self.broken = {RED: False, BLUE: False}     # R60 fired for that side
        self.double = {RED: False, BLUE: False}     # R47: that side has two drawn
        self.da_moved = {RED: 0, BLUE: 0}           # actual DA steps this round (R60)
        self.round_reveals = 0

    def copy(self) -> State:
        """A copy the referee may change without touching this state."""
        c = State.__new__(State)
        c.options, c.wall, c.event_count, c.day, c.phase = (
            self.options, self.wall, self.event_count, self.day, self.phase)
        c.da, c.supply, c.intel, c.old_intel = self.da, self.supply, self.intel, self.old_intel
        c.starter, c.last_starter, c.round_reveals = (
            self.starter, self.last_starter, self.round_reveals)
        c.outcome, c.capturer, c.reveals = self.outcome, self.capturer, self.reveals
        c.ip, c.dt, c.exhausted, c.drawn = (
            self.ip.copy(), self.dt.copy(), self.exhausted.copy(), self.drawn.copy())
        c.tokens, c.broken, c.double, c.da_moved = (
            self.tokens.copy(), self.broken.copy(), self.double.copy(), self.da_moved.copy())
        r, e, st = self.revealed, self.effects, self.stats
        c.revealed = {RED: r[RED].copy(), BLUE: r[BLUE].copy()}
        c.effects = {RED: e[RED].copy(), BLUE: e[BLUE].copy()}
        c.stats = {RED: st[RED].copy(), BLUE: st[BLUE].copy()}
        return c

    def __eq__(self, o: object) -> bool:
        if not isinstance(o, State):
            return NotImplemented
        return all(getattr(self, n) == getattr(o, n) for n in State.__slots__)

    __hash__ = None  # type: ignore[assignment]  # mutable: equal by value, not hashable

    # --- reading the state ----------------------------------------------------

    @property
    def is_over(self) -> bool:
        """True once the game has ended (and any capture check is done)."""
        return self.phase == OVER

    @property
    def winner(self) -> Side | Literal["draw"] | None:
        """The winning side, ``"draw"``, or ``None`` while nobody has won (R70-R72)."""
        return None if self.outcome is None else self.outcome.winner_text

    @property
    def reason(self) -> Reason | None:
        """Why the game ended (or, during a capture check, why it may end)."""
        return None if self.outcome is None else self.outcome.reason

    def next_reveal(self) -> tuple[Side, int] | None:
        """R13: the (guesser, mission) of the coming reveal in the mission phase."""
        if self.phase != MISSION:
            return None
        guesser, _, mission = TURNS[self.starter or RED][self.round_reveals]
        return guesser, mission

    def hand_ranks(self, side: Side) -> list[int]:
        """Ranks ``side`` could still turn up this round (not revealed, not exhausted)."""
        used = set(self.revealed[side].values()) | set(self.exhausted[side])
        return [r for r in range(1, 11) if r not in used]

    def to_dict(self, told: int = 0) -> dict[str, Any]:
        """The replay output of RECORD.md, with more keys for the screens. ``told``: the
        first reveals are left ``None``, for a caller that has their dicts already."""
        return {
            "day": self.day,
            "phase": self.phase,
            "ip": dict(self.ip),
            "da": self.da,
            "dt": {"red": self.dt[RED], "blue": self.dt[BLUE], "supply": self.supply},
            "winner": self.winner,
            "reason": self.reason,
            "reveals": [None] * told + [r.to_dict() for r in self.reveals[told:]],
            "wall_distance": self.wall,
            "events": self.event_count,
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
