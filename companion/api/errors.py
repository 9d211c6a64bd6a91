"""How the JSON API and the pages answer what went wrong: every refusal as JSON with
a plain-words message under ``/api``, as a page in the screen's language elsewhere;
never a stack trace. A full disk and a lost database say so.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from ..edge.errors import ApiError, disk_full
from ..edge.lang import current, say, sentence
from ..engine import Msg
from ..store.models import db

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
