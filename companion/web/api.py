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
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from ..engine import RANK_NAMES, SIDES, ability_preview
from . import actions, live, tables
from .authority import Transaction
from .errors import ApiError
from .models import Table, db
from .states import active_events, derive
from .views import choice_summary, effect_words, public_view

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


def _load(code: str, allow_expired: bool = False) -> Table:
    """The table of ``code``; this client pays for unknown codes (no guessing)."""
    return tables.load(code, request.remote_addr or "unknown", allow_expired=allow_expired)


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


def _done(tx: Transaction) -> tuple[Response, int]:
    status, body = tx.result
    live.publish(body["view"])
    return jsonify(body), status


def _opened(table: Table, secret: str) -> tuple[Response, int]:
    return jsonify({"code": table.code, "host_secret": secret,
                    "view": public_view(table)}), 201


@bp.post("/tables")
def create_table() -> tuple[Response, int]:
    """Open a new table; the answer carries the host screen's secret, once."""
    return _opened(*tables.open_table(_body()))


@bp.post("/tables/import")
def import_record() -> tuple[Response, int]:
    """Open a table from a game record, only if the referee replays it (else nothing)."""
    return _opened(*tables.open_table(_body(), imported=True))


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
        return jsonify({"version": table.version, "changed": False,
                        "connected": live.hub.connected(table.code)})
    return jsonify({"view": public_view(table), "me": tables.who(actor), "changed": True,
                    "connected": live.hub.connected(table.code)})


@bp.get("/tables/<code>/me")
def me(code: str) -> Response:
    """Who this secret belongs to (host, seat or viewer)."""
    table = _load(code)
    actor = tables.actor_for(table, _secret())
    tables.touch(actor)
    return jsonify(tables.who(actor))


@bp.post("/tables/<code>/seats")
def join(code: str) -> tuple[Response, int]:
    """Sit down: a side (and in team play a part) and a name; the answer holds the seat key."""
    table = _load(code)
    body = _body()
    with Transaction(table, body) as tx:
        if tx.receipt:
            status, again = tables.rejoin(tx.receipt)
            return jsonify(again), status
        tables.join(tx, body.get("name"), body.get("side"), body.get("part"))
    return _done(tx)


def _act(code: str, action: Callable[[Transaction, tables.Actor], None]
         ) -> tuple[Response, int]:
    """One state-changing request by a known screen: a retry gets the first answer."""
    table = _load(code)
    body = _body()
    actor = tables.actor_for(table, _secret())
    with Transaction(table, body) as tx:
        if tx.receipt:
            return jsonify(json.loads(tx.receipt.body)), tx.receipt.status
        action(tx, actor)
    return _done(tx)


@bp.post("/tables/<code>/seats/<int:seat_id>/decision")
def decide(code: str, seat_id: int) -> tuple[Response, int]:
    """The host screen lets a phone take over a seat, or keeps it."""
    return _act(code, lambda tx, actor:
                tables.decide_takeover(tx, actor, seat_id, tx.body.get("approve")))


@bp.post("/tables/<code>/events")
def post_event(code: str) -> tuple[Response, int]:
    """Record one event: exhaust, intel, tokens, start, check (reveals go through /draft)."""
    return _act(code, actions.post_event)


@bp.post("/tables/<code>/draft")
def post_draft(code: str) -> tuple[Response, int]:
    """One tap of the reveal being built: deception, guess, actual, choice."""
    return _act(code, actions.post_draft)


@bp.post("/tables/<code>/undo")
def undo(code: str) -> tuple[Response, int]:
    """Take back the last tap or event, for every screen to see."""
    return _act(code, actions.undo)


@bp.get("/tables/<code>/preview")
def preview(code: str) -> Response:
    """The ability calculator: what if ``side``'s ``rank`` were activated now?"""
    table = _load(code)
    side = request.args.get("side")
    rank = request.args.get("rank", type=int)
    if side not in SIDES:
        raise ApiError(400, "the parameter 'side' must be red or blue", field="side",
                       code="bad_field")
    if rank is None or not 1 <= rank <= 10:
        raise ApiError(400, "the parameter 'rank' must be a rank 1-10", field="rank",
                       code="bad_field")
    options = [{**o, "summary": choice_summary(o), "effect_words": effect_words(o["effects"])}
               for o in ability_preview(derive(table), side, rank)]
    return jsonify({"side": side, "rank": rank, "name": RANK_NAMES[rank],
                    "version": table.version, "options": options})


@bp.get("/tables/<code>/record")
def record(code: str) -> Response:
    """The game as a spies-and-lies-record/1 file (events not undone); expired tables too."""
    table = _load(code, allow_expired=True)
    out = {"format": "spies-and-lies-record/1",
           "options": {"wall_distance": table.wall_distance},
           "events": [json.loads(r.data) for r in active_events(table)]}
    resp = jsonify(out)
    resp.headers["Content-Disposition"] = f'attachment; filename="spies-lies-{table.code}.json"'
    return resp
