"""The JSON API under ``/api``: create a table, join, record, undo, read, preview.

Every state-changing POST carries a JSON body with ``version`` (the table version
the screen last saw: an older one gets 409 and the fresh view) and an
``idempotency_key`` (a retry gets the first answer, never a second effect), must
come from this site (Origin or Referer), and is refused with a message that
names the field when it is malformed. A seat or the host screen proves itself
with ``Authorization: Bearer <secret>``.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from .. import live
from ..edge import assets
from ..edge.errors import ApiError, disk_full
from ..edge.fields import clean_text, flag, name_field
from ..edge.hosts import check_origin, client
from ..edge.lang import current, say, sentence
from ..engine import SIDES, Msg, Options, Side, ability_preview
from ..engine import rank as rank_word
from ..group import chances, changes, games, history
from ..group.story import story as game_story
from ..play import actions, handover, keeper, opening, seats, tables
from ..play.authority import Transaction
from ..store import database
from ..store.models import Table, db
from ..table.states import active_events, derive
from ..table.views import public_view, requests
from ..table.words import choice_label, choice_summary, effect_list

bp = Blueprint("api", __name__, url_prefix="/api")


#: the pages of one table (its code in the address, or typed on /j): a refusal there is
#: about that table ("No table with this code", a way to type another)
_TABLE_PAGES = frozenset(("pages.host", "pages.story", "pages.phone", "pages.watch",
                          "pages.phone_enter", "pages.qr", "pages.qr_watch"))


def _about() -> str:
    """What a refused page was about, for its heading and its ways on: "table", "player"
    (a player's statistics: forgotten, or a number mistyped) or any other "page"."""
    if request.endpoint == "pages.player_page":
        return "player"
    return "table" if request.endpoint in _TABLE_PAGES else "page"


def register_errors(app: Flask) -> None:
    """One place maps every refusal to JSON with a plain-words message."""

    @app.errorhandler(ApiError)
    def _api_error(err: ApiError) -> Any:
        if request.path.startswith("/api"):
            resp = jsonify(err.to_dict())
        else:                      # a page: a page that says what happened, never a trace
            resp = Response(render_template("error_table.html", status=err.status,
                                            message=sentence(say(err.message, current())),
                                            code=err.code, about=_about()),
                            mimetype="text/html")
        resp.status_code = err.status
        if err.retry_after:
            resp.headers["Retry-After"] = str(err.retry_after)
        return resp

    def _page(status: int) -> Response:
        """A page that cannot be shown, said as a page in the screen's language."""
        return Response(render_template("error_page.html", status=status),
                        status=status, mimetype="text/html")

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException) -> Any:
        if not request.path.startswith("/api"):
            if (err.code or 500) < 400:            # a redirect (a missing slash): as it is
                return err
            page = _page(err.code or 500)
            page.headers.extend((k, v) for k, v in err.get_headers() if k.lower() == "allow")
            return page
        messages = {413: Msg("the request body is too large"),
                    404: Msg("there is nothing at this address"),
                    405: Msg("this address does not accept this method")}
        msg = messages.get(err.code or 500, err.description or err.name)
        return jsonify({"error": msg, "code": err.name.lower().replace(" ", "_")}), err.code

    @app.errorhandler(Exception)
    def _unexpected(err: Exception) -> Any:
        if isinstance(err, HTTPException):
            return _http_error(err)
        if disk_full(err):         # one line for whoever runs it, a clear one for the table
            current_app.logger.error("no disk space left for the database: %s %s was not "
                                     "recorded; free some space on this computer",
                                     request.method, request.path)
            db.session.rollback()
            return jsonify({"error": Msg("the computer running the companion has no disk "
                                         "space left, so nothing was recorded: free some "
                                         "space on it, then tap again"),
                            "code": "disk_full"}), 507
        if getattr(err, "connection_invalidated", False):    # the database went away
            current_app.logger.warning("the database connection was lost during %s %s; "
                                       "the screen retries it", request.method, request.path)
            db.session.rollback()
            resp = jsonify({"error": Msg("the database could not be reached for a moment; "
                                         "try again"), "code": "database_unavailable"})
            resp.status_code, resp.headers["Retry-After"] = 503, "1"
            return resp
        current_app.logger.exception("unexpected error on %s %s", request.method, request.path)
        db.session.rollback()
        if not request.path.startswith("/api"):    # a page: a page, never JSON
            return _page(500)
        return jsonify({"error": Msg("something went wrong on the server; try again"),
                        "code": "server_error"}), 500


def _secret() -> str | None:
    auth = request.headers.get("Authorization", "")
    if auth.startswith("Bearer "):
        return auth[7:].strip() or None
    return None


def _load(code: str, allow_expired: bool = False) -> Table:
    """The table of ``code``; this client pays for unknown codes (no guessing), and a
    screen that sends a key of that table is served even while its address waits."""
    secret = _secret()
    return tables.load(code, client(), allow_expired=allow_expired,
                       held=(lambda c: tables.holds_key(c, secret)) if secret else None)


def is_keeper() -> bool:
    """Whether this request's bearer is the keeper key (:mod:`.keeper`)."""
    return keeper.is_keeper(_secret())


def _body() -> dict[str, Any]:
    """The JSON object of a state-changing request from one of this server's pages."""
    check_origin()
    if not request.is_json:
        raise ApiError(400, Msg("the body must be JSON (Content-Type: application/json)"),
                       code="malformed")
    try:
        data = request.get_json(silent=True)
    except RecursionError:
        data = None
    if not isinstance(data, dict):
        raise ApiError(400, Msg("the body must be a JSON object"), code="malformed")
    for name, value in data.items():
        if not clean_text(value):
            raise ApiError(400, Msg("the field '{name}' holds characters that are not text "
                                    "(a control character or half of a character pair)",
                                    name=name),
                           field=str(name)[:40] if clean_text(name) else None,
                           code="bad_text")
    return data


def _done(tx: Transaction) -> tuple[Response, int]:
    """The answer to a change, pushed to every screen first. A page that asks for
    ``"answer": "delta"`` gets what changed since the version it sent (issue 15: a few
    hundred bytes instead of the whole view) when this process still knows that view;
    one whose live stream is open asks ``"none"``: only the new version (the stream
    brings the change)."""
    status, body = tx.result
    view = body["view"]
    live.publish(view, None if tx.told else tx.read_version)
    small = {k: v for k, v in body.items() if k not in ("view", "draft", "next")}
    if tx.body.get("answer") == "none" and tx.receipt is None:
        # a page whose live stream is open: the change reaches it there (pushed above)
        return jsonify({**small, "version": view["version"]}), status
    if tx.body.get("answer") == "delta" and tx.receipt is None:
        d = live.delta_json(view["code"], tx.read_version, view, current())
        if d is not None:        # the draft and the next step are in the view's delta
            # the text the streams were sent, not encoded a second time (issue 24)
            head = current_app.json.dumps(small)
            return current_app.response_class(
                f'{head[:-1]}{", " if small else ""}"delta": {d}}}\n',
                mimetype=current_app.json.mimetype), status  # type: ignore[attr-defined]
    return jsonify(body), status


def _opened(opened: opening.Opened) -> tuple[Response, int]:
    """The answer to an opened table: its code, its view, and the host secret the
    server made (only the first time, and only when the page sent none of its own);
    ``existing`` (200): the same finished game was already here."""
    out: dict[str, Any] = {"code": opened.table.code, "view": public_view(opened.table)}
    if opened.secret is not None:
        out["host_secret"] = opened.secret
    if opened.existing:
        out["existing"] = True
    return jsonify(out), 200 if opened.existing else 201


@bp.post("/tables")
def create_table() -> tuple[Response, int]:
    """Open a new table; the answer carries the host screen's secret, once."""
    return _opened(opening.open_table(_body()))


@bp.post("/tables/import")
def import_record() -> tuple[Response, int]:
    """Open a table from a game record, only if the referee replays it (else nothing);
    a finished game already here is answered as it is (200, ``existing``). The keeper's
    imports count in the group's memory; anyone else's are kept apart until the keeper
    counts them."""
    opened = opening.open_table(_body(), imported=True, keeper=is_keeper(), secret=_secret())
    if opened.source is not None:
        _went_on(opened.source, opened.table.code)
    return _opened(opened)


def _went_on(source: Table, code: str) -> None:
    """The table whose game a screen goes on with at ``code`` says so to its screens,
    when that game was entered on its screen (sides sit there) and that screen is gone
    (no stream of its host is open): anyone with the code may copy a game, but a copy
    of a game its phones play, or whose screen is there, sends nobody away from it. If
    the table changed meanwhile (its own screen is back), it says nothing either. Once
    per new table (the receipt's key is its code)."""
    if (not any(s.screen and s.status == "active" for s in source.seats)
            or "host" in live.hub.connected(source.code)):
        return
    try:
        with Transaction(source, {"idempotency_key": f"went-on:{code}"}, "went_on",
                         need_version=False) as tx:
            if tx.receipt is None and source.rematch is None:
                handover.went_on(tx, code)
    except ApiError:
        return
    if tx.receipt is None and tx.result[0] == 200:     # pushed to the table's screens
        live.publish(tx.result[1]["view"], None if tx.told else tx.read_version)


@bp.post("/tables/mine")
def tables_held() -> Response:
    """The games in play this screen's keys belong to (the first page's "back to your
    game"); nothing about a code sent without its key."""
    return jsonify({"tables": tables.held(_body())})


@bp.get("/openapi.json")
def openapi_document() -> Response:
    """This API described in OpenAPI 3.1."""
    from .openapi import document
    return jsonify(document())


@bp.get("/tables/<code>/state")
def state(code: str) -> Response:
    """The public view; with ``?since=V`` only whether it moved past ``V`` (polling)."""
    table = _load(code)
    actor = tables.actor_for(table, _secret())
    tables.touch(actor)
    since = request.args.get("since", type=int)
    if since is not None and since >= table.version:
        resp = jsonify({"version": table.version, "changed": False,
                        "connected": live.hub.connected(table.code),
                        "watching": live.hub.watching(table.code)})
    else:
        resp = jsonify({"view": public_view(table), "me": _me(table, actor), "changed": True,
                        "connected": live.hub.connected(table.code),
                        "watching": live.hub.watching(table.code)})
    # the pages' version: a page opened before an upgrade loads again (:mod:`.assets`)
    resp.headers["X-Assets"] = assets.version()
    return resp


@bp.get("/tables/<code>/me")
def me(code: str) -> Response:
    """Who this secret belongs to (host, seat or viewer), with the proof its live stream
    shows to count as connected."""
    table = _load(code)
    actor = tables.actor_for(table, _secret())
    tables.touch(actor)
    return jsonify(_me(table, actor))


def _me(table: Table, actor: tables.Actor) -> dict[str, Any]:
    return {**tables.who(actor), **live.proof_of(table, actor)}


def _act(code: str, kind: str, action: Callable[[Transaction, tables.Actor], None],
         anonymous: bool = False, keeper_too: bool = False) -> tuple[Response, int]:
    """One state-changing request of ``kind`` by one screen: a retry gets the first answer
    (never a second effect, never a new secret). ``anonymous``: whoever sends it (a join);
    ``keeper_too``: the keeper key is a bearer this request knows (the actor's ``keeper``)."""
    table = _load(code)
    body = _body()
    if keeper_too and is_keeper():
        actor = tables.Actor(keeper=True)
    else:
        actor = tables.Actor() if anonymous else tables.actor_for(table, _secret())
    with Transaction(table, body, kind, actor.key) as tx:
        if tx.receipt is None:
            opening.closed(table)         # a game that went on at a rematch takes no more
            action(tx, actor)
    if tx.receipt is not None:           # a retry: the answer its first attempt got
        status, again = seats.answered_before(tx.receipt, table)
        return jsonify(again), status
    return _done(tx)


@bp.post("/tables/<code>/seats")
def join(code: str) -> tuple[Response, int]:
    """Sit down: a side (and in team play a part) and a name, and the key this phone made
    for its seat (``secret``; without one the server makes it and sends it once)."""
    return _act(code, "seats", lambda tx, actor: seats.join(
        tx, tx.body.get("name"), tx.body.get("side"), tx.body.get("part"), tx.body.get("secret"),
        client(), tx.body.get("player")), anonymous=True)


@bp.post("/tables/<code>/screen")
def screen_seat(code: str) -> tuple[Response, int]:
    """The host screen takes a side to enter it there (``on``: true, ``name``), or frees
    it for a phone (``on``: false): a table played without phones (issue 23)."""
    return _act(code, "screen", seats.screen_seat)


@bp.post("/tables/<code>/host")
def hand_over(code: str) -> tuple[Response, int]:
    """Another screen becomes the table's screen (``host_hash``: the SHA-256 of the key it
    made): at once with the table's screen's key or the keeper's as the bearer; from any
    other screen it is an ask (202) the table's screen allows or refuses (``/decision``).
    A seat's key is refused (issue 50)."""
    return _act(code, "host", lambda tx, actor: handover.hand_over(tx, actor, client()),
                keeper_too=True)


@bp.post("/tables/<code>/rematch")
def rematch(code: str) -> tuple[Response, int]:
    """The next game, same options, everyone seated (``swap``: colours exchanged); the
    host screen sends the new table's host key it made (``host_secret``)."""
    return _act(code, "rematch", opening.rematch)


@bp.get("/tables/<code>/requests")
def seat_requests(code: str) -> Response:
    """The phones waiting for the host screen to let them take over a seat, and how
    long ago each seated phone was last heard from (its heartbeat); for the host screen
    itself, the screens asking to take its place too (``screens``: each one's id and the
    number it shows; nobody else is shown them)."""
    table = _load(code)
    out = {"requests": requests(table), "seen": tables.heard_from(table)}
    if tables.actor_for(table, _secret()).host:
        out["screens"] = handover.screen_asks(table)
    return jsonify(out)


@bp.post("/tables/<code>/seats/<int:seat_id>/decision")
def decide(code: str, seat_id: int) -> tuple[Response, int]:
    """The host screen lets a phone take over a seat, or keeps it; or lets a screen that
    asked take its place (issue 50), or not."""
    return _act(code, "decision", lambda tx, actor:
                handover.decide_takeover(tx, actor, seat_id, tx.body.get("approve")))


@bp.post("/tables/<code>/events")
def post_event(code: str) -> tuple[Response, int]:
    """Record one event: exhaust, intel, tokens, start, check (reveals go through /draft)."""
    return _act(code, "events", actions.post_event)


@bp.post("/tables/<code>/draft")
def post_draft(code: str) -> tuple[Response, int]:
    """One tap of the reveal being built: deception, guess, actual, choice."""
    return _act(code, "draft", actions.post_draft)


@bp.post("/tables/<code>/undo")
def undo(code: str) -> tuple[Response, int]:
    """Take back the last tap or event, for every screen to see."""
    return _act(code, "undo", actions.undo)


@bp.get("/tables/<code>/preview")
def preview(code: str) -> Response:
    """The ability calculator: what if ``side``'s ``rank`` were activated now?"""
    table = _load(code)
    side = request.args.get("side")
    rank = request.args.get("rank", type=int)
    if side not in SIDES:
        raise ApiError(400, Msg("the parameter 'side' must be red or blue"), field="side",
                       code="bad_field")
    if rank is None or not 1 <= rank <= 10:
        raise ApiError(400, Msg("the parameter 'rank' must be a rank 1-10"), field="rank",
                       code="bad_field")
    options = [{**o, "summary": choice_summary(o), "effect_words": effect_list(o["effects"]),
                "label": choice_label(o, side) if o["choice"] else rank_word(rank)}
               for o in ability_preview(derive(table), Side(side), rank)]
    return jsonify({"side": side, "rank": rank, "name": rank_word(rank),
                    "version": table.version, "options": options})


@bp.get("/tables/<code>/story")
def story(code: str) -> Response:
    """The game replayed event by event: each step's board and words, and the key moments
    (expired tables too: a story is read, never played)."""
    table = _load(code, allow_expired=True)
    out = game_story(table)
    if out["over"]:         # the chance over the whole game, once worked out (issue 25)
        got = chances.series(table)
        out["chances"] = {"pending": True} if got is None else {
            "steps": got["steps"], "playouts": got["playouts"],
            "turning": chances.turning_words(got)}
    return jsonify(out)


@bp.get("/tables/<code>/chances")
def chance(code: str) -> Response:
    """A table's live chance to win, if it opted in (``live``: the latest figure, of the
    game after ``events`` events; a newer one is being worked out when that is behind)."""
    table = _load(code, allow_expired=True)
    return jsonify({"on": table.chances, "live": chances.live(table)})


@bp.get("/tables/<code>/record")
def record(code: str) -> Response:
    """The game as a spies-and-lies-record/1 file (events not undone); expired tables too."""
    table = _load(code, allow_expired=True)
    out = {"format": "spies-and-lies-record/1",
           "options": {**Options(table.wall_distance, table.teams).to_dict(),
                       **games.record_options(table)},
           "events": [json.loads(r.data) for r in active_events(table)]}
    resp = jsonify(out)
    resp.headers["Content-Disposition"] = f'attachment; filename="spies-lies-{table.code}.json"'
    return resp


# --- the group's history (issue 14) ---------------------------------------------------


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
    body = _body()
    return jsonify(changes.rename(body.get("player"), name_field(body)))


@bp.post("/keeper")
def keeper_check() -> Response:
    """Whether the bearer is the keeper key (the keeper link's page asks before the
    screen keeps it); 403 when it is not. With it, the screens asking to be a table's
    screen at every table (``screens``, issue 50: the page asks again every 3 s): the
    keeper lets one in (``POST /tables/CODE/host`` with its ``hash``) when that table's
    screen is gone for good."""
    _body()
    _keeper_only()
    return jsonify({"keeper": True, "backup": database.sqlite_path(db.engine.url) is not None,
                    "screens": handover.asks_everywhere()})


@bp.post("/keeper/claim")
def keeper_claim() -> Response:
    """A keeper link opened (``once``: its one-time secret): the keeper key, once; the
    same link again, or one never printed here, is refused."""
    once = _body().get("once")
    if not isinstance(once, str) or not 20 <= len(once) <= 100 or not keeper.claim(
            Path(current_app.instance_path), once):
        raise ApiError(403, Msg("this keeper link was opened before, or was never printed "
                                "here: a keeper link works once; spies-lies keeper prints a "
                                "new one"), code="not_keeper")
    return jsonify({"key": keeper.key_for(current_app)})


def _keeper_only() -> None:
    if not is_keeper():
        raise ApiError(403, Msg("this is not the keeper key of this server; open the keeper "
                                "link that spies-lies serve printed"), code="not_keeper")


@bp.post("/keeper/backup")
def keeper_backup() -> Response:
    """The group's games as one SQLite file (``spies-lies restore`` puts it back): the
    keeper only. Made through SQLite's online backup, consistent while tables play."""
    _body()
    _keeper_only()
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
    _body()
    return jsonify({"deleted": changes.delete_imported(is_keeper())})


@bp.post("/history/<code>/count")
def history_count(code: str) -> Response:
    """The keeper's word on whether a finished game counts (``count``: true, false, or
    null to let the rule decide): the keeper only."""
    body = _body()
    _keeper_only()
    return jsonify(changes.count_game(code, body.get("count", changes.MISSING)))


@bp.post("/history/<code>/delete")
def history_delete(code: str) -> Response:
    """Delete a finished game: from the screen that hosted it (its host key as the
    bearer) or by the keeper (the keeper key as the bearer)."""
    _body()
    changes.delete_game(code, is_keeper(), _secret())
    return jsonify({"deleted": code.upper()})


@bp.post("/players/<int:player_id>/delete")
def player_delete(player_id: int) -> Response:
    """Forget a player: from their own phone (the player key as the bearer) or by the
    keeper (the keeper key as the bearer); ``games``: true, the keeper also deletes every
    finished game they sat at, in the same step."""
    gone = changes.delete_player(player_id, is_keeper(), _secret(), flag(_body(), "games"))
    return jsonify({"deleted": player_id, "games": gone})
