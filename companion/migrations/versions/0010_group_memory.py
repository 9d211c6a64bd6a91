"""The group's memory at scale (issue 21): each finished game's summary (``game``) and
its sides' figures (``game_side``), kept beside its events as a cache, and each player's
rating; ``memory``: one row whose version grows with every change of the group's memory
(the pages answered from it are cached per version). The summaries of games finished
before are made at the app's start (``companion/group/games.py``: ``backfill``); the
ratings with them.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-23
"""
import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("table.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("finished", sa.DateTime(), nullable=False),
        sa.Column("played", sa.DateTime(), nullable=False),
        sa.Column("winner", sa.String(5), nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("days", sa.Integer(), nullable=False),
        sa.Column("ending", sa.Text(), nullable=False),
        sa.Column("names", sa.Text(), nullable=True),
    )
    op.create_index("ix_game_played", "game", ["played"])
    op.create_table(
        "game_side",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("table.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("side", sa.String(4), primary_key=True),
        sa.Column("result", sa.String(4), nullable=False),
        *[sa.Column(c, sa.Integer(), nullable=False) for c in (
            "ip", "guesses", "correct", "ip_identified", "ip_abilities", "ip_deception",
            "infiltrations")],
        *[sa.Column(f"s{r}", sa.Integer(), nullable=False, server_default="0")
          for r in range(1, 11)],
    )
    memory = op.create_table("memory", sa.Column("id", sa.Integer(), primary_key=True),
                             sa.Column("version", sa.Integer(), nullable=False))
    op.bulk_insert(memory, [{"id": 1, "version": 0}])
    op.add_column("player", sa.Column("mu", sa.Float(), nullable=True))
    op.add_column("player", sa.Column("sigma", sa.Float(), nullable=True))
    op.add_column("player", sa.Column("rated", sa.Integer(), nullable=False,
                                      server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.drop_column("rated")
        batch.drop_column("sigma")
        batch.drop_column("mu")
    op.drop_table("memory")
    op.drop_table("game_side")
    op.drop_index("ix_game_played", table_name="game")
    op.drop_table("game")
