"""Remember the idempotency key that opened a table, so a retried create or import
finds the same table instead of opening a second one.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("table", sa.Column("create_key", sa.String(64), nullable=True))
    op.create_index("ix_table_create_key", "table", ["create_key"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_table_create_key", "table")
    with op.batch_alter_table("table") as batch:
        batch.drop_column("create_key")
