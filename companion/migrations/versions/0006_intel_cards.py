"""The intel cards this server has seen (issue 11): the box holds six, and they come
back every game, so a card seen in a finished round is offered as one tap.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "intel_card",
        sa.Column("ranks", sa.String(32), primary_key=True),
        sa.Column("seen", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("last", sa.DateTime(), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("intel_card")
