"""A table may opt in to the deduction aid (issue 13): the guess step on the phones then
shows which ranks the public information still allows on the mission being guessed.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29
"""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("table", sa.Column("deduction", sa.Boolean(), nullable=False,
                                     server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("table") as batch:
        batch.drop_column("deduction")
