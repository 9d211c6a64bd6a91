"""Remember what kind of request, by whom, each receipt answers, so an idempotency key
reused for another kind of request or by another screen is refused instead of being
answered with a stranger's stored answer.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("receipt", sa.Column("kind", sa.String(16), nullable=True))
    op.add_column("receipt", sa.Column("actor", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("receipt") as batch:
        batch.drop_column("actor")
        batch.drop_column("kind")
