"""The JSON API's group pages and the keeper: starting a group, the finished games, the
statistics, a player renaming or forgetting themself, and what only the group's keeper
key may do (count or delete games, the screens asking at its tables, take its data,
delete it) or the server's (a backup). Every answer is of the request's group
(:mod:`..group.space`); without one, 404. Bodies: :mod:`.bodies`."""

from __future__ import annotations

import tempfile
from datetime import datetime
from pathlib import Path

from flask import Response, current_app, jsonify, request

from ..edge import limits
from ..edge.address import base_url
from ..edge.errors import ApiError
from ..engine import Msg
from ..group import changes, history, space
from ..group.export import export
from ..play import handover, keeper
from ..store import database
from ..store.models import DEFAULT_GROUP, db
from .base import body, bp, fields, group, group_required, is_keeper, keeper_only, secret
from .bodies import Claim, Count, EnterGroup, Forget, NewGroup, Nothing, Rename
from .declared import check


@bp.post("/groups")
def group_start() -> tuple[Response, int]:
    """Start a group (``name``): its link and its keeper link, each said once (only their
    hashes are kept); this browser is in the group from then on (a cookie)."""
    name = fields(NewGroup)["name"]
    limits.spend("groups", lambda n: Msg("too many groups were started from here lately; "
                                         "wait {n} seconds", n=n))
    made, link, key = space.make(name)
    db.session.commit()
    base = base_url(current_app.config.get("PUBLIC_URL"), request.host_url)
    out = jsonify({"name": made.name, "link": f"{base}/g#group={link}",
                   "keeper": f"{base}/g#group={link}&key={key}"})
    space.set_cookie(out, link, request.is_secure)
    out.headers["Cache-Control"] = "no-store"
    return out, 201


@bp.post("/group/enter")
def group_enter() -> Response:
    """A group's link opened (``link``: the secret in its fragment): this browser is in
    the group from now on (a cookie). A secret of no group: 404, the same for each."""
    link = fields(EnterGroup)["link"]
    found = space.by_link(link)
    if found is None:
        raise ApiError(404, Msg("this group link leads nowhere: the group was deleted, or the "
                                "link is mistyped"), code="not_found")
    out = jsonify({"name": space.name_of(found), "default": found == DEFAULT_GROUP})
    space.set_cookie(out, link, request.is_secure)
    out.headers["Cache-Control"] = "no-store"
    return out


@bp.get("/group")
def group_about() -> Response:
    """The request's group: its name (``""``: the server's default group) and whether it
    is the default group."""
    gid = group_required()
    return jsonify({"name": space.name_of(gid), "default": gid == DEFAULT_GROUP})


@bp.post("/group/export")
def group_export() -> Response:
    """Every game of the group as a record (RECORD.md), with its players: its keeper."""
    fields(Nothing)
    gid = keeper_only()
    out = jsonify(export(gid, space.name_of(gid) or ""))
    day = datetime.now().strftime("%Y-%m-%d")
    out.headers["Content-Disposition"] = f'attachment; filename="spies-lies-group-{day}.json"'
    out.headers["Cache-Control"] = "no-store"
    return out


@bp.post("/group/delete")
def group_delete() -> Response:
    """The group and everything it keeps, gone in one step: its keeper (``gone``; the
    server's default group stays, emptied, and its keeper key with it). This browser
    leaves a group that is gone."""
    fields(Nothing)
    gid = keeper_only()
    out = jsonify({"deleted": changes.delete_group(gid), "gone": gid != DEFAULT_GROUP})
    if gid != DEFAULT_GROUP:
        out.delete_cookie(space.COOKIE, path="/")
    return out


@bp.get("/history")
def history_list() -> Response:
    """A page of the finished games that count, newest first (``page``, ``player``,
    ``month``; ``apart=1``: the games kept apart, imported or entered faster than a table
    plays): players by side, winner, reason, days; the total, the number of pages and
    how many games the other list holds."""
    return jsonify(history.listing(group_required(),
                                   **history.wanted(request.args, request.cookies)))


@bp.get("/stats")
def group_stats() -> Response:
    """The group's statistics over every finished game."""
    return jsonify(history.group(group_required()))


@bp.get("/players/<int:player_id>/stats")
def player_stats(player_id: int) -> Response:
    """One player's statistics: wins by side and reason, guesses, IP, rivals."""
    return jsonify(history.player(player_id, group_required()))


@bp.post("/players/me")
def player_rename() -> Response:
    """A player renames themself from their phone (``player``: the phone's player key)."""
    sent = fields(Rename)
    return jsonify(changes.rename(sent["player"], sent["name"], group_required()))


@bp.post("/keeper")
def keeper_check() -> Response:
    """Whether the bearer is the keeper key (the keeper link's page asks before the
    screen keeps it); 403 when it is not. With it, the screens asking to be a table's
    screen at every table (``screens``, issue 50: the page asks again every 3 s): the
    keeper lets one in (``POST /tables/CODE/host`` with its ``hash``) when that table's
    screen is gone for good."""
    fields(Nothing)
    gid = keeper_only()
    return jsonify({"keeper": True, "backup": database.sqlite_path(db.engine.url) is not None
                    and keeper.is_keeper(secret()),
                    "screens": handover.asks_everywhere(gid)})


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
    """The server's games, every group's, as one SQLite file (``spies-lies restore`` puts
    it back): the server's keeper only. Made through SQLite's online backup, consistent
    while tables play."""
    fields(Nothing)
    if not keeper.is_keeper(secret()):
        raise ApiError(403, Msg("only the keeper of this server takes its backup"),
                       code="not_keeper")
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
    return jsonify({"deleted": changes.delete_imported(is_keeper(), group_required())})


@bp.post("/history/<code>/count")
def history_count(code: str) -> Response:
    """The keeper's word on whether a finished game counts (``count``: true, false, or
    null to let the rule decide): the keeper only."""
    sent = body()
    gid = keeper_only()             # a stranger learns nothing of the fields
    return jsonify(changes.count_game(code, check(Count, sent)["count"], gid))


@bp.post("/history/<code>/delete")
def history_delete(code: str) -> Response:
    """Delete a finished game: from the screen that hosted it (its host key as the
    bearer) or by the keeper (the keeper key as the bearer)."""
    fields(Nothing)
    changes.delete_game(code, is_keeper(), secret(), group())
    return jsonify({"deleted": code.upper()})


@bp.post("/players/<int:player_id>/delete")
def player_delete(player_id: int) -> Response:
    """Forget a player: from their own phone (the player key as the bearer) or by the
    keeper (the keeper key as the bearer); ``games``: true, the keeper also deletes every
    finished game they sat at, in the same step."""
    games: bool = fields(Forget).get("games", False)
    gone = changes.delete_player(player_id, is_keeper(), secret(), group_required(), games)
    return jsonify({"deleted": player_id, "games": gone})
