"""What every route of the JSON API shares: the blueprint, who sends a request (its
bearer), the table it names, its JSON body checked as declared, and the answer to a
change of a table.

Every state-changing POST carries a JSON body with ``version`` (the table version
the screen last saw: an older one gets 409 and the fresh view) and an
``idempotency_key`` (a retry gets the first answer, never a second effect), must
come from this site (Origin or Referer), and is refused with a message that
names the field when it is malformed (:mod:`.bodies` declares each body). A seat or
the host screen proves itself with ``Authorization: Bearer <secret>``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from .. import live
from ..edge.errors import ApiError
from ..edge.fields import clean_text
from ..edge.hosts import check_origin, client
from ..edge.lang import current
from ..engine import Msg
from ..group import space
from ..play import keeper, opening, seats, tables
from ..play.ahead import Turn, taps
from ..play.authority import Transaction
from ..store.models import Table, db
from ..store.prepared import alone
from ..table.views import public_view
from .bodies import Change
from .declared import Body, check

bp = Blueprint("api", __name__, url_prefix="/api")


def secret() -> str | None:
    """The request's bearer: a seat's, a screen's, a player's or the keeper's key."""
    auth = request.headers.get("Authorization", "")
    if auth.startswith("Bearer "):
        return auth[7:].strip() or None
    return None


def load(code: str, allow_expired: bool = False) -> Table:
    """The table of ``code``; this client pays for unknown codes (no guessing), and a
    screen that sends a key of that table is served even while its address waits."""
    key = secret()
    return tables.load(code, client(), allow_expired=allow_expired,
                       held=(lambda c: tables.holds_key(c, key)) if key else None)


def group() -> int | None:
    """The request's group (:mod:`..group.space`: its link's cookie, else the default)."""
    return space.current(request.cookies.get(space.COOKIE))


def group_required() -> int:
    """The request's group, or 404 ``no_group``."""
    return space.required(request.cookies.get(space.COOKIE))


def is_keeper() -> bool:
    """Whether this request's bearer keeps the request's group (:func:`keeps`)."""
    return keeps(group())


def keeps(group_id: int | None) -> bool:
    """Whether this request's bearer keeps ``group_id``: the group's keeper key, or the
    server's (:mod:`.keeper`), which keeps every group (and the tables of none)."""
    key = secret()
    if not key:
        return False
    server = keeper.is_keeper(key)
    return server if group_id is None else space.is_keeper_of(group_id, key, server)


def keeper_only() -> int:
    """The request's group, refused unless the bearer keeps it (404 with no group)."""
    gid = group_required()
    if not keeps(gid):
        raise ApiError(403, Msg("this is not the keeper key of this group; open the group's "
                                "keeper link (on a LAN install, the one spies-lies serve "
                                "printed)"), code="not_keeper")
    return gid


def body() -> dict[str, Any]:
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


def fields(model: type[Body], context: dict[str, Any] | None = None) -> dict[str, Any]:
    """The request's JSON object checked as ``model`` declares it."""
    return check(model, body(), context)


def done(tx: Transaction) -> tuple[Response, int]:
    """The answer to a change, pushed to every screen first. A page that asks for
    ``"answer": "delta"`` gets what changed since the version it sent (issue 15: a few
    hundred bytes instead of the whole view) when this process still knows that view;
    one whose live stream is open asks ``"none"``: only the new version (the stream
    brings the change)."""
    status, out = tx.result
    view = out["view"]
    if not tx.pushed:             # (a change committed alone was pushed by its commit)
        live.publish(view, None if tx.told else tx.read_version)
        # the screens' streams are written by the server's loop, which the publish just
        # woke: let it have the GIL now (this thread gives it up for a moment) rather
        # than when this thread has made its answer and left the app, ~0.5 ms later
        time.sleep(0)
    small = {k: v for k, v in out.items() if k not in ("view", "draft", "next")}
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
    return jsonify(out), status


def act(code: str, kind: str, model: type[Change],
        action: Callable[[Transaction, tables.Actor], None],
        anonymous: bool = False, keeper_too: bool = False) -> tuple[Response, int]:
    """One state-changing request of ``kind`` by one screen, its body declared by
    ``model``: a retry gets the first answer (never a second effect, never a new secret).
    Its key and version are judged first, the rest of its fields when the action reads
    them. ``anonymous``: whoever sends it (a join); ``keeper_too``: the keeper key is a
    bearer this request knows (the actor's ``keeper``)."""
    turn = Turn(taps)        # before its push, it goes first (:mod:`..play.ahead`)
    try:
        with alone(db.session.connection()):     # the table read alone: no BEGIN for it
            table = load(code)
        sent = body()
        if keeper_too and keeps(table.group_id):
            actor = tables.Actor(keeper=True)
        else:
            actor = tables.Actor() if anonymous else tables.actor_for(table, secret())
        head = check(Change, sent)
        teams = {"teams": table.teams}
        with Transaction(table, sent, kind, actor.key, key=head["idempotency_key"],
                         version=head["version"],
                         check=lambda raw: check(model, raw, teams), turn=turn) as tx:
            if tx.receipt is None:
                opening.closed(table)         # a game that went on at a rematch takes no more
                action(tx, actor)
    finally:
        turn.passed()
    if tx.pushed:            # the screens have it: the answer lets the others' taps pass
        taps.after()
    if tx.receipt is not None:           # a retry: the answer its first attempt got
        status, again = seats.answered_before(tx.receipt, table)
        return jsonify(again), status
    return done(tx)


def opened(table: opening.Opened) -> tuple[Response, int]:
    """The answer to an opened table: its code, its view, and the host secret the
    server made (only the first time, and only when the page sent none of its own);
    ``existing`` (200): the same finished game was already here."""
    out: dict[str, Any] = {"code": table.table.code, "view": public_view(table.table)}
    if table.secret is not None:
        out["host_secret"] = table.secret
    if table.existing:
        out["existing"] = True
    return jsonify(out), 200 if table.existing else 201


def me_of(table: Table, actor: tables.Actor) -> dict[str, Any]:
    """Who ``actor`` is at ``table``, with the proof its live stream shows."""
    return {**tables.who(actor), **live.proof_of(table, actor)}
