"""Live push: Server-Sent Events per table.

Every change to a table publishes its new public view; every open stream of that
table wakes and sends it. A stream that (re)connects with ``?since=V`` gets the
current view at once when the table is past ``V``, so a screen that slept
catches up. Phones that cannot keep a stream open poll
``GET /api/tables/<code>/state?since=V`` instead.

Cost per change: a screen gets what changed since the view it shows (``event: delta``,
operations from :mod:`.delta`; a few hundred bytes), or the whole view when it is too
far behind (``event: state``). Each is encoded and framed *once per base version and
language in use at the table* (the words are data until then: each screen reads the
table in its own language); each stream only writes the bytes of its language.
The delta from the previous view is made by the post that made the change, so
the streams only write bytes. A channel exists only while a stream of its table is open.

Waiting is the server's business (issue 15): under the companion's own server
(:mod:`companion.run.server`) an open stream is a few objects on an event loop, not a
thread, and a phone that went away is noticed when its socket closes; under a plain
threaded server (tests, ``flask run``) each stream waits in its thread.

Across processes: with SQLite there is one process and the fan-out stays in
memory. With PostgreSQL every change is also announced with ``NOTIFY`` (table
code, version and the process that made it) sent by the change's own transaction, with
what changed when the process that made it keeps the view it changed (another process
showing that view applies the operations instead of reading the table); a change of
the seats, whose view is made after its commit, tells what changed after it. Each
process listens on its own connection and republishes
a change it did not make to its own streams, so two servers on one database
(or a hosted service across machines) show each other's changes. Who is connected to a
table is announced the same way (issue 24, ``serve --workers N``): each process says
which seats have a stream open on it whenever that changes, and again every
``ANNOUNCE_EVERY`` seconds; another process's word counts for ``REMOTE_TTL`` seconds,
so the streams of a worker that was killed stop counting within a minute.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import queue
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import suppress
from typing import Any

from flask import Blueprint, Flask, Response, current_app, request
from sqlalchemy import bindparam, func, select

from ..edge import lang
from ..edge.compress import gzip_stream, wants_gzip
from ..edge.errors import ApiError
from ..edge.hosts import client
from ..engine import Msg
from ..play.tables import load
from ..store.models import CLOSED, ID_MAX, Seat, Table, db
from ..store.prepared import Prepared
from ..table.views import public_view
from .delta import diff, patched

bp = Blueprint("live", __name__)
log = logging.getLogger(__name__)
NOTIFY_CHANNEL = "spies_lies_change"
WATCH = "watch:"            # presence keys of watchers: watch:<client>:<device>
DEVICES_PER_CLIENT = 4      # watching devices one address counts for at most
DEVICE = re.compile(r"[A-Za-z0-9_-]{8,64}")
STREAMS_PER_TABLE = 16      # live streams one client may hold on one table ...
STREAMS_PER_CLIENT = 64     # ... and on all tables
KEPT = 3            # views a channel keeps, to send a screen that fell behind a delta
                    # (a late view is ~100 KB in memory: 400 tables x 3 stay well in RSS)
DELTA_MAX = 8192    # a delta longer than this is sent as the whole view instead
WORKER = secrets.token_hex(6)   # this process, among those sharing one database
ANNOUNCE_EVERY = 20.0           # seconds between a process's reminders of its presence
REMOTE_TTL = 60.0               # another process's presence counts this long after its word
PRESENCE_MAX = 7000             # bytes of one announcement (NOTIFY takes under 8000)
NOTIFY_MAX = 7900               # bytes of a change told with its operations
LOADERS = 4                     # threads loading the tables other processes changed

# who has a stream open on the *other* processes: code -> worker -> (when, key -> streams)
_remote: dict[str, dict[str, tuple[float, dict[str, int]]]] = {}
_remote_lock = threading.Lock()
# called with (code, this process's presence) when it changes (PgFanout.announce)
_announce: list[Callable[[str, dict[str, int]], None]] = []


def _remote_presence(code: str) -> dict[str, int]:
    """The other processes' open streams of ``code``, by presence key (fresh words only)."""
    with _remote_lock:
        by = _remote.get(code)
        if not by:
            return {}
        now, out = time.monotonic(), dict[str, int]()
        for worker, (when, counts) in list(by.items()):
            if now - when > REMOTE_TTL:
                del by[worker]
                continue
            for k, n in counts.items():
                out[k] = out.get(k, 0) + n
        if not by:
            del _remote[code]
        return out


def _merged(local: dict[str, int], code: str) -> dict[str, int]:
    remote = _remote_presence(code)
    if not remote:
        return local
    out = dict(remote)
    for k, n in local.items():
        out[k] = out.get(k, 0) + n
    return out


def _connected(presence: dict[str, int]) -> list[str]:
    return sorted(k for k, n in presence.items() if n > 0 and not k.startswith(WATCH))


def _watching(presence: dict[str, int]) -> int:
    per: dict[str, int] = {}
    for k, n in presence.items():
        if n > 0 and k.startswith(WATCH):
            client = k.split(":", 2)[1]
            per[client] = per.get(client, 0) + 1
    return sum(min(n, DEVICES_PER_CLIENT) for n in per.values())


# called with a channel's key whenever it changes, from any thread: how the companion's
# server (:mod:`companion.run.server`) wakes the streams waiting on its event loop
_wakers: list[Callable[[str], None]] = []


def add_waker(wake: Callable[[str], None]) -> None:
    """Call ``wake(key)`` on every change of a channel (it must be quick and never block)."""
    _wakers.append(wake)


def remove_waker(wake: Callable[[str], None]) -> None:
    if wake in _wakers:
        _wakers.remove(wake)


class Channel:
    """One table's latest message and who is connected, behind one condition."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.cond = threading.Condition()
        self.seq = 0                     # grows with every message
        self.version = 0
        self.data: str | dict[str, Any] | None = None    # the latest view (words as data)
        self.messages: dict[str, bytes] = {}   # ... framed as one SSE message per language
        # the last few views by version, so a screen that is one or a few versions behind
        # gets only what changed since (issue 15): one delta per base version and language
        self.views: dict[int, dict[str, Any]] = {}
        self.deltas: dict[tuple[int, str], bytes] = {}
        self.bodies: dict[tuple[int, str], str] = {}   # ... their JSON, also a post's answer
        self.ops: dict[int, list[list[Any]]] = {}
        # (since, operations, the view) a change's NOTIFY carried, for its publish to reuse
        # (the very view: a change whose commit failed never lends its operations)
        self.told: tuple[int, list[list[Any]], dict[str, Any]] | None = None
        self.presence: dict[str, int] = {}   # seat id -> open streams
        self.locales: dict[str, int] = {}    # language -> open streams
        self.presence_message = b""
        self.streams = 0                 # subscriptions (guarded by the hub's lock)

    def publish(self, version: int, data: str | dict[str, Any]) -> None:
        """Keep ``data`` (a view, or JSON the same in every language) as the latest
        message if it is not older, and wake the streams. The delta from the previous
        view is encoded here, once per language in use, by the thread that made the
        change: the streams only write bytes."""
        with self.cond:
            if version >= self.version and (version > self.version or self.data is None):
                before = self.version
                self.version = version
                self.data = data
                self.messages, self.deltas, self.bodies, self.ops = {}, {}, {}, {}
                if self.told is not None and self.told[0] == before and self.told[2] is data:
                    self.ops[before] = self.told[1]      # diffed once, for the NOTIFY
                self.told = None
                if isinstance(data, dict):
                    self.views[version] = data
                    for old in sorted(self.views)[:-KEPT]:
                        del self.views[old]
                    for locale in [k for k, n in self.locales.items() if n > 0]:
                        self.message_since(before, locale)
                self._changed()

    def _changed(self) -> None:
        """Wake every stream of this channel (hold ``cond``)."""
        self.seq += 1
        self.cond.notify_all()
        for wake in _wakers:
            wake(self.key)

    def message(self, locale: str) -> bytes | None:
        """The latest view as one SSE message in ``locale``, encoded by the first stream
        of that language to ask (hold ``cond``)."""
        if self.data is None:
            return None
        msg = self.messages.get(locale)
        if msg is None:
            data = self.data if isinstance(self.data, str) else lang.dumps(self.data, locale)
            msg = self.messages[locale] = (f"id: {self.version}\nevent: state\n"
                                           f"data: {data}\n\n").encode()
        return msg

    def message_since(self, since: int, locale: str) -> bytes | None:
        """What a screen showing version ``since`` needs in ``locale``: the operations
        from that view to the latest (``event: delta``) when this channel still has it
        and they are shorter, else the whole view (hold ``cond``)."""
        msg = self.deltas.get((since, locale))
        if msg is None:
            body = self.delta_body(since, locale)
            if body is None:
                return self.message(locale)
            msg = f"id: {self.version}\nevent: delta\ndata: {body}\n\n".encode()
            if len(msg) > DELTA_MAX:          # most of the view changed: send all of it
                msg = self.message(locale) or msg
            self.deltas[(since, locale)] = msg
        return msg

    def shown(self, since: int) -> dict[str, Any] | None:
        """The view at ``since`` if it is the one this channel shows now (hold ``cond``)."""
        view = self.views.get(since) if self.version == since else None
        return view if isinstance(view, dict) else None

    def delta_body(self, since: int, locale: str) -> str | None:
        """The operations from the view at ``since`` to the latest, as the JSON of a
        delta in ``locale`` (``None``: this channel no longer has that view), encoded
        once for the streams and the answer to the post that made the change (hold
        ``cond``)."""
        body = self.bodies.get((since, locale))
        if body is None:
            base = self.views.get(since) if since != self.version else None
            if base is None or not isinstance(self.data, dict):
                return None
            ops = self.ops.get(since)
            if ops is None:
                ops = self.ops[since] = diff(base, self.data)
            body = self.bodies[(since, locale)] = lang.dumps(
                {"from": since, "to": self.version, "ops": ops}, locale)
        return body

    def connected(self) -> list[str]:
        """The seats (and ``host``) with a stream open whose key proved them, on this
        process or another one sharing the database (hold ``cond``)."""
        return _connected(_merged(self.presence, self.key))

    def watching(self) -> int:
        """How many devices watch: distinct device ids, at most ``DEVICES_PER_CLIENT`` per
        client address (hold ``cond``)."""
        return _watching(_merged(self.presence, self.key))

    def _presence_changed(self, here: bool = True) -> None:
        """Tell this table's screens who is connected; ``here``: the change is this
        process's own, announced to the others too."""
        data = {"connected": self.connected(), "watching": self.watching()}
        self.presence_message = f"event: presence\ndata: {json.dumps(data)}\n\n".encode()
        self._changed()
        if here:
            for announce in _announce:
                announce(self.key, dict(self.presence))

    def join(self, who: str, locale: str = lang.DEFAULT) -> None:
        with self.cond:
            self.presence[who] = self.presence.get(who, 0) + 1
            self.locales[locale] = self.locales.get(locale, 0) + 1
            self._presence_changed()

    def leave(self, who: str, locale: str = lang.DEFAULT) -> None:
        with self.cond:
            self.presence[who] -= 1
            if self.presence[who] <= 0:
                del self.presence[who]
            self.locales[locale] -= 1
            self._presence_changed()


class Hub:
    """All channels of this process; a channel lives while a stream holds it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._channels: dict[str, Channel] = {}
        self._streams: dict[tuple[str, str], int] = {}   # (client, code or "") -> streams

    def subscribe(self, key: str) -> Channel:
        with self._lock:
            ch = self._channels.get(key)
            if ch is None:
                ch = self._channels[key] = Channel(key)
            ch.streams += 1
            return ch

    def unsubscribe(self, ch: Channel) -> None:
        with self._lock:
            ch.streams -= 1
            if ch.streams <= 0 and self._channels.get(ch.key) is ch:
                del self._channels[ch.key]

    def get(self, key: str) -> Channel | None:
        with self._lock:
            return self._channels.get(key)

    def codes(self) -> list[str]:
        """The tables this process has streams of (not the benchmark's ``_floor``)."""
        with self._lock:
            return [k for k in self._channels if not k.startswith("_")]

    def watching(self, code: str) -> int:
        """How many devices watch this table (issue 14: no seat, read only; issue 20:
        devices, not connections)."""
        ch = self.get(code)
        if ch is None:
            return _watching(_remote_presence(code))
        with ch.cond:
            return ch.watching()

    def connected(self, code: str) -> list[str]:
        ch = self.get(code)
        if ch is None:
            return _connected(_remote_presence(code))
        with ch.cond:
            return ch.connected()

    def presences(self) -> list[tuple[str, dict[str, int]]]:
        """Every channel's own open streams by presence key (for the reminders)."""
        with self._lock:
            channels = list(self._channels.values())
        out = []
        for ch in channels:
            with ch.cond:
                if ch.presence:
                    out.append((ch.key, dict(ch.presence)))
        return out

    def admit(self, client: str, code: str) -> None:
        """One more stream of ``client`` (refused with 429 over its caps: per table and
        in all; a real screen holds one, a phone that reconnects two for a moment)."""
        with self._lock:
            here = self._streams.get((client, code), 0)
            every = self._streams.get((client, ""), 0)
            if here >= STREAMS_PER_TABLE or every >= STREAMS_PER_CLIENT:
                raise ApiError(429, Msg("this device has too many live connections open; "
                                        "close some pages and try again"),
                               code="rate_limited", retry_after=10)
            self._streams[(client, code)] = here + 1
            self._streams[(client, "")] = every + 1

    def release(self, client: str, code: str) -> None:
        with self._lock:
            for key in ((client, code), (client, "")):
                n = self._streams.get(key, 1) - 1
                if n > 0:
                    self._streams[key] = n
                else:
                    self._streams.pop(key, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._channels)


hub = Hub()


def publish(view: dict[str, Any], since: int | None = None) -> None:
    """Send a table's new view to every open stream of that table in this process; and
    with ``since`` (the change's own transaction told nobody: :meth:`PgFanout.notify`),
    to the other processes, as what changed from the view at ``since``."""
    ch = hub.get(view["code"])
    if ch is not None:
        ch.publish(view["version"], view)
    fanout = current_app.extensions.get("live_fanout")
    if since is not None and fanout is not None:
        fanout.tell(view, since)


def delta_json(code: str, since: int, view: dict[str, Any], locale: str) -> str | None:
    """What changed from version ``since`` to ``view`` of a table, as the JSON of a
    delta in ``locale``, from the views this process keeps for its open streams (``None``
    when it does not have that view): the same text its streams are sent."""
    ch = hub.get(code)
    if ch is None:
        return None
    with ch.cond:
        if ch.version != view["version"]:
            return None
        return ch.delta_body(since, locale)


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


# --- across processes: PostgreSQL LISTEN/NOTIFY -------------------------------------

# the NOTIFY of a change, compiled once (sent by the change's own transaction)
_NOTIFY = Prepared(lambda: select(func.pg_notify(bindparam("n_channel"),
                                                 bindparam("n_payload"))))


def _told(payload: str, since: int, ops: list[list[Any]]) -> str:
    """A NOTIFY's payload with the operations from the view at ``since`` (messages as
    data), or without them when that would be too long for a NOTIFY."""
    told = f"{payload}:{since}|{lang.stored(ops)}"
    return told if len(told.encode()) <= NOTIFY_MAX else payload


class PgFanout:
    """Announce this process's changes with NOTIFY; republish other processes' changes."""

    def __init__(self, app: Flask) -> None:
        from sqlalchemy.engine import make_url
        url = make_url(app.config["SQLALCHEMY_DATABASE_URI"]).set(drivername="postgresql")
        self.conninfo = url.render_as_string(hide_password=False)
        self.app = app
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._sender: threading.Thread | None = None
        self._said: queue.Queue[tuple[str, dict[str, int]] | None] = queue.Queue()
        self._due: dict[str, int] = {}          # tables changed elsewhere: code -> version
        self._loading: set[str] = set()
        self._due_cond = threading.Condition()
        self._loaders: list[threading.Thread] = []
        self.ready = threading.Event()
        self.stopped = threading.Event()

    def announce(self, code: str, presence: dict[str, int]) -> None:
        """This process's open streams of ``code`` changed: tell the others (queued: the
        caller may be the event loop, which never waits for the database)."""
        if not code.startswith("_"):
            self._said.put((code, presence))

    def notify(self, conn: Any, code: str, version: int, since: int,
               view: dict[str, Any] | None = None) -> bool:
        """Tell the other processes that ``code`` is at ``version``, inside the change's
        own transaction on ``conn``: PostgreSQL delivers a NOTIFY when, and only if, its
        transaction commits, so they hear of a change once it is durable, and a post
        pays no second round trip and commit for it (issue 24). Should the NOTIFY fail,
        the change fails with it, unacknowledged: nothing is lost, and the phone's
        retry makes it again. When this process keeps the view at ``since`` and the
        change gave its new ``view`` (made in its transaction), what changed from that
        view goes with it (``code:version:worker:since|operations``).

        False (nothing sent): this process keeps the view at ``since`` but the change
        has no view yet, so it is told after its commit (:meth:`tell`)."""
        payload = f"{code}:{version}:{WORKER}"
        ch = hub.get(code)
        if ch is not None:
            with ch.cond:
                base = ch.shown(since)
            if base is not None:
                if view is None:
                    return False
                ops = diff(base, view)
                payload = _told(payload, since, ops)
                with ch.cond:
                    ch.told = (since, ops, view)
        _NOTIFY.run(conn, n_channel=NOTIFY_CHANNEL, n_payload=payload)
        return True

    def tell(self, view: dict[str, Any], since: int) -> None:
        """Tell the other processes of a committed change as what changed from the view
        at ``since`` (``code:version:worker:since|operations``, messages kept as data),
        so one that shows that view applies it instead of reading the table and making
        the view again (issue 24: that cost each other worker ~2.5 ms a change); too
        long for a NOTIFY, or that view gone, it is told as any change is. (A change
        whose view was made in its transaction told them there: :meth:`notify`.)"""
        code, version = view["code"], view["version"]
        payload = f"{code}:{version}:{WORKER}"
        ch = hub.get(code)
        if ch is not None:
            with ch.cond:
                base = ch.views.get(since)
                ops = ch.ops.get(since) if ch.version == version else None
            if ops is None and base is not None:
                ops = diff(base, view)
            if ops is not None:
                payload = _told(payload, since, ops)
        try:
            _NOTIFY.run(db.session.connection(), n_channel=NOTIFY_CHANNEL, n_payload=payload)
            db.session.commit()
        except Exception:   # the change is committed: never fail its answer for the push
            db.session.rollback()
            log.warning("live: could not NOTIFY the change %s:%s", code, version, exc_info=True)

    def start(self) -> None:
        """Start listening (once per process and app: when the first stream opens)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="pg-listen", daemon=True)
                self._thread.start()
                self._sender = threading.Thread(target=self._send, name="pg-presence",
                                                daemon=True)
                self._sender.start()
                self._loaders = [threading.Thread(target=self._load, name=f"pg-load-{i}",
                                                  daemon=True) for i in range(LOADERS)]
                for t in self._loaders:
                    t.start()
                _announce.append(self.announce)
        self.ready.wait(5)

    def stop(self) -> None:
        """Stop listening (within a second): the app is going away."""
        self.stopped.set()
        self._said.put(None)
        with suppress(ValueError):
            _announce.remove(self.announce)
        with self._due_cond:
            self._due_cond.notify_all()
        for t in (self._thread, self._sender, *self._loaders):
            if t is not None:
                t.join(5)

    def _send(self) -> None:
        """Announce this process's presence changes, and all of it again now and then
        (and when another process starts listening: it asks with ``p?``)."""
        import psycopg
        last = 0.0
        while not self.stopped.is_set():
            try:
                with psycopg.connect(self.conninfo, autocommit=True) as conn:
                    while not self.stopped.is_set():
                        wait = max(0.0, last + ANNOUNCE_EVERY - time.monotonic())
                        try:
                            item = self._said.get(timeout=wait)
                        except queue.Empty:
                            item = ("", {})
                        if item is None:
                            return
                        if item[0] == "?":
                            self._notify(conn, "p?")
                            continue
                        said = [item] if item[0] else hub.presences()
                        if not item[0]:
                            last = time.monotonic()
                        for code, presence in said:
                            self._notify(conn, presence_payload(code, presence))
            except Exception:
                log.warning("live: could not announce presence; reconnecting", exc_info=True)
                self.stopped.wait(1.0)

    @staticmethod
    def _notify(conn: Any, payload: str) -> None:
        conn.execute("SELECT pg_notify(%s, %s)", (NOTIFY_CHANNEL, payload))

    def _run(self) -> None:
        import psycopg
        delay = 0.5
        while not self.stopped.is_set():
            try:
                with psycopg.connect(self.conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self._catch_up()
                    self.ready.set()
                    self._said.put(("?", {}))      # the others: say who is connected
                    self._said.put(("", {}))       # ... and so do we
                    delay = 0.5
                    while not self.stopped.is_set():
                        for n in conn.notifies(timeout=1.0):
                            self._changed(n.payload)
            except Exception:
                log.warning("live: lost the PostgreSQL listener; reconnecting", exc_info=True)
                self.stopped.wait(delay)
                delay = min(delay * 2, 10.0)

    def _catch_up(self) -> None:
        """Every table this process shows, read again once the listener is (back) up: a
        change another process committed while it was away (the database restarted, the
        connection dropped) was announced to no one here, and its screens would wait for
        the next change. A table with nothing new costs one read and publishes nothing."""
        codes = hub.codes()
        if codes:
            with self._due_cond:
                for code in codes:
                    self._due.setdefault(code, 0)
                self._due_cond.notify_all()

    def _changed(self, payload: str) -> None:
        """A NOTIFY: another process's presence, or a change to a table. A change is
        noted for the loaders (the latest version per table: changes that came while
        one was loaded are one load), so the listener never waits for the database."""
        if payload.startswith(("p|", "p?")):
            self._presence(payload)
            return
        head, _, ops = payload.partition("|")
        code, _, rest = head.partition(":")
        v, _, rest = rest.partition(":")
        worker, _, since = rest.partition(":")
        if worker == WORKER:
            return      # this process made the change (its streams have it, or will)
        ch = hub.get(code)
        if ch is None or not v.isdigit() or int(v) <= ch.version:
            return      # nobody here watches that table, or we saw the change already
        if ops and since.isdigit() and self._apply(ch, int(since), int(v), ops):
            return
        with self._due_cond:
            if int(v) > self._due.get(code, 0):
                self._due[code] = int(v)
                self._due_cond.notify()

    @staticmethod
    def _apply(ch: Channel, since: int, version: int, ops: str) -> bool:
        """Another process's change as operations from the view at ``since``: applied
        to this process's view when it is that one (the view it keeps is left as it
        was), and published; False when it is not (the table is read instead)."""
        with ch.cond:
            base = ch.shown(since)
        if base is None:
            return False
        try:
            view = patched(base, lang.revive(ops))
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            log.warning("live: a change to %s could not be applied; reading it", ch.key,
                        exc_info=True)
            return False
        ch.publish(version, view)
        return True

    def _load(self) -> None:
        """A loader: the tables changed elsewhere, one at a time each, published to this
        process's streams (``LOADERS`` of them: one table's database read need not hold
        up another's)."""
        from ..store.models import db
        while not self.stopped.is_set():
            with self._due_cond:
                code = next((c for c in self._due if c not in self._loading), None)
                if code is None:
                    self._due_cond.wait(1.0)
                    continue
                del self._due[code]
                self._loading.add(code)
            ch = hub.get(code)
            try:
                if ch is not None:
                    with self.app.app_context():
                        try:
                            view = public_view(load(code))
                            ch.publish(view["version"], view)
                        finally:
                            db.session.remove()
            except Exception as err:
                if getattr(err, "connection_invalidated", False):
                    # the database dropped the pooled connection (it restarted: often why
                    # the listener came back and asked for this read); the pool makes a
                    # new one, so read again, a moment later
                    log.info("live: table %s read on a lost connection; reading again", code)
                    self.stopped.wait(0.2)
                    with self._due_cond:
                        self._due.setdefault(code, 0)
                else:
                    log.warning("live: could not load table %s after a NOTIFY", code,
                                exc_info=True)
            finally:
                with self._due_cond:
                    self._loading.discard(code)
                    if self._due:
                        self._due_cond.notify()


    def _presence(self, payload: str) -> None:
        """Another process's word on who is connected (``p|worker|code|{key: n}``), or
        its question ``p?`` (it just started listening: say it all again)."""
        if payload == "p?":
            self._said.put(("", {}))
            return
        try:
            _, worker, code, data = payload.split("|", 3)
            counts = {str(k): int(n) for k, n in json.loads(data).items()}
        except (ValueError, AttributeError):
            return
        if worker == WORKER:
            return
        with _remote_lock:
            by = _remote.setdefault(code, {})
            before = by.get(worker, (0.0, {}))[1]
            by[worker] = (time.monotonic(), counts)
        ch = hub.get(code)
        if ch is not None and counts != before:
            with ch.cond:
                ch._presence_changed(here=False)


def presence_payload(code: str, presence: dict[str, int]) -> str:
    """One announcement of this process's open streams of ``code`` (watchers dropped
    past what a NOTIFY holds: they are counted, never named, on the screens)."""
    kept: dict[str, int] = {}
    size = 0
    for k, n in sorted(presence.items(), key=lambda kv: kv[0].startswith(WATCH)):
        size += len(k) + 8
        if size > PRESENCE_MAX - 40:
            break
        kept[k] = n
    return f"p|{WORKER}|{code}|{json.dumps(kept, separators=(',', ':'))}"


def close(app: Flask) -> None:
    """Stop what this app started beside its requests (the PostgreSQL listener): an app
    made and dropped in one process (tests) leaves nothing behind to read its database.
    The background work that writes to it (the chances of finished games) is told too:
    it drops what it has not yet written (``CLOSED``)."""
    app.extensions[CLOSED] = True
    fanout = app.extensions.get("live_fanout")
    if fanout is not None:
        fanout.stop()


def init_app(app: Flask) -> None:
    """Fan out through PostgreSQL when the app runs on it; SQLite stays in this process."""
    if app.config["SQLALCHEMY_DATABASE_URI"].startswith("postgresql"):
        app.extensions["live_fanout"] = PgFanout(app)
