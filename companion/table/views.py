"""The view of a table: everything any screen may see (no secrets), made in one place,
:func:`public_view`, that a change calls once (its transaction's answer, the live push and
the other processes' NOTIFY share it).

The view is the same for every viewer; who a secret belongs to is sent apart
(:func:`companion.play.tables.who`). Its words come from :mod:`.words`.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from ..engine import (
    SIDES,
    Draft,
    Msg,
    State,
    other,
    replay_output,
    reveal_words,
)
from ..engine.deduce import deduce_side
from ..store.models import Seat, Table, db
from . import practice
from .cards import known
from .states import Recent, Row, derived, event_rows, versioned_rows
from .taught import teaching
from .words import choice_label, choice_summary, event_text, notice_words, undo_question, words


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
        if draft["step"] in ("guess", "actual"):
            # a guess names a rank the owner could still hold there: not exhausted, not
            # turned up this round (a rank outside them is wrong whatever the card is)
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
                ) -> tuple[Msg | str, str | None, int] | None:
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
    if len(rows) > 1 and ((d["type"] == "start" and last.seat_id is None and state.day > 1)
                          or (d["type"] == "check" and not d["ranks"])):
        # R12's start goes with the tokens that set it off; an empty capture check (R71)
        # with the reveal that took the flag: undone alone it would ask again for a check
        # that has nothing to turn up
        n, last = 2, rows[-2]
        d = json.loads(last.data)
    if d["type"] == "reveal":
        return reveal_words(state.reveals[-1]), "reveal", n
    side = next((s.side for s in table.seats if s.id == last.seat_id), None)
    return event_text(d), side, n


def requests(table: Table) -> list[dict[str, Any]]:
    """The phones asking to take over a seat: outside the versioned view, so a flood of
    them never changes the version the players' taps carry."""
    return [seat_dict(s) for s in table.seats if s.status == "pending"]


def seat_dict(seat: Seat) -> dict[str, Any]:
    """A seat as every screen may see it (no secret)."""
    return {"id": seat.id, "side": seat.side, "part": seat.part, "name": seat.name,
            "status": seat.status, "player": seat.player_id, "screen": seat.screen}


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


class _Said(NamedTuple):
    """What the last view of one table said: its reveals (the referee's own objects and
    their output) and its log (the event rows, their entries, the seats' names)."""

    code: str
    results: list[Any]
    reveals: list[dict[str, Any]]
    rows: list[Any]
    log: list[dict[str, Any]]
    names: dict[int, str]


# table id -> what its last view said, least recently used first (issue 15: a post's view
# narrates only its new reveal and writes only its new log lines; the rest are the same
# objects as in the view before, which also makes the delta between the two quick to find)
_said: Recent[_Said] = Recent(1024)


def _of_one_version(table: Table, state: State | None, rows: list[Row] | None
                    ) -> tuple[State, list[Row]]:
    """The state and the events not undone of one version, the table's. Read apart, they
    may be two: a post can commit between the table's read and the events' (the view then
    said "Undo: <a reveal>" of a state with no reveal, and failed; or, after an undo and a
    new event, told the newer log beside the older board). The table is read again then,
    and so are they."""
    for _ in range(3):
        version: int | None = table.version
        if state is None:
            state, rows, version = derived(table)
        elif rows is None:
            rows, version = versioned_rows(table)
        if (version is None or version == table.version) and len(rows) == state.event_count:
            return state, rows
        db.session.expire(table)             # a newer version: everything of it
        state = rows = None
    state, rows, _version = derived(table)   # (a table changing this fast: its newest)
    return state, rows


def went_on(table: Table) -> str | None:
    """The code of the table another screen went on with this game at, while nothing
    more was entered here (``Table.went_on``)."""
    said = json.loads(table.went_on) if table.went_on else None
    return said["code"] if said and said["version"] == table.version else None


def public_view(table: Table, state: State | None = None,
                rows: list[Row] | None = None) -> dict[str, Any]:
    """Everything any screen may see: no secrets, the same for every viewer. ``state``
    and ``rows`` (the events not undone): given by a change that made them, else kept
    or read."""
    state, rows = _of_one_version(table, state, rows)
    said = _said.recall(table.id)
    if said is None or said.code != table.code:
        said = _Said(table.code, [], [], [], [], {})
    # a reveal is the referee's immutable result: the same object, the same words
    n = len(said.results)
    same = [said.reveals[i] if i < n and said.results[i] is r else None
            for i, r in enumerate(state.reveals)]
    out = replay_output(state, words=True, told=same)
    reveal_text = {r["index"]: r["narration"] for r in out["reveals"]}
    names = {s.id: s.name for s in table.seats}
    log = []
    same_names = names == said.names
    for i, row in enumerate(rows):
        old = said.log[i] if same_names and i < len(said.rows) and said.rows[i] is row else None
        text = reveal_text.get(i)
        if old is not None and (text is None or old["text"] is text):
            log.append(old)          # the same row, the same words, the same names
            continue
        d = json.loads(row.data)
        log.append({"index": i, "type": d["type"], "text": text or event_text(d),
                    "by": names.get(row.seat_id) if row.seat_id else None})
    _said.keep(table.id, _Said(table.code, list(state.reveals), out["reveals"], rows, log,
                               names))
    seen: list[list[int]] = []
    for card in [*out["old_intel"], *([out["intel"]] if out["intel"] else [])]:
        if card not in seen:
            seen.append(card)
    draft = draft_view(table, state)
    if draft and draft["deception"]:
        # a token laid on the card being guessed lies on that card, no longer in its
        # side's hand (R14); the referee spends it when the reveal is recorded (issue 52:
        # "DT 1" stayed under a laid token until then)
        out["dt"] = {**out["dt"], draft["owner"]: out["dt"][draft["owner"]] - 1}
    can = taps(state, out, draft)
    if can["step"] == "intel":          # the box's cards seen before: one tap each
        can["cards"] = known(state.old_intel, table.group_id)
    view = {
        "code": table.code, "version": table.version, "teams": table.teams,
        "first_game": table.first_game, "chances": table.chances,
        "wall_distance": table.wall_distance, "state": out, "draft": draft,
        "seats": [seat_dict(s) for s in table.seats if s.status == "active"],
        "notice": notice_words(table.notice), "log": log, "seen_intel": seen,
        # where the group plays on (issue 14): each seat's new seat, so phones follow
        "rematch": json.loads(table.rematch) if table.rematch else None,
        # where another screen goes on with this game, until anything more is entered here
        "went_on": went_on(table),
        "words": words(out, draft, table.teams, out["end"], out["next"]["text"]),
        "taps": can,
    }
    stored = table.draft_dict() or {}
    # an undo that waits for the other side's phone (or the big screen) to agree
    asked = stored.get("undo") if stored.get("events") == state.event_count else None
    view["undo"] = ({"by": asked["by"], "needs": asked["needs"], "what": undo_question(asked)}
                    if asked else None)
    target = undo_target(table, state, rows)
    # what the undo button would take back now, and who entered it (a completed reveal,
    # or the other side's entry, waits for that side's phone to agree)
    view["undo_next"] = ({"what": Msg("Undo: {what}", what=target[0]), "by": target[1]}
                         if target else None)
    if table.practice:            # the practice round: its cards face up, its next taps
        view["practice"] = practice.view([json.loads(r.data) for r in rows], draft)
    if table.deduction:           # opt-in: a table without the aid gets the view unchanged
        view["deduction"] = deduction_view(state)
    if table.first_game:          # a learning game: the rules first due now (issue 53)
        view.update(teaching(table, state, rows, Draft.from_dict(state, table.draft_dict())))
    return view
