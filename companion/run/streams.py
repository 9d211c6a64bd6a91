"""Live streams on the event loop (issue 15).

A live stream (``GET /api/tables/<code>/stream``) is checked and opened by the app on a
thread like any request, then handed back to the loop (``environ["companion.loop"]``):
from there it is a greenlet, an event and a socket, woken through a thread-safe watcher
when its channel changes (:func:`companion.live.add_waker`), ended when its socket
closes. A screen's stream waits most of its life: here the wait holds no thread.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import gevent
from gevent.event import Event

from .. import live


class Waker:
    """Wakes the streams of a channel that changed, from whatever thread changed it.

    Any thread calls it with the channel's key; the loop's thread-safe async watcher
    then sets the events of that channel's streams, on the loop.
    """

    def __init__(self, loop: Any) -> None:
        self._lock = threading.Lock()
        self._changed: set[str] = set()
        self.streams: dict[str, set[Event]] = {}        # touched on the loop only
        self._watcher = loop.async_(ref=False)
        self._watcher.start(self._wake)

    def __call__(self, key: str) -> None:
        with self._lock:
            self._changed.add(key)
        self._watcher.send()

    def _wake(self) -> None:
        with self._lock:
            changed, self._changed = self._changed, set()
        for key in changed:
            for ev in self.streams.get(key, ()):
                ev.set()

    def add(self, key: str, ev: Event) -> None:
        self.streams.setdefault(key, set()).add(ev)

    def discard(self, key: str, ev: Event) -> None:
        evs = self.streams.get(key)
        if evs is not None:
            evs.discard(ev)
            if not evs:
                del self.streams[key]

    def close(self) -> None:
        self._watcher.stop()
        self._watcher.close()


def _watch_close(sock: Any, gone: list[bool], ev: Event) -> None:
    """End a stream when its client closes the connection (it sends nothing more)."""
    while True:
        try:
            data = sock.recv(1)
        except TimeoutError:
            continue                # idle is normal on a stream: keep watching
        except OSError:
            data = b""
        if not data:
            gone[0] = True
            ev.set()
            return


class Streams:
    """The live streams of one server: its :class:`Waker` (made on the loop that serves,
    :meth:`listen`) and how many streams are open (``open``: read on the loop, or by
    tests)."""

    def __init__(self) -> None:
        self.open = 0
        self.waker: Waker | None = None

    def listen(self, loop: Any) -> None:
        """Wake this loop's streams when their channels change, from now on."""
        self.waker = Waker(loop)
        live.add_waker(self.waker)

    def stop_listening(self) -> None:
        """The hub wakes this loop no more (its streams end with the server)."""
        if self.waker is not None:
            live.remove_waker(self.waker)

    def close(self) -> None:
        if self.waker is not None:
            self.waker.close()

    def serve(self, sub: live.Subscription, keepalive: float, sock: Any) -> Iterator[bytes]:
        """A live stream on the loop: wait for its channel, write what is new."""
        waker = self.waker
        assert waker is not None, "a stream on a server that does not listen"
        ev, gone = Event(), [False]
        key = sub.ch.key
        waker.add(key, ev)
        watch = gevent.spawn(_watch_close, sock, gone, ev) if sock is not None else None
        self.open += 1
        try:
            sub.open()
            yield live.CONNECTED
            while not gone[0]:
                ev.clear()
                out = sub.take()
                if out:
                    yield b"".join(out)
                elif not ev.wait(keepalive) and not gone[0]:
                    yield live.KEEPALIVE
        finally:
            self.open -= 1
            if watch is not None:
                watch.kill(block=False)
            waker.discard(key, ev)
            sub.close()
