"""Statements of the post path compiled once per database, run as the driver's own SQL.

Building a SQLAlchemy statement and its cache key costs ~60 us a statement, and a
post ran several (issue 24): here each is written once as a SQLAlchemy expression
with named parameters, compiled once for the database in use, and then handed to
the driver's cursor on the request's connection, in its transaction: the same SQL the
ORM would send, the same connection events around it (the SQLite writer's lock, a
test's count), the same exceptions (``sqlalchemy.exc.IntegrityError``; a lost
connection invalidated). Parameters go through their column type's bind processing (a
datetime becomes SQLite's text), so the rows are the ones SQLAlchemy would have
written. Its rows come back as the driver's tuples: ``Connection.exec_driver_sql``
made a result object with its column descriptions for each statement, which cost a
post ~0.2 ms a statement (issue 54).

>>> from sqlalchemy import bindparam, select
>>> from sqlalchemy.dialects import postgresql, sqlite
>>> from .models import Table
>>> count = Prepared(lambda: select(Table.id).where(Table.code == bindparam("code")))
>>> count.compiled(sqlite.dialect()).sql
'SELECT "table".id \\nFROM "table" \\nWHERE "table".code = ?'
>>> count.compiled(sqlite.dialect()).params({"code": "ABCDE"})
('ABCDE',)
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

from .sent import Pending, Ran, send_alone


class Compiled:
    """One statement's SQL for one database, and how to turn named values into the
    driver's parameters (a tuple in the order of the placeholders, or a dict)."""

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        c = statement.compile(dialect=dialect)
        assert isinstance(c, SQLCompiler)
        self.sql: str = c.string
        # every parameter is one the statement names (literals are written as SQL:
        # ``literal_column("0")``, ``false()``), so each value comes from the caller
        self.names: list[str] = (list(c.positiontup or []) if c.positional
                                 else list(dict.fromkeys(c.bind_names.values())))
        self.positional = bool(c.positional)
        # whether it gives rows back (a query, or a statement made of one)
        self.rows = bool(getattr(statement, "is_select", False))
        self.process: dict[str, Callable[[Any], Any]] = {}
        # PostgreSQL's own placeholders ($1, $2, ... in the order of ``names``): the SQL a
        # statement sent without the driver's cursor is prepared with (:mod:`.sent`)
        self.numbered = None if self.positional else _numbered(self.sql, self.names)
        for name in self.names:
            proc = c.binds[name].type.dialect_impl(dialect).bind_processor(dialect)
            if proc is not None:
                self.process[name] = proc

    def params(self, values: Mapping[str, Any]) -> tuple[Any, ...] | dict[str, Any]:
        """``values`` by name as the driver takes them, each processed for its column."""
        process = self.process
        out = [values[n] if n not in process or values[n] is None else process[n](values[n])
               for n in self.names]
        return tuple(out) if self.positional else dict(zip(self.names, out, strict=True))


_PLACEHOLDER = re.compile(r"%\((\w+)\)s|%%")


def _numbered(sql: str, names: list[str]) -> bytes | None:
    """``sql`` with each ``%(name)s`` written ``$n`` (the name's place in ``names``), and
    ``%%`` as ``%``; ``None`` if it names a parameter not in ``names`` (it is then only
    run through the driver's cursor).

    >>> _numbered("SELECT %(a)s, %(b)s, %(a)s, 5 %% 2", ["a", "b"])
    b'SELECT $1, $2, $1, 5 % 2'
    >>> _numbered("SELECT %(c)s", ["a"]) is None
    True
    """
    place = {n: i + 1 for i, n in enumerate(names)}
    if any(m[1] and m[1] not in place for m in _PLACEHOLDER.finditer(sql)):
        return None
    return _PLACEHOLDER.sub(lambda m: f"${place[m[1]]}" if m[1] else "%", sql).encode()


class Prepared:
    """A statement built by ``build`` (with ``bindparam`` names), compiled on first use
    for each database, then run with named values."""

    def __init__(self, build: Callable[[], ClauseElement]) -> None:
        self.build = build
        self._by_dialect: dict[str, Compiled] = {}
        self._lock = threading.Lock()

    def compiled(self, dialect: Dialect) -> Compiled:
        """The statement for ``dialect`` (made once per process and database kind)."""
        key = f"{dialect.name}+{dialect.driver}"
        c = self._by_dialect.get(key)
        if c is None:
            with self._lock:
                c = self._by_dialect.get(key)
                if c is None:
                    c = self._by_dialect[key] = Compiled(self.build(), dialect)
        return c

    def run(self, conn: Connection, **values: Any) -> Ran:
        """Execute on ``conn`` (inside its transaction) with ``values`` by name."""
        c = self.compiled(conn.dialect)
        sql, params = c.sql, c.params(values)
        cursor = conn.connection.cursor()
        try:
            for before in conn.dispatch.before_cursor_execute:
                sql, params = before(conn, cursor, sql, params, None, False)
            cursor.execute(sql, params)
            conn.dispatch.after_cursor_execute(conn, cursor, sql, params, None, False)
            return Ran(list(cursor.fetchall()) if c.rows else [], cursor.rowcount)
        except conn.dialect.loaded_dbapi.Error as err:
            # as SQLAlchemy's own execution: its exception, and a connection the database
            # dropped is never used again
            lost = conn.dialect.is_disconnect(err, conn.connection.dbapi_connection, cursor)
            if lost:
                conn.invalidate(err)
            raise DBAPIError.instance(sql, params, err, conn.dialect.loaded_dbapi.Error,
                                      connection_invalidated=lost,
                                      dialect=conn.dialect) from err
        finally:
            cursor.close()

    def send(self, conn: Connection, **values: Any) -> Pending:
        """As :meth:`run`, but on PostgreSQL with no transaction open (:func:`alone`) the
        statement is only sent: its answer is read by :meth:`Pending.result`, and what
        the caller does meanwhile takes none of the statement's time (:mod:`.sent`).
        Elsewhere it runs now, and its answer (or its failure) waits in the same way."""
        c = self.compiled(conn.dialect)
        raw = conn.connection.driver_connection if conn.dialect.name == "postgresql" else None
        if raw is not None and raw.autocommit and c.numbered is not None:
            return send_alone(conn, raw, c.sql, c.numbered, c.names, c.params(values))
        try:
            return Pending.done(self.run(conn, **values))
        except Exception as err:
            return Pending.done(err)


def on_its_own(conn: Connection) -> bool:
    """Whether a statement run on ``conn`` now is its own transaction, committed when it
    returns (inside :func:`alone`, with no transaction open before)."""
    raw = conn.connection.driver_connection if conn.dialect.name == "postgresql" else None
    return bool(raw is not None and raw.autocommit)


@contextmanager
def alone(conn: Connection) -> Iterator[None]:
    """PostgreSQL, while no transaction is open on ``conn``: each statement in it runs as
    its own transaction (psycopg's autocommit), so none costs a ``BEGIN`` first, and a
    statement that writes is committed (durably) when it returns, without a ``COMMIT``:
    one round trip instead of three (issue 54). For a read before a change's transaction
    (a read alone sees what a read that opened a transaction would: each statement reads
    its own snapshot at PostgreSQL's READ COMMITTED), and for a change written in one
    statement that is all its transaction would write. With a transaction already open
    (something was read or written before) or on SQLite, statements run in the
    transaction as ever, and the caller's commit commits them."""
    raw = conn.connection.driver_connection if conn.dialect.name == "postgresql" else None
    if raw is None or raw.autocommit or raw.info.transaction_status != 0:   # 0: IDLE
        yield
        return
    raw.autocommit = True
    try:
        yield
    finally:
        try:
            raw.autocommit = False
        except Exception:            # the connection is broken: never back in the pool
            conn.invalidate()
