"""A game that another screen went on with (issue 23's "go on here"): ``went_on``, the
new table's code and the version this table was at, so that this table's screens and
phones are told where the game goes on.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27
"""
import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("table", sa.Column("went_on", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("table") as batch:
        batch.drop_column("went_on")
