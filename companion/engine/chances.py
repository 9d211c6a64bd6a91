"""Who is winning: each side's chance to win from the public record (issue 25).

The estimate reads only what the whole table has seen, as :mod:`.deduce` does, plus
the board. The model, in plain words (docs/CHANCES.md says more):

- The four cards each side deployed for the round in play are drawn among the
  line-ups still consistent with what the table saw (:func:`.deduce.consistent_lineups`),
  each weighted as likely as a player who deploys a random legal line-up makes it: a
  line-up holding the Sergeant counts a quarter (the Sergeant may sit on any of four
  missions, the others have one order), and half that once the tokens are down (an
  honest token on the Sergeant may go either way). A side whose order broke (R60), or whose
  tokens fit no line-up (R61), is drawn among the orders of its remaining cards that
  fit its turned-up cards.
- The rest of the game is played out by :func:`.simulate.play_on` with one policy for
  both sides (:data:`POLICY`): legal line-ups, honest tokens, a guess right about a
  third of the time, a deception token on a third of the missions it could lie on,
  an ability's option at random; later intel cards, exhausted soldiers and line-ups at
  random among the legal ones.
- The chance is the share of playouts each side wins (and of draws); its standard
  error is at most 0.5 / sqrt(playouts).
- The playouts are seeded from the public state itself (:func:`public_key`): the same
  public state gives the same figure, however the table came to it (issue 52), and a
  state the two sides share alike (before any event) gives both sides the same chance.
- Shares are told rounded by the largest remainder (:func:`split`): they sum to exactly
  1 (or 100 %).

>>> import random
>>> from companion.engine import replay
>>> from companion.engine.simulate import random_record
>>> out = chances_output(random_record(random.Random(3), wall_distance=3), playouts=20)
>>> last = out["steps"][-1]
>>> sorted(last), sum(round(last[k] * 10_000) for k in ("red", "blue", "draw"))
(['blue', 'draw', 'event', 'red'], 10000)
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import math
import random
import time
from collections.abc import Mapping
from typing import Any

from .deduce import SERGEANT, consistent_lineups
from .events import SIDES, Options, Record, Side, event_from_dict
from .referee import advance, new_game
from .simulate import play_on
from .state import Phase, State

PLAYOUTS = 600            # per estimate: standard error <= 2.0 points; ~0.3 s on one core
# the players of the model (simulate.play_on's parameters): see docs/CHANCES.md
POLICY = {"disorder": 0.0, "lie": 0.0, "correct": 0.35, "deceive": 0.3}
OUTCOMES = ("red", "blue", "draw")
DIGITS = 4                # the command's shares: in ten-thousandths, summing to 1


def public_key(state: State) -> str:
    """The public facts that the rest of a game from ``state`` depends on, as one string:
    two states with the same key are the same public state, and get the same figure.

    Left out: how many events led there and the reveals of the past (no playout reads
    them), and the intel card while no token of the round is down: the tokens are laid
    from it (R11), until then the model plays the same game with or without it.

    >>> from companion.engine import Exhaust, Intel, new_game
    >>> from companion.engine.referee import apply
    >>> s = new_game(Options(3))
    >>> for e in (Exhaust("red", (3,)), Exhaust("blue", (5,))):
    ...     s = apply(s, e)
    >>> public_key(s) == public_key(apply(s, Intel((1, 2, 3, 4))))
    True
    """
    s = state
    down = any(s.tokens[x] is not None for x in SIDES)
    facts = (s.options, s.day, str(s.phase), s.da, s.supply, s.intel if down else None,
             s.old_intel, s.starter, s.last_starter, s.round_reveals, s.outcome, s.capturer,
             [(s.ip[x], s.dt[x], sorted(s.exhausted[x]),
               None if s.drawn[x] is None else sorted(s.drawn[x] or ()),
               None if s.tokens[x] is None else sorted(s.tokens[x] or ()),
               sorted(s.revealed[x].items()), sorted(s.effects[x].items()), s.broken[x],
               s.double[x], s.da_moved[x], sorted(s.stats[x].items())) for x in SIDES])
    return hashlib.sha256(repr(facts).encode()).hexdigest()


def _alike(s: State) -> bool:
    """Whether the two sides stand alike in ``s`` (before any event; or the same
    soldiers exhausted and nobody yet chosen to start): then their chances are equal."""
    if s.da or s.outcome is not None or s.starter is not None or s.last_starter is not None:
        return False
    red, blue = SIDES
    return all(getattr(s, f)[red] == getattr(s, f)[blue] for f in (
        "ip", "dt", "exhausted", "drawn", "tokens", "revealed", "effects", "broken",
        "double", "da_moved", "stats"))


def seeded(state: State, seed: int | str = 0) -> random.Random:
    """The playouts' random numbers for ``state``: from ``seed`` and the public state
    alone (:func:`public_key`), so the same public state always gives the same figure."""
    return random.Random(f"{seed}:{public_key(state)}")


def split(p: Mapping[str, float], total: int) -> dict[str, int]:
    """Red's, blue's and the draw's shares ``p`` in whole ``total``-ths that sum to
    ``total`` exactly: each rounded down, the units left to the largest remainders (the
    largest remainder method; rounded each on its own they summed to 99 or 101). Two
    equal sides stay equal: each rounded to the nearest (half down), the draw the rest.

    >>> split({"red": 0.3334, "blue": 0.3333, "draw": 0.3333}, 100)
    {'red': 34, 'blue': 33, 'draw': 33}
    >>> split({"red": 0.485, "blue": 0.485, "draw": 0.03}, 100)
    {'red': 48, 'blue': 48, 'draw': 4}
    >>> split({"red": 0.485625, "blue": 0.485625, "draw": 0.02875}, 100)
    {'red': 49, 'blue': 49, 'draw': 2}
    """
    exact = {k: p[k] * total for k in OUTCOMES}
    if round(exact["red"] - exact["blue"], 9) == 0:
        each = math.ceil(round(exact["red"], 9) - 0.5)
        return {"red": each, "blue": each, "draw": total - 2 * each}
    out = {k: math.floor(round(exact[k], 9)) for k in OUTCOMES}
    rest = {k: round(exact[k] - out[k], 9) for k in OUTCOMES}
    left = total - sum(out.values())
    order = sorted(OUTCOMES, key=lambda k: (-rest[k], OUTCOMES.index(k)))
    for k in order[:left]:
        out[k] += 1
    return out


def rounded(p: Mapping[str, float], digits: int = DIGITS) -> dict[str, float]:
    """``p`` to ``digits`` places, summing to exactly 1 (:func:`split`).

    >>> rounded({"red": 0.33335, "blue": 0.33335, "draw": 0.3333}, 4)
    {'red': 0.3333, 'blue': 0.3333, 'draw': 0.3334}
    """
    unit = 10 ** digits
    return {k: n / unit for k, n in split(p, unit).items()}


def _deployed(state: State) -> bool:
    """Whether the round's cards are on the table (drawn from the intel card on)."""
    return state.phase in (Phase.MISSION, Phase.CAPTURE_CHECK) or (
        state.phase == Phase.INTEL and state.intel is not None)


class _Lineups:
    """One side's possible line-ups for the round in play, with their weights."""

    def __init__(self, state: State, side: Side) -> None:
        exhausted, revealed = state.exhausted[side], state.revealed[side]
        tokens = state.tokens[side]
        found: list[tuple[int, int, int, int]] = []
        if not state.broken[side]:
            if tokens is not None:
                found = consistent_lineups(exhausted, revealed, state.intel or (), tokens)
            if not found:     # tokens not down yet, or a lie the table saw (R61): any order
                found = consistent_lineups(exhausted, revealed, (), set())
        if not found:                                # an order broken (R60): any order
            hand = [r for r in range(1, 11) if r not in exhausted
                    and r not in revealed.values()]
            down = [m for m in range(1, 5) if m not in revealed]
            for cards in itertools.permutations(hand, len(down)):
                line = dict(revealed)
                line.update(zip(down, cards, strict=True))
                found.append((line[1], line[2], line[3], line[4]))
        self.lineups = found
        # a random legal deployment: every set of four alike, a set with the Sergeant in
        # one of four orders; an honest token on the Sergeant either way (R11)
        sergeant = 0.25 * (0.5 if tokens is not None else 1.0)
        self.cum = list(itertools.accumulate(sergeant if SERGEANT in x else 1.0
                                             for x in found))

    def draw(self, rng: random.Random) -> list[int]:
        i = bisect.bisect_right(self.cum, rng.random() * self.cum[-1])
        return list(self.lineups[min(i, len(self.lineups) - 1)])


def estimate(state: State, playouts: int = PLAYOUTS,
             rng: random.Random | None = None) -> dict[str, float]:
    """Each side's chance to win from ``state`` (and of a draw), by ``playouts`` games
    played on from it, seeded from the public state (:func:`seeded`) unless ``rng`` is
    given; a finished game is 1 / 0."""
    return timed_estimate(state, playouts, rng)[0]


def timed_estimate(state: State, playouts: int = PLAYOUTS, rng: random.Random | None = None,
                   seconds: float | None = None, least: int = 100
                   ) -> tuple[dict[str, float], int]:
    """:func:`estimate`, and how many playouts it took: with ``seconds``, as many as fit
    in that time (at least ``least``, at most ``playouts``; ``benchmarks chances`` times
    the estimate with it)."""
    if state.phase == Phase.OVER:
        w = str(state.winner)
        return {"red": float(w == "red"), "blue": float(w == "blue"),
                "draw": float(w == "draw")}, 0
    until = None if seconds is None else time.perf_counter() + seconds
    rng = rng or seeded(state)
    if state.phase == Phase.INTEL and state.intel is not None and all(
            state.tokens[x] is None for x in SIDES):
        # no token down yet: played on as before the card (public_key leaves it out), so
        # the card changes nothing, not even the random numbers' course
        state = state.copy()
        state.intel = None
    hidden = {x: _Lineups(state, x) for x in SIDES} if _deployed(state) else None
    # between days the draw is from the cards of the day just played (all turned up)
    shown = {x: list(state.revealed[x].values()) for x in SIDES}
    wins: dict[str, float] = {"red": 0, "blue": 0, "draw": 0}
    n = 0
    while n < playouts and (until is None or n < least or time.perf_counter() < until):
        n += 1
        s = state.copy()
        deployed = {x: hidden[x].draw(rng) for x in SIDES} if hidden else dict(shown)
        for _event in play_on(rng, s, deployed, POLICY["disorder"], POLICY["lie"],
                              POLICY["correct"], POLICY["deceive"], in_place=True):
            pass
        wins[str(s.winner)] += 1
    if _alike(state):               # the same chance for both, not two draws of it
        wins["red"] = wins["blue"] = (wins["red"] + wins["blue"]) / 2
    return {k: v / n for k, v in wins.items()}, n


def standard_error(playouts: int) -> float:
    """The largest standard error of a share of ``playouts`` games (at a chance of 1/2);
    0 for a finished game (no playout: the result is known)."""
    return 0.5 / math.sqrt(playouts) if playouts else 0.0


def step_chances(options: Options, events: list[dict[str, Any]], seed: int, playouts: int
                 ) -> list[list[float]]:
    """Red's, blue's and the draw's chance at every step of a game given as its events'
    dicts (step 0: before any event), ``playouts`` each, seeded by ``seed`` and each
    step's public state (:func:`seeded`): the same game and seed give the same numbers,
    three places summing to 1. A finished game's story (issue 25)."""
    s = new_game(options)
    out = []
    for i in range(len(events) + 1):
        if i:
            advance(s, event_from_dict(events[i - 1]))
        p = rounded(estimate(s, playouts, seeded(s, seed)), 3)
        out.append([p["red"], p["blue"], p["draw"]])
    return out


def chances_output(record: Record, playouts: int = PLAYOUTS, seed: int = 0,
                   events: list[int] | None = None) -> dict[str, Any]:
    """What ``spies-lies chances`` prints: after every event (or the events at the
    indexes ``events``), each side's chance to win and of a draw (to :data:`DIGITS`
    places, summing to 1), and the method. The same seed gives the same numbers."""
    s = State(record.options)
    steps: list[dict[str, Any]] = []
    wanted = None if events is None else set(events)
    for i, e in enumerate(record.events):
        advance(s, e)
        if wanted is not None and i not in wanted:
            continue
        p = estimate(s, playouts, seeded(s, seed))
        steps.append({"event": i, **rounded(p)})
    return {"steps": steps, "method": method(playouts, seed)}


def method(playouts: int, seed: int) -> dict[str, Any]:
    """How the numbers were made, as the command prints it."""
    return {"playouts": playouts, "seed": seed,
            "standard_error": round(standard_error(playouts), 4),
            "hidden_cards": "line-ups consistent with the public record, a Sergeant's "
                            "line-up weighted 1/4",
            "seeded_by": "the seed and the public state", "rounding": "largest remainder",
            "policy": dict(POLICY), "model": "docs/CHANCES.md"}

