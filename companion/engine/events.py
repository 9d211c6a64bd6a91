"""Events as values, and the record file format ``spies-and-lies-record/1``.

An event is a small frozen dataclass. ``event.to_dict()`` gives the JSON dict of
RECORD.md and :func:`event_from_dict` reads one back; for every event ``e``,
``event_from_dict(e.to_dict()) == e``.

>>> e = Reveal(guesser="blue", mission=1, guess=2, actual=1, deception=False)
>>> json.dumps(e.to_dict())      # Side members are str: the JSON has plain words
'{"type": "reveal", "guesser": "blue", "mission": 1, "guess": 2, "actual": 1, "deception": false}'
>>> event_from_dict(e.to_dict()) == e
True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from .errors import BadRecord, MalformedEvent, RecordError
from .words import N_, Msg
from .words import RANK_NAMES as RANK_NAMES  # the ranks by number, for every module

FORMAT = "spies-and-lies-record/1"


class Side(StrEnum):
    """A side of the table. Members are strings, so JSON shows ``"red"`` and ``"blue"``.

    >>> Side("red") is Side.RED, Side.RED == "red", json.dumps({Side.BLUE: Side.RED})
    (True, True, '{"blue": "red"}')
    """

    RED = "red"
    BLUE = "blue"


SIDES: tuple[Side, Side] = (Side.RED, Side.BLUE)
RANKS = range(1, 11)
MISSIONS = range(1, 5)
WALL_DISTANCES = range(2, 9)
DEFAULT_WALL_DISTANCE = 4


# The members again as module constants: the referee reads them on every event,
# and a module constant is read ~10 times faster than ``Side.RED`` (Python 3.11).
RED, BLUE = SIDES
SIDE_OF: dict[str, Side] = {s.value: s for s in SIDES}   # "red" -> Side.RED, no Enum call


def other(side: str) -> Side:
    """The opposing side.

    >>> other(Side.RED), other("blue")
    (<Side.BLUE: 'blue'>, <Side.RED: 'red'>)
    """
    return BLUE if side == "red" else RED


def _as_side(v: str) -> Side:
    """``v`` as a :class:`Side` (an event built in Python may be given "red")."""
    return v if type(v) is Side else Side(v)   # (inlined in the most frequent events)


# --- field readers: each raises MalformedEvent naming the key ---------------

def _side(d: Mapping[str, Any], key: str) -> Side:
    v = d.get(key)
    side = SIDE_OF.get(v) if isinstance(v, str) else None
    if side is None:
        raise MalformedEvent(Msg("'{key}' must be \"red\" or \"blue\", not {value}", key=key,
                                 value=json.dumps(v)))
    return side


def _int(d: Mapping[str, Any], key: str, allowed: range, what: str) -> int:
    v = d.get(key)
    if type(v) is not int or v not in allowed:
        raise MalformedEvent(Msg("'{key}' must be a {what} {lo}-{hi}, not {value}", key=key,
                                 what=Msg(_WHAT[what][0]), lo=allowed.start,
                                 hi=allowed.stop - 1, value=json.dumps(v)))
    return v


# the words a field reader names: one thing, several
_WHAT = {"rank": (N_("rank"), N_("ranks")), "mission": (N_("mission"), N_("missions"))}


def _int_list(d: Mapping[str, Any], key: str, allowed: range, what: str,
              sizes: tuple[int, ...] | None) -> tuple[int, ...]:
    v = d.get(key)
    if not isinstance(v, list):
        raise MalformedEvent(Msg("'{key}' must be a list of {what}, not {value}", key=key,
                                 what=Msg(_WHAT[what][1]), value=json.dumps(v)))
    for x in v:
        if type(x) is not int or x not in allowed:
            raise MalformedEvent(Msg("'{key}' must hold {what} {lo}-{hi}, not {value}",
                                     key=key, what=Msg(_WHAT[what][1]), lo=allowed.start,
                                     hi=allowed.stop - 1, value=json.dumps(x)))
    if len(v) > 1 and len(set(v)) != len(v):
        raise MalformedEvent(Msg("'{key}' names the same {what} twice", key=key,
                                 what=Msg(_WHAT[what][0])))
    if sizes is not None and len(v) not in sizes:
        n: Msg | int = sizes[0]
        for x in sizes[1:]:
            n = Msg("{first} or {last}", first=n, last=x)
        raise MalformedEvent(Msg("'{key}' must hold {n} {what}, not {count}", key=key, n=n,
                                 what=Msg(_WHAT[what][1]), count=len(v)))
    return tuple(v)


# --- the events --------------------------------------------------------------
#
# Frozen dataclasses that fill their ``__dict__`` in their own ``__init__``. The
# generated ``__init__`` of a frozen dataclass sets each field with its own
# object.__setattr__ and, with the ``__post_init__`` that made the side a Side,
# cost ~0.85 us a reveal; this ~0.2 us, and instances of a class share their
# dict's keys. Assignment still raises FrozenInstanceError; equality, hash, repr
# and ``fields()`` are the dataclass's own.

@dataclass(frozen=True, init=False)
class Exhaust:
    """That side's exhausted soldier(s) for the coming round (R3, R15, R47)."""

    side: Side
    ranks: tuple[int, ...]
    type: ClassVar[str] = "exhaust"

    def __init__(self, side: Side, ranks: tuple[int, ...]) -> None:
        d = self.__dict__
        d["side"], d["ranks"] = side if type(side) is Side else Side(side), ranks

    def to_dict(self) -> dict[str, Any]:
        """The JSON dict of RECORD.md."""
        return {"type": self.type, "side": self.side, "ranks": list(self.ranks)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Exhaust:
        """Read one from its JSON dict; raise :class:`MalformedEvent` naming a bad key."""
        return cls(_side(d, "side"), _int_list(d, "ranks", RANKS, "rank", (1, 2)))


@dataclass(frozen=True, init=False)
class Intel:
    """The current intel card: four distinct ranks (R11)."""

    ranks: tuple[int, ...]
    type: ClassVar[str] = "intel"

    def __init__(self, ranks: tuple[int, ...]) -> None:
        self.__dict__["ranks"] = ranks

    def to_dict(self) -> dict[str, Any]:
        """The JSON dict of RECORD.md."""
        return {"type": self.type, "ranks": list(self.ranks)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Intel:
        """Read one from its JSON dict; raise :class:`MalformedEvent` naming a bad key."""
        return cls(_int_list(d, "ranks", RANKS, "rank", (4,)))


@dataclass(frozen=True, init=False)
class Tokens:
    """The missions of ``side`` that carry an intel token (R11)."""

    side: Side
    missions: tuple[int, ...]
    type: ClassVar[str] = "tokens"

    def __init__(self, side: Side, missions: tuple[int, ...]) -> None:
        d = self.__dict__
        d["side"], d["missions"] = side if type(side) is Side else Side(side), missions

    def to_dict(self) -> dict[str, Any]:
        """The JSON dict of RECORD.md."""
        return {"type": self.type, "side": self.side, "missions": list(self.missions)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Tokens:
        """Read one from its JSON dict; raise :class:`MalformedEvent` naming a bad key."""
        return cls(_side(d, "side"), _int_list(d, "missions", MISSIONS, "mission", None))


@dataclass(frozen=True, init=False)
class Start:
    """The side that guesses first this round (R12)."""

    side: Side
    type: ClassVar[str] = "start"

    def __init__(self, side: Side) -> None:
        self.__dict__["side"] = _as_side(side)

    def to_dict(self) -> dict[str, Any]:
        """The JSON dict of RECORD.md."""
        return {"type": self.type, "side": self.side}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Start:
        """Read one from its JSON dict; raise :class:`MalformedEvent` naming a bad key."""
        return cls(_side(d, "side"))


@dataclass(frozen=True, init=False)
class Reveal:
    """One reveal: ``guesser`` names ``guess`` for the enemy's ``mission``; it was ``actual``."""

    guesser: Side
    mission: int
    guess: int
    actual: int
    deception: bool = False
    choice: str | None = None
    type: ClassVar[str] = "reveal"

    def __init__(self, guesser: Side, mission: int, guess: int, actual: int,
                 deception: bool = False, choice: str | None = None) -> None:
        d = self.__dict__
        d["guesser"] = guesser if type(guesser) is Side else Side(guesser)
        d["mission"], d["guess"], d["actual"] = mission, guess, actual
        d["deception"], d["choice"] = deception, choice

    @property
    def owner(self) -> Side:
        """The side whose card is turned up."""
        return other(self.guesser)

    def to_dict(self) -> dict[str, Any]:
        """The JSON dict of RECORD.md."""
        d: dict[str, Any] = {"type": self.type, "guesser": self.guesser, "mission": self.mission,
                             "guess": self.guess, "actual": self.actual,
                             "deception": self.deception}
        if self.choice is not None:
            d["choice"] = self.choice
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Reveal:
        """Read one from its JSON dict; raise :class:`MalformedEvent` naming a bad key."""
        # Most of a record: check every key at once, and only when one is wrong go
        # key by key (below) to name the first that is.
        g = d.get("guesser")
        guesser = SIDE_OF.get(g) if isinstance(g, str) else None
        mission, guess, actual = d.get("mission"), d.get("guess"), d.get("actual")
        deception, choice = d.get("deception"), d.get("choice")
        if (guesser is not None and type(mission) is int and 1 <= mission <= 4
                and type(guess) is int and 1 <= guess <= 10
                and type(actual) is int and 1 <= actual <= 10
                and type(deception) is bool and (choice is None or isinstance(choice, str))):
            return cls(guesser, mission, guess, actual, deception, choice)
        if type(deception) is not bool:
            raise MalformedEvent(Msg("'{key}' must be true or false, not {value}",
                                     key="deception", value=json.dumps(deception)))
        if choice is not None and not isinstance(choice, str):
            raise MalformedEvent(Msg("'choice' must be a string, not {value}",
                                     value=json.dumps(choice)))
        return cls(_side(d, "guesser"), _int(d, "mission", MISSIONS, "mission"),
                   _int(d, "guess", RANKS, "rank"), _int(d, "actual", RANKS, "rank"),
                   deception, choice)


@dataclass(frozen=True, init=False)
class Check:
    """The capturer's cards still face down after a flag capture (R71)."""

    side: Side
    ranks: tuple[tuple[int, int], ...] = ()  # (mission, rank), by mission
    type: ClassVar[str] = "check"

    def __init__(self, side: Side, ranks: tuple[tuple[int, int], ...] = ()) -> None:
        d = self.__dict__
        d["side"], d["ranks"] = _as_side(side), tuple(sorted(ranks))

    def to_dict(self) -> dict[str, Any]:
        """The JSON dict of RECORD.md."""
        return {"type": self.type, "side": self.side,
                "ranks": {str(m): r for m, r in self.ranks}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Check:
        """Read one from its JSON dict; raise :class:`MalformedEvent` naming a bad key."""
        side = _side(d, "side")
        raw = d.get("ranks")
        if not isinstance(raw, dict):
            raise MalformedEvent(Msg("'ranks' must be an object from mission to rank, "
                                     "not {value}", value=json.dumps(raw)))
        pairs = []
        for k, v in raw.items():
            if k not in ("1", "2", "3", "4"):
                raise MalformedEvent(Msg("'ranks' keys must be missions \"1\"-\"4\", "
                                         "not {value}", value=json.dumps(k)))
            if type(v) is not int or v not in RANKS:
                raise MalformedEvent(Msg("'ranks' must map missions to ranks 1-10, "
                                         "not {value}", value=json.dumps(v)))
            pairs.append((int(k), v))
        return cls(side, tuple(pairs))


Event = Exhaust | Intel | Tokens | Start | Reveal | Check
EVENT_TYPES: dict[str, type[Event]] = {
    c.type: c for c in (Exhaust, Intel, Tokens, Start, Reveal, Check)}
_READERS: dict[str, Callable[[Mapping[str, Any]], Event]] = {
    c.type: c.from_dict for c in EVENT_TYPES.values()}   # bound once, not per event


def event_from_dict(d: object) -> Event:
    """Read one event from its JSON dict; raise :class:`MalformedEvent` if it is not one."""
    if type(d) is dict:                    # a dict with a known type: nearly always
        try:
            read = _READERS[d["type"]]
        except (KeyError, TypeError):      # no type, an unknown one, or not a string
            pass
        else:
            return read(d)
    if not isinstance(d, dict):
        raise MalformedEvent(Msg("an event must be an object, not {value}",
                                 value=json.dumps(d)[:40]))
    kind = d.get("type")
    reader = _READERS.get(kind) if isinstance(kind, str) else None
    if reader is None:
        raise MalformedEvent(Msg("unknown event type {value}", value=json.dumps(kind)))
    return reader(d)


# --- records -----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Options:
    """Table options carried by a record (RULES R1; ``teams``: team play, R80, an
    optional key RECORD.md's growth rule allows, written only when true)."""

    wall_distance: int = DEFAULT_WALL_DISTANCE
    teams: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The JSON dict of RECORD.md."""
        d: dict[str, Any] = {"wall_distance": self.wall_distance}
        if self.teams:
            d["teams"] = True
        return d

    @classmethod
    def from_dict(cls, d: object) -> Options:
        """Read the options of a record (``None``: the defaults); raise :class:`BadRecord`."""
        if d is None:
            return cls()
        if not isinstance(d, dict):
            raise BadRecord(Msg("'options' must be an object"))
        w = d.get("wall_distance", DEFAULT_WALL_DISTANCE)
        if type(w) is not int or w not in WALL_DISTANCES:
            raise BadRecord(Msg("'wall_distance' must be a whole number 2-8, not {value}",
                                value=json.dumps(w)))
        teams = d.get("teams", False)
        if type(teams) is not bool:
            raise BadRecord(Msg("'{key}' must be true or false, not {value}", key="teams",
                                value=json.dumps(teams)))
        return cls(w, teams)


@dataclass(frozen=True, slots=True)
class Record:
    """A whole game record: options and events in the order of play."""

    options: Options = field(default_factory=Options)
    events: tuple[Event, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON dict of RECORD.md."""
        return {"format": FORMAT, "options": self.options.to_dict(),
                "events": [e.to_dict() for e in self.events]}

    def to_json(self, indent: int | None = None) -> str:
        """The record file's text."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, d: object) -> Record:
        """Read a record dict; a bad event raises a refusal naming its index."""
        if not isinstance(d, dict):
            raise BadRecord(Msg("a record must be a JSON object"))
        if d.get("format") != FORMAT:
            raise BadRecord(Msg("'format' must be \"{format}\", not {value}", format=FORMAT,
                                value=json.dumps(d.get("format"))))
        options = Options.from_dict(d.get("options"))
        raw = d.get("events")
        if not isinstance(raw, list):
            raise BadRecord(Msg("'events' must be a list"))
        try:       # nearly always dicts with a known type: each to its reader at once
            events = tuple([_READERS[e["type"]](e) if type(e) is dict else event_from_dict(e)
                            for e in raw])
        except (RecordError, KeyError, TypeError):
            for i, e in enumerate(raw):       # read them again one by one to name the bad one
                try:
                    event_from_dict(e)
                except RecordError as err:
                    raise err.at(i) from None
            raise
        return cls(options, events)

    @classmethod
    def from_json(cls, text: str | bytes) -> Record:
        """Read a record file's text (or bytes); a refusal names what is wrong."""
        try:
            d = json.loads(text)
        except (ValueError, RecursionError) as err:
            raise BadRecord(Msg("not valid JSON ({error})", error=str(err))) from None
        return cls.from_dict(d)
