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
>>> shown(r[1]) > shown(r[2]), provisional(r[1])
(True, True)
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
BASE = 1500         # the figure shown: a newcomer's, on chess's familiar scale
# points per unit of skill: 100 points apart, the stronger of two settled players wins
# about 64 games in 100, as with chess ratings (Plackett-Luce: 1 / (1 + exp(-d / c)),
# c = sqrt(2) * beta = 5.9 skill; 100 / 30 = 3.3 skill: 0.64)
SCALE = 30
PROVISIONAL = 5     # games: before, the figure is marked provisional (lichess and BG Stats do)
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


def shown(r: Rating) -> int:
    """The one figure a ladder shows (issue 52): the skill on a chess-like scale, a
    newcomer at 1500, a whole number; with :func:`provisional` it says all a person
    needs (the skill's uncertainty, ``sigma``, stays in the API).

    >>> shown(START), shown(Rating(START.mu + 2, 5.0, 9))
    (1500, 1560)
    """
    return round(BASE + SCALE * (r.mu - START.mu))


def provisional(r: Rating) -> bool:
    """Whether the figure rests on fewer than :data:`PROVISIONAL` games (one game moves
    it a lot: marked, as lichess and BG Stats mark theirs)."""
    return r.games < PROVISIONAL
