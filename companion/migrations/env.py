"""Alembic environment: the companion's own database, from the Flask app's engine, or
from ``config.attributes["connection"]`` (an Engine or a Connection) when a caller passes
one: pytest-alembic does (``tests/web/test_upgrades.py``).

Unlike Flask-Migrate's template this does not reconfigure logging, so running
the upgrade at start leaves the server's logs alone.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from companion.web.models import db

target_metadata = db.metadata


def run_migrations_offline() -> None:
    context.configure(url=str(db.engine.url), target_metadata=target_metadata,
                      literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=True, compare_type=True)
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
    with given.connect() as connection:
        _run(connection)


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
