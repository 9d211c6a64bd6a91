"""A statement sent to PostgreSQL now, its answer read later (issue 54).

A tap's change is one statement that is its own transaction (:mod:`..play.written`,
:func:`.prepared.alone`): PostgreSQL parses nothing (it is prepared), writes it, and
waits for its log to reach the disk (``fsync``) before it answers, ~1-2 ms in which the
request's thread only waited. With the driver's cursor, sending and reading the answer
are one call. Here the statement is sent through psycopg's own connection (the libpq
calls psycopg makes: the values dumped by its adapters, the statement prepared once per
connection, sent, flushed) and its answer is read when :meth:`Pending.result` is asked:
in between, the thread makes the change's view and the message its screens will be
sent, which the post then no longer waits for.

Nothing else may use the connection while its statement is out: the connection's lock
is held until the answer is read, and any statement the thread runs meanwhile first
reads it (:func:`install`: a view that reads the group's intel cards). Its answer is
what :meth:`.Prepared.run` gives (the rows, as psycopg loads them; the count), its
failure SQLAlchemy's exception (an ``IntegrityError`` for a key written twice; a lost
connection invalidated), and the SQLAlchemy events around a statement (a test's count,
a fault injected) are sent as for any statement.

psycopg deallocates every prepared statement of a connection when it rolls back a
transaction, ours too: a statement whose prepared name is gone is prepared again under
a new name and sent again (it did nothing: the database refused it before running it).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

_PREPARED = "spies_lies_prepared"   # in a connection's info: (SQL, types) -> name
_PENDING = "spies_lies_pending"     # ... and its statement still out
_NAMES = itertools.count()          # never one name twice: a name may outlive our notes
_GONE = b"26000"                    # invalid_sql_statement_name


class Ran:
    """What a statement gave back: its rows (none but for a query), and how many rows it
    changed (the driver's ``rowcount``)."""

    __slots__ = ("rowcount", "rows")

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self.rows, self.rowcount = rows, rowcount

    def fetchone(self) -> Any:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[Any]:
        return self.rows


class Pending:
    """A statement sent: :meth:`result` reads its answer (once; asked again, the same
    answer or the same failure)."""

    def __init__(self, read: Callable[[], Ran] | None = None) -> None:
        self._read = read
        self._ran: Ran | None = None
        self._error: BaseException | None = None

    @classmethod
    def done(cls, outcome: Ran | BaseException) -> Pending:
        """A statement already run: its answer, or its failure."""
        pending = cls()
        if isinstance(outcome, Ran):
            pending._ran = outcome
        else:
            pending._error = outcome
        return pending

    def result(self) -> Ran:
        if self._read is not None:
            read, self._read = self._read, None
            try:
                self._ran = read()
            except BaseException as err:
                self._error = err
        if self._error is not None:
            raise self._error
        assert self._ran is not None
        return self._ran


def install(engine: Engine) -> None:
    """Any statement on a connection whose sent statement is still out first reads that
    one's answer: one statement at a time on a connection."""
    from sqlalchemy import event

    @event.listens_for(engine, "before_cursor_execute")
    def _read_first(conn: Connection, *_: Any) -> None:
        pending = conn.connection.info.get(_PENDING)
        if pending is not None:
            pending.result()


def send_alone(conn: Connection, raw: Any, sql: str, numbered: bytes, names: Sequence[str],
               params: Any) -> Pending:
    """Send the statement ``sql`` (``numbered``: written with ``$1``... for ``names``)
    with ``params`` by name on ``conn`` (``raw``: its psycopg connection, in autocommit:
    the statement is its own transaction) and return at once."""
    from psycopg import errors, generators, pq
    from psycopg.adapt import PyFormat, Transformer

    for before in conn.dispatch.before_cursor_execute:
        sql, params = before(conn, None, sql, params, None, False)
    tx = Transformer(raw)
    dumped = tx.dump_sequence([params[n] for n in names], [PyFormat.AUTO] * len(names))
    key = (numbered, tuple(tx.types or ()))
    prepared: dict[tuple[bytes, tuple[int, ...]], bytes] = \
        conn.connection.info.setdefault(_PREPARED, {})
    pg = raw.pgconn

    def failure(err: Exception) -> Exception:
        # as SQLAlchemy's own execution: its exception, and a connection the database
        # dropped is never used again
        lost = conn.dialect.is_disconnect(err, raw, None)  # type: ignore[arg-type]
        if lost:
            conn.invalidate(err)
        return DBAPIError.instance(sql, params, err, conn.dialect.loaded_dbapi.Error,
                                   connection_invalidated=lost, dialect=conn.dialect)

    def refused(res: Any) -> Exception:
        return errors.error_from_result(res, encoding=raw.info.encoding)

    def send() -> None:
        name = prepared.get(key)
        if name is None:
            name = f"spies_lies_{next(_NAMES)}".encode()
            res = pg.prepare(name, numbered, key[1])
            if res.status != pq.ExecStatus.COMMAND_OK:
                raise refused(res)
            prepared[key] = name
        pg.send_query_prepared(name, dumped, list(tx.formats or ()))
        raw.wait(generators.send(pg))

    raw.lock.acquire()
    try:
        send()
    except BaseException as err:
        raw.lock.release()
        if isinstance(err, conn.dialect.loaded_dbapi.Error):
            raise failure(err) from err
        raise

    def read() -> Ran:
        try:
            results = raw.wait(generators.fetch_many(pg))
            if any(r.error_field(pq.DiagnosticField.SQLSTATE) == _GONE for r in results):
                prepared.clear()        # psycopg deallocated them all: prepare again
                send()
                results = raw.wait(generators.fetch_many(pg))
            if not results or pg.status == pq.ConnStatus.BAD:
                raise errors.OperationalError("the connection is lost: " + pg.get_error_message())
        except conn.dialect.loaded_dbapi.Error as err:
            error: Exception | None = err
        else:
            error = None
        finally:
            conn.connection.info.pop(_PENDING, None)
            raw.lock.release()          # (before a lost connection is closed)
        if error is not None:
            raise failure(error) from error
        rows: list[Any] = []
        count = -1
        for res in results:
            if res.status == pq.ExecStatus.FATAL_ERROR:
                raise failure(refused(res))
            if res.status == pq.ExecStatus.TUPLES_OK and res.ntuples:
                tx.set_pgresult(res)
                rows = list(tx.load_rows(0, res.ntuples, tuple))
            if res.command_tuples is not None:
                count = res.command_tuples
        conn.dispatch.after_cursor_execute(conn, None, sql, params, None, False)
        return Ran(rows, count)

    pending = conn.connection.info[_PENDING] = Pending(read)
    return pending
