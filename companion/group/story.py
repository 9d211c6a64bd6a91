"""The story of a game (issue 13): the record replayed event by event, for the story page.

Each step is the game as it stood after one more event (step 0: before any), in a
compact form, with the words of that step; the key moments (infiltrations, moves of
the double agent, R60, R61, the flag, the decisive reveal, the end) point at steps.
Everything is derived from the table's events by the engine; nothing is stored.
"""

from __future__ import annotations

import json
from typing import Any

from ..engine import (
    RANK_NAMES,
    SIDES,
    Msg,
    Options,
    RevealResult,
    Side,
    State,
    apply,
    end_words,
    event_from_dict,
    new_game,
    other,
    plural,
    rank,
    reveal_words,
    side,
)
from ..engine.referee import advance
from ..store.models import Table
from ..table.states import event_rows
from ..table.words import RANK_WORDS, event_text


def _standing(state: State) -> str:
    """Who would win if the game stopped now (R72): the double agent's territory,
    else more IP, else a draw."""
    if state.da:
        return "red" if state.da > 0 else "blue"
    red, blue = state.ip[Side.RED], state.ip[Side.BLUE]
    return "red" if red > blue else "blue" if blue > red else "draw"


def _revealed(state: State) -> dict[str, dict[str, dict[str, Any]]]:
    """The cards turned up this round, per owner and mission, with what became of them."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    how = {(r.owner, r.mission): r for r in state.reveals if r.day == state.day}
    for x in SIDES:
        out[x] = {}
        for m, card in sorted(state.revealed[x].items()):
            r = how.get((x, m))
            out[x][str(m)] = {"rank": card, "outcome": r.outcome if r else None,
                                 "deception": bool(r and r.deception)}
    return out


def _compact(state: State) -> dict[str, Any]:
    """The game as it stands, as the story page draws it."""
    return {"day": state.day, "phase": str(state.phase), "ip": dict(state.ip), "da": state.da,
            "dt": {"red": state.dt[Side.RED], "blue": state.dt[Side.BLUE],
                   "supply": state.supply},
            "revealed": _revealed(state),
            "intel": list(state.intel) if state.intel else None,
            "tokens": {s: (sorted(v) if v is not None else None)
                       for s, v in state.tokens.items()},
            "winner": state.outcome.winner_text if state.outcome else None,
            "reason": str(state.outcome.reason) if state.outcome else None}


def _end_words(state: State) -> Msg | None:
    d = {"phase": str(state.phase), "winner": state.outcome.winner_text if state.outcome
         else None, "reason": str(state.outcome.reason) if state.outcome else None}
    return end_words(d)


def _moment_parts(r: RevealResult) -> tuple[list[str], list[Msg]]:
    """The kinds of key moment one reveal holds, and a few words for each."""
    kinds: list[str] = []
    words: list[Msg] = []
    if r.rule == "R61":
        kinds.append("R61")
        words.append(Msg("{side}'s intel token on mission {mission} was wrong",
                         side=side(r.owner), mission=r.mission))
    for e in r.to_dict()["effects"]:
        who, kind = side(e["side"]), e["kind"]
        if kind == "infiltrate":
            kinds.append("infiltrate")
            words.append(Msg("{side} infiltrates", side=who))
        elif kind == "da" and e["steps"]:
            kinds.append("da")
            steps = plural("{n} step", "{n} steps", e["steps"])
            enemy = side(other(e["side"]))
            words.append(Msg("the double agent moves {steps} toward {side}", steps=steps,
                             side=enemy) if e["source"] == "infiltration" else
                         Msg("the double agent moves {steps} toward {side} ({source})",
                             steps=steps, side=enemy, source=_source(e["source"])))
        elif kind == "order_broken":
            kinds.append("order_broken")
            words.append(Msg("{side}'s cards are out of order", side=who))
        elif kind == "flag":
            kinds.append("flag")
            words.append(Msg("{side} captures the flag", side=who))
    return kinds, words


def _source(name: str) -> Msg | str:
    """Where a double agent's move came from: the rank that moved it (R44, R48)."""
    found = [r for r, n in RANK_NAMES.items() if n == name]
    return rank(found[0]) if found else name


def _sentence(words: list[Msg]) -> Msg:
    text = words[0]
    for w in words[1:]:
        text = Msg("{first}; {next}", first=text, next=w)
    return Msg("{text!c}.", text=text)


def story(table: Table) -> dict[str, Any]:
    """The story of the table's game: every step and the key moments."""
    events = [json.loads(row.data) for row in event_rows(table)]
    state = new_game(Options(table.wall_distance))
    steps: list[dict[str, Any]] = [{"step": 0, "event": None, "type": "begin",
                                    **_compact(state), "text": Msg(
                                        "The game begins: both sides at 0 IP, the double agent "
                                        "at the centre, one deception token each.")}]
    standings = [_standing(state)]
    moments: list[dict[str, Any]] = []
    flag_step = end_step = None
    for i, d in enumerate(events):
        before = state
        state = apply(state, event_from_dict(d))
        n = i + 1
        text: Msg | str
        if d["type"] == "reveal":
            r = state.reveals[-1]
            text = reveal_words(r)
            kinds, words = _moment_parts(r)
            if kinds:
                moments.append({"step": n, "day": r.day, "kinds": kinds,
                                "text": _sentence(words)})
            if _flagged(r):
                flag_step = n
        else:
            text = Msg("{text}.", text=event_text(d))
        if state.phase == "round_end" and before.phase != "round_end":
            text = Msg("{text} Day {day} is over.", text=text, day=state.day)
        if state.outcome and (before.outcome is None or str(state.phase) != str(before.phase)):
            end = _end_words(state)
            if end:
                text = Msg("{text} {end}", text=text, end=end)
            if state.phase == "over":
                end_step = n
        steps.append({"step": n, "event": i, "type": d["type"], **_compact(state),
                      "text": text})
        standings.append(_standing(state))
    decisive = _decisive(state, [s["type"] for s in steps], standings, flag_step)
    if decisive is not None:
        found = _moment(moments, steps, decisive, "decisive")
        found["text"] = (Msg("The decisive reveal. {text}", text=found["text"])
                         if found["text"] else Msg("The decisive reveal."))
    if end_step is not None:
        m = _moment(moments, steps, end_step, "end")
        end = _end_words(state)
        if end is not None:
            m["text"] = Msg("{text} {end}", text=m["text"], end=end) if m["text"] else end
    moments.sort(key=lambda m: m["step"])
    days: list[dict[str, int]] = []
    for s in steps:
        if not days or days[-1]["day"] != s["day"]:
            days.append({"day": s["day"], "first": s["step"], "last": s["step"]})
        days[-1]["last"] = s["step"]
    return {"code": table.code, "version": table.version, "wall_distance": table.wall_distance,
            "winner": steps[-1]["winner"], "reason": steps[-1]["reason"],
            "over": str(state.phase) == "over", "end": _end_words(state),
            "steps": steps, "moments": moments, "days": days, "ranks": RANK_WORDS}


def _moment(moments: list[dict[str, Any]], steps: list[dict[str, Any]], at: int,
            kind: str) -> dict[str, Any]:
    """The key moment at step ``at`` (made when there is none yet), marked ``kind``."""
    found = next((m for m in moments if m["step"] == at), None)
    if found is None:
        found = {"step": at, "day": steps[at]["day"], "kinds": [], "text": ""}
        moments.append(found)
    if kind and kind not in found["kinds"]:
        found["kinds"].append(kind)
    return found


def _flagged(r: RevealResult) -> bool:
    """Whether the reveal captured a flag (R70)."""
    return any(e["kind"] == "flag" for e in r.to_dict()["effects"])


def _decisive(state: State, types: list[str], standings: list[str],
              flag_step: int | None) -> int | None:
    """The reveal that decided the game: the flag's capture (R70, also when R71 then
    cancels it: the cancellation is the end), else the first reveal after which the
    final result stood for good (R72); ``None`` while the game goes on. ``types``: each
    step's event type (step 0: ``begin``)."""
    if state.outcome is None or str(state.phase) != "over":
        return None
    if flag_step is not None:
        return flag_step
    final = state.outcome.winner_text
    last_other = max((i for i, s in enumerate(standings) if s != final), default=-1)
    return next((i for i in range(last_other + 1, len(types)) if types[i] == "reveal"),
                None)


def decisive_reveal(wall_distance: int, events: list[dict[str, Any]]
                    ) -> dict[str, Any] | None:
    """The decisive reveal of a finished game, as its story names it (the history names
    the same one, issue 52): ``{"step", "text"}``, the step and what the reveal did;
    ``None`` for a game that goes on."""
    state = new_game(Options(wall_distance))
    standings, types = [_standing(state)], ["begin"]
    flag_step = None
    for i, d in enumerate(events):
        advance(state, event_from_dict(d))      # (in place: only the standings are kept)
        if d["type"] == "reveal" and flag_step is None and _flagged(state.reveals[-1]):
            flag_step = i + 1
        standings.append(_standing(state))
        types.append(d["type"])
    step = _decisive(state, types, standings, flag_step)
    if step is None:
        return None
    r = next(r for r in state.reveals if r.index == step - 1)
    return {"step": step, "text": reveal_words(r)}
