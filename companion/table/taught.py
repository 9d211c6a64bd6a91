"""What a learning table teaches now, and to whom (issue 53): the rules first due at this
step (:mod:`.lessons`) less those every seated player was taught at another table.

A remembered player (a phone that keeps a player key) who has seen a lesson is not shown
it again: ``player.taught`` keeps each lesson's key with the id of the table that taught
it, written by ``companion.play.teaching`` as the game goes. A seat with no remembered
player has seen nothing (the big screen's own sides, a phone that keeps no key). Within
one game a lesson is given once, at its first moment from ``table.lessons_from`` on
("Teach again" counts them anew from its step, and empties the players' lists).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from ..engine import Draft, State, event_from_dict
from ..store.models import Player, Seat, Table, db
from . import lessons
from .states import Recent, Row

#: the set-up's walk-through (``templates/setup_walk.html``), kept with the lessons: shown
#: before day 1 of a learning game, so taught there once its first step is entered
SETUP = "setup"


def taught_of(player: Player | None) -> dict[str, int]:
    """A player's lessons seen: each key with the id of the table that taught it."""
    if player is None or not player.taught:
        return {}
    got = json.loads(player.taught)
    return got if isinstance(got, dict) else {}


def seated(table: Table) -> list[Seat]:
    return [s for s in table.seats if s.status == "active"]


def players_of(table: Table) -> dict[int, Player]:
    """The remembered players of the table's active seats, by seat id."""
    seats = {s.player_id: s.id for s in seated(table) if s.player_id is not None}
    if not seats:
        return {}
    rows = db.session.scalars(select(Player).where(Player.id.in_(seats))).all()
    return {seats[p.id]: p for p in rows}


# table id -> (its code, where its lessons count from, the rows its lessons' moments were
# taken over, those moments): a newer version takes its new events only (as
# states.derived does for the state)
_moments: Recent[tuple[str, int, list[Row], lessons.Moments]] = Recent(1024)


def moments(table: Table, state: State, rows: list[Row]) -> lessons.Moments:
    """The lessons' moments over ``rows``, the events of ``state``, from the table's
    ``lessons_from`` on."""
    start = table.lessons_from or 0
    kept = _moments.recall(table.id)
    if kept is not None and kept[:2] == (table.code, start) and len(kept[2]) <= len(rows) \
            and rows[:len(kept[2])] == kept[2]:
        done, before = len(kept[2]), kept[3]
    else:
        done, before = 0, lessons.Moments(state.options, start=start)
    got = before.extended(event_from_dict(json.loads(r.data)) for r in rows[done:])
    _moments.keep(table.id, (table.code, start, list(rows), got))
    return got


def teaching(table: Table, state: State, rows: list[Row],
             draft: Draft | None) -> dict[str, Any]:
    """A learning table's view fields: ``lessons``, the lessons first due now that some
    seated player still needs (all of them while no one is seated); ``lessons_seen``,
    by seat id, those of them that seat's player saw at another table (its phone skips
    them); ``lessons_known``, how many lessons every seated player saw elsewhere (the big
    screen offers "Teach again" then); ``lessons_from``, where they count from; ``walk``,
    whether the big screen walks them through the set-up before day 1 (not when every
    seated player was walked through it at another table: ``SETUP``)."""
    due = lessons.now(state, moments(table, state, rows).first, draft)
    seats = seated(table)
    players = players_of(table)
    elsewhere = {s.id: {k for k, t in taught_of(players.get(s.id)).items() if t != table.id}
                 for s in seats}
    everyone = set.intersection(*elsewhere.values()) if elsewhere else set()
    return {"lessons": [k for k in due if k not in everyone],
            "lessons_seen": {str(s): [k for k in due if k in known]
                             for s, known in elsewhere.items() if known & set(due)},
            "lessons_known": len(everyone), "lessons_from": table.lessons_from or 0,
            "walk": SETUP not in everyone}
