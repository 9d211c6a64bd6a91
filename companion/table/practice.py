"""The practice round (issue 53): one short scripted round a group taps through on the
real screens, every card face up, before it deals for real.

The whole script is data (:data:`SCRIPT`): the exhausted soldiers, each side's four
soldiers in the order they lie (RULES.md R10: rising, the Sergeant anywhere), the intel
card and its tokens (R11), who starts (R12) and the eight reveals of day 1 (R13), each
with its guess. It was chosen so that the group meets a right guess (R22, R30), a wrong
one (R24), abilities acting (the Scout R41, the Lieutenant R44, the Sergeant R43), the
double agent moving (R44, and R31 when red reaches 10) and the Scout's 4 points for an
identification. No ability in it asks its owner to choose and no deception token is laid:
every step is one tap, or a few picks and a confirm.

A practice table takes only the script's next event (:func:`refusal`), draws nothing at
random (:func:`drawn`), and its view carries what the screens draw (:func:`view`): the
cards face up, the taps the script wants next, the end. Plain Python: the engine only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..engine import Msg, Options, Record, event_from_dict

#: each side's soldiers as they lie, missions 1-4 (R10: 2-5-8-9 rising; 1-3-4-8 with the
#: Sergeant, who may stand anywhere, third)
LINEUPS: dict[str, tuple[int, int, int, int]] = {"red": (2, 5, 8, 9), "blue": (1, 3, 4, 8)}
EXHAUSTED: dict[str, list[int]] = {"red": [6], "blue": [10]}
INTEL = [3, 5, 7, 10]
STARTS = "red"
#: (guesser, mission, guess): the reveals in their order (R13), the card is the line-up's
GUESSES: list[tuple[str, int, int]] = [
    ("red", 1, 1),      # right: the Spy identified, red +2
    ("blue", 1, 1),     # wrong: red's Scout acts (+2, red's later identifications score 4)
    ("red", 2, 3),      # right: the Miner identified, red +4 with the Scout
    ("blue", 2, 7),     # wrong: red's Lieutenant moves the double agent one step to blue
    ("red", 3, 5),      # wrong: blue's Sergeant acts, blue +4
    ("blue", 3, 8),     # right: the Colonel identified, blue +2
    ("red", 4, 8),      # right: red +4 reaches 10 and infiltrates, the agent moves on
    ("blue", 4, 9),     # right: the General identified, blue +2
]
WALL = 4
PAIRED = ("exhaust", "tokens")      # both sides enter these, either first (RECORD.md)


def _tokens(side: str) -> list[int]:
    """The missions whose soldier's rank is on the intel card (R11; no Sergeant here
    carries a token: he is free to lie, and this script keeps it simple)."""
    return [m for m, r in enumerate(LINEUPS[side], 1) if r in INTEL and r != 4]


def _script() -> list[dict[str, Any]]:
    other = {"red": "blue", "blue": "red"}
    events: list[dict[str, Any]] = [
        {"type": "exhaust", "side": "red", "ranks": EXHAUSTED["red"]},
        {"type": "exhaust", "side": "blue", "ranks": EXHAUSTED["blue"]},
        {"type": "intel", "ranks": INTEL},
        {"type": "tokens", "side": "red", "missions": _tokens("red")},
        {"type": "tokens", "side": "blue", "missions": _tokens("blue")},
        {"type": "start", "side": STARTS},
    ]
    for guesser, mission, guess in GUESSES:
        events.append({"type": "reveal", "guesser": guesser, "mission": mission,
                       "guess": guess, "actual": LINEUPS[other[guesser]][mission - 1],
                       "deception": False})
    # each as the engine writes it back: the same dicts the table's rows hold
    return [json.loads(json.dumps(event_from_dict(e).to_dict())) for e in events]


#: the practice round's events, in the order the script offers them
SCRIPT: list[dict[str, Any]] = _script()
RECORD = Record(Options(WALL), tuple(event_from_dict(e) for e in SCRIPT))

OFF_SCRIPT = Msg("In the practice round, tap what the screen shows: the highlighted button")


def due(done: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The script's events that may come next after ``done`` (the table's events): the
    next one, and the other side's of a pair both sides enter (soldiers, tokens) in
    either order. Empty once the script is over."""
    n = len(done)
    if n >= len(SCRIPT):
        return []
    kind = SCRIPT[n]["type"]
    if kind not in PAIRED:
        return [SCRIPT[n]]
    start = n
    while start > 0 and SCRIPT[start - 1]["type"] == kind:
        start -= 1
    end = n
    while end < len(SCRIPT) and SCRIPT[end]["type"] == kind:
        end += 1
    taken = list(done[start:n])
    return [e for e in SCRIPT[start:end] if e not in taken]


def refusal(done: Sequence[Mapping[str, Any]], event: Mapping[str, Any]) -> Msg | None:
    """Why ``event`` is not taken now (``None``: it is the script's next one)."""
    if dict(event) in due(done):
        return None
    if len(done) >= len(SCRIPT):
        return Msg("The practice round is over: set up the real game")
    return OFF_SCRIPT


def tap_refusal(done: Sequence[Mapping[str, Any]], step: str, value: Any) -> Msg | None:
    """Why a reveal's tap (``step``, ``value``) is not taken now: only the script's
    guess and card, never a deception token or a choice (the script has none)."""
    nxt = due(done)
    if not nxt or nxt[0]["type"] != "reveal":
        return refusal(done, {"type": "reveal"})
    if step in ("guess", "actual") and value == nxt[0][step]:
        return None
    return OFF_SCRIPT


def drawn(done: Sequence[Mapping[str, Any]], raw: Mapping[str, Any]) -> dict[str, Any] | None:
    """A draw asked of the server ("Draw for me at random", "Spin"): the script's, never
    chance (nothing here is drawn at random); ``None`` when the script has no such step
    now."""
    for e in due(done):
        if e["type"] == raw.get("type") and (e["type"] == "start"
                                             or e.get("side") == raw.get("side")):
            return dict(e)
    return None


def wanted(done: Sequence[Mapping[str, Any]],
           draft: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The taps the script wants next, as the entry panel names them: ``step`` (the
    panel's step), ``side`` (who enters it, if anyone in particular) and what to tap —
    ``ranks`` or ``missions`` to pick then confirm, ``side`` to start, or ``value`` (a
    reveal's guess or card turned up)."""
    out: list[dict[str, Any]] = []
    for e in due(done):
        kind = e["type"]
        if kind == "reveal":
            step = "actual" if draft and draft.get("guess") is not None else "guess"
            owner = "blue" if e["guesser"] == "red" else "red"
            out.append({"step": "reveal-" + step, "side": e["guesser"], "owner": owner,
                        "value": e[step]})
        elif kind == "exhaust":
            out.append({"step": kind, "side": e["side"], "ranks": e["ranks"]})
        elif kind == "tokens":
            out.append({"step": kind, "side": e["side"], "missions": e["missions"]})
        elif kind == "intel":
            out.append({"step": kind, "side": None, "ranks": e["ranks"]})
        else:
            out.append({"step": kind, "side": None, "start": e["side"]})
    return out


def view(done: Sequence[Mapping[str, Any]], draft: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a screen of a practice table draws: each side's cards face up and its
    exhausted soldier, the taps wanted next, how far the script has come, its words."""
    over = len(done) >= len(SCRIPT)
    return {
        "lineups": {side: list(ranks) for side, ranks in LINEUPS.items()},
        "exhausted": EXHAUSTED, "want": wanted(done, draft), "over": over,
        "step": min(len(done) + 1, len(SCRIPT)), "steps": len(SCRIPT),
        "words": {
            "title": Msg("Practice round"),
            "step": Msg("Step {n} of {all}", n=min(len(done) + 1, len(SCRIPT)),
                        all=len(SCRIPT)),
            "hint": Msg("Every card is face up. Tap the highlighted button."),
            "want": Msg("Tap this one: the practice round's next step"),
            "over": Msg("The practice round is over"),
            "then": Msg("Now deal the cards face down and play the real game, with the "
                        "same screens and taps."),
            "setup": Msg("Set up the real game"),
        },
    }
