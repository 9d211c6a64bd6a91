"""A rating per remembered player from every finished game (issue 21), with openskill's
Plackett-Luce model: it models teams (R80: two players a side share the result) and
keeps each rating's uncertainty, so a newcomer's first games move it most.

Games are rated in the order they were played; a game's sides are lists of player ids
(``None``: someone no phone remembered, rated as a newcomer and not kept). The same
games in the same order always give the same ratings, whether added one by one
(:func:`rate`) or all at once (:func:`rebuild`).

>>> r = rebuild([({"red": [1], "blue": [2]}, "red"), ({"red": [2], "blue": [1]}, "blue")])
>>> r[1].mu > r[2].mu and r[1].sigma < START.sigma
True
>>> shown(r[1]) > shown(r[2])
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()


@dataclass(frozen=True)
class Rating:
    """A player's skill estimate: ``mu`` and its uncertainty ``sigma``; ``games`` rated."""

    mu: float
    sigma: float
    games: int = 0


START = Rating(MODEL.mu, MODEL.sigma)
Sides = Mapping[str, Sequence[int | None]]


def rate(ratings: Mapping[int, Rating], sides: Sides, winner: str) -> dict[int, Rating]:
    """The new ratings of the remembered players of one game (``winner``: red, blue or
    draw); players not in ``ratings`` start at :data:`START`."""
    teams, who = [], []
    for s in ("red", "blue"):
        ids = list(sides.get(s) or [None])
        teams.append([MODEL.rating(mu=ratings.get(i, START).mu if i is not None else START.mu,
                                   sigma=ratings.get(i, START).sigma if i is not None
                                   else START.sigma) for i in ids])
        who.append(ids)
    ranks: list[float] = [1, 1] if winner == "draw" else [1, 2] if winner == "red" else [2, 1]
    new = MODEL.rate(teams, ranks=ranks)
    out: dict[int, Rating] = {}
    for ids, team in zip(who, new, strict=True):
        for i, p in zip(ids, team, strict=True):
            if i is not None:
                out[i] = Rating(p.mu, p.sigma, ratings.get(i, START).games + 1)
    return out


def rebuild(games: Iterable[tuple[Sides, str]]) -> dict[int, Rating]:
    """Every remembered player's rating after ``games`` (in the order played)."""
    ratings: dict[int, Rating] = {}
    for sides, winner in games:
        ratings.update(rate(ratings, sides, winner))
    return ratings


def shown(r: Rating) -> float:
    """The rating a ladder shows: a cautious estimate, ``mu - 3 sigma`` (a newcomer starts
    at 0 and climbs as their games make the estimate surer), one decimal."""
    return round(r.mu - 3 * r.sigma, 1)
