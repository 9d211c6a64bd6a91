"""Players a phone remembers, and when a game finished (issue 14): the group's history.

A player is a name and the hash of a key kept on the phone (no account, no password);
a seat may name the player who sat there. ``table.finished`` is when the referee ended
the game (cleared again if the end is undone): the history lists these tables.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""
import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=True),
        sa.Column("last_seen", sa.DateTime(), nullable=True),
    )
    with op.batch_alter_table("seat") as batch:
        batch.add_column(sa.Column("player_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_seat_player", "player", ["player_id"], ["id"],
                                 ondelete="SET NULL")
        batch.create_index("ix_seat_player_id", ["player_id"])
    with op.batch_alter_table("table") as batch:
        batch.add_column(sa.Column("finished", sa.DateTime(), nullable=True))
        batch.create_index("ix_table_finished", ["finished"])


def downgrade() -> None:
    with op.batch_alter_table("table") as batch:
        batch.drop_index("ix_table_finished")
        batch.drop_column("finished")
    with op.batch_alter_table("seat") as batch:
        batch.drop_index("ix_seat_player_id")
        batch.drop_constraint("fk_seat_player", type_="foreignkey")
        batch.drop_column("player_id")
    op.drop_table("player")
