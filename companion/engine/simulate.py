"""Random legal games: players that deal real hands and play by the rules.

Used by the property tests, the benchmark and the web tests' scripted games.
Every game is legal by construction; ``disorder`` and ``lie`` set how often a
side deploys out of order (R60) or misplaces an intel token (R61).

>>> import random
>>> from companion.engine import replay
>>> rec = random_record(random.Random(7))
>>> replay(rec).phase == "over"
True
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

from .events import (
    SIDES,
    Check,
    Event,
    Exhaust,
    Intel,
    Options,
    Record,
    Reveal,
    Side,
    Start,
    Tokens,
    other,
)
from .expect import expected, owner_choices
from .referee import advance, apply, new_game
from .state import Phase, State


def deploy(rng: random.Random, hand: list[int], disorder: float = 0.0) -> list[int]:
    """Four of ``hand`` in a legal order (R10), or shuffled with chance ``disorder``."""
    cards = rng.sample(hand, 4)
    if rng.random() < disorder:
        rng.shuffle(cards)
        return cards
    others = sorted(c for c in cards if c != 4)
    if 4 in cards:
        others.insert(rng.randrange(4), 4)
    return others


def play(rng: random.Random, options: Options | None = None, disorder: float = 0.1,
         lie: float = 0.1, correct: float = 0.35, deceive: float = 0.3,
         box: Sequence[Sequence[int]] | None = None) -> Iterator[Event]:
    """Yield the events of one random legal game, in the order of play.

    ``box``: the intel cards of the box, drawn without replacement as at a real table
    (by default any four ranks make a card)."""
    deck = [tuple(sorted(c)) for c in box] if box is not None else None
    yield from play_on(rng, new_game(options), {}, disorder, lie, correct, deceive, deck)


def play_on(rng: random.Random, s: State, deployed: dict[Side, list[int]],
            disorder: float = 0.1, lie: float = 0.1, correct: float = 0.35,
            deceive: float = 0.3, deck: list[tuple[int, ...]] | None = None,
            in_place: bool = False) -> Iterator[Event]:
    """The rest of a game from ``s`` by the same players: ``deployed`` holds each side's
    four cards of the round in play (drawn again at each round's intel card).
    ``in_place``: ``s`` itself is played on (a playout's own copy, issue 25)."""

    def emit(e: Event) -> Event:
        nonlocal s
        if in_place:
            advance(s, e)
        else:
            s = apply(s, e)
        return e

    while s.phase != Phase.OVER:
        # a reveal, by far the most frequent event, is found without expected()'s words
        nxt = s.next_reveal() if s.phase == Phase.MISSION else None
        if nxt is not None:
            guesser, mission = nxt
            owner = other(guesser)
            actual = deployed[owner][mission - 1]
            guess = actual if rng.random() < correct else rng.randint(1, 10)
            hand = s.hand_ranks(owner)
            if guess != actual and guess not in hand:
                # a player names a rank the card could be (the phones offer no other,
                # issue 22); the same draw picks it, so the game's course is unchanged
                wrong = [r for r in hand if r != actual]
                guess = wrong[guess % len(wrong)]
            dec = s.dt[owner] > 0 and rng.random() < deceive
            choices = owner_choices(s, owner, actual)
            yield emit(Reveal(guesser, mission, guess, actual, dec,
                              rng.choice(choices) if choices else None))
            continue
        exp = expected(s)
        if exp.type == "exhaust":
            side = exp.sides[0]
            pool = list(deployed[side]) if s.phase == Phase.ROUND_END else list(range(1, 11))
            yield emit(Exhaust(side, tuple(rng.sample(pool, exp.count[side]))))
        elif exp.type == "intel":
            for side in SIDES:
                deployed[side] = deploy(rng, s.hand_ranks(side), disorder)
            if deck is None:
                yield emit(Intel(tuple(rng.sample(range(1, 11), 4))))
            else:
                yield emit(Intel(deck.pop(rng.randrange(len(deck)))))
        elif exp.type == "tokens":
            side = exp.sides[0]
            truth = {m for m, r in enumerate(deployed[side], 1)
                     if r in (s.intel or ()) or (r == 4 and rng.random() < 0.5)}
            if rng.random() < lie:
                truth ^= {rng.randint(1, 4)}
            yield emit(Tokens(side, tuple(sorted(truth))))
        elif exp.type == "start":
            yield emit(Start(exp.sides[0] if exp.sides else rng.choice(SIDES)))
        elif exp.type == "check":
            side = exp.sides[0]
            down = {m: r for m, r in enumerate(deployed[side], 1) if m not in s.revealed[side]}
            yield emit(Check(side, tuple(down.items())))


def random_record(rng: random.Random, wall_distance: int | None = None, **kw: Any) -> Record:
    """One whole random legal game as a record."""
    w = wall_distance if wall_distance is not None else rng.randint(2, 8)
    options = Options(w)
    return Record(options, tuple(play(rng, options, **kw)))
