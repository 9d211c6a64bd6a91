"""A table's channel (its latest views, framed once per language, and who is connected)
and the hub of this process's channels, with the caps on open streams per client.

A change publishes the table's new view to its channel; every open stream of the table
wakes and takes what it needs: what changed since the view it shows (``event: delta``,
operations from :mod:`.delta`; a few hundred bytes), or the whole view when it is too
far behind (``event: state``). Each is encoded and framed *once per base version and
language in use at the table* (the words are data until then), by the thread that made
the change: the streams only write bytes. A channel exists only while a stream of its
table is open.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from flask import current_app

from ..edge import lang
from ..edge.errors import ApiError
from ..engine import Msg
from .delta import diff

WATCH = "watch:"            # presence keys of watchers: watch:<client>:<device>
DEVICES_PER_CLIENT = 4      # watching devices one address counts for at most
STREAMS_PER_TABLE = 16      # live streams one client may hold on one table ...
STREAMS_PER_CLIENT = 64     # ... and on all tables
KEPT = 3            # views a channel keeps, to send a screen that fell behind a delta
                    # (a late view is ~100 KB in memory: 400 tables x 3 stay well in RSS)
DELTA_MAX = 8192    # a delta longer than this is sent as the whole view instead
REMOTE_TTL = 60.0               # another process's presence counts this long after its word

# who has a stream open on the *other* processes: code -> worker -> (when, key -> streams)
remote_streams: dict[str, dict[str, tuple[float, dict[str, int]]]] = {}
remote_lock = threading.Lock()
# called with (code, this process's presence) when it changes (PgFanout.announce)
announcers: list[Callable[[str, dict[str, int]], None]] = []


def remote_presence(code: str) -> dict[str, int]:
    """The other processes' open streams of ``code``, by presence key (fresh words only)."""
    with remote_lock:
        by = remote_streams.get(code)
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
            del remote_streams[code]
        return out


def _merged(local: dict[str, int], code: str) -> dict[str, int]:
    remote = remote_presence(code)
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


def _delta_message(version: int, body: str) -> bytes:
    """A delta's JSON as its SSE message."""
    return f"id: {version}\nevent: delta\ndata: {body}\n\n".encode()


class Told(NamedTuple):
    """A change's delta made before its commit (:meth:`Channel.prepare`)."""

    since: int
    ops: list[list[Any]]
    view: dict[str, Any]
    encoded: dict[str, tuple[str, bytes]]     # language -> (its JSON, its SSE message)


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
        # what a change's publish will send, made before its commit (the very view: a
        # change whose commit failed never lends its operations)
        self.told: Told | None = None
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
                told, self.told = self.told, None
                if told is not None and told.since == before and told.view is data:
                    self.ops[before] = told.ops        # diffed and encoded once, before
                    for locale, (body, msg) in told.encoded.items():
                        self.bodies[(before, locale)] = body
                        self.deltas[(before, locale)] = msg
                if isinstance(data, dict):
                    self.views[version] = data
                    for old in sorted(self.views)[:-KEPT]:
                        del self.views[old]
                    for locale in [k for k, n in self.locales.items() if n > 0]:
                        self.message_since(before, locale)
                self._changed()

    def prepare(self, since: int, view: dict[str, Any]) -> list[list[Any]] | None:
        """What the streams will be sent when ``view`` (a change not yet committed) is
        published over the view at ``since``, if this channel shows that one: the
        operations, for its NOTIFY too, and their delta in each language in use, made
        before the change's commit returns (issue 54: while its statement is written)
        and kept for :meth:`publish` to use if that very view is published. Returns the
        operations (``None``: this channel does not show the view at ``since``)."""
        with self.cond:
            base = self.shown(since)
            locales = [k for k, n in self.locales.items() if n > 0]
        if base is None:
            return None
        ops = diff(base, view)
        encoded: dict[str, tuple[str, bytes]] = {}
        for locale in locales:
            body = lang.dumps({"from": since, "to": view["version"], "ops": ops}, locale)
            msg = _delta_message(view["version"], body)
            if len(msg) <= DELTA_MAX:        # (else the whole view: made when published)
                encoded[locale] = (body, msg)
        with self.cond:
            self.told = Told(since, ops, view, encoded)
        return ops

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
            msg = _delta_message(self.version, body)
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

    def presence_changed(self, here: bool = True) -> None:
        """Tell this table's screens who is connected; ``here``: the change is this
        process's own, announced to the others too."""
        data = {"connected": self.connected(), "watching": self.watching()}
        self.presence_message = f"event: presence\ndata: {json.dumps(data)}\n\n".encode()
        self._changed()
        if here:
            for announce in announcers:
                announce(self.key, dict(self.presence))

    def join(self, who: str, locale: str = lang.DEFAULT) -> None:
        with self.cond:
            self.presence[who] = self.presence.get(who, 0) + 1
            self.locales[locale] = self.locales.get(locale, 0) + 1
            self.presence_changed()

    def leave(self, who: str, locale: str = lang.DEFAULT) -> None:
        with self.cond:
            self.presence[who] -= 1
            if self.presence[who] <= 0:
                del self.presence[who]
            self.locales[locale] -= 1
            self.presence_changed()


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
            return _watching(remote_presence(code))
        with ch.cond:
            return ch.watching()

    def connected(self, code: str) -> list[str]:
        ch = self.get(code)
        if ch is None:
            return _connected(remote_presence(code))
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
