"""What a finished game contributes to the group's memory (issue 21), derived from the
referee's state once, when the game ends or is imported.

>>> import random
>>> from companion.engine import replay
>>> from companion.engine.simulate import random_record
>>> s = summarize(replay(random_record(random.Random(3))))
>>> sorted(s), sorted(s["sides"]["red"])[:4]
(['days', 'ending', 'reason', 'sides', 'winner'], ['correct', 'guesses', 'infiltrations', 'ip'])
>>> {x["result"] for x in s["sides"].values()} in ({"win", "loss"}, {"draw"})
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..engine import State, end_words

SIDES = ("red", "blue")
REASONS = ("flag", "flag_cancelled", "territory", "ip", "draw")
SOURCES = ("identified", "abilities", "deception")
FIGURES = ("ip", "guesses", "correct", "ip_identified", "ip_abilities", "ip_deception",
           "infiltrations")


def side_tally(game: Mapping[str, Any], side: str) -> dict[str, Any]:
    """What one side did in one game (``game``: the state as a dict, RECORD.md): guesses
    (and how many were right), IP by source, infiltrations, and the IP each of its
    soldiers earned by acting (R40-R49, R50)."""
    guesses = correct = 0
    soldiers: Counter[int] = Counter()
    for r in game["reveals"]:
        if r["guesser"] == side and r.get("guess") is not None:
            guesses += 1
            correct += r["guess"] == r["actual"]
        if r["owner"] == side:
            for e in r["effects"]:
                if e["kind"] == "ip" and e["side"] == side and e["source"] != "identified":
                    soldiers[r["actual"]] += e["amount"]
    st = game["stats"][side]
    return {"ip": game["ip"][side], "guesses": guesses, "correct": correct,
            **{f"ip_{s}": st[f"ip_{s}"] for s in SOURCES},
            "infiltrations": st["infiltrations"],
            "soldiers": {r: soldiers[r] for r in range(1, 11)}}


def result_for(winner: str, side: str) -> str:
    """``win``, ``loss`` or ``draw`` for ``side`` when ``winner`` won."""
    return "draw" if winner == "draw" else "win" if winner == side else "loss"


def summarize(state: State) -> dict[str, Any]:
    """The summary of a finished game: winner, reason, days, the end in words (a
    :class:`~companion.engine.Msg` as data) and each side's result and figures."""
    d = state.to_dict()
    winner = d["winner"]
    if winner is None:
        raise ValueError("the game is not over")
    ending = end_words(d)
    assert ending is not None
    return {"winner": winner, "reason": d["reason"], "days": d["day"],
            "ending": ending.to_dict(),
            "sides": {s: {"result": result_for(winner, s), **side_tally(d, s)}
                      for s in SIDES}}
