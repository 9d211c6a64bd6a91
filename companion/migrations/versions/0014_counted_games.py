"""Which finished games count (issue 50): only real play moves the group's ratings,
statistics and history's first page.

``table.accepted``: the keeper's word on a game (``NULL``: the rule decides — a game
played live here at a table's pace counts, an imported one does not; true: counted;
false: set aside). Every game finished before this migration is marked counted: an
upgrade keeps every game as it counted before. ``game.counted`` and ``game.began`` are
the summary's cache of that decision (:func:`companion.group.games.remember_game`):
whether the game counts, and when it began here (a seat that sat later is not rated;
``NULL``: every seat counts, as for a game the keeper counted). A team game's digest is
made again from the options it has (one imported with ``teams`` from a record without
team play kept the record's, and the same game could be opened twice).

A game played to its end by a release before migration 0007 was never marked finished:
it is now, so the history lists it (:func:`_finish_games_over_before_0007`).

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28
"""
import json

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def _finish_games_over_before_0007(bind: sa.engine.Connection) -> None:
    """Releases before migration 0007 kept no ``finished``: a game they played to its
    end was left unmarked, and never listed in the history once one came. Each table
    not marked finished whose steps the referee replays to the end is marked so now, at
    its last step (its summary and the ratings are made at the start, by the history's
    backfill), and counted below, as every game finished before this migration."""
    from companion.engine import Options, Phase, event_from_dict, replay
    table = sa.table("table", sa.column("id", sa.Integer()), sa.column("finished", sa.DateTime()),
                     sa.column("wall_distance", sa.Integer()), sa.column("teams", sa.Boolean()))
    event = sa.table("event", sa.column("table_id", sa.Integer()), sa.column("seq", sa.Integer()),
                     sa.column("data", sa.Text()), sa.column("created", sa.DateTime()),
                     sa.column("undone", sa.Boolean()))
    for tid, wall, teams in bind.execute(sa.select(table.c.id, table.c.wall_distance,
                                                   table.c.teams)
                                         .where(table.c.finished.is_(None))).all():
        steps = bind.execute(sa.select(event.c.data, event.c.created)
                             .where(event.c.table_id == tid, event.c.undone.is_(False))
                             .order_by(event.c.seq)).all()
        if not steps:
            continue
        try:
            end = replay(Options(wall, bool(teams)),
                         [event_from_dict(json.loads(d)) for d, _ in steps])
        except Exception:          # (a table the referee cannot replay: left as it was)
            continue
        if end.phase == Phase.OVER:
            bind.execute(table.update().where(table.c.id == tid)
                         .values(finished=steps[-1][1]))


def upgrade() -> None:
    _finish_games_over_before_0007(op.get_bind())
    op.add_column("table", sa.Column("accepted", sa.Boolean(), nullable=True))
    table = sa.table("table", sa.column("accepted", sa.Boolean()),
                     sa.column("finished", sa.DateTime()), sa.column("teams", sa.Boolean()),
                     sa.column("digest", sa.String(64)))
    op.execute(table.update().where(table.c.finished.is_not(None)).values(accepted=True))
    # a team table imported from a record without team play kept that record's digest:
    # each game is known again by the options it has (made anew when an import asks)
    op.execute(table.update().where(table.c.teams.is_(True)).values(digest=None))
    op.add_column("game", sa.Column("counted", sa.Boolean(), nullable=False,
                                    server_default=sa.true()))
    op.add_column("game", sa.Column("began", sa.DateTime(), nullable=True))
    op.create_index("ix_game_counted_played", "game", ["counted", "played"])


def downgrade() -> None:
    op.drop_index("ix_game_counted_played", table_name="game")
    with op.batch_alter_table("game") as batch:
        batch.drop_column("began")
        batch.drop_column("counted")
    with op.batch_alter_table("table") as batch:
        batch.drop_column("accepted")
