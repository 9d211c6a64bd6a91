"""The group's history (issue 14): finished games, players, statistics, deletions.

A game is listed from the moment the referee ends it (``table.finished``); what it says
is derived from its events like every view. A player is who a phone remembers
(``tables.remember``). Deleting asks who may (issue 20: a key, never an address): the
keeper (:mod:`.keeper`: any game, any player, every imported game at once), the screen
that hosted that game (its host key), or, for a player, that player's own phone (its
player key).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select, update

from ..engine import Msg, replay_output
from ..stats import group_stats, player_stats
from .errors import ApiError
from .models import Event, Player, Receipt, Seat, Table, db, hash_secret
from .states import derive

SHOWN = 200             # the newest games a history page lists


def _sides(table: Table) -> dict[str, list[dict[str, Any]]]:
    """Who played each side at the end (team play: missions 1-2 first)."""
    out: dict[str, list[dict[str, Any]]] = {"red": [], "blue": []}
    for s in sorted(table.seats, key=lambda s: s.part):
        if s.status == "active":
            out[s.side].append({"id": s.player_id, "name": s.name, "part": s.part})
    return out


def game(table: Table) -> dict[str, Any]:
    """One finished game as the history and the statistics read it."""
    out = replay_output(derive(table), words=True)    # the end in each screen's language
    assert table.finished is not None
    return {"code": table.code, "finished": table.finished.isoformat(timespec="minutes"),
            "teams": table.teams, "wall_distance": table.wall_distance,
            "imported": table.imported,
            "sides": _sides(table), "winner": out["winner"], "reason": out["reason"],
            "end": out["end"], "days": out["day"], "ip": out["ip"],
            "out": {k: out[k] for k in ("winner", "reason", "day", "reveals", "stats")}}


def finished_games(limit: int = SHOWN) -> list[dict[str, Any]]:
    """The newest finished games, newest first."""
    rows = db.session.scalars(select(Table).where(Table.finished.is_not(None))
                              .order_by(Table.finished.desc(), Table.id.desc()).limit(limit))
    return [game(t) for t in rows]


def listing(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history without each game's reveals (what the JSON list sends)."""
    return [{k: v for k, v in g.items() if k != "out"} for g in games]


def _names() -> dict[int, str]:
    """Each remembered player's name now (a renamed player is counted under it)."""
    return {i: n for i, n in db.session.execute(select(Player.id, Player.name))}


def group() -> dict[str, Any]:
    """The group's statistics over the finished games, players under their names now."""
    out = group_stats(finished_games())
    names = _names()
    for p in out["players"]:
        p["name"] = names.get(p["id"], p["name"])
    return out


def _player(player_id: int) -> Player:
    """A remembered player by id; 404 for one the server does not know (or an id no
    database row can have)."""
    who = db.session.get(Player, player_id) if 0 < player_id < 2**31 else None
    if who is None:
        raise ApiError(404, Msg("no such player here (forgotten, or never seen)"),
                       code="not_found")
    return who


def player(player_id: int) -> dict[str, Any]:
    """A player's statistics; 404 for a player the server does not know."""
    who = _player(player_id)
    stats = player_stats(finished_games(), player_id)
    stats["name"] = who.name
    stats["id"] = who.id
    names = _names()
    for h in stats["head_to_head"]:
        h["name"] = names.get(h["id"], h["name"])
    return stats


def rename(key: Any, name: str) -> dict[str, Any]:
    """A player renames themself from their own phone (``key``: the player key)."""
    who = _by_key(key)
    who.name = name
    db.session.commit()
    return {"id": who.id, "name": who.name}


def _by_key(key: Any) -> Player:
    if not isinstance(key, str) or not key:
        raise ApiError(400, Msg("the field 'player' must be this phone's player key"),
                       field="player", code="bad_field")
    who = db.session.scalar(select(Player).where(Player.key_hash == hash_secret(key)))
    if who is None:
        raise ApiError(404, Msg("this phone's player is not known here"), code="not_found")
    return who


def _drop(table: Table) -> None:
    """A table and everything of it, in the caller's transaction."""
    for model in (Event, Receipt):
        db.session.execute(delete(model).where(model.table_id == table.id))
    db.session.delete(table)              # its seats go with it


def delete_game(code: str, keeper: bool, host_key: str | None) -> None:
    """Delete a finished game and its events (by the keeper or the screen that hosted it)."""
    table = db.session.scalar(select(Table).where(Table.code == code.upper()))
    if table is None or table.finished is None:
        raise ApiError(404, Msg("no finished game with this code"), code="not_found")
    if not (keeper or (host_key and hash_secret(host_key) == table.host_hash)):
        raise ApiError(403, Msg("a game is deleted from the screen that hosted it or by the "
                                "keeper of the group's games"), code="not_host")
    _drop(table)
    db.session.commit()


def delete_imported(keeper: bool) -> int:
    """Delete every table opened from a saved record (the keeper only, in one action);
    how many went."""
    if not keeper:
        raise ApiError(403, Msg("only the keeper of the group's games can delete every imported "
                                "game"), code="not_keeper")
    found = list(db.session.scalars(select(Table).where(Table.imported.is_(True))))
    for table in found:
        _drop(table)
    db.session.commit()
    return len(found)


def delete_player(player_id: int, keeper: bool, key: str | None) -> None:
    """Forget a player (by the keeper or the player's own phone): their seats in old
    games keep no name and no link to them."""
    who = _player(player_id)
    if not (keeper or (key and hash_secret(key) == who.key_hash)):
        raise ApiError(403, Msg("a player is forgotten from their own phone or by the keeper "
                                "of the group's games"), code="not_host")
    db.session.execute(update(Seat).where(Seat.player_id == who.id)
                       .values(player_id=None, name="(forgotten)"))
    db.session.delete(who)
    db.session.commit()
