"""What can happen next: the event the game waits for, and the choices a side has.

The phones show only these buttons. This module only reads a :class:`State`;
the referee uses :func:`expected` for the words of its refusals.

>>> from companion.engine import Record, replay
>>> expected(replay(Record())).text
'Record the exhausted soldier of red and blue (each drawn by the opponent)'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .events import RANK_NAMES, SIDES, Side, other
from .state import DAYS, Phase, State
from .words import Msg, join, side


def team_part(mission: int) -> int:
    """R80: in team play, part 1 plays missions 1-2 and part 2 missions 3-4.

    >>> [team_part(m) for m in (1, 2, 3, 4)]
    [1, 1, 2, 2]
    """
    return 1 if mission <= 2 else 2


@dataclass(frozen=True, slots=True)
class Expected:
    """The event the game waits for now.

    ``type`` is the event type (``None`` once the game is over); ``sides`` the
    sides that may send it (empty: anyone at the table, the host screen too);
    ``words`` what it waits for, as words to render (``text``: in English);
    ``mission`` and ``owner`` are set for a reveal; ``count`` is the number of
    ranks each pending ``exhaust`` must give.
    """

    type: str | None
    sides: tuple[Side, ...] = ()
    words: Msg | None = None
    mission: int | None = None
    owner: Side | None = None
    count: dict[Side, int] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """What the game waits for, in English."""
        return "" if self.words is None else str(self.words)

    def to_dict(self) -> dict[str, Any]:
        """The ``next`` object of the replay output (``mission``/``owner``/``part``
        for a reveal, ``count`` for an exhaustion draw)."""
        d: dict[str, Any] = {"type": self.type, "sides": list(self.sides), "text": self.text}
        if self.mission is not None:
            d.update(mission=self.mission, owner=self.owner, part=team_part(self.mission))
        if self.count:
            d["count"] = dict(self.count)
        return d


def _both(sides: list[Side]) -> Any:
    return join([side(x) for x in sides])


def expected(s: State) -> Expected:
    """The event ``s`` waits for, from which side, on which mission."""
    if s.phase == Phase.OVER:
        return Expected(None, (), Msg("The game is over"))
    if s.phase in (Phase.SETUP, Phase.ROUND_END):
        pending = [x for x in SIDES if s.drawn[x] is None]
        count = {x: (2 if s.phase == Phase.ROUND_END and s.double[x] and s.day < DAYS else 1)
                 for x in pending}
        return Expected("exhaust", tuple(pending),
                        Msg("Record the exhausted soldier of {sides} (each drawn by the "
                            "opponent)", sides=_both(pending)), count=count)
    if s.phase == Phase.INTEL:
        if s.intel is None:
            return Expected("intel", (), Msg("Day {day}: record the intel card", day=s.day))
        pending = [x for x in SIDES if s.tokens[x] is None]
        if pending:
            return Expected("tokens", tuple(pending),
                            Msg("Record the intel tokens of {sides}", sides=_both(pending)))
        if s.last_starter is None:
            return Expected("start", (), Msg("Spin for the starting side"))
        return Expected("start", (other(s.last_starter),),
                        Msg("{side!c} starts day {day}", side=side(other(s.last_starter)),
                            day=s.day))
    nxt = s.next_reveal()
    if nxt is not None:
        guesser, mission = nxt
        owner = other(guesser)
        return Expected("reveal", (guesser,),
                        Msg("{guesser!c}: guess {owner}'s mission {mission}",
                            guesser=side(guesser), owner=side(owner), mission=mission),
                        mission=mission, owner=owner)
    assert s.phase == Phase.CAPTURE_CHECK and s.capturer
    return Expected("check", (s.capturer,),
                    Msg("{side!c}: turn up your face-down cards (capture check)",
                        side=side(s.capturer)))


def reveal_options(s: State) -> dict[str, Any] | None:
    """For the coming reveal: who guesses, whose card, and what each side may tap.

    ``None`` when no reveal is due.
    """
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


def owner_choices(s: State, side: Side, rank: int) -> list[str]:
    """R45, R49: the choices ``side`` would have if its ``rank`` were activated now.

    A Marshal chooses IP or a drain; a Captain takes 6 IP or uses one of its
    side's exhausted soldiers (an exhausted Marshal with its own choice). Other
    soldiers have no choice: ``[]``.

    >>> from companion.engine import new_game
    >>> owner_choices(new_game(), Side.RED, 10), owner_choices(new_game(), Side.RED, 3)
    (['ip', 'drain'], [])
    """
    if rank == 10:
        return ["ip", "drain"]
    if rank == 6:
        out = ["ip"]
        for r in s.exhausted[side]:
            if r != 6:                      # an exhausted Captain is not used by itself
                out += ["use:10:ip", "use:10:drain"] if r == 10 else [f"use:{r}"]
        return out
    return []


def describe_choice(choice: str) -> str:
    """Plain words for a Captain or Marshal choice.

    >>> describe_choice("use:10:drain")
    'Use the exhausted Marshal (+5, enemy -5)'
    """
    parts = choice.split(":")
    if parts == ["ip"]:
        return "Take the IP"
    if parts == ["drain"]:
        return "+5 IP and the enemy -5 IP"
    if parts[0] == "use":
        name = RANK_NAMES[int(parts[1])]
        then = parts[2] if len(parts) > 2 else ""
        tail = {"ip": " (+10 IP)", "drain": " (+5, enemy -5)"}.get(then, "")
        return f"Use the exhausted {name}{tail}"
    return choice
