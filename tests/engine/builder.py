"""A small table for engine tests: deal deployments, then reveal in turn order.

``Table`` keeps the events it applied, so a test can check both the state it
holds (applied event by event) and a full replay of its record.
"""

from __future__ import annotations

from companion.engine import (
    Check,
    Exhaust,
    Intel,
    Options,
    Record,
    Reveal,
    RevealResult,
    Start,
    State,
    Tokens,
    apply,
    new_game,
    other,
    replay,
)


class Table:
    def __init__(self, wall: int = 4, red_exhausted: int | None = None,
                 blue_exhausted: int | None = None) -> None:
        """Before day 1, each side's exhausted soldier is the one given, or else (at
        the first ``day``) the highest rank that side does not deploy."""
        self.options = Options(wall)
        self.state: State = new_game(self.options)
        self.events: list = []
        self.deployed: dict[str, list[int]] = {}
        self.opening = {"red": red_exhausted, "blue": blue_exhausted}
        if red_exhausted and blue_exhausted:
            self.do(Exhaust("red", (red_exhausted,)))
            self.do(Exhaust("blue", (blue_exhausted,)))

    def do(self, event) -> State:
        self.state = apply(self.state, event)
        self.events.append(event)
        return self.state

    @property
    def record(self) -> Record:
        return Record(self.options, tuple(self.events))

    def day(self, red: list[int], blue: list[int], start: str = "red",
            intel: tuple[int, ...] | None = None,
            tokens: dict[str, set[int]] | None = None) -> State:
        """Deploy both sides; intel defaults to a card no deployed rank is on."""
        self.deployed = {"red": list(red), "blue": list(blue)}
        if self.state.phase == "setup":
            for side in ("red", "blue"):
                rank = self.opening[side] or max(set(range(1, 11)) - set(self.deployed[side]))
                self.do(Exhaust(side, (rank,)))
        if self.state.phase == "setup":
            for side in ("red", "blue"):
                rank = self.opening[side] or max(set(range(1, 11)) - set(self.deployed[side]))
                self.do(Exhaust(side, (rank,)))
        if intel is None:
            used = set(red) | set(blue)
            intel = tuple([r for r in range(1, 11) if r not in used][:4])
            while len(intel) < 4:  # every rank is out: pad with ranks, tokens follow the truth
                intel = intel + ((set(range(1, 11)) - set(intel)).pop(),)
        self.do(Intel(tuple(intel)))
        for side in ("red", "blue"):
            truth = {m for m, r in enumerate(self.deployed[side], 1) if r in intel}
            self.do(Tokens(side, tuple(sorted((tokens or {}).get(side, truth)))))
        return self.do(Start(start))

    def reveal(self, guess: int | None = None, deception: bool = False,
               choice: str | None = None, actual: int | None = None) -> State:
        """The next reveal in turn order; ``guess`` defaults to a wrong one."""
        guesser, mission = self.state.next_reveal()
        owner = other(guesser)
        actual = actual if actual is not None else self.deployed[owner][mission - 1]
        if guess is None:
            guess = 1 if actual != 1 else 2
        return self.do(Reveal(guesser, mission, guess, actual, deception, choice))

    def right(self, **kw) -> State:
        """The next reveal, guessed correctly."""
        guesser, mission = self.state.next_reveal()
        return self.reveal(guess=self.deployed[other(guesser)][mission - 1], **kw)

    def finish_round(self, draw: dict[str, tuple[int, ...]] | None = None) -> State:
        """Guess right until the round ends, then draw exhaustion (first deployed cards)."""
        while self.state.phase == "mission":
            self.right()
        if self.state.phase == "round_end":
            for side in ("red", "blue"):
                n = 2 if self.state.double[side] else 1
                ranks = (draw or {}).get(side, tuple(self.deployed[side][:n]))
                self.do(Exhaust(side, ranks))
        return self.state

    def check(self, side: str) -> State:
        down = {m: r for m, r in enumerate(self.deployed[side], 1)
                if m not in self.state.revealed[side]}
        return self.do(Check(side, tuple(down.items())))

    def last(self) -> RevealResult:
        return self.state.reveals[-1]

    def replayed(self) -> State:
        return replay(self.record)
