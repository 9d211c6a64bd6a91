"""A side may sit on the big screen (issue 23): a seat the host screen holds, entered
from the shared screen instead of a phone. ``screen`` marks it; it has no phone key.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24
"""
import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("seat", sa.Column("screen", sa.Boolean(), nullable=False,
                                    server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("seat") as batch:
        batch.drop_column("screen")
