"""What each screen is sent: the public view every screen shares (no secrets).

The view is the same for every viewer; who a secret belongs to is sent apart
(:func:`companion.web.tables.who`).
"""

from __future__ import annotations

import json
from typing import Any

from ..engine import (
    RANK_NAMES,
    SIDES,
    Draft,
    State,
    narrate_effect,
    narrate_reveal,
    other,
    replay_output,
)
from ..engine.deduce import deduce_side
from .cards import known
from .models import Seat, Table
from .states import derive, event_rows


def event_text(d: dict[str, Any]) -> str:
    """Plain words for a recorded event other than a reveal (reveals are narrated)."""
    t = d["type"]
    if t == "exhaust":
        names = " and ".join(RANK_NAMES[r] for r in d["ranks"])
        return f"{d['side'].capitalize()}'s exhausted soldier: {names}"
    if t == "intel":
        return "Intel card: " + ", ".join(f"{r} {RANK_NAMES[r]}" for r in d["ranks"])
    if t == "tokens":
        ms = ", ".join(str(m) for m in d["missions"]) or "none"
        return f"{d['side'].capitalize()}'s intel tokens on missions: {ms}"
    if t == "start":
        return f"{d['side'].capitalize()} starts the day"
    if t == "check":
        cards = ", ".join(f"mission {m}: {RANK_NAMES[r]}" for m, r in d["ranks"].items())
        return f"{d['side'].capitalize()} turns up its face-down cards: {cards or 'none left'}"
    return str(t)


def draft_view(table: Table, state: State) -> dict[str, Any] | None:
    """The reveal being built over several taps, and the step it waits for."""
    draft = Draft.from_dict(state, table.draft_dict())
    if draft is None:
        return None
    view = draft.view()
    view["choices"] = [{**o, "label": choice_label(o, view["owner"]),
                        "summary": choice_summary(o)} for o in view["choices"]]
    return view


# --- the words every screen shows, said once here ---------------------------------

RANK_WORDS = {str(r): RANK_NAMES[r] for r in range(1, 11)}

REASON_WORDS = {"flag": "flag captured",
                "flag_cancelled": "flag capture cancelled (cards out of order)",
                "territory": "double agent's territory after day 3",
                "ip": "more IP after day 3", "draw": "equal after day 3"}

_DRAFT_WAIT = {"guess": "guess", "actual": "tap the rank turned up", "choice": "choose"}


def da_words(da: int, wall: int = 99) -> str:
    """Where the double agent stands: "at the centre", "2 toward blue", or past the
    wall (R70) "on blue's flag"."""
    if da == 0:
        return "at the centre"
    toward = "red" if da < 0 else "blue"
    return f"on {toward}'s flag" if abs(da) > wall else f"{abs(da)} toward {toward}"


def da_short(da: int, wall: int = 99) -> str:
    """The same in a phone's score line: "centre", "2 blue", "blue flag"."""
    if da == 0:
        return "centre"
    toward = "red" if da < 0 else "blue"
    return f"{toward} flag" if abs(da) > wall else f"{abs(da)} {toward}"


def winner_words(winner: str | None) -> str | None:
    """The heading of the end: "A draw", "Red wins" (``None`` while the game goes on)."""
    if winner is None:
        return None
    return "A draw" if winner == "draw" else f"{winner.capitalize()} wins"


def choice_summary(o: dict[str, Any]) -> str:
    """What a choice (or the calculator's option) leaves: IP, the double agent, a winner."""
    def change(n: int) -> str:
        return f" (+{n})" if n > 0 else f" (−{-n})" if n < 0 else ""
    moved = o["da_change"]
    toward = f" ({abs(moved)} toward {'red' if moved < 0 else 'blue'})" if moved else ""
    text = (f"Then red {o['ip']['red']} IP{change(o['ip_change']['red'])} · "
            f"blue {o['ip']['blue']} IP{change(o['ip_change']['blue'])} · "
            f"DA {da_words(o['da'])}{toward}")
    if o.get("winner"):
        text += " · a draw" if o["winner"] == "draw" else f" · {o['winner'].capitalize()} wins"
    return text


_GAIN = {1: "+1 IP and a deception token", 2: "+2 IP", 3: "+3 IP", 4: "+4 IP",
         5: "double agent 1 step", 7: "the Bomb's effect", 8: "+8 IP", 9: "double agent 2 steps"}


def choice_label(o: dict[str, Any], side: str) -> str:
    """What a Captain's or Marshal's choice does, said before it is tapped: the gain,
    an infiltration with the double agent's move, or that it fizzles (R45, R49)."""
    parts = str(o["choice"]).split(":")
    effects = o["effects"]
    if parts == ["ip"]:
        what = f"+{next((e['amount'] for e in effects if e['kind'] == 'ip'), 0)} IP"
    elif parts == ["drain"]:
        what = "+5 IP and the enemy −5 IP"
    else:
        n = int(parts[1])
        then = {"ip": " (+10 IP)", "drain": " (+5 IP, enemy −5 IP)"}.get(
            parts[2] if len(parts) > 2 else "", f" ({_GAIN[n]})" if n in _GAIN else "")
        what = f"Use the exhausted {RANK_NAMES[n]}{then}"
    fizzle = next((e for e in effects if e["kind"] == "fizzle"), None)
    if fizzle is not None:
        by = "Spy" if fizzle["by"] == "R40" else "Miner"
        return f"{what}: fizzles, the enemy {by} is in play ({fizzle['by']}), nothing gained"
    if any(e["kind"] == "infiltrate" and e["side"] == side for e in effects):
        moved = sum(e["steps"] for e in effects if e["kind"] == "da" and e["side"] == side)
        enemy = "blue" if side == "red" else "red"
        step = "1 step" if moved == 1 else f"{moved} steps"
        what += f": {side} reaches 10 and infiltrates, double agent {step} toward {enemy}"
    if o.get("winner") and o["winner"] != "draw":
        what += f" — {o['winner']} wins"
    return what


def effect_words(effects: list[dict[str, Any]]) -> str:
    """The effects of an activation in the narration's words, or "no effect"."""
    return "; ".join(w for w in (narrate_effect(e) for e in effects) if w) or "no effect"


def next_words(out: dict[str, Any], draft: dict[str, Any] | None) -> str:
    """What the table waits for, in words, including the step of a reveal being built."""
    if out["end"] and out["phase"] != "capture_check":
        return str(out["end"])
    if not draft:
        return str(out["next"]["text"])
    d, name = draft, RANK_NAMES
    owner, guesser, m = d["owner"].capitalize(), d["guesser"].capitalize(), d["mission"]
    if d["step"] == "guess":
        step = f"{guesser}: guess {d['owner']}'s mission {m}"
    elif d["step"] == "actual" and not d["guess_needed"]:
        step = (f"{owner}'s mission {m} counts as identified (R60): "
                "tap the rank turned up")
    elif d["step"] == "actual":
        step = f"Turn up {d['owner']}'s mission {m} ({guesser} guessed {name[d['guess']]})"
    else:
        step = f"{owner}: choose what the {name[d['actual']]} does"
    if d["deception"]:
        step += " · deception token played"
    return step


def words(out: dict[str, Any], draft: dict[str, Any] | None, teams: bool) -> dict[str, Any]:
    """The words the screens show about the game as it stands."""
    waiting, over = None, out["phase"] == "over"
    if draft:
        part = f" ({'missions 1–2' if draft['part'] == 1 else 'missions 3–4'})" if teams else ""
        waiting = f"Waiting for {draft['side']}{part} to {_DRAFT_WAIT[draft['step']]}."
    wall = out["wall_distance"]
    return {"da": da_words(out["da"], wall), "da_short": da_short(out["da"], wall),
            "winner": winner_words(out["winner"]) if over else None,
            "reason": REASON_WORDS.get(out["reason"]) if over else None,
            "next": next_words(out, draft), "waiting": waiting, "ranks": RANK_WORDS}


def taps(state: State, out: dict[str, Any], draft: dict[str, Any] | None) -> dict[str, Any]:
    """What may be tapped now: the step, who taps it (``sides`` empty: anyone at the
    table; ``part``: in team play the part of the side) and the legal values."""
    nxt = out["next"]
    every = list(range(1, 11))
    if draft:
        t: dict[str, Any] = {"step": draft["step"], "sides": draft["sides"],
                             "part": draft["part"]}
        if draft["may_deceive"]:          # optional, for the owner, while the guess waits
            t["deceive"] = {"side": draft["owner"], "mission": draft["mission"]}
        if draft["step"] == "guess":
            t["ranks"] = every
        elif draft["step"] == "actual":
            t["ranks"] = draft["ranks"]
        else:
            t["choices"] = [o["choice"] for o in draft["choices"]]
        return t
    kind = nxt["type"]
    t = {"step": kind or "over", "sides": nxt["sides"], "part": None}
    if kind == "exhaust":
        t["count"] = nxt["count"]
        t["ranks"] = {x: sorted(state.revealed[x].values()) if state.phase == "round_end"
                      else every for x in nxt["sides"]}
    elif kind == "intel":
        t["ranks"], t["count"] = every, 4
    elif kind == "tokens":
        t["missions"] = [1, 2, 3, 4]
    elif kind == "start":
        t["starts"] = nxt["sides"] or list(SIDES)
        t["spin"] = not nxt["sides"]
    elif kind == "check":
        t["missions"] = {x: [m for m in range(1, 5) if m not in state.revealed[x]]
                         for x in nxt["sides"]}
        t["ranks"] = {x: state.hand_ranks(x) for x in nxt["sides"]}
    return t


def undo_target(table: Table, state: State, rows: list[Any] | None = None
                ) -> tuple[str, str | None, int] | None:
    """What an undo would take back now: (words, who entered it — a side, ``"reveal"``
    for a completed reveal, ``None`` for the host screen — and how many events it
    removes, 0 for a tap); ``None`` when there is nothing to undo. ``rows``: the
    table's events not undone, when the caller has read them already."""
    draft = Draft.from_dict(state, table.draft_dict())
    if draft is not None and draft.undo() is not None:
        return draft.undone, str(draft.undone_by), 0
    rows = event_rows(table) if rows is None else rows
    if not rows:
        return None
    n, last = 1, rows[-1]
    d = json.loads(last.data)
    if d["type"] == "start" and last.seat_id is None and len(rows) > 1 and state.day > 1:
        n, last = 2, rows[-2]          # R12's start goes with the tokens that set it off
        d = json.loads(last.data)
    if d["type"] == "reveal":
        return narrate_reveal(state.reveals[-1]), "reveal", n
    side = next((s.side for s in table.seats if s.id == last.seat_id), None)
    return event_text(d), side, n


def requests(table: Table) -> list[dict[str, Any]]:
    """The phones asking to take over a seat: outside the versioned view, so a flood of
    them never changes the version the players' taps carry."""
    return [seat_dict(s) for s in table.seats if s.status == "pending"]


def seat_dict(seat: Seat) -> dict[str, Any]:
    """A seat as every screen may see it (no secret)."""
    return {"id": seat.id, "side": seat.side, "part": seat.part, "name": seat.name,
            "status": seat.status, "player": seat.player_id}


def deduction_view(state: State) -> dict[str, Any] | None:
    """The deduction aid (issue 13): for the reveal in play, how many line-ups of the
    side being guessed fit the public information, and per mission how many of them
    put each rank there; ``None`` when no reveal is due or that side's order broke."""
    nxt = state.next_reveal()
    if nxt is None:
        return None
    guesser, mission = nxt
    d = deduce_side(state, other(guesser))
    if d is None:
        return None
    return {"side": other(guesser), "mission": mission, **d.to_dict()}


def public_view(table: Table, state: State | None = None) -> dict[str, Any]:
    """Everything any screen may see: no secrets, the same for every viewer."""
    state = state or derive(table)
    out = replay_output(state)
    rows = event_rows(table)
    reveal_text = {r["index"]: r["narration"] for r in out["reveals"]}
    names = {s.id: s.name for s in table.seats}
    log = []
    for i, row in enumerate(rows):
        d = json.loads(row.data)
        log.append({"index": i, "type": d["type"],
                    "text": reveal_text.get(i) or event_text(d),
                    "by": names.get(row.seat_id) if row.seat_id else None})
    seen: list[list[int]] = []
    for card in [*out["old_intel"], *([out["intel"]] if out["intel"] else [])]:
        if card not in seen:
            seen.append(card)
    draft = draft_view(table, state)
    can = taps(state, out, draft)
    if can["step"] == "intel":          # the box's cards seen before: one tap each
        can["cards"] = known(state.old_intel)
    view = {
        "code": table.code, "version": table.version, "teams": table.teams,
        "first_game": table.first_game,
        "wall_distance": table.wall_distance, "state": out, "draft": draft,
        "seats": [seat_dict(s) for s in table.seats if s.status == "active"],
        "notice": table.notice, "log": log, "seen_intel": seen,
        # where the group plays on (issue 14): each seat's new seat, so phones follow
        "rematch": json.loads(table.rematch) if table.rematch else None,
        "words": words(out, draft, table.teams), "taps": can,
    }
    stored = table.draft_dict() or {}
    # an undo that waits for the other side's phone (or the big screen) to agree
    view["undo"] = stored.get("undo") if stored.get("events") == state.event_count else None
    target = undo_target(table, state, rows)
    # what the undo button would take back now, and who entered it (a completed reveal,
    # or the other side's entry, waits for that side's phone to agree)
    view["undo_next"] = {"what": "Undo: " + target[0], "by": target[1]} if target else None
    if table.deduction:           # opt-in: a table without the aid gets the view unchanged
        view["deduction"] = deduction_view(state)
    return view
