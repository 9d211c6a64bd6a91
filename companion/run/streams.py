"""Live streams on the event loop (issue 15).

A live stream (``GET /api/tables/<code>/stream``) is checked and opened by the app on a
thread like any request, then handed back to the loop (``environ["companion.loop"]``):
from there it is a greenlet, an event and a socket. When its channel changes
(:func:`companion.live.add_waker`), the thread that changed it writes the message itself
if the socket takes it at once (:class:`Writer`, issue 54); else a thread-safe watcher
wakes the greenlet. It ends when its socket closes. A screen's stream waits most of its
life: here the wait holds no thread.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import gevent
from gevent.event import Event

from .. import live
from ..edge.compress import stream_packer
from .connection import send_now


class Writer:
    """One live stream's socket, written by whichever thread has its news first (issue 54).

    A tap's push used to wake the loop, which wrote its table's streams once it had the
    GIL: behind any request thread at work, up to a switch interval (5 ms). Now the
    thread that changed the channel writes each screen's message itself (:meth:`now`),
    with the GIL held throughout, when the socket takes it whole at once; the loop writes
    only what that left (a socket that was full, a message that came while the loop was
    writing), keep-alives, and the stream's first bytes, with the response's head.

    The stream's gzip (for a client that accepts it) and HTTP/1.1 chunks are made here,
    in the order they are sent, one writer at a time (``lock``): a thread that finds the
    stream taken leaves its message to the loop.
    """

    def __init__(self, sub: live.Subscription, sock: Any, chunked: bool, gz: bool) -> None:
        self.sub, self.sock, self.chunked = sub, sock, chunked
        self.ev = Event()            # set on the loop: the stream has news the loop writes
        self.lock = threading.Lock()
        self.pack = stream_packer() if gz else None
        self.rest = b""              # bytes sent in part: the loop sends the rest first
        self.ready = False           # the head is out: others may write after it
        self.closed = False

    def _packed(self, data: bytes) -> bytes:
        """``data`` gzipped for a client that accepts it, in the stream's order (hold
        ``lock``)."""
        return data if self.pack is None else self.pack(data)

    def _due(self, extra: bytes = b"") -> bytes:
        """What the socket is to be sent next: what is left, then what the screen has not
        had yet and ``extra``, packed and framed (hold ``lock``)."""
        news = b"".join(self.sub.take()) + extra
        if not news:
            return self.rest
        data = self._packed(news)
        return self.rest + (b"%x\r\n%b\r\n" % (len(data), data) if self.chunked else data)

    def head(self, data: bytes) -> bytes:
        """The stream's first bytes, for pywsgi to write after the response's head (it
        frames them)."""
        with self.lock:
            return self._packed(data)

    def now(self) -> bool:
        """From any thread: send the screen what it has not had yet, if the socket takes
        it at once. True: it has everything; False: the loop is to write (the stream is
        busy, or the socket took only a part, or is gone)."""
        if not self.lock.acquire(blocking=False):
            return False
        try:
            if not self.ready or self.closed or self.rest:
                return False
            data = self._due()
            if not data:
                return True
            try:
                sent = send_now(self.sock, data)
            except OSError:              # the screen left: its loop notices and ends it
                sent = 0
            self.rest = data[sent:]
            return not self.rest
        finally:
            self.lock.release()

    def write(self, extra: bytes = b"") -> bool:
        """On the loop: what is left to send, what the screen has not had yet, then
        ``extra``, waiting for room if need be. Whether anything was sent."""
        with self.lock:
            data = self._due(extra)
            if not data:
                return False
            sent = send_now(self.sock, data)       # (OSError: the stream ends)
            rest = self.rest = data[sent:]
        if rest:              # the rest when the socket has room, the loop serving others
            self.sock.sendall(rest)
            with self.lock:
                self.rest = b""
        return True


class Waker:
    """Tells the streams of a channel that changed, from whatever thread changed it.

    Any thread calls it with the channel's key: each of this loop's streams of that
    channel is written at once when it can be (:meth:`Writer.now`); for any other, the
    loop's thread-safe async watcher then sets its event, on the loop.
    """

    def __init__(self, loop: Any) -> None:
        self._lock = threading.Lock()
        self._changed: set[str] = set()
        self.streams: dict[str, set[Writer]] = {}        # changed on the loop only
        self._watcher = loop.async_(ref=False)
        self._watcher.start(self._wake)

    def __call__(self, key: str) -> None:
        streams = self.streams.get(key)
        # (a copy: one step with the GIL held, while the loop may add or drop one)
        if streams and all([w.now() for w in list(streams)]):
            return
        with self._lock:
            self._changed.add(key)
        self._watcher.send()

    def _wake(self) -> None:
        with self._lock:
            changed, self._changed = self._changed, set()
        for key in changed:
            for w in self.streams.get(key, ()):
                w.ev.set()

    def add(self, key: str, w: Writer) -> None:
        self.streams.setdefault(key, set()).add(w)

    def discard(self, key: str, w: Writer) -> None:
        ws = self.streams.get(key)
        if ws is not None:
            ws.discard(w)
            if not ws:
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

    def serve(self, sub: live.Subscription, keepalive: float, sock: Any,
              chunked: bool = True, gz: bool = False) -> Iterator[bytes]:
        """A live stream on the loop: its first bytes through pywsgi, with the head; then
        each message written by its :class:`Writer` (``chunked``: HTTP/1.1's framing;
        ``gz``: gzipped), by the loop when the thread that made it could not."""
        waker = self.waker
        assert waker is not None, "a stream on a server that does not listen"
        gone = [False]
        key = sub.ch.key
        w = Writer(sub, sock, chunked, gz)
        waker.add(key, w)
        watch = gevent.spawn(_watch_close, sock, gone, w.ev)
        self.open += 1
        try:
            sub.open()
            yield w.head(live.CONNECTED)
            with w.lock:
                w.ready = True
            while not gone[0]:
                w.ev.clear()
                if not w.write() and not w.ev.wait(keepalive) and not gone[0]:
                    w.write(live.KEEPALIVE)
        except OSError:          # the screen went away while we wrote: the stream ends
            pass
        finally:
            with w.lock:
                w.closed = True          # nobody writes to its socket any more
            self.open -= 1
            watch.kill(block=False)
            waker.discard(key, w)
            sub.close()
