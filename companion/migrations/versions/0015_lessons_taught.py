"""What each player has been taught, and the practice round (issue 53).

``player.taught``: the lessons of a learning game (``companion/table/lessons.py``) this
player has seen, a JSON object of their keys, each with the id of the table that taught
it (``NULL``: none yet); a learning table skips a lesson every seated player was taught
at another table. "Teach again" empties the objects of the players at a table and
counts the table's lessons anew from its step then (``table.lessons_from``, an event
count). ``table.practice``: the table plays the practice round's script (a
short round with the cards face up, never counted in the group's memory).

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-29
"""
import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("player", sa.Column("taught", sa.Text(), nullable=True))
    op.add_column("table", sa.Column("practice", sa.Boolean(), nullable=False,
                                     server_default=sa.false()))
    op.add_column("table", sa.Column("lessons_from", sa.Integer(), nullable=False,
                                     server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("table") as batch:
        batch.drop_column("lessons_from")
        batch.drop_column("practice")
    with op.batch_alter_table("player") as batch:
        batch.drop_column("taught")
