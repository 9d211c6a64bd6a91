"""Alembic environment: the companion's own database, one transaction per migration.

Each migration, with its version stamp, is one transaction: a process killed halfway
through an upgrade leaves the database at the last migration that finished, never
between a migration's change and its stamp (issue 50: "duplicate column name" at the
next start). PostgreSQL keeps DDL in a transaction by itself. SQLite can too, but
Python's sqlite3 driver commits before each CREATE, ALTER and DROP on its own; so on an
SQLite file the migrations get an engine of their own whose connections leave the
transactions to SQLAlchemy (``isolation_level = None``) and that says ``BEGIN
IMMEDIATE`` itself when one starts (SQLAlchemy's documented recipe for pysqlite). The
server's engine, with its queued writer (``companion/store/sqlite_writer.py``), is not
touched. The "move and copy" migrations (``batch_alter_table``: a new table, the rows
copied, the old one dropped, the new one renamed) are inside that transaction too.

The connection comes from the Flask app (``flask db``, ``create_app``), or from
``config.attributes["connection"]`` (an Engine or a Connection) when a caller passes
one: pytest-alembic does (``tests/web/test_upgrades.py``).

Unlike Flask-Migrate's template this does not reconfigure logging, so running
the upgrade at start leaves the server's logs alone.
"""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import NullPool

from companion.store.database import sqlite_path
from companion.store.models import db

target_metadata = db.metadata


def migration_engine(engine: Engine) -> Engine:
    """The engine the migrations run on: ``engine`` itself, but for an SQLite file one
    of its own whose transactions hold DDL (a database in memory exists only in its
    engine's one connection: that engine, as before)."""
    if sqlite_path(engine.url) is None:
        return engine
    own = create_engine(engine.url, poolclass=NullPool, connect_args={"timeout": 15})

    @event.listens_for(own, "connect")
    def _driver_leaves_transactions(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None      # no implicit COMMIT before DDL

    @event.listens_for(own, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")    # the write lock now, not halfway

    return own


def run_migrations_offline() -> None:
    context.configure(url=str(db.engine.url), target_metadata=target_metadata,
                      literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def _run(connection: Connection, transactional_ddl: bool | None = None) -> None:
    """The migrations still to run, each in a transaction of its own with its stamp."""
    options: dict[str, Any] = ({} if transactional_ddl is None
                              else {"transactional_ddl": transactional_ddl})
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=True, compare_type=True,
                      transaction_per_migration=True, **options)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    given = context.config.attributes.get("connection")
    if isinstance(given, Connection):       # the caller's own: as it is
        _run(given)
        return
    if given is None:
        from flask import current_app
        given = current_app.extensions["migrate"].db.engine
    engine = migration_engine(given)
    try:
        with engine.connect() as connection:
            _run(connection, True if engine is not given else None)
    finally:
        if engine is not given:
            engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
