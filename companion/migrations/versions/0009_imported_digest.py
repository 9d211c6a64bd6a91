"""Imported games say so, and a game is known by its content (issue 20): ``imported``
marks a table opened from a saved record; ``digest`` is the SHA-256 of a finished game's
record (options and events), so the same record imported again is the same game.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23
"""
import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("table", sa.Column("imported", sa.Boolean(), nullable=False,
                                     server_default=sa.false()))
    op.add_column("table", sa.Column("digest", sa.String(64), nullable=True))
    op.create_index("ix_table_digest", "table", ["digest"])


def downgrade() -> None:
    op.drop_index("ix_table_digest", table_name="table")
    with op.batch_alter_table("table") as batch:
        batch.drop_column("digest")
        batch.drop_column("imported")
