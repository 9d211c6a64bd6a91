"""Alembic environment: the companion's own database, from the Flask app's engine.

Unlike Flask-Migrate's template this does not reconfigure logging, so running
the upgrade at start leaves the server's logs alone.
"""

from alembic import context
from flask import current_app

db = current_app.extensions["migrate"].db
target_metadata = db.metadata


def run_migrations_offline() -> None:
    context.configure(url=str(db.engine.url), target_metadata=target_metadata,
                      literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    with db.engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata,
                          render_as_batch=True, compare_type=True)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
