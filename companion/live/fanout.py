"""Across processes: every change told with PostgreSQL's ``NOTIFY``, every other process's
change republished to this process's streams.

With SQLite there is one process and the fan-out stays in memory. With PostgreSQL every
change is also announced with ``NOTIFY`` (table code, version and the process that made
it) sent by the change's own transaction, with what changed when the process that made
it keeps the view it changed and another process has said it shows the table (that one
applies the operations instead of reading the table); a change of the seats, whose view
is made after its commit, then tells what changed after it. Each process listens on its
own connection and republishes a change it did not make to its own streams, so two
servers on one database (or a hosted service across machines) show each other's changes.
A tap's own statement notifies only when another process listens (a session named
``LISTENER`` that is not this one's: :mod:`companion.play.written`); a process that
starts listening reads the tables it shows again ``AGAIN`` seconds later, for a change
committed as it connected.
Who is connected to a table is announced the same way (issue 24, ``serve --workers N``):
each process says which seats have a stream open on it whenever that changes, and again
every ``ANNOUNCE_EVERY`` seconds; another process's word counts for ``REMOTE_TTL``
seconds, so the streams of a worker that was killed stop counting within a minute.
"""

from __future__ import annotations

import json
import logging
import queue
import secrets
import threading
import time
from contextlib import suppress
from typing import Any

from flask import Flask
from sqlalchemy import bindparam, func, select

from ..edge import lang
from ..play.tables import load
from ..store.models import close_background, db
from ..store.prepared import Prepared
from ..table.views import public_view
from .channel import WATCH, Channel, announcers, hub, publish, remote_lock, remote_streams
from .delta import diff, patched

log = logging.getLogger(__name__)
NOTIFY_CHANNEL = "spies_lies_change"
WORKER = secrets.token_hex(6)   # this process, among those sharing one database
ANNOUNCE_EVERY = 20.0           # seconds between a process's reminders of its presence
PRESENCE_MAX = 7000             # bytes of one announcement (NOTIFY takes under 8000)
NOTIFY_MAX = 7900               # bytes of a change told with its operations
LOADERS = 4                     # threads loading the tables other processes changed
LISTENER = "spies-lies listen"  # the name of each process's listening connection
AGAIN = 2.0                     # seconds after (re)listening that shown tables are read again


# --- across processes: PostgreSQL LISTEN/NOTIFY -------------------------------------

# the NOTIFY of a change, compiled once (sent by the change's own transaction)
_NOTIFY = Prepared(lambda: select(func.pg_notify(bindparam("n_channel"),
                                                 bindparam("n_payload"))))


def shown_elsewhere(code: str) -> bool:
    """Whether another process has said that it has streams of ``code`` open (its word,
    :meth:`PgFanout._presence`, is kept for ``REMOTE_TTL``): only a process that shows the
    table applies the operations of a change, so only then are they written into its
    NOTIFY. A process whose word is still on its way reads the table instead, as for a
    change too long to tell: the same view, one read later. A table shown on one process
    alone (one server, or each table's screens on one worker) pays no encoding of
    operations nobody reads: ~4 % of a tap's CPU on PostgreSQL (issue 54)."""
    return code in remote_streams


def _told(payload: str, since: int, ops: list[list[Any]]) -> str:
    """A NOTIFY's payload with the operations from the view at ``since`` (messages as
    data), or without them when that would be too long for a NOTIFY."""
    told = f"{payload}:{since}|{lang.stored(ops)}"
    return told if len(told.encode()) <= NOTIFY_MAX else payload


class PgFanout:
    """Announce this process's changes with NOTIFY; republish other processes' changes."""

    channel = NOTIFY_CHANNEL        # what a change's own statement notifies (:meth:`payload`)
    listener = LISTENER             # ... when a session of this name other than ``me`` is
    me = 0                          # this process's listening session (0: none yet)

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
        retry makes it again. When this process keeps the view at ``since``, the
        change gave its new ``view`` (made in its transaction) and another process
        shows the table (:func:`shown_elsewhere`), what changed from that view goes
        with it (``code:version:worker:since|operations``).

        False (nothing sent): this process keeps the view at ``since``, another shows
        the table, and the change has no view yet: it is told after its commit, with
        what changed (:meth:`tell`)."""
        payload = self.payload(code, version, since, view)
        if payload is None:
            return False
        _NOTIFY.run(conn, n_channel=NOTIFY_CHANNEL, n_payload=payload)
        return True

    def payload(self, code: str, version: int, since: int,
                view: dict[str, Any] | None = None) -> str | None:
        """What :meth:`notify` sends for this change (a caller that sends it in a
        statement of its own: :mod:`companion.play.written`), or ``None``: the change is
        to be told after its commit (:meth:`tell`)."""
        payload = f"{code}:{version}:{WORKER}"
        ch = hub.get(code)
        if ch is None:
            return payload
        if view is None:
            with ch.cond:
                base = ch.shown(since)
            # told after the commit with what changed, if anyone would read it
            return None if base is not None and shown_elsewhere(code) else payload
        ops = ch.prepare(since, view)          # (the streams here send them too)
        return _told(payload, since, ops) if ops is not None and shown_elsewhere(code) \
            else payload

    def ahead(self, code: str) -> bool:
        """Whether a change of ``code`` may be told before its view is made: no other
        process shows the table, so its NOTIFY carries no operations (:meth:`payload`
        without a view), and the view can be made while the change is written
        (:meth:`prepare`)."""
        return not shown_elsewhere(code)

    def prepare(self, code: str, since: int, view: dict[str, Any]) -> None:
        """What this process's streams of ``code`` will be sent for the change from
        ``since`` to ``view``, made now (while its statement is being written) for its
        publish to use once it is committed."""
        ch = hub.get(code)
        if ch is not None:
            ch.prepare(since, view)

    def show(self, view: dict[str, Any]) -> None:
        """Send this process's streams a committed change's view (the others were told
        by its NOTIFY): :func:`.channel.publish`, called by the change itself."""
        publish(view)

    def tell(self, view: dict[str, Any], since: int) -> None:
        """Tell the other processes of a committed change as what changed from the view
        at ``since`` (``code:version:worker:since|operations``, messages kept as data),
        so one that shows that view applies it instead of reading the table and making
        the view again (issue 24: that cost each other worker ~2.5 ms a change); too
        long for a NOTIFY, or that view gone, it is told as any change is. (A change
        whose view was made in its transaction told them there: :meth:`notify`.) Told
        as any change when no other process shows the table (:func:`shown_elsewhere`)."""
        code, version = view["code"], view["version"]
        payload = f"{code}:{version}:{WORKER}"
        ch = hub.get(code) if shown_elsewhere(code) else None
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
                announcers.append(self.announce)
        self.ready.wait(5)

    def stop(self) -> None:
        """Stop listening (within a second): the app is going away."""
        self.stopped.set()
        self._said.put(None)
        with suppress(ValueError):
            announcers.remove(self.announce)
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
                with psycopg.connect(self.conninfo, autocommit=True,
                                     application_name=LISTENER) as conn:
                    conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self.me = conn.info.backend_pid
                    self._catch_up()
                    again = time.monotonic() + AGAIN
                    self.ready.set()
                    self._said.put(("?", {}))      # the others: say who is connected
                    self._said.put(("", {}))       # ... and so do we
                    delay = 0.5
                    while not self.stopped.is_set():
                        for n in conn.notifies(timeout=1.0):
                            self._changed(n.payload)
                        if again and time.monotonic() >= again:
                            # a change whose statement found no listener but ours
                            # connecting, committed as it connected: read here too
                            self._catch_up()
                            again = 0.0
            except Exception:
                self.me = 0
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
        with remote_lock:
            by = remote_streams.setdefault(code, {})
            before = by.get(worker, (0.0, {}))[1]
            by[worker] = (time.monotonic(), counts)
        ch = hub.get(code)
        if ch is not None and counts != before:
            with ch.cond:
                ch.presence_changed(here=False)


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
    close_background(app)
    fanout = app.extensions.get("live_fanout")
    if fanout is not None:
        fanout.stop()


def init_app(app: Flask) -> None:
    """Fan out through PostgreSQL when the app runs on it; SQLite stays in this process."""
    if app.config["SQLALCHEMY_DATABASE_URI"].startswith("postgresql"):
        app.extensions["live_fanout"] = PgFanout(app)
