"""What people change in the group's memory: a player renames or forgets themself, a game
or every imported one deleted, the keeper's word on whether a game counts, the whole
group deleted.

Deleting asks who may (issue 20: a key, never an address): the group's keeper
(:mod:`companion.play.keeper`: any of its games, any of its players, every imported game
at once, the group), the screen that hosted that game (its host key), or, for a player,
that player's own phone (its player key). A player is who a phone remembers in a group
(``seats.remember``). Whatever a group cannot see is answered as not there (issue 54).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, exists, select, update

from ..edge.errors import ApiError
from ..engine import Msg
from ..store.models import (
    DEFAULT_GROUP,
    Event,
    Game,
    GameSide,
    Group,
    IntelCard,
    Memory,
    Player,
    Receipt,
    Seat,
    Table,
    db,
    hash_secret,
)
from .games import GAME, SEAT, changed, counts, rebuild_ratings
from .history import find_player
from .space import player_hash

# --- a player renames or forgets themself; deleting games ----------------------------------

def rename(key: str, name: str, group_id: int) -> dict[str, Any]:
    """A player renames themself from their own phone (``key``: the player key)."""
    who = _by_key(key, group_id)
    who.name = name
    changed(group_id)
    db.session.commit()
    return {"id": who.id, "name": who.name}


def _by_key(key: str, group_id: int) -> Player:
    who = db.session.scalar(select(Player).where(Player.key_hash == player_hash(key, group_id),
                                                 Player.group_id == group_id))
    if who is None:
        raise ApiError(404, Msg("this phone's player is not known here"), code="not_found")
    return who


def drop_table(table: Table) -> None:
    """A table and everything of it, in the caller's transaction (ratings not remade)."""
    for model in (Event, Receipt, Game, GameSide):
        db.session.execute(delete(model).where(model.table_id == table.id))
    db.session.delete(table)              # its seats go with it


def delete_game(code: str, keeper: bool, host_key: str | None, group_id: int | None) -> None:
    """Delete a finished game and its events (by the group's keeper — ``keeper``, a game
    of ``group_id`` — or the screen that hosted it, whatever its group)."""
    table = db.session.scalar(select(Table).where(Table.code == code.upper()))
    host = bool(host_key) and table is not None and hash_secret(host_key or "") == table.host_hash
    if table is None or table.finished is None or not (host or table.group_id == group_id):
        raise ApiError(404, Msg("no finished game with this code"), code="not_found")
    if not (keeper or host):
        raise ApiError(403, Msg("a game is deleted from the screen that hosted it or by the "
                                "keeper of the group's games"), code="not_host")
    drop_table(table)
    db.session.flush()
    if table.group_id is not None:
        rebuild_ratings(table.group_id)
    db.session.commit()


def delete_imported(keeper: bool, group_id: int) -> int:
    """Delete every table opened from a saved record (the keeper only, in one action);
    how many went."""
    if not keeper:
        raise ApiError(403, Msg("only the keeper of the group's games can delete every imported "
                                "game"), code="not_keeper")
    found = list(db.session.scalars(select(Table).where(Table.group_id == group_id,
                                                        Table.imported.is_(True))))
    for table in found:
        drop_table(table)
    db.session.flush()
    rebuild_ratings(group_id)
    db.session.commit()
    return len(found)


def delete_player(player_id: int, keeper: bool, key: str | None, group_id: int,
                  games: bool = False) -> int:
    """Forget a player (by the keeper or the player's own phone): their seats in old
    games keep no name and no link to them. ``games``: the keeper also deletes every
    finished game they sat at (a stranger's made-up games gone in one step, issue 50);
    how many went."""
    who = find_player(player_id, group_id)
    if games and not keeper:
        raise ApiError(403, Msg("only the keeper of the group's games can delete a player's "
                                "games"), code="not_keeper")
    if not (keeper or (key and player_hash(key, group_id) == who.key_hash)):
        raise ApiError(403, Msg("a player is forgotten from their own phone or by the keeper "
                                "of the group's games"), code="not_host")
    found = list(db.session.scalars(select(Table).where(
        Table.group_id == group_id, Table.finished.is_not(None), exists().where(
            SEAT.c.table_id == Table.id, SEAT.c.player_id == who.id,
            SEAT.c.status == "active")))) if games else []
    for table in found:
        drop_table(table)
    db.session.execute(update(Seat).where(Seat.player_id == who.id)
                       .values(player_id=None, name="(forgotten)"))
    db.session.delete(who)
    db.session.flush()
    rebuild_ratings(group_id)
    db.session.commit()
    return len(found)


def count_game(code: str, count: bool | None, group_id: int) -> dict[str, Any]:
    """The keeper's word on a finished game (``count``: true counts it, false sets it
    aside, ``None`` lets the rule decide, :func:`counts`): its summary says so and the
    ratings are made again. The caller checked the keeper key."""
    table = db.session.scalar(select(Table).where(Table.code == str(code).upper(),
                                                  Table.group_id == group_id))
    if table is None or table.finished is None:
        raise ApiError(404, Msg("no finished game with this code"), code="not_found")
    table.accepted = count
    db.session.flush()
    counted, began = counts(table)
    db.session.execute(update(GAME).where(GAME.c.table_id == table.id)
                       .values(counted=counted, began=began))
    rebuild_ratings(group_id)
    db.session.commit()
    return {"code": table.code, "counted": counted, "accepted": count}


def delete_group(group_id: int) -> dict[str, int]:
    """Everything the group keeps, deleted in one transaction (its keeper's word, checked
    by the caller): its tables with their seats, events and summaries, its players and
    intel cards, and the group itself — but the default group, which stays, empty. How
    many tables and players went."""
    tables = list(db.session.scalars(select(Table).where(Table.group_id == group_id)))
    for table in tables:
        drop_table(table)
    db.session.flush()
    players = select(Player.id).where(Player.group_id == group_id)
    db.session.execute(update(Seat).where(Seat.player_id.in_(players))
                       .values(player_id=None, name="(forgotten)"))
    gone = db.session.execute(delete(Player).where(Player.group_id == group_id))
    db.session.execute(delete(IntelCard).where(IntelCard.group_id == group_id))
    if group_id == DEFAULT_GROUP:
        changed(group_id)
    else:
        db.session.execute(delete(Memory).where(Memory.id == group_id))
        db.session.execute(delete(Group).where(Group.id == group_id))
    db.session.commit()
    return {"tables": len(tables), "players": gone.rowcount}  # type: ignore[attr-defined]
