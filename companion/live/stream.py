"""A live stream (Server-Sent Events) of one table: ``GET /api/tables/<code>/stream``.

A stream that (re)connects with ``?since=V`` gets the current view at once when the
table is past ``V``, so a screen that slept catches up. Phones that cannot keep a stream
open poll ``GET /api/tables/<code>/state?since=V`` instead. A screen counts as its seat
(or the host) being here only with that seat's proof (an HMAC of its key's hash).

Waiting is the server's business (issue 15): under the companion's own server
(:mod:`companion.run.server`) an open stream is a few objects on an event loop, not a
thread, and a phone that went away is noticed when its socket closes; under a plain
threaded server (tests, ``flask run``) each stream waits in its thread.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app, request
from sqlalchemy import bindparam, select

from ..edge import lang
from ..edge.compress import gzip_stream, wants_gzip
from ..edge.hosts import client
from ..play.tables import load
from ..store.models import ID_MAX, Seat, Table, db
from ..table.views import public_view
from .channel import WATCH, Channel, hub

bp = Blueprint("live", __name__)
DEVICE = re.compile(r"[A-Za-z0-9_-]{8,64}")   # a watching device's id, as its page made it

CONNECTED = b": connected\n\n"
KEEPALIVE = b": keep-alive\n\n"


class Subscription:
    """One open stream: what its screen has been sent, and what it needs next.

    How it waits is the server's business: :func:`blocking` holds a thread on the
    channel's condition (a plain threaded WSGI server, the test client); the companion's
    own server (:mod:`companion.run.server`) waits on its event loop and holds no thread.
    """

    def __init__(self, ch: Channel, who: str, since: int, locale: str,
                 client: str | None = None) -> None:
        self.ch, self.who, self.locale, self.client = ch, who, locale, client
        self.version = since            # the view this screen shows
        self.presence = b""             # the presence message it has
        self.seen = -1                  # the channel's seq it has looked at
        self.opened = self.closed = False

    def open(self) -> None:
        """Count the screen as connected (its table's screens see it)."""
        self.opened = True
        self.ch.join(self.who, self.locale)

    def pending(self) -> bool:
        """Whether the channel moved since :meth:`take` last looked (hold ``ch.cond``)."""
        return self.ch.seq != self.seen

    def take(self) -> list[bytes]:
        """The messages this screen has not had yet (none: nothing new)."""
        ch = self.ch
        with ch.cond:
            if ch.seq == self.seen:
                return []
            self.seen = ch.seq
            msg = ch.message_since(self.version, self.locale)
            version, presence = ch.version, ch.presence_message
        out = []
        if msg is not None and version > self.version:
            self.version = version
            out.append(msg)
        if presence and presence != self.presence:
            self.presence = presence
            out.append(presence)
        return out

    def close(self) -> None:
        """The screen went away: it no longer counts, and its channel may go."""
        if self.closed:
            return
        self.closed = True
        if self.opened:
            self.ch.leave(self.who, self.locale)
        hub.unsubscribe(self.ch)
        if self.client is not None:
            hub.release(self.client, self.ch.key)


def blocking(sub: Subscription, keepalive: float) -> Iterator[bytes]:
    """The stream for a threaded server: this thread waits on the channel's condition.
    A client that left is noticed at the next write (the keep-alive at the latest)."""
    try:
        sub.open()
        yield CONNECTED
        while True:
            with sub.ch.cond:
                if not sub.pending():
                    sub.ch.cond.wait(keepalive)
            out = sub.take()
            if out:
                yield from out
            else:
                yield KEEPALIVE
    finally:
        sub.close()


def stream_response(ch: Channel, who: str, since: int, locale: str = lang.DEFAULT,
                    client: str | None = None) -> Response:
    """The SSE response for one subscriber of ``ch`` in ``locale`` (the subscription
    ends with it). Under the companion's server the stream is handed to its event loop
    (``companion.loop`` in the WSGI environment): no thread waits for its messages."""
    sub = Subscription(ch, who, since, locale, client)
    keepalive = current_app.config["SSE_KEEPALIVE"]
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Vary": "Accept-Encoding"}
    gz = wants_gzip()           # each message flushed whole; one dictionary per stream
    if gz:
        headers["Content-Encoding"] = "gzip"
    loop = request.environ.get("companion.loop")
    if loop is not None:
        loop(sub, keepalive, gz)
        return Response(iter(()), mimetype="text/event-stream", headers=headers)
    gen = blocking(sub, keepalive)
    return Response(gzip_stream(gen) if gz else gen, mimetype="text/event-stream",
                    headers=headers)


def proof(table: Table, who: str) -> str | None:
    """What a screen shows on its stream to count as seat ``who`` (a seat id, or
    ``host``) being here: an HMAC of the table, the seat and the hash of its key under
    the server's secret (issue 20). The key itself never goes into a URL; a seat taken
    over or refused proves nothing any more."""
    if who == "host":
        kept = table.host_hash
    else:
        seat = next((s for s in table.seats if str(s.id) == who and s.status == "active"),
                    None)
        if seat is None:
            return None
        kept = seat.secret_hash
    return _proof(table.code, who, kept)


def _proof(code: str, who: str, kept: str) -> str:
    key = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(key, f"presence:{code}:{who}:{kept}".encode(),
                    hashlib.sha256).hexdigest()[:32]


# the hash of the key a stream's proof is made of: the host's, or an active seat's
_HOST_KEPT = select(Table.host_hash).where(Table.code == bindparam("code"))
_SEAT_KEPT = (select(Seat.secret_hash).join(Table, Seat.table_id == Table.id)
              .where(Table.code == bindparam("code"), Seat.id == bindparam("seat"),
                     Seat.status == "active"))


def _proven(code: str) -> bool:
    """Whether this stream shows the proof of the host's or a seat's key of the table
    ``code``: read without the table, the proof worked out found or not (a stream that
    proves nothing learns nothing of the code)."""
    asked = request.args.get("seat", "")
    if asked == "host":
        kept = db.session.scalar(_HOST_KEPT, {"code": code})
    elif asked.isdigit() and int(asked) <= ID_MAX:
        kept = db.session.scalar(_SEAT_KEPT, {"code": code, "seat": int(asked)})
    else:
        return False
    expected = _proof(code, asked, kept or "")
    return kept is not None and hmac.compare_digest(request.args.get("proof", ""), expected)


def proof_of(table: Table, actor: Any) -> dict[str, str]:
    """The presence proof for the screen of ``actor`` (none for a viewer)."""
    who = "host" if actor.host else str(actor.seat.id) if actor.seat is not None else None
    found = proof(table, who) if who is not None else None
    return {"proof": found} if found else {}


def _who(table: Table, client: str) -> str:
    """Whom a stream counts as: a seat or the host only with that seat's proof, a
    watcher as one device of its client, else a viewer."""
    asked = request.args.get("seat", "")
    if asked == "watch":
        device = request.args.get("device", "")
        device = device if DEVICE.fullmatch(device) else "-"
        return f"{WATCH}{client}:{device}"
    if asked.isdigit() or asked == "host":
        given, expected = request.args.get("proof", ""), proof(table, asked)
        if expected is not None and hmac.compare_digest(given, expected):
            return asked
    return "viewer"


@bp.get("/api/tables/<code>/stream")
def stream(code: str) -> Response:
    """Server-Sent Events: the table's view whenever it changes, and who is connected."""
    since = request.args.get("since", type=int)
    if since is None:
        since = request.headers.get("Last-Event-ID", type=int) or 0
    who_is = client()
    # a screen's stream proves its key (its proof): served even while its address waits
    table = load(code, who_is, held=_proven)
    hub.admit(who_is, table.code)
    # subscribe before reading the view: a change committed meanwhile is not missed
    ch = hub.subscribe(table.code)
    try:
        db.session.refresh(table)
        view = public_view(table)
        ch.publish(view["version"], view)
        fanout = current_app.extensions.get("live_fanout")
        if fanout is not None:
            fanout.start()
        who = _who(table, who_is)
    except BaseException:
        hub.unsubscribe(ch)
        hub.release(who_is, table.code)
        raise
    return stream_response(ch, who, since, lang.current(), who_is)
