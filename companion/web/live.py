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
A channel exists only while a stream of its table is open, and a stream whose phone
went away is ended within
half a second (waitress tells us through ``waitress.client_disconnected``), so
connections that come and go leak neither threads nor memory.

Across processes: with SQLite there is one process and the fan-out stays in
memory. With PostgreSQL every change is also announced with ``NOTIFY`` (table
code and version); each process listens on its own connection and republishes
a change it did not make to its own streams, so two servers on one database
(or a hosted service across machines) show each other's changes.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Flask, Response, current_app, request

from . import lang
from .compress import gzip_stream, wants_gzip
from .delta import diff
from .tables import load
from .views import public_view

bp = Blueprint("live", __name__)
log = logging.getLogger(__name__)
NOTIFY_CHANNEL = "spies_lies_change"
KEPT = 8            # views a channel keeps, to send a screen that fell behind a delta
DELTA_MAX = 8192    # a delta longer than this is sent as the whole view instead


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
        self.ops: dict[int, list[list[Any]]] = {}
        self.presence: dict[str, int] = {}   # seat id -> open streams
        self.presence_message = b""
        self.streams = 0                 # subscriptions (guarded by the hub's lock)

    def publish(self, version: int, data: str | dict[str, Any]) -> None:
        """Keep ``data`` (a view, or JSON the same in every language) as the latest
        message if it is not older, and wake the streams."""
        with self.cond:
            if version >= self.version and (version > self.version or self.data is None):
                self.version = version
                self.data = data
                self.messages, self.deltas, self.ops = {}, {}, {}
                if isinstance(data, dict):
                    self.views[version] = data
                    for old in sorted(self.views)[:-KEPT]:
                        del self.views[old]
                self.seq += 1
                self.cond.notify_all()

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
        base = self.views.get(since) if since != self.version else None
        if base is None or not isinstance(self.data, dict):
            return self.message(locale)
        msg = self.deltas.get((since, locale))
        if msg is None:
            ops = self.ops.get(since)
            if ops is None:
                ops = self.ops[since] = diff(base, self.data)
            body = lang.dumps({"from": since, "to": self.version, "ops": ops}, locale)
            msg = f"id: {self.version}\nevent: delta\ndata: {body}\n\n".encode()
            if len(msg) > DELTA_MAX:          # most of the view changed: send all of it
                msg = self.message(locale) or msg
            self.deltas[(since, locale)] = msg
        return msg

    def _presence_changed(self) -> None:
        names = sorted(k for k, n in self.presence.items() if n > 0)
        data = {"connected": names, "watching": self.presence.get("watch", 0)}
        self.presence_message = f"event: presence\ndata: {json.dumps(data)}\n\n".encode()
        self.seq += 1
        self.cond.notify_all()

    def join(self, who: str) -> None:
        with self.cond:
            self.presence[who] = self.presence.get(who, 0) + 1
            self._presence_changed()

    def leave(self, who: str) -> None:
        with self.cond:
            self.presence[who] -= 1
            if self.presence[who] <= 0:
                del self.presence[who]
            self._presence_changed()


class Hub:
    """All channels of this process; a channel lives while a stream holds it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._channels: dict[str, Channel] = {}

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

    def watching(self, code: str) -> int:
        """How many watchers (issue 14: no seat, read only) follow this table."""
        ch = self.get(code)
        if ch is None:
            return 0
        with ch.cond:
            return ch.presence.get("watch", 0)

    def connected(self, code: str) -> list[str]:
        ch = self.get(code)
        if ch is None:
            return []
        with ch.cond:
            return sorted(k for k, n in ch.presence.items() if n > 0)

    def __len__(self) -> int:
        with self._lock:
            return len(self._channels)


class _Watch:
    """One open stream whose client may go away."""

    __slots__ = ("check", "ch", "gone")

    def __init__(self, check: Callable[[], bool], ch: Channel) -> None:
        self.check, self.ch, self.gone = check, ch, False


class Reaper:
    """One thread that notices closed clients and wakes their streams (every 0.5 s).

    Without it a stream whose phone left holds its server thread until the next
    keep-alive write fails (up to 15 s): phones that come and go would starve
    the server of threads.
    """

    def __init__(self, every: float = 0.5) -> None:
        self.every = every
        self._lock = threading.Lock()
        self._watched: set[_Watch] = set()
        self._thread: threading.Thread | None = None

    def watch(self, check: Callable[[], bool] | None, ch: Channel) -> _Watch:
        w = _Watch(check or (lambda: False), ch)
        if check is None:
            return w
        with self._lock:
            self._watched.add(w)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="sse-reaper", daemon=True)
                self._thread.start()
        return w

    def unwatch(self, w: _Watch) -> None:
        with self._lock:
            self._watched.discard(w)

    def _run(self) -> None:
        while True:
            time.sleep(self.every)
            with self._lock:
                watched = list(self._watched)
            for w in watched:
                try:
                    gone = w.check()
                except Exception:   # a check must never end the reaper
                    gone = True
                if gone:
                    w.gone = True
                    with w.ch.cond:
                        w.ch.cond.notify_all()


hub = Hub()
reaper = Reaper()


def publish(view: dict[str, Any]) -> None:
    """Send a table's new view to every open stream of that table, in every process."""
    ch = hub.get(view["code"])
    if ch is not None:
        ch.publish(view["version"], view)
    fanout = current_app.extensions.get("live_fanout")
    if fanout is not None:
        fanout.notify(view["code"], view["version"])


def delta_for(code: str, since: int, view: dict[str, Any]) -> dict[str, Any] | None:
    """What changed from version ``since`` to ``view`` of a table, from the views this
    process keeps for its open streams (``None`` when it does not have that view)."""
    ch = hub.get(code)
    if ch is None:
        return None
    with ch.cond:
        base = ch.views.get(since)
        if base is None or ch.version != view["version"] or since == ch.version:
            return None
        ops = ch.ops.get(since)
        if ops is None:
            ops = ch.ops[since] = diff(base, view)
    return {"from": since, "to": view["version"], "ops": ops}


def _stream(ch: Channel, who: str, since: int, watch: _Watch,
            keepalive: float, locale: str) -> Iterator[bytes]:
    ch.join(who)
    try:
        yield b": connected\n\n"
        sent_version = since
        sent_presence = b""
        seen = -1
        while not watch.gone:
            with ch.cond:
                if ch.seq == seen and not watch.gone:
                    ch.cond.wait(keepalive)
                if watch.gone:
                    return
                if ch.seq == seen:
                    msg, v, presence = None, sent_version, None
                else:
                    seen = ch.seq
                    msg = ch.message_since(sent_version, locale)
                    v, presence = ch.version, ch.presence_message
            if msg is None and presence is None:
                yield b": keep-alive\n\n"
                continue
            if msg is not None and v > sent_version:
                sent_version = v
                yield msg
            if presence and presence != sent_presence:
                sent_presence = presence
                yield presence
    finally:
        reaper.unwatch(watch)
        ch.leave(who)
        hub.unsubscribe(ch)


def stream_response(ch: Channel, who: str, since: int, locale: str = lang.DEFAULT) -> Response:
    """The SSE response for one subscriber of ``ch`` in ``locale`` (the subscription
    ends with it)."""
    watch = reaper.watch(request.environ.get("waitress.client_disconnected"), ch)
    gen: Iterator[bytes] = _stream(ch, who, since, watch, current_app.config["SSE_KEEPALIVE"],
                                   locale)
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Vary": "Accept-Encoding"}
    if wants_gzip():                # each message flushed whole; one dictionary per stream
        gen, headers["Content-Encoding"] = gzip_stream(gen), "gzip"
    return Response(gen, mimetype="text/event-stream", headers=headers)


@bp.get("/api/tables/<code>/stream")
def stream(code: str) -> Response:
    """Server-Sent Events: the table's view whenever it changes, and who is connected."""
    since = request.args.get("since", type=int)
    if since is None:
        since = request.headers.get("Last-Event-ID", type=int) or 0
    who = request.args.get("seat", "")
    who = who if who.isdigit() or who in ("host", "watch") else "viewer"
    # subscribe before reading the view: a change committed meanwhile is not missed
    ch = hub.subscribe(code.upper())
    try:
        view = public_view(load(code, request.remote_addr or "unknown"))
        ch.publish(view["version"], view)
        fanout = current_app.extensions.get("live_fanout")
        if fanout is not None:
            fanout.start()
    except BaseException:
        hub.unsubscribe(ch)
        raise
    return stream_response(ch, who, since, lang.current())


# --- across processes: PostgreSQL LISTEN/NOTIFY -------------------------------------

class PgFanout:
    """Announce this process's changes with NOTIFY; republish other processes' changes."""

    def __init__(self, app: Flask) -> None:
        from sqlalchemy.engine import make_url
        url = make_url(app.config["SQLALCHEMY_DATABASE_URI"]).set(drivername="postgresql")
        self.conninfo = url.render_as_string(hide_password=False)
        self.app = app
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.ready = threading.Event()

    def notify(self, code: str, version: int) -> None:
        """Tell the other processes (after the change is committed)."""
        from sqlalchemy import text

        from .models import db
        try:
            db.session.execute(text("SELECT pg_notify(:ch, :payload)"),
                               {"ch": NOTIFY_CHANNEL, "payload": f"{code}:{version}"})
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
        self.ready.wait(5)

    def _run(self) -> None:
        import psycopg
        delay = 0.5
        while True:
            try:
                with psycopg.connect(self.conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self.ready.set()
                    delay = 0.5
                    for n in conn.notifies():
                        self._changed(n.payload)
            except Exception:
                log.warning("live: lost the PostgreSQL listener; reconnecting", exc_info=True)
                time.sleep(delay)
                delay = min(delay * 2, 10.0)

    def _changed(self, payload: str) -> None:
        code, _, v = payload.rpartition(":")
        ch = hub.get(code)
        if ch is None or not v.isdigit() or int(v) <= ch.version:
            return      # nobody here watches that table, or we made (or saw) the change
        from .models import db
        with self.app.app_context():
            try:
                view = public_view(load(code))
                ch.publish(view["version"], view)
            except Exception:
                log.warning("live: could not load table %s after a NOTIFY", code, exc_info=True)
            finally:
                db.session.remove()


def init_app(app: Flask) -> None:
    """Fan out through PostgreSQL when the app runs on it; SQLite stays in this process."""
    if app.config["SQLALCHEMY_DATABASE_URI"].startswith("postgresql"):
        app.extensions["live_fanout"] = PgFanout(app)
