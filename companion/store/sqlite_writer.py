"""SQLite under many threads: one writer at a time, queued here instead of polled.

SQLite lets one connection write at a time. A second writer is refused with
"database is locked" and its busy handler sleeps and retries (1, 2, 5 ... 100 ms
steps), so with dozens of tables posting at once a tap could wait hundreds of
milliseconds for nothing. Here the first INSERT/UPDATE/DELETE of a transaction
takes one lock per process and the commit or rollback gives it back: writers
queue on a lock and start the moment the previous one commits. WAL journaling
(durable with the default ``synchronous=FULL``) lets readers go on while a
writer writes, so a screen loading its view never waits for a post.

Other processes still meet SQLite's own lock and busy timeout; the hosted path
with several processes is PostgreSQL.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

log = logging.getLogger(__name__)
WRITES = ("INSERT", "UPDATE", "DELETE", "REPLAC")
WAIT = 15.0          # as long as SQLite's own busy timeout; then go on without the lock


def install(engine: Engine) -> None:
    """Queue this engine's writers on one lock and switch the file to WAL."""
    lock = threading.Lock()

    @event.listens_for(engine, "connect")
    def _wal(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.close()

    @event.listens_for(engine, "before_cursor_execute")
    def _before(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if "sqlite_writer" in conn.info or statement.lstrip()[:6].upper() not in WRITES:
            return
        if lock.acquire(timeout=WAIT):
            conn.info["sqlite_writer"] = True
        else:        # never deadlock: SQLite's own lock still keeps the data safe
            log.warning("sqlite writer lock not given back within %.0f s; writing anyway", WAIT)
            conn.info["sqlite_writer"] = False

    def _release(info: dict[str, Any]) -> None:
        if info.pop("sqlite_writer", False):
            lock.release()

    @event.listens_for(engine, "commit")
    def _commit(conn: Any) -> None:
        _release(conn.info)

    @event.listens_for(engine, "rollback")
    def _rollback(conn: Any) -> None:
        _release(conn.info)

    @event.listens_for(engine, "reset")
    def _reset(_dbapi_conn: Any, record: Any, _state: Any) -> None:
        _release(record.info)
