"""A table's game state, derived from its events (never stored as separate truth).

The state is a replay of the events that are not undone, kept in memory per table
and version so that a post need not replay the game an earlier post already built.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from sqlalchemy import select

from ..engine import Options, State, event_from_dict, replay
from .models import Event, Table, db

# table id -> (code, version, state), least recently used first; the code is checked too,
# as a rolled-back insert or a fresh database hands the same id to another table
_cache: OrderedDict[int, tuple[str, int, State]] = OrderedDict()
_cache_lock = threading.Lock()
CACHE_TABLES = 256          # states kept in memory; an older table is replayed when it acts


def active_events(table: Table) -> list[Event]:
    """The table's events that are not undone, in order (ORM rows, for undo)."""
    return list(db.session.scalars(select(Event).where(Event.table_id == table.id,
                                                       Event.undone.is_(False))
                                   .order_by(Event.seq)))


def event_rows(table: Table) -> list[Any]:
    """(data, seat_id) of the events not undone: plain rows, no ORM objects to build."""
    return list(db.session.execute(select(Event.data, Event.seat_id)
                                   .where(Event.table_id == table.id, Event.undone.is_(False))
                                   .order_by(Event.seq)))


def derive(table: Table) -> State:
    """The state of the game: a replay of the events not undone (cached per version)."""
    with _cache_lock:
        hit = _cache.get(table.id)
        if hit is not None:
            _cache.move_to_end(table.id)
    if hit and hit[0] == table.code and hit[1] == table.version:
        return hit[2]
    events = [event_from_dict(json.loads(e.data)) for e in event_rows(table)]
    state = replay(Options(table.wall_distance), events)
    keep(table, state)
    return state


def keep(table: Table, state: State) -> None:
    """Cache a table's state; beyond ``CACHE_TABLES`` tables the least recent is dropped."""
    with _cache_lock:
        _cache[table.id] = (table.code, table.version, state)
        _cache.move_to_end(table.id)
        while len(_cache) > CACHE_TABLES:
            _cache.popitem(last=False)
