"""A group's data to take away (issue 54): every game of the group as a record of
RECORD.md (``spies-and-lies-record/1``: its options with when it was played and who sat,
RULINGS.md D4, and its events), and its players, in one JSON document. Each record opens
again anywhere with "Open a saved game" (``POST /api/tables/import``)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import exists, select

from ..engine import Options
from ..store.models import Event, Player, Table, db, now
from ..table.states import active_events
from .games import record_options

FORMAT = "spies-and-lies-group/1"


def export(group_id: int, name: str) -> dict[str, Any]:
    """Every game of the group with at least one step, oldest first (``finished``: its
    end, ``None`` while in play), and its remembered players with their ratings."""
    tables = db.session.scalars(select(Table).where(
        Table.group_id == group_id, Table.practice.is_(False),
        exists().where(Event.table_id == Table.id)).order_by(Table.created, Table.id))
    games = [{"code": t.code,
              "finished": t.finished.isoformat(timespec="seconds") + "+00:00"
              if t.finished else None,
              "imported": t.imported,
              "record": {"format": "spies-and-lies-record/1",
                         "options": {**Options(t.wall_distance, t.teams).to_dict(),
                                     **record_options(t)},
                         "events": [json.loads(r.data) for r in active_events(t)]}}
             for t in tables]
    players = [{"id": p.id, "name": p.name, "games_rated": p.rated,
                "mu": p.mu, "sigma": p.sigma}
               for p in db.session.scalars(select(Player).where(Player.group_id == group_id)
                                           .order_by(Player.id))]
    return {"format": FORMAT, "group": name,
            "exported": now().isoformat(timespec="seconds") + "+00:00",
            "players": players, "games": games}
