"""A finished game may go on at a rematch table (issue 14): the old table keeps where
(the new code, swapped colours or not, each old seat's new seat), so a phone that was
away finds its seat when it comes back.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""
import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("table", sa.Column("rematch", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("table") as batch:
        batch.drop_column("rematch")
