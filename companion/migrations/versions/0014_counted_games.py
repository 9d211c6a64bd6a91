"""Which finished games count (issue 50): only real play moves the group's ratings,
statistics and history's first page.

``table.accepted``: the keeper's word on a game (``NULL``: the rule decides — a game
played live here at a table's pace counts, an imported one does not; true: counted;
false: set aside). Every game finished before this migration is marked counted: an
upgrade keeps every game as it counted before. ``game.counted`` and ``game.began`` are
the summary's cache of that decision (:func:`companion.web.history.remember_game`):
whether the game counts, and when it began here (a seat that sat later is not rated;
``NULL``: every seat counts, as for a game the keeper counted). A team game's digest is
made again from the options it has (one imported with ``teams`` from a record without
team play kept the record's, and the same game could be opened twice).

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28
"""
import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("table", sa.Column("accepted", sa.Boolean(), nullable=True))
    table = sa.table("table", sa.column("accepted", sa.Boolean()),
                     sa.column("finished", sa.DateTime()), sa.column("teams", sa.Boolean()),
                     sa.column("digest", sa.String(64)))
    op.execute(table.update().where(table.c.finished.is_not(None)).values(accepted=True))
    # a team table imported from a record without team play kept that record's digest:
    # each game is known again by the options it has (made anew when an import asks)
    op.execute(table.update().where(table.c.teams.is_(True)).values(digest=None))
    op.add_column("game", sa.Column("counted", sa.Boolean(), nullable=False,
                                    server_default=sa.true()))
    op.add_column("game", sa.Column("began", sa.DateTime(), nullable=True))
    op.create_index("ix_game_counted_played", "game", ["counted", "played"])


def downgrade() -> None:
    op.drop_index("ix_game_counted_played", table_name="game")
    with op.batch_alter_table("game") as batch:
        batch.drop_column("began")
        batch.drop_column("counted")
    with op.batch_alter_table("table") as batch:
        batch.drop_column("accepted")
