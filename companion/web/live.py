"""Live push: Server-Sent Events per table, fanned out in this process.

Every change to a table publishes its new public view; every open stream of that
table wakes and sends it. A stream that (re)connects with ``?since=V`` gets the
current view at once when the table is past ``V``, so a screen that slept
catches up. Phones that cannot keep a stream open poll
``GET /api/tables/<code>/state?since=V`` instead.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from typing import Any, Iterator

from flask import Blueprint, Response, current_app, request

from . import game

bp = Blueprint("live", __name__)


class Channel:
    """One table's latest view and who is connected, behind one condition."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.seq = 0                     # grows with every message
        self.version = 0
        self.view: str | None = None     # JSON of the latest public view
        self.presence: defaultdict[str, int] = defaultdict(int)   # seat id -> open streams

    def publish(self, version: int, view_json: str) -> None:
        with self.cond:
            if version >= self.version:
                self.version, self.view = version, view_json
                self.seq += 1
                self.cond.notify_all()

    def presence_json(self) -> str:
        return json.dumps({"connected": sorted(k for k, n in self.presence.items() if n > 0)})

    def join(self, who: str) -> None:
        with self.cond:
            self.presence[who] += 1
            self.seq += 1
            self.cond.notify_all()

    def leave(self, who: str) -> None:
        with self.cond:
            self.presence[who] -= 1
            self.seq += 1
            self.cond.notify_all()


class Hub:
    """All channels of this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._channels: dict[str, Channel] = {}

    def channel(self, code: str) -> Channel:
        with self._lock:
            ch = self._channels.get(code)
            if ch is None:
                ch = self._channels[code] = Channel()
            return ch

    def connected(self, code: str) -> list[str]:
        ch = self.channel(code)
        with ch.cond:
            return sorted(k for k, n in ch.presence.items() if n > 0)


hub = Hub()


def publish(view: dict[str, Any]) -> None:
    """Send a table's new view to every open stream of that table."""
    hub.channel(view["code"]).publish(view["version"], json.dumps(view))


def _stream(ch: Channel, who: str, since: int, first: str | None, version: int,
            keepalive: float) -> Iterator[str]:
    ch.join(who)
    try:
        yield ": connected\n\n"
        sent_version = since
        if first is not None and version > since:
            yield f"id: {version}\nevent: state\ndata: {first}\n\n"
            sent_version = version
        sent_presence = None
        seen = -1
        while True:
            with ch.cond:
                if ch.seq == seen:
                    ch.cond.wait(keepalive)
                if ch.seq == seen:
                    view, v, presence = None, sent_version, None
                else:
                    seen = ch.seq
                    view, v, presence = ch.view, ch.version, ch.presence_json()
            if view is None and presence is None:
                yield ": keep-alive\n\n"
                continue
            if view is not None and v > sent_version:
                sent_version = v
                yield f"id: {v}\nevent: state\ndata: {view}\n\n"
            if presence is not None and presence != sent_presence:
                sent_presence = presence
                yield f"event: presence\ndata: {presence}\n\n"
    finally:
        ch.leave(who)


@bp.get("/api/tables/<code>/stream")
def stream(code: str) -> Response:
    """Server-Sent Events: the table's view whenever it changes, and who is connected."""
    table = game.load(code)
    since = request.args.get("since", type=int)
    if since is None:
        since = request.headers.get("Last-Event-ID", type=int) or 0
    who = request.args.get("seat", "")
    who = who if who.isdigit() or who == "host" else "viewer"
    view = game.public_view(table)
    ch = hub.channel(table.code)
    ch.publish(view["version"], json.dumps(view))
    gen = _stream(ch, who, since, json.dumps(view), table.version,
                  current_app.config["SSE_KEEPALIVE"])
    return Response(gen, mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
