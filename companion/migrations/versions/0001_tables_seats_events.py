"""Tables, seats, events and request receipts.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "table",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("code", sa.String(12), nullable=False),
        sa.Column("wall_distance", sa.Integer(), nullable=False),
        sa.Column("teams", sa.Boolean(), nullable=False),
        sa.Column("host_hash", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("draft", sa.Text(), nullable=True),
        sa.Column("notice", sa.Text(), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("updated", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_table_code", "table", ["code"], unique=True)
    op.create_table(
        "seat",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("table.id"), nullable=False),
        sa.Column("side", sa.String(4), nullable=False),
        sa.Column("part", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("secret_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("last_seen", sa.DateTime(), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_seat_table_id", "seat", ["table_id"])
    op.create_table(
        "event",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("table.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("seat_id", sa.Integer(), sa.ForeignKey("seat.id"), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("undone", sa.Boolean(), nullable=False),
        sa.Column("idempotency_key", sa.String(64), nullable=True),
        sa.UniqueConstraint("table_id", "seq", name="uq_event_table_seq"),
        sa.UniqueConstraint("table_id", "idempotency_key", name="uq_event_table_key"),
    )
    op.create_index("ix_event_table_id", "event", ["table_id"])
    op.create_table(
        "receipt",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("table.id"), nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("table_id", "key", name="uq_receipt_table_key"),
    )


def downgrade() -> None:
    op.drop_table("receipt")
    op.drop_index("ix_event_table_id", "event")
    op.drop_table("event")
    op.drop_index("ix_seat_table_id", "seat")
    op.drop_table("seat")
    op.drop_index("ix_table_code", "table")
    op.drop_table("table")
