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

>>> import random
>>> from companion.engine import replay
>>> from companion.engine.simulate import random_record
>>> out = chances_output(random_record(random.Random(3), wall_distance=3), playouts=20)
>>> last = out["steps"][-1]
>>> sorted(last), sum(last[k] for k in ("red", "blue", "draw"))
(['blue', 'draw', 'event', 'red'], 1.0)
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
import time
from typing import Any

from .deduce import SERGEANT, consistent_lineups
from .events import SIDES, Options, Record, Side, event_from_dict
from .referee import advance, new_game
from .simulate import play_on
from .state import Phase, State

PLAYOUTS = 600            # per estimate: standard error <= 2.0 points; ~0.3 s on one core
# the players of the model (simulate.play_on's parameters): see docs/CHANCES.md
POLICY = {"disorder": 0.0, "lie": 0.0, "correct": 0.35, "deceive": 0.3}


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
    played on from it; a finished game is 1 / 0."""
    return timed_estimate(state, playouts, rng)[0]


def timed_estimate(state: State, playouts: int = PLAYOUTS, rng: random.Random | None = None,
                   seconds: float | None = None, least: int = 100
                   ) -> tuple[dict[str, float], int]:
    """:func:`estimate`, and how many playouts it took: with ``seconds``, as many as fit
    in that time (at least ``least``, at most ``playouts``): the table's live figure."""
    if state.phase == Phase.OVER:
        w = str(state.winner)
        return {"red": float(w == "red"), "blue": float(w == "blue"),
                "draw": float(w == "draw")}, 0
    until = None if seconds is None else time.perf_counter() + seconds
    rng = rng or random.Random(0)
    hidden = {x: _Lineups(state, x) for x in SIDES} if _deployed(state) else None
    # between days the draw is from the cards of the day just played (all turned up)
    shown = {x: list(state.revealed[x].values()) for x in SIDES}
    wins = {"red": 0, "blue": 0, "draw": 0}
    n = 0
    while n < playouts and (until is None or n < least or time.perf_counter() < until):
        n += 1
        s = state.copy()
        deployed = {x: hidden[x].draw(rng) for x in SIDES} if hidden else dict(shown)
        for _event in play_on(rng, s, deployed, POLICY["disorder"], POLICY["lie"],
                              POLICY["correct"], POLICY["deceive"], in_place=True):
            pass
        wins[str(s.winner)] += 1
    return {k: v / n for k, v in wins.items()}, n


def standard_error(playouts: int) -> float:
    """The largest standard error of a share of ``playouts`` games (at a chance of 1/2);
    0 for a finished game (no playout: the result is known)."""
    return 0.5 / math.sqrt(playouts) if playouts else 0.0


def step_chances(options: Options, events: list[dict[str, Any]], seed: int, playouts: int
                 ) -> list[list[float]]:
    """Red's, blue's and the draw's chance at every step of a game given as its events'
    dicts (step 0: before any event), ``playouts`` each, seeded by ``seed`` and the step:
    the same game and seed give the same numbers. A finished game's story (issue 25)."""
    s = new_game(options)
    out = []
    for i in range(len(events) + 1):
        if i:
            advance(s, event_from_dict(events[i - 1]))
        p, _n = timed_estimate(s, playouts, random.Random(f"{seed}:{i}"))
        out.append([round(p["red"], 3), round(p["blue"], 3), round(p["draw"], 3)])
    return out


def chances_output(record: Record, playouts: int = PLAYOUTS, seed: int = 0,
                   events: list[int] | None = None) -> dict[str, Any]:
    """What ``spies-lies chances`` prints: after every event (or the events at the
    indexes ``events``), each side's chance to win and of a draw, and the method.
    The same seed gives the same numbers."""
    s = State(record.options)
    steps: list[dict[str, Any]] = []
    wanted = None if events is None else set(events)
    for i, e in enumerate(record.events):
        advance(s, e)
        if wanted is not None and i not in wanted:
            continue
        p = estimate(s, playouts, random.Random(f"{seed}:{i}"))
        steps.append({"event": i, **{k: round(v, 4) for k, v in p.items()}})
    return {"steps": steps, "method": method(playouts, seed)}


def method(playouts: int, seed: int) -> dict[str, Any]:
    """How the numbers were made, as the command prints it."""
    return {"playouts": playouts, "seed": seed,
            "standard_error": round(standard_error(playouts), 4),
            "hidden_cards": "line-ups consistent with the public record, a Sergeant's "
                            "line-up weighted 1/4",
            "policy": dict(POLICY), "model": "docs/CHANCES.md"}

