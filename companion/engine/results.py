"""What a reveal did and how a game ended, as frozen values.

Each value's ``to_dict()`` is the JSON of RECORD.md's replay output, key for key
and in the same order; the narration and the screens read these.

>>> import json
>>> json.dumps(IpGain(Side.RED, 2, "identified").to_dict())
'{"kind": "ip", "side": "red", "amount": 2, "source": "identified"}'
>>> Outcome(None, Reason.DRAW).to_dict() == {"winner": "draw", "reason": "draw"}
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Literal

from .events import Side


class Reason(StrEnum):
    """Why a game ended (R70-R72)."""

    FLAG = "flag"                      # R70: the double agent passed the enemy wall
    FLAG_CANCELLED = "flag_cancelled"  # R71: the capturer's cards were out of order
    TERRITORY = "territory"            # R72: the double agent ends in enemy territory
    IP = "ip"                          # R72: at the centre, more IP
    DRAW = "draw"                      # R72: at the centre, equal IP


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: ``winner`` (``None`` for a draw) and the ``reason``."""

    winner: Side | None
    reason: Reason

    @property
    def winner_text(self) -> Side | Literal["draw"]:
        """The winner as RECORD.md writes it: a side, or ``"draw"``."""
        return self.winner if self.winner is not None else "draw"

    def to_dict(self) -> dict[str, str]:
        """RECORD.md's ``winner`` and ``reason`` keys."""
        return {"winner": self.winner_text, "reason": self.reason}


# --- effects: one value per thing a reveal did, in the order it happened -----------

@dataclass(frozen=True, slots=True)
class IpGain:
    """``side`` gains ``amount`` IP (R31); ``carried``: a Colonel's rollover (R48)."""

    side: Side
    amount: int
    source: str                  # "identified", "abilities" or "deception"
    carried: bool = False
    kind: ClassVar[str] = "ip"

    def to_dict(self) -> dict[str, Any]:
        """The effect's JSON dict (``carried`` only when true)."""
        d: dict[str, Any] = {"kind": self.kind, "side": self.side, "amount": self.amount,
                             "source": self.source}
        if self.carried:
            d["carried"] = True
        return d


@dataclass(frozen=True, slots=True)
class Infiltrate:
    """``side`` reached 10 IP (R33); ``excess`` over 10, ``kept`` by a Colonel (R48)."""

    side: Side
    excess: int
    kept: bool
    kind: ClassVar[str] = "infiltrate"

    def to_dict(self) -> dict[str, Any]:
        """The effect's JSON dict."""
        return {"kind": self.kind, "side": self.side, "excess": self.excess, "kept": self.kept}


@dataclass(frozen=True, slots=True)
class DaMove:
    """The double agent moved ``steps`` toward ``side``'s enemy fort, to ``to`` (R32).

    ``asked`` is how many steps were asked; it is absent when the move ended in
    a flag capture (R70).
    """

    side: Side
    steps: int
    to: int
    source: str
    asked: int | None = None
    kind: ClassVar[str] = "da"

    def to_dict(self) -> dict[str, Any]:
        """The effect's JSON dict (``asked`` before ``to`` when present)."""
        d: dict[str, Any] = {"kind": self.kind, "side": self.side, "steps": self.steps}
        if self.asked is not None:
            d["asked"] = self.asked
        d["to"] = self.to
        d["source"] = self.source
        return d


@dataclass(frozen=True, slots=True)
class _SideOnly:
    side: Side
    kind: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        """The effect's JSON dict."""
        return {"kind": self.kind, "side": self.side}


@dataclass(frozen=True, slots=True)
class FlagCaptured(_SideOnly):
    """``side`` captured the flag (R70)."""

    kind: ClassVar[str] = "flag"


@dataclass(frozen=True, slots=True)
class DoubleDamage(_SideOnly):
    """``side`` loses two soldiers to exhaustion next round (R47)."""

    kind: ClassVar[str] = "double_damage"


@dataclass(frozen=True, slots=True)
class DeceptionPays(_SideOnly):
    """``side``'s deception token paid off (R50)."""

    kind: ClassVar[str] = "deception_pays"


@dataclass(frozen=True, slots=True)
class OrderBroken:
    """``side``'s cards are out of order (R60): DA steps undone, IP lost."""

    side: Side
    da_undone: int
    ip_lost: int
    to: int
    kind: ClassVar[str] = "order_broken"

    def to_dict(self) -> dict[str, Any]:
        """The effect's JSON dict."""
        return {"kind": self.kind, "side": self.side, "da_undone": self.da_undone,
                "ip_lost": self.ip_lost, "to": self.to}


@dataclass(frozen=True, slots=True)
class UseExhausted:
    """``side``'s Captain uses the exhausted soldier ``rank`` (R45)."""

    side: Side
    rank: int
    kind: ClassVar[str] = "use"

    def to_dict(self) -> dict[str, Any]:
        """The effect's JSON dict."""
        return {"kind": self.kind, "side": self.side, "rank": self.rank}


@dataclass(frozen=True, slots=True)
class Fizzle:
    """The used soldier ``rank`` has no effect, powerless ``by`` R40 or R42."""

    side: Side
    rank: int
    by: str
    kind: ClassVar[str] = "fizzle"

    def to_dict(self) -> dict[str, Any]:
        """The effect's JSON dict."""
        return {"kind": self.kind, "side": self.side, "rank": self.rank, "by": self.by}


@dataclass(frozen=True, slots=True)
class TokenGained:
    """``side`` takes ``amount`` deception token(s) from the supply (R40, R51)."""

    side: Side
    amount: int
    kind: ClassVar[str] = "dt"

    def to_dict(self) -> dict[str, Any]:
        """The effect's JSON dict."""
        return {"kind": self.kind, "side": self.side, "amount": self.amount}


@dataclass(frozen=True, slots=True)
class RoundEffect:
    """A round-long ``effect`` for ``side``: "spy", "miner", "scout" or "bomb"."""

    side: Side
    effect: str
    kind: ClassVar[str] = "effect"

    def to_dict(self) -> dict[str, Any]:
        """The effect's JSON dict."""
        return {"kind": self.kind, "side": self.side, "effect": self.effect}


@dataclass(frozen=True, slots=True)
class Drain:
    """``side`` loses ``amount`` IP to the enemy Marshal (R49)."""

    side: Side
    amount: int
    kind: ClassVar[str] = "drain"

    def to_dict(self) -> dict[str, Any]:
        """The effect's JSON dict."""
        return {"kind": self.kind, "side": self.side, "amount": self.amount}


Effect = (IpGain | Infiltrate | DaMove | FlagCaptured | DoubleDamage | DeceptionPays
          | OrderBroken | UseExhausted | Fizzle | TokenGained | RoundEffect | Drain)

RevealOutcome = Literal["identified", "neutralised", "activated"]


@dataclass(frozen=True, init=False)
class RevealResult:
    """One resolved reveal (R20-R24): what was played, what it did, the score after it.

    ``index`` is the event's place in the record; ``rule`` the rule that decided
    the ``outcome``; ``ip``, ``da`` and ``dt`` the score after the reveal.

    >>> r = RevealResult(0, 1, Side.BLUE, Side.RED, 1, 2, 2, False, None, "identified",
    ...                  "R30", {"red": 0, "blue": 2}, 0, {"red": 1, "blue": 1, "supply": 2},
    ...                  (IpGain(Side.BLUE, 2, "identified"),))
    >>> list(r.to_dict())[:9]
    ['index', 'day', 'guesser', 'owner', 'mission', 'guess', 'actual', 'deception', 'choice']
    """

    index: int
    day: int
    guesser: Side
    owner: Side
    mission: int
    guess: int
    actual: int
    deception: bool
    choice: str | None
    outcome: RevealOutcome
    rule: str
    ip: Mapping[Side, int]
    da: int
    dt: Mapping[str, int]
    effects: tuple[Effect, ...]

    def __init__(self, index: int, day: int, guesser: Side, owner: Side, mission: int,
                 guess: int, actual: int, deception: bool, choice: str | None,
                 outcome: RevealOutcome, rule: str, ip: Mapping[Side, int], da: int,
                 dt: Mapping[str, int], effects: tuple[Effect, ...]) -> None:
        # One is made per reveal on every replay. The generated __init__ of a frozen
        # dataclass sets the 15 fields one object.__setattr__ at a time (~1.5 us);
        # filling the instance's __dict__ takes ~0.5 us (and the instances share
        # their dict's keys). Still frozen: assignment raises FrozenInstanceError.
        d = self.__dict__
        d["index"], d["day"], d["guesser"], d["owner"] = index, day, guesser, owner
        d["mission"], d["guess"], d["actual"] = mission, guess, actual
        d["deception"], d["choice"], d["outcome"], d["rule"] = deception, choice, outcome, rule
        d["ip"], d["da"], d["dt"], d["effects"] = ip, da, dt, effects

    def to_dict(self) -> dict[str, Any]:
        """The reveal as RECORD.md's replay output lists it (without the narration)."""
        return {
            "index": self.index, "day": self.day, "guesser": self.guesser, "owner": self.owner,
            "mission": self.mission, "guess": self.guess, "actual": self.actual,
            "deception": self.deception, "choice": self.choice, "outcome": self.outcome,
            "rule": self.rule, "ip": dict(self.ip), "da": self.da, "dt": dict(self.dt),
            "effects": [e.to_dict() for e in self.effects],
        }
