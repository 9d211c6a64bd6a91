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
from typing import Any, Callable
from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from ..engine import SIDES, ability_preview
from . import game, live
from .game import ApiError, Transaction
from .models import Receipt, db

bp = Blueprint("api", __name__, url_prefix="/api")


def register_errors(app: Flask) -> None:
    """One place maps every refusal to JSON with a plain-words message."""

    @app.errorhandler(ApiError)
    def _api_error(err: ApiError) -> Any:
        if request.path.startswith("/api"):
            resp = jsonify(err.to_dict())
        else:                      # a page: a page that says what happened, never a trace
            resp = Response(render_template("error_table.html", status=err.status,
                                            message=err.message, code=err.code),
                            mimetype="text/html")
        resp.status_code = err.status
        if err.retry_after:
            resp.headers["Retry-After"] = str(err.retry_after)
        return resp

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException) -> Any:
        if not request.path.startswith("/api"):
            return err
        messages = {413: "the request body is too large", 404: "there is nothing at this address",
                    405: "this address does not accept this method"}
        msg = messages.get(err.code or 500, err.description or err.name)
        return jsonify({"error": msg, "code": err.name.lower().replace(" ", "_")}), err.code

    @app.errorhandler(Exception)
    def _unexpected(err: Exception) -> Any:
        if isinstance(err, HTTPException):
            return _http_error(err)
        current_app.logger.exception("unexpected error on %s %s", request.method, request.path)
        db.session.rollback()
        return jsonify({"error": "something went wrong on the server; try again",
                        "code": "server_error"}), 500


def _secret() -> str | None:
    auth = request.headers.get("Authorization", "")
    if auth.startswith("Bearer "):
        return auth[7:].strip() or None
    return None


def _same_origin() -> None:
    """Refuse a state-changing request that another site's page could have sent."""
    origin = request.headers.get("Origin") or request.headers.get("Referer")
    if not origin:
        raise ApiError(403, "the request does not say which page sent it (Origin header)",
                       code="cross_origin")
    parts = urlsplit(origin)
    allowed = {request.host.lower()}
    public = current_app.config.get("PUBLIC_URL")
    if public:
        allowed.add(urlsplit(public).netloc.lower())
    if parts.netloc.lower() not in allowed:
        raise ApiError(403, "requests from another site are refused", code="cross_origin")


def _body() -> dict[str, Any]:
    _same_origin()
    if not request.is_json:
        raise ApiError(400, "the body must be JSON (Content-Type: application/json)",
                       code="malformed")
    try:
        data = request.get_json(silent=True)
    except RecursionError:
        data = None
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object", code="malformed")
    return data


def _replay_receipt(tx: Transaction) -> tuple[Response, int]:
    r: Receipt = tx.receipt
    return jsonify(json.loads(r.body)), r.status


def _done(tx: Transaction) -> tuple[Response, int]:
    status, body = tx.result
    live.publish(body["view"])
    return jsonify(body), status


@bp.post("/tables")
def create_table() -> tuple[Response, int]:
    """Open a new table; the answer carries the host screen's secret, once."""
    body = _body()
    table, secret = game.create_table(body)
    return jsonify({"code": table.code, "host_secret": secret,
                    "view": game.public_view(table)}), 201


@bp.post("/tables/import")
def import_record() -> tuple[Response, int]:
    """Open a table from a game record, only if the referee replays it (else nothing)."""
    body = _body()
    table, secret = game.import_table(body)
    return jsonify({"code": table.code, "host_secret": secret,
                    "view": game.public_view(table)}), 201


@bp.get("/openapi.json")
def openapi_document() -> Response:
    """This API described in OpenAPI 3.1."""
    from .openapi import document
    return jsonify(document())


@bp.get("/tables/<code>/state")
def state(code: str) -> Response:
    """The public view; with ``?since=V`` only whether it moved past ``V`` (polling)."""
    table = game.load(code)
    actor = game.actor_for(table, _secret())
    game.touch(actor)
    since = request.args.get("since", type=int)
    if since is not None and since >= table.version:
        return jsonify({"version": table.version, "changed": False,
                        "connected": live.hub.connected(table.code)})
    return jsonify({"view": game.public_view(table), "me": game.who(actor), "changed": True,
                    "connected": live.hub.connected(table.code)})


@bp.get("/tables/<code>/me")
def me(code: str) -> Response:
    """Who this secret belongs to (host, seat or viewer)."""
    table = game.load(code)
    actor = game.actor_for(table, _secret())
    game.touch(actor)
    return jsonify(game.who(actor))


@bp.post("/tables/<code>/seats")
def join(code: str) -> tuple[Response, int]:
    """Sit down: a side (and in team play a part) and a name; the answer holds the seat key."""
    table = game.load(code)
    body = _body()
    with Transaction(table, body) as tx:
        if tx.receipt:
            status, again = game.rejoin(tx.receipt)
            return jsonify(again), status
        game.join(tx, body.get("name"), body.get("side"), body.get("part"))
    return _done(tx)


def _act(code: str, action: Callable[[Transaction, game.Actor, dict[str, Any]], None]
         ) -> tuple[Response, int]:
    """One state-changing request by a known screen: a retry gets the first answer."""
    table = game.load(code)
    body = _body()
    actor = game.actor_for(table, _secret())
    with Transaction(table, body) as tx:
        if tx.receipt:
            return _replay_receipt(tx)
        action(tx, actor, body)
    return _done(tx)


@bp.post("/tables/<code>/seats/<int:seat_id>/decision")
def decide(code: str, seat_id: int) -> tuple[Response, int]:
    """The host screen lets a phone take over a seat, or keeps it."""
    return _act(code, lambda tx, actor, body:
                game.decide_takeover(tx, actor, seat_id, body.get("approve")))


@bp.post("/tables/<code>/events")
def post_event(code: str) -> tuple[Response, int]:
    """Record one event: exhaust, intel, tokens, start, check (reveals go through /draft)."""
    return _act(code, lambda tx, actor, body: game.post_event(tx, actor))


@bp.post("/tables/<code>/draft")
def post_draft(code: str) -> tuple[Response, int]:
    """One tap of the reveal being built: deception, guess, actual, choice."""
    return _act(code, lambda tx, actor, body: game.post_draft(tx, actor))


@bp.post("/tables/<code>/undo")
def undo(code: str) -> tuple[Response, int]:
    """Take back the last tap or event, for every screen to see."""
    return _act(code, lambda tx, actor, body: game.undo(tx, actor))


@bp.get("/tables/<code>/preview")
def preview(code: str) -> Response:
    """The ability calculator: what if ``side``'s ``rank`` were activated now?"""
    table = game.load(code)
    side = request.args.get("side")
    rank = request.args.get("rank", type=int)
    if side not in SIDES:
        raise ApiError(400, "the parameter 'side' must be red or blue", field="side",
                       code="bad_field")
    if rank is None or not 1 <= rank <= 10:
        raise ApiError(400, "the parameter 'rank' must be a rank 1-10", field="rank",
                       code="bad_field")
    state = game.derive(table)
    return jsonify({"side": side, "rank": rank, "version": table.version,
                    "options": ability_preview(state, side, rank)})


@bp.get("/tables/<code>/record")
def record(code: str) -> Response:
    """The game as a spies-and-lies-record/1 file (events not undone); expired tables too."""
    table = game.load(code, allow_expired=True)
    rows = game.active_events(table)
    out = {"format": "spies-and-lies-record/1",
           "options": {"wall_distance": table.wall_distance},
           "events": [json.loads(r.data) for r in rows]}
    resp = jsonify(out)
    resp.headers["Content-Disposition"] = f'attachment; filename="spies-lies-{table.code}.json"'
    return resp

