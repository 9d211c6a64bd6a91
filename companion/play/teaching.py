"""What the players at a learning table have been taught (issue 53), written as the game
goes: each event recorded there marks, for every seated remembered player, the lessons
the game has given up to it (``companion/table/taught.py`` reads them back: a lesson
every seated player was taught at another table is skipped).
"""

from __future__ import annotations

import json

from ..engine import State
from ..store.models import Table
from ..table.states import Row
from ..table.taught import SETUP, moments, players_of, taught_of


def mark(table: Table, state: State, rows: list[Row]) -> None:
    """The lessons given at ``table`` over ``rows`` (the events of ``state``, from its
    ``lessons_from`` on) taught to its seated remembered players, each with this table's
    id (a lesson a player saw before keeps the table that taught it first); the set-up's
    walk-through too once day 1 began (it is shown before)."""
    given = set(moments(table, state, rows).first)
    if not table.lessons_from and rows:     # the set-up, walked through before day 1
        given.add(SETUP)
    if not given:
        return
    for player in players_of(table).values():
        known = taught_of(player)
        new = {k: table.id for k in given if k not in known}
        if new:
            player.taught = json.dumps({**known, **new}, sort_keys=True)
