"""The chance to win at the table (issue 25), worked out off the request path.

- **Live** (a table that opted in): the chance as the game stands, :data:`LIVE_PLAYOUTS`
  playouts seeded from the public state (the same public state, the same figure: a step
  that changes no public fact, or an undo back to a state seen before, shows the figure
  it showed; issue 52), asked for by one background thread per process, kept in memory
  by public state and per table; the big screen and the watchers ask
  ``GET /api/tables/CODE/chances`` while the figure they show is of another state
  (``state``: :func:`state_key`). A post never waits for it.
- **The story** (every finished game): the chance after every event, 200 playouts
  each, worked out once in the background and kept with the table
  (``chance_series``); the story draws it and names its three biggest swings among
  the reveals (the history names the story's decisive reveal, not a swing: issue 52).

The numbers come from :mod:`companion.engine.chances` (docs/CHANCES.md), worked out in
a helper process (:mod:`companion.group.offload`): seconds of Python that would otherwise hold
this process's GIL while every table's posts wait for it (issue 24).
"""

from __future__ import annotations

import itertools
import json
import queue
import threading
from typing import Any, cast

from flask import Flask, current_app
from sqlalchemy import Table as SATable
from sqlalchemy import select, update

from ..engine import Msg, Options, event_from_dict, new_game, reveal_words
from ..engine.chances import public_key, rounded, split, standard_error
from ..engine.referee import advance
from ..store.models import CLOSED, Table, db, in_background
from ..table.states import Recent, derive, event_rows
from ..table.words import event_text, stored_words
from .offload import helper

LIVE_PLAYOUTS = 800         # a live figure (standard error 1.8 points; ~0.25 s of a quiet core)
SERIES_PLAYOUTS = 200       # per step of a finished game's story (standard error 3.5 points)
# a kept series of another form is worked out again: 2, turning points among reveals only
# and a series seeded by the public state (issue 52)
SERIES_FORM = 2
TABLE = cast(SATable, Table.__table__)

_live: Recent[dict[str, Any]] = Recent(1024)     # (app, table id) -> its latest live figure
# (app, public state) -> its figure: any table at that state shows it at once
_figures: Recent[dict[str, Any]] = Recent(4096)
_asked: set[tuple[int, str, int, int | str]] = set()   # jobs waiting or running (by app)
# (app, table id) -> the public state of the newest live figure asked for: an older one
# still waiting is of a game the table has left, and never worked out
_newest: dict[tuple[int, int], int | str] = {}
# live figures first: a story's series (seconds of work) never holds up the table's bar
_jobs: queue.PriorityQueue[tuple[int, int, Flask, str, int, int | str, Any]] = \
    queue.PriorityQueue()
_order = itertools.count()
_lock = threading.Lock()
_worker: threading.Thread | None = None


def _start() -> None:
    global _worker
    with _lock:
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_work, name="chances", daemon=True)
            _worker.start()


def state_key(state: Any) -> str:
    """The public state a figure is of (its ``state``): two states alike in every public
    fact share it, and their figure."""
    return public_key(state)[:16]


def basis(state: Any) -> str:
    """What a figure rests on, as its line on the screens says (issue 52): ``nothing``
    (no event yet: even), ``exhausted`` (no reveal yet: the soldiers exhausted, and who
    starts), ``seen`` (what the table has seen)."""
    return "nothing" if not state.event_count else "exhausted" if not state.reveals else "seen"


def _ask(kind: str, table_id: int, events: int | str, payload: Any) -> None:
    app = current_app._get_current_object()    # type: ignore[attr-defined]
    key = (id(app), kind, table_id, events)
    with _lock:
        if kind == "live":
            _newest[(id(app), table_id)] = events
        if key in _asked:
            return
        _asked.add(key)
    _start()
    _jobs.put((0 if kind == "live" else 1, next(_order), app, kind, table_id, events, payload))


def _work() -> None:
    while True:
        _first, _n, app, kind, table_id, events, payload = _jobs.get()
        try:
            if app.extensions.get(CLOSED):
                continue        # the app was dropped (a test's): no seconds of work for it
            if kind == "live":
                if _newest.get((id(app), table_id)) != events:
                    continue    # the game moved on (a busy server): its newest state next
                p = helper.call("estimate", payload, LIVE_PLAYOUTS)
                figure = {"state": events, "basis": basis(payload), "playouts": LIVE_PLAYOUTS,
                          "standard_error": round(standard_error(LIVE_PLAYOUTS), 4),
                          **rounded(p), "percent": split(p, 100)}
                _figures.keep((id(app), events), figure)
                _live.keep((id(app), table_id), {**figure, "events": payload.event_count})
            else:
                _store_series(app, table_id, int(events), payload)
        except Exception:           # a figure is never worth a dead worker
            if not helper.ending:   # (a server stopping mid-job: nothing went wrong)
                app.logger.exception("chances: %s for table %s failed", kind, table_id)
        finally:
            with _lock:
                _asked.discard((id(app), kind, table_id, events))
                if kind == "live" and _newest.get((id(app), table_id)) == events:
                    del _newest[(id(app), table_id)]


def live(table: Table) -> dict[str, Any] | None:
    """The latest live figure of a table that opted in (``state``: the public state it
    is of, :func:`state_key`; ``events``: how many events the game had then; shares to
    four places and whole percents, each summing to exactly 1 and 100): the figure of
    the game as it stands (``version``: the table's now) when that public state was
    seen before, else the table's last one (``version`` null) while a figure of the game
    as it stands is asked for. ``None`` before any."""
    if not table.chances:
        return None
    state = derive(table)
    app = id(current_app._get_current_object())   # type: ignore[attr-defined]
    key = state_key(state)
    known = _figures.recall((app, key))
    if known is not None:       # ``version``: the table's, whose state it is the figure of
        return {**known, "events": state.event_count, "version": table.version}
    _ask("live", table.id, key, state.copy())
    last = _live.recall((app, table.id))
    return None if last is None else {**last, "version": None}


def series_of(options: Options, events: list[dict[str, Any]], seed: int
              ) -> tuple[list[list[float]], list[Msg | str]]:
    """Red's, blue's and the draw's chance at every step of a game (step 0: before any
    event), :data:`SERIES_PLAYOUTS` playouts each (the same seed, the same numbers), and
    each step's words (a reveal's narration, another event's entry). The numbers are
    worked out in the helper process; the words here (a replay: well under a millisecond)."""
    out = helper.call("step_chances", options, events, seed, SERIES_PLAYOUTS)
    s = new_game(options)
    said: list[Msg | str] = [""]
    for d in events:
        e = event_from_dict(d)
        advance(s, e)
        said.append(reveal_words(s.reveals[-1]) if e.type == "reveal" else event_text(d))
    return out, said


def _store_series(app: Flask, table_id: int, events: int, payload: Any) -> None:
    options, rows = payload
    if _stored(app, table_id, events):
        return              # asked again by a page that read the table just before it was
    steps, said = series_of(options, rows, 0)       # the same game: the same series
    plays = {i + 1 for i, d in enumerate(rows) if d["type"] == "reveal"}
    turning = [{**t, "text": _kept(said[t["step"]])} for t in turning_points(steps, 3, plays)]
    with in_background(app) as open_, app.app_context():
        if not open_:
            return          # dropped meanwhile: its database with it
        try:
            db.session.execute(update(TABLE).where(TABLE.c.id == table_id,
                                                   TABLE.c.finished.is_not(None))
                               .values(chance_series=json.dumps(
                                   {"events": events, "playouts": SERIES_PLAYOUTS,
                                    "steps": steps, "turning": turning, "v": SERIES_FORM})))
            db.session.commit()
        finally:
            db.session.remove()


def _stored(app: Flask, table_id: int, events: int) -> bool:
    """Whether the table already keeps its series of ``events`` events (or the app was
    dropped): the worker forgets a job once it is stored, and a page that read the table
    a moment before asks again."""
    with in_background(app) as open_, app.app_context():
        if not open_:
            return True
        try:
            kept = db.session.scalar(select(TABLE.c.chance_series)
                                     .where(TABLE.c.id == table_id))
        finally:
            db.session.remove()
    if not kept:
        return False
    got = json.loads(kept)
    return bool(got.get("events") == events and got.get("v") == SERIES_FORM)


def _kept(words: Msg | str) -> Any:
    """Words as kept in the database: a message's dict, read in each page's language."""
    return words.to_dict() if isinstance(words, Msg) else words


def turning_words(kept: dict[str, Any]) -> list[dict[str, Any]]:
    """A kept game's turning points with their words to render."""
    return [{**t, "text": stored_words(t["text"])} for t in kept.get("turning", [])]


def series(table: Table) -> dict[str, Any] | None:
    """A finished game's chances by step, or ``None`` while they are being worked out
    (asked for here, once). A game that goes on has none."""
    if table.finished is None:
        return None
    rows = [json.loads(r.data) for r in event_rows(table)]
    if table.chance_series:
        kept = json.loads(table.chance_series)
        if kept.get("events") == len(rows) and kept.get("v") == SERIES_FORM:
            return cast(dict[str, Any], kept)
    _ask("series", table.id, len(rows), (Options(table.wall_distance, table.teams), rows))
    return None


def turning_points(steps: list[list[float]], n: int = 3,
                   plays: set[int] | None = None) -> list[dict[str, Any]]:
    """The ``n`` steps where red's chance moved the most (earliest first among equals),
    in the order of the game: ``{"step", "swing", "toward"}``; ``plays``: the steps that
    may be one (the reveals: a random draw, as the opening's exhausted soldiers, is
    nobody's play and never a turning point, issue 52).

    >>> turning_points([[.5, .5, 0], [.6, .4, 0], [.2, .8, 0], [.25, .75, 0]], 2)
    [{'step': 1, 'swing': 0.1, 'toward': 'red'}, {'step': 2, 'swing': 0.4, 'toward': 'blue'}]
    >>> turning_points([[.5, .5, 0], [.6, .4, 0], [.2, .8, 0], [.25, .75, 0]], 2, {1, 3})
    [{'step': 1, 'swing': 0.1, 'toward': 'red'}, {'step': 3, 'swing': 0.05, 'toward': 'red'}]
    """
    swings = [(abs(steps[i][0] - steps[i - 1][0]), i) for i in range(1, len(steps))
              if plays is None or i in plays]
    top = sorted(swings, key=lambda x: (-x[0], x[1]))[:n]
    return [{"step": i, "swing": round(abs(steps[i][0] - steps[i - 1][0]), 3),
             "toward": "red" if steps[i][0] > steps[i - 1][0] else "blue"}
            for _s, i in sorted(top, key=lambda x: x[1]) if _s > 0]

