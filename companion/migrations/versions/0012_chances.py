"""The chance to win (issue 25): ``chances``, a table that opted in to the live bar;
``chance_series``, a finished game's chance after every event (JSON), worked out once
in the background for its story and the history's decisive moment.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24
"""
import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("table", sa.Column("chances", sa.Boolean(), nullable=False,
                                     server_default=sa.false()))
    op.add_column("table", sa.Column("chance_series", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("table") as batch:
        batch.drop_column("chance_series")
        batch.drop_column("chances")
