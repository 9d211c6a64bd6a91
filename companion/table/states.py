"""A table's game state, derived from its events (never stored as separate truth).

The state is a replay of the events that are not undone, kept in memory per table
and version so that a post need not replay the game an earlier post already built,
with the event rows it was derived from (issue 15: a post's view reads no event it
did not add).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Generic, NamedTuple, TypeVar

from sqlalchemy import bindparam, select

from ..engine import Options, State, apply, event_from_dict, replay
from ..store.models import Event, Table, db


class Row(NamedTuple):
    """One event not undone, as the views read it."""

    data: str            # its RECORD.md dict as JSON
    seat_id: int | None  # who entered it (None: the host screen, or the rules)


V = TypeVar("V")


class Recent(OrderedDict[Hashable, V], Generic[V]):
    """What this process keeps per key (a table id; a page's arguments) for at most
    ``size`` keys, the least recently used dropped first (read and written from any
    thread)."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size
        self.lock = threading.Lock()
        self.lock_pages = threading.RLock()    # for a caller that makes one entry at a time

    def recall(self, key: Hashable) -> V | None:
        with self.lock:
            value = self.get(key)
            if value is not None:
                self.move_to_end(key)
            return value

    def keep(self, key: Hashable, value: V) -> None:
        with self.lock:
            self[key] = value
            self.move_to_end(key)
            while len(self) > self.size:
                self.popitem(last=False)


CACHE_TABLES = 1024         # states kept in memory (a café: 400 tables); older ones are replayed
# table id -> [code, version, state, rows or None]; the code is checked too, as a
# rolled-back insert or a fresh database hands the same id to another table
_cache: Recent[list[Any]] = Recent(CACHE_TABLES)


def active_events(table: Table) -> list[Event]:
    """The table's events that are not undone, in order (ORM rows, for undo)."""
    return list(db.session.scalars(select(Event).where(Event.table_id == table.id,
                                                       Event.undone.is_(False))
                                   .order_by(Event.seq)))


def _hit(table: Table, version: int | None = None) -> list[Any] | None:
    """The cache entry of ``table`` at ``version`` (default: the version it has now)."""
    hit = _cache.recall(table.id)
    want = table.version if version is None else version
    if hit is not None and hit[0] == table.code and hit[1] == want:
        return hit
    return None


def event_rows(table: Table) -> list[Row]:
    """(data, seat_id) of the events not undone, in order: kept with the state of this
    version when a post built it, else read (plain rows, no ORM objects to build)."""
    return versioned_rows(table)[0]


def versioned_rows(table: Table) -> tuple[list[Row], int | None]:
    """:func:`event_rows` and the version they are the events of: ``table.version``'s
    when kept, else the version read with them (a newer one if a post committed since
    the table was read)."""
    hit = _hit(table)
    if hit is not None and hit[3] is not None:
        rows: list[Row] = hit[3]
        return rows, table.version
    version, rows = _read(table)
    if hit is not None and version == hit[1]:
        hit[3] = rows
    return rows, version


def _read(table: Table) -> tuple[int | None, list[Row]]:
    """The table's events not undone and the version they are the events of, read in one
    statement. The table's row, read earlier, may be a version behind them: each statement
    sees what is committed when it runs, and a post may commit in between. Kept as that
    older version's rows, a newer event was then added a second time by the post that made
    it (its rows: the kept ones and its own), and the story of the game could not be told
    (a CI run: "event 41: it is blue's turn")."""
    got = db.session.execute(_ROWS, {"id": table.id}).all()
    return (got[0][0] if got else None), [Row(d, s) for _v, d, s in got if d is not None]


_ROWS = (select(Table.version, Event.data, Event.seat_id).select_from(Table)
         .outerjoin(Event, (Event.table_id == Table.id) & Event.undone.is_(False))
         .where(Table.id == bindparam("id")).order_by(Event.seq))


def kept_rows(table: Table, version: int) -> list[Row] | None:
    """The rows kept with the state of ``version``, if any (never read from the database)."""
    hit = _hit(table, version)
    return None if hit is None else hit[3]


def derive(table: Table) -> State:
    """The state of the game: a replay of the events not undone (cached per version).

    A table another process changed (``serve --workers``: its NOTIFY reached this one)
    is one or a few versions past the state kept here: when the events read now begin
    with the rows that state was made of, only the new ones are applied to it
    (issue 24); an undo, or nothing kept, replays the game."""
    hit = _hit(table)
    if hit is not None:
        state: State = hit[2]
        return state
    return derived(table)[0]


def derived(table: Table) -> tuple[State, list[Row], int | None]:
    """The state of the game, the events it is the state of, and the version they are of:
    ``table.version``'s, unless a post committed since the table was read (then a newer
    version's, not kept as this one's: see :func:`_read`)."""
    hit = _hit(table)
    if hit is not None and hit[3] is not None:
        return hit[2], hit[3], table.version
    before = hit or _cache.recall(table.id)
    version, rows = _read(table)
    old = before[3] if before is not None and before[0] == table.code else None
    state: State
    if hit is not None and version == table.version:
        state = hit[2]                       # the state kept, now with its rows
    elif old is not None and len(old) <= len(rows) and rows[:len(old)] == old:
        state = before[2]                                     # type: ignore[index]
        for e in rows[len(old):]:
            state = apply(state, event_from_dict(json.loads(e.data)))
    else:
        state = replay(Options(table.wall_distance), [event_from_dict(json.loads(e.data))
                                                      for e in rows])
    if version == table.version:     # else the state of a newer version: not kept as this one
        keep(table, state, rows)
    return state, rows, version


def keep(table: Table, state: State, rows: list[Row] | None = None) -> None:
    """Cache a table's state (and the rows it was derived from, when known); beyond
    ``CACHE_TABLES`` tables the least recent is dropped."""
    _cache.keep(table.id, [table.code, table.version, state, rows])
