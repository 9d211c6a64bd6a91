"""What each screen is sent: the public view every screen shares (no secrets).

The view is the same for every viewer; who a secret belongs to is sent apart
(:func:`companion.web.tables.who`).
"""

from __future__ import annotations

import json
from typing import Any

from ..engine import RANK_NAMES, Draft, State, replay_output
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
    return draft.view() if draft is not None else None


def seat_dict(seat: Seat) -> dict[str, Any]:
    """A seat as every screen may see it (no secret)."""
    return {"id": seat.id, "side": seat.side, "part": seat.part, "name": seat.name,
            "status": seat.status}


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
    return {
        "code": table.code, "version": table.version, "teams": table.teams,
        "wall_distance": table.wall_distance, "state": out, "draft": draft_view(table, state),
        "seats": [seat_dict(s) for s in table.seats if s.status in ("active", "pending")],
        "notice": table.notice, "log": log, "seen_intel": seen,
    }
