"""The JSON API's group pages and the keeper: the finished games, the statistics, a
player renaming or forgetting themself, and what only the keeper key may do (count or
delete games, a backup, the screens asking at every table). Bodies: :mod:`.bodies`."""

from __future__ import annotations

import tempfile
from datetime import datetime
from pathlib import Path

from flask import Response, current_app, jsonify, request

from ..edge.errors import ApiError
from ..engine import Msg
from ..group import changes, history
from ..play import handover, keeper
from ..store import database
from ..store.models import db
from .base import body, bp, fields, is_keeper, keeper_only, secret
from .bodies import Claim, Count, Forget, Nothing, Rename
from .declared import check


@bp.get("/history")
def history_list() -> Response:
    """A page of the finished games that count, newest first (``page``, ``player``,
    ``month``; ``apart=1``: the games kept apart, imported or entered faster than a table
    plays): players by side, winner, reason, days; the total, the number of pages and
    how many games the other list holds."""
    return jsonify(history.listing(**history.wanted(request.args, request.cookies)))


@bp.get("/stats")
def group_stats() -> Response:
    """The group's statistics over every finished game."""
    return jsonify(history.group())


@bp.get("/players/<int:player_id>/stats")
def player_stats(player_id: int) -> Response:
    """One player's statistics: wins by side and reason, guesses, IP, rivals."""
    return jsonify(history.player(player_id))


@bp.post("/players/me")
def player_rename() -> Response:
    """A player renames themself from their phone (``player``: the phone's player key)."""
    sent = fields(Rename)
    return jsonify(changes.rename(sent["player"], sent["name"]))


@bp.post("/keeper")
def keeper_check() -> Response:
    """Whether the bearer is the keeper key (the keeper link's page asks before the
    screen keeps it); 403 when it is not. With it, the screens asking to be a table's
    screen at every table (``screens``, issue 50: the page asks again every 3 s): the
    keeper lets one in (``POST /tables/CODE/host`` with its ``hash``) when that table's
    screen is gone for good."""
    fields(Nothing)
    keeper_only()
    return jsonify({"keeper": True, "backup": database.sqlite_path(db.engine.url) is not None,
                    "screens": handover.asks_everywhere()})


@bp.post("/keeper/claim")
def keeper_claim() -> Response:
    """A keeper link opened (``once``: its one-time secret): the keeper key, once; the
    same link again, or one never printed here, is refused."""
    once = fields(Claim)["once"]
    if not keeper.claim(Path(current_app.instance_path), once):
        raise ApiError(403, Msg("this keeper link was opened before, or was never printed "
                                "here: a keeper link works once; spies-lies keeper prints a "
                                "new one"), code="not_keeper")
    return jsonify({"key": keeper.key_for(current_app)})


@bp.post("/keeper/backup")
def keeper_backup() -> Response:
    """The group's games as one SQLite file (``spies-lies restore`` puts it back): the
    keeper only. Made through SQLite's online backup, consistent while tables play."""
    fields(Nothing)
    keeper_only()
    source = database.sqlite_path(db.engine.url)
    if source is None:
        raise ApiError(409, Msg("this server keeps the games in PostgreSQL: back them up with "
                                "pg_dump"), code="not_sqlite")
    with tempfile.TemporaryDirectory(dir=current_app.instance_path) as folder:
        target = Path(folder) / "games.sqlite"
        database.copy(source, target)    # a full disk: 507, as for any request
        data = target.read_bytes()
    day = datetime.now().strftime("%Y-%m-%d")
    return Response(data, mimetype="application/vnd.sqlite3", headers={
        "Content-Disposition": f'attachment; filename="spies-lies-games-{day}.sqlite"',
        "Cache-Control": "no-store"})


@bp.post("/history/imported/delete")
def history_delete_imported() -> Response:
    """Delete every game opened from a saved record, in one action: the keeper only."""
    fields(Nothing)
    return jsonify({"deleted": changes.delete_imported(is_keeper())})


@bp.post("/history/<code>/count")
def history_count(code: str) -> Response:
    """The keeper's word on whether a finished game counts (``count``: true, false, or
    null to let the rule decide): the keeper only."""
    sent = body()
    keeper_only()                   # a stranger learns nothing of the fields
    return jsonify(changes.count_game(code, check(Count, sent)["count"]))


@bp.post("/history/<code>/delete")
def history_delete(code: str) -> Response:
    """Delete a finished game: from the screen that hosted it (its host key as the
    bearer) or by the keeper (the keeper key as the bearer)."""
    fields(Nothing)
    changes.delete_game(code, is_keeper(), secret())
    return jsonify({"deleted": code.upper()})


@bp.post("/players/<int:player_id>/delete")
def player_delete(player_id: int) -> Response:
    """Forget a player: from their own phone (the player key as the bearer) or by the
    keeper (the keeper key as the bearer); ``games``: true, the keeper also deletes every
    finished game they sat at, in the same step."""
    games: bool = fields(Forget).get("games", False)
    gone = changes.delete_player(player_id, is_keeper(), secret(), games)
    return jsonify({"deleted": player_id, "games": gone})
