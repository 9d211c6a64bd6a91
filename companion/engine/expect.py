"""What can happen next: the event the game waits for, and the choices a side has.

The phones show only these buttons.

>>> from companion.engine import Record, replay
>>> expected(replay(Record())).text
'Record the exhausted soldier of red and blue (each drawn by the opponent)'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import RecordError
from .events import RANK_NAMES, SIDES, Reveal, other
from .referee import DAYS, State, _activate, _Reveal, apply


def team_part(mission: int) -> int:
    """R80: in team play, part 1 plays missions 1-2 and part 2 missions 3-4."""
    return 1 if mission <= 2 else 2


@dataclass(frozen=True)
class Expected:
    """The event the game waits for now.

    ``type`` is the event type (``None`` once the game is over); ``sides`` the
    sides that may send it (empty: anyone at the table, the host screen too);
    ``mission`` and ``owner`` are set for a reveal; ``count`` is the number of
    ranks each pending ``exhaust`` must give.
    """

    type: str | None
    sides: tuple[str, ...] = ()
    text: str = ""
    mission: int | None = None
    owner: str | None = None
    count: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type, "sides": list(self.sides), "text": self.text}
        if self.mission is not None:
            d.update(mission=self.mission, owner=self.owner, part=team_part(self.mission))
        if self.count:
            d["count"] = dict(self.count)
        return d


def _both(sides: list[str]) -> str:
    return " and ".join(sides)


def expected(s: State) -> Expected:
    """The event ``s`` waits for, from which side, on which mission."""
    if s.phase == "over":
        return Expected(None, (), "The game is over")
    if s.phase in ("setup", "round_end"):
        pending = [x for x in SIDES if s.drawn[x] is None]
        count = {x: (2 if s.phase == "round_end" and s.double[x] and s.day < DAYS else 1)
                 for x in pending}
        return Expected("exhaust", tuple(pending),
                        f"Record the exhausted soldier of {_both(pending)} "
                        f"(each drawn by the opponent)", count=count)
    if s.phase == "intel":
        if s.intel is None:
            return Expected("intel", (), f"Day {s.day}: record the intel card")
        pending = [x for x in SIDES if s.tokens[x] is None]
        if pending:
            return Expected("tokens", tuple(pending),
                            f"Record the intel tokens of {_both(pending)}")
        if s.last_starter is None:
            return Expected("start", (), "Spin for the starting side")
        return Expected("start", (other(s.last_starter),),
                        f"{other(s.last_starter).capitalize()} starts day {s.day}")
    if s.phase == "mission":
        guesser, mission = s.next_reveal()  # type: ignore[misc]
        owner = other(guesser)
        return Expected("reveal", (guesser,),
                        f"{guesser.capitalize()}: guess {owner}'s mission {mission}",
                        mission=mission, owner=owner)
    assert s.phase == "capture_check" and s.capturer
    return Expected("check", (s.capturer,),
                    f"{s.capturer.capitalize()}: turn up your face-down cards (capture check)")


def reveal_options(s: State) -> dict[str, Any] | None:
    """For the coming reveal: who guesses, whose card, and what each side may tap."""
    nxt = s.next_reveal()
    if nxt is None:
        return None
    guesser, mission = nxt
    owner = other(guesser)
    return {
        "guesser": guesser, "owner": owner, "mission": mission, "part": team_part(mission),
        "deception": s.dt[owner] > 0,       # R14
        "ranks": s.hand_ranks(owner),       # what the owner may turn up
        "guesses": list(range(1, 11)),
        "token": mission in (s.tokens[owner] or ()),
    }


def _choices_for(s: State, side: str, rank: int) -> list[str]:
    if rank == 10:
        return ["ip", "drain"]
    if rank == 6:
        out = ["ip"]
        for r in s.exhausted[side]:
            out += ["use:10:ip", "use:10:drain"] if r == 10 else [f"use:{r}"]
        return out
    return []


def describe_choice(choice: str) -> str:
    """Plain words for a Captain or Marshal choice."""
    parts = choice.split(":")
    if parts == ["ip"]:
        return "Take the IP"
    if parts == ["drain"]:
        return "+5 IP and the enemy -5 IP"
    if parts[0] == "use":
        name = RANK_NAMES[int(parts[1])]
        tail = {"ip": " (+10 IP)", "drain": " (+5, enemy -5)"}.get(parts[2] if len(parts) > 2 else "", "")
        return f"Use the exhausted {name}{tail}"
    return choice


def _summary(before: State, after: State) -> dict[str, Any]:
    return {"ip": dict(after.ip), "da": after.da,
            "dt": {"red": after.dt["red"], "blue": after.dt["blue"], "supply": after.supply},
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
    for c in _choices_for(s, other(guesser), actual):
        try:
            after = apply(s, Reveal(guesser, mission, guess, actual, deception, c))
        except RecordError:
            return []
        if after.reveals[-1]["outcome"] != "activated":
            return []
        options.append({"choice": c, "label": describe_choice(c), **_summary(s, after),
                        "effects": after.reveals[-1]["effects"]})
    return options


def ability_preview(s: State, side: str, rank: int) -> list[dict[str, Any]]:
    """The ability calculator: if ``side``'s ``rank`` were activated now, what happens?

    One entry per choice the owner would have (one entry when there is none).
    Round-long effects already in play (Spy, Miner against a used card) count.
    """
    choices = _choices_for(s, side, rank) or [None]
    out = []
    for c in choices:
        after = s.copy()
        rec = _Reveal()
        parsed: tuple | None = None
        if c is not None:
            parts = c.split(":")
            parsed = (parts[0], int(parts[1]), *parts[2:]) if parts[0] == "use" else (c,)
        _activate(after, side, rank, parsed, rec)
        out.append({"choice": c, "label": describe_choice(c) if c else RANK_NAMES[rank],
                    **_summary(s, after), "effects": rec.effects})
    return out
