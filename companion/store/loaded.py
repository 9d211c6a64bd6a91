"""A table and its seats read with one plain statement and made into the ORM's objects.

Every request of a table reads it first, with its seats. Through the ORM that read cost a
post ~1.4 ms of the server's CPU (issue 54: a quarter of a post's work; compiling and
caching the statement, the loading context, a row processor per column), for one row per
seat of 36 plain values. Here the statement is compiled once (:mod:`.prepared`), its rows
are read as tuples, each value goes through its column type's result processing (SQLite
keeps a datetime as text), and the objects are made as a query's loading makes them: the
values set as loaded (no history, nothing to flush), the identity key set, and the objects
added to the session as persistent, the seats as the table's loaded collection. Whatever
the request does next (change a seat, refresh the table, roll back) behaves as with an
object the ORM loaded.

>>> from sqlalchemy.dialects import sqlite
>>> sql = TABLE_WITH_SEATS.compiled(sqlite.dialect()).sql
>>> for line in sql.splitlines()[1:]:
...     print(line.rstrip())
FROM "table" LEFT OUTER JOIN seat ON seat.table_id = "table".id
WHERE "table".code = ? ORDER BY seat.id
>>> sql.count(", ") + 1 == len(_TABLES.keys) + len(_SEATS.keys)
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from sqlalchemy import Table as SATable
from sqlalchemy import bindparam, select
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Mapper, Session, joinedload
from sqlalchemy.orm.attributes import instance_state, set_committed_value

from .models import Seat, Table, db
from .prepared import Prepared

_TABLE = cast(SATable, Table.__table__)
_SEAT = cast(SATable, Seat.__table__)

# the table's columns, then its seats' (none: a table with no seat yet), seats by id as
# the relationship orders them
TABLE_WITH_SEATS = Prepared(lambda: (
    select(*_TABLE.c, *_SEAT.c)
    .select_from(_TABLE.outerjoin(_SEAT, _SEAT.c.table_id == _TABLE.c.id))
    .where(_TABLE.c.code == bindparam("code")).order_by(_SEAT.c.id)))


# the same read through the ORM: for a table the session already holds
_BY_THE_ORM = (select(Table).options(joinedload(Table.seats))
               .where(Table.code == bindparam("code")))


class _Shape:
    """One mapped class's columns in the statement: the attribute each value is, and
    how the database's value becomes the attribute's (per database kind)."""

    def __init__(self, cls: type, table: SATable) -> None:
        self.mapper: Mapper[Any] = cast(Mapper[Any], cls.__mapper__)  # type: ignore[attr-defined]
        self.keys = [self.mapper.get_property_by_column(c).key for c in table.c]
        self.columns = list(table.c)
        self.primary_key = [i for i, c in enumerate(table.c) if c.primary_key]
        self._processors: dict[str, list[Callable[[Any], Any] | None]] = {}

    def processors(self, dialect: Dialect) -> list[Callable[[Any], Any] | None]:
        name = f"{dialect.name}+{dialect.driver}"
        out = self._processors.get(name)
        if out is None:
            out = self._processors[name] = [
                c.type.dialect_impl(dialect).result_processor(dialect, None)
                for c in self.columns]
        return out

    def key(self, values: Sequence[Any]) -> Any:
        """The identity key of the object of these column values."""
        return self.mapper.identity_key_from_primary_key(
            tuple(values[i] for i in self.primary_key))

    def make(self, values: Sequence[Any], processors: list[Callable[[Any], Any] | None],
             session: Session) -> Any:
        """The object of these column values, persistent in ``session``: made as a query's
        loading makes a new object (its values set as loaded, its identity key, into the
        session's identity map), not through ``Session.add``, whose cascade walked every
        relationship of each object (~0.1 ms a post). Nobody listens for its events
        (``load``, ``loaded_as_persistent``): none is sent."""
        obj = self.mapper.class_manager.new_instance()
        state = instance_state(obj)
        state.dict.update(
            (k, v if p is None or v is None else p(v))
            for k, v, p in zip(self.keys, values, processors, strict=True))
        state.key = self.key(values)
        state.identity_token = None
        state.session_id = session.hash_key
        session.identity_map._add_unpresent(state, state.key)
        return obj


_TABLES = _Shape(Table, _TABLE)
_SEATS = _Shape(Seat, _SEAT)


def table_by_code(code: str) -> Table | None:
    """The table of ``code`` with its seats loaded, persistent in this request's session;
    ``None`` when there is none. When the session already holds that table (read earlier
    in this request), or one of its seats, the ORM's query gives it: the objects it holds,
    with what this request changed of them."""
    session = db.session()
    if session.autoflush and (session.new or session.dirty or session.deleted):
        session.flush()          # as a query would first (what it reads may be among them)
    conn = session.connection()
    rows = TABLE_WITH_SEATS.run(conn, code=code).fetchall()
    if not rows:
        return None
    n = len(_TABLES.keys)
    seat_rows = [row[n:] for row in rows if row[n] is not None]
    if _TABLES.key(rows[0]) in session.identity_map or any(
            _SEATS.key(row) in session.identity_map for row in seat_rows):
        return session.scalar(_BY_THE_ORM, {"code": code})
    table = _TABLES.make(rows[0][:n], _TABLES.processors(conn.dialect), session)
    made = _SEATS.processors(conn.dialect)
    seats = [_SEATS.make(row, made, session) for row in seat_rows]
    set_committed_value(table, "seats", seats)
    for seat in seats:
        set_committed_value(seat, "table", table)
    return cast(Table, table)
