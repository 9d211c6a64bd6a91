"""Many groups on one server (issue 54): a private space per group.

``play_group``: a group — its name, the SHA-256 of its link's secret (``NULL``: the
default group, whose link is the server's plain address on a LAN) and of its keeper key
(``NULL``: the server's own keeper key, ``instance/keeper_key``). Every row there was
before belongs to the default group (id 1): an upgrade keeps a LAN install as it was.

``table.group_id``: the group a table was opened from (``NULL``: none — it counts
nowhere); ``game.group_id``, the same, kept with the finished game's summary so a
group's pages read only their own rows (an index by group, counted and played);
``player.group_id``: the group that remembers the player (a phone's key is hashed with
its group's id outside the default group, :func:`companion.group.space.player_hash`, so
one phone is a different player in each group); ``memory``: one row per group, its id
the group's. ``intel_card``'s key becomes (group, ranks): each group learns its own
cards (a new table in its place, the rows copied).

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-29
"""
import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

DEFAULT = 1


def upgrade() -> None:
    group = op.create_table(
        "play_group",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("link_hash", sa.String(64), nullable=True, unique=True),
        sa.Column("keeper_hash", sa.String(64), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=True),
    )
    op.bulk_insert(group, [{"id": DEFAULT, "name": ""}])
    if op.get_bind().dialect.name == "postgresql":    # the next group's id comes after it
        op.execute(sa.text("SELECT setval(pg_get_serial_sequence('play_group', 'id'), "
                           f"{DEFAULT})"))
    for name in ("table", "player", "game"):
        with op.batch_alter_table(name) as batch:
            batch.add_column(sa.Column("group_id", sa.Integer(), nullable=True))
            batch.create_foreign_key(f"fk_{name}_group", "play_group", ["group_id"], ["id"])
        rows = sa.table(name, sa.column("group_id", sa.Integer()))
        op.execute(rows.update().values(group_id=DEFAULT))
    op.create_index("ix_table_group_id", "table", ["group_id"])
    op.create_index("ix_player_group_id", "player", ["group_id"])
    op.drop_index("ix_game_counted_played", table_name="game")
    op.create_index("ix_game_group_counted_played", "game", ["group_id", "counted", "played"])
    # the intel cards by group: a table with the key (group, ranks), the rows copied, in
    # the old one's place (its name kept)
    op.create_table(
        "intel_card_new",
        sa.Column("group_id", sa.Integer(), sa.ForeignKey("play_group.id",
                                                          name="fk_intel_card_group"),
                  nullable=False),
        sa.Column("ranks", sa.String(32), nullable=False),
        sa.Column("seen", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("last", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("group_id", "ranks", name="pk_intel_card"),
    )
    op.execute(sa.text("INSERT INTO intel_card_new (group_id, ranks, seen, last) "
                       f"SELECT {DEFAULT}, ranks, seen, last FROM intel_card"))
    op.drop_table("intel_card")
    op.rename_table("intel_card_new", "intel_card")


def downgrade() -> None:
    op.create_table(
        "intel_card_old",
        sa.Column("ranks", sa.String(32), nullable=False),
        sa.Column("seen", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("last", sa.DateTime(), nullable=True),
        # (the name PostgreSQL gave the key of the table 0006 made)
        sa.PrimaryKeyConstraint("ranks", name="intel_card_pkey"),
    )
    op.execute(sa.text("INSERT INTO intel_card_old (ranks, seen, last) SELECT ranks, seen, "
                       f"last FROM intel_card WHERE group_id = {DEFAULT}"))
    op.drop_table("intel_card")
    op.rename_table("intel_card_old", "intel_card")
    op.drop_index("ix_game_group_counted_played", table_name="game")
    op.create_index("ix_game_counted_played", "game", ["counted", "played"])
    op.drop_index("ix_player_group_id", table_name="player")
    op.drop_index("ix_table_group_id", table_name="table")
    for name in ("game", "player", "table"):
        with op.batch_alter_table(name) as batch:
            batch.drop_constraint(f"fk_{name}_group", type_="foreignkey")
            batch.drop_column("group_id")
    # a database with more than one group goes back to the default group's rows only
    # in the cards; its other groups' tables and players stay, as the default group's
    memory = sa.table("memory", sa.column("id", sa.Integer()))
    op.execute(memory.delete().where(memory.c.id != DEFAULT))
    op.drop_table("play_group")
