"""A table may be marked as a first game (issue 13): the big screen then explains each
ability in one sentence the first time it is activated in that game.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""
import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("table", sa.Column("first_game", sa.Boolean(), nullable=False,
                                     server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("table") as batch:
        batch.drop_column("first_game")
