"""The companion's HTTP server: every connection on one event loop, Flask on threads.

Issue 15: a screen's live stream waits most of its life. Under a thread-per-request
server each open screen held a thread, so 300 threads held ~300 screens, and idle
sockets took the rest. Here gevent's loop (no monkey-patching) owns every socket:

- it reads each request (a body is refused with 413 from its ``Content-Length``
  before it is read, and read whole, at most 64 KB, before any thread sees it), then
  runs the Flask app on a pool of ``threads`` real threads. SQLAlchemy, sqlite3 and
  psycopg stay in ordinary threads, exactly as under any WSGI server;
- a live stream (``GET /api/tables/<code>/stream``) is checked and opened by the app on
  a thread like any request, then handed back to the loop
  (``environ["companion.loop"]``): from there it is a greenlet, an event and a socket,
  woken through a thread-safe watcher when its channel changes
  (:func:`companion.web.live.add_waker`), ended when its socket closes;
- idle and slow connections cost a greenlet each and are closed after ``idle``
  seconds without a byte.

So the number of open screens is bounded by memory and file descriptors, not
threads (``python -m benchmarks server`` measures it; docs/PERFORMANCE.md).
"""

from __future__ import annotations

import io
import logging
import resource
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from typing import Any, cast

import gevent
from gevent import socket as gsocket
from gevent.event import Event
from gevent.pool import Pool
from gevent.pywsgi import WSGIHandler, WSGIServer
from gevent.threadpool import ThreadPool

from .web import live
from .web.compress import gzip_stream

log = logging.getLogger(__name__)
MAX_BODY = 64 * 1024        # bytes; the app itself refuses a body over 16 KB
IDLE = 120.0                # seconds a connection may stay silent (no request, no read)
CONNECTIONS = 10_000        # sockets open at once; beyond, new ones wait to be accepted

Start = Callable[..., Any]
Answer = tuple[str, list[tuple[str, str]], list[bytes]]     # status, headers, body


def raise_file_limit(want: int = CONNECTIONS + 1024) -> int:
    """Allow this process as many open files as the connections need (up to the hard
    limit; many systems start at 1024) and return the limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    goal = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft != resource.RLIM_INFINITY and soft < goal:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (goal, hard))
            soft = goal
        except (ValueError, OSError):
            log.warning("could not raise the open-file limit from %s", soft)
    return soft


class _Waker:
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


class _Unread:
    """The body of a request refused for its size: never read, never drained."""

    def read(self, *_: Any) -> bytes:
        return b""

    def _discard(self) -> None:
        pass


class _Handler(WSGIHandler):  # type: ignore[misc]
    """pywsgi's handler, with its socket in the environment (a stream watches it close),
    and a body longer than ``MAX_BODY`` left unread: the app refuses it with 413 from
    its ``Content-Length`` and the connection is closed.

    Every connection sends at once (``TCP_NODELAY``): an answer's headers and body, or
    a stream's messages, never wait ~40 ms for the client's delayed acknowledgement.
    """

    def handle(self) -> None:
        with suppress(OSError):
            self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # a connection silent this long (no request, or half of one; a stream whose
        # client stopped reading) is closed: idle sockets cannot pile up for ever
        self.socket.settimeout(getattr(self.server, "idle", IDLE))
        super().handle()

    def _handle_client_error(self, ex: BaseException) -> Any:
        """A connection that went silent is closed without a word (nor a log line)."""
        if isinstance(ex, TimeoutError):
            return None
        return super()._handle_client_error(ex)

    def get_environ(self) -> dict[str, Any]:
        env: dict[str, Any] = super().get_environ()
        env["companion.socket"] = self.socket
        length = env.get("CONTENT_LENGTH") or ""
        if length.isdigit() and int(length) > MAX_BODY:
            self.close_connection = True
            self.wsgi_input = env["wsgi.input"] = _Unread()
        return env


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


class Server:
    """The app served on ``host:port``: connections on gevent's loop, requests on
    ``threads`` threads. :meth:`serve_forever` on the calling thread, or :meth:`start`
    on a thread of its own (tests) and :meth:`stop`."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0, threads: int = 32,
                 connections: int = CONNECTIONS, idle: float = IDLE) -> None:
        self.app, self.threads, self.connections, self.idle = app, threads, connections, idle
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.listener = socket.socket(family, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((host, port))
        self.listener.listen(1024)
        self.port: int = self.listener.getsockname()[1]
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop: Any = None
        self.streams = 0                  # open live streams (read on the loop, or for tests)

    # --- running ------------------------------------------------------------------

    def serve_forever(self) -> None:
        """Serve on this thread until :meth:`stop` (or Ctrl+C)."""
        raise_file_limit(self.connections + 1024)
        hub = gevent.get_hub()
        self.pool = ThreadPool(self.threads)
        self.waker = _Waker(hub.loop)
        live.add_waker(self.waker)
        listener = gsocket.socket(fileno=self.listener.detach())    # this loop's socket
        self.wsgi = WSGIServer(listener, self._app, spawn=Pool(self.connections),
                               handler_class=_Handler, log=None, error_log=log)
        self.wsgi.idle = self.idle
        done = Event()
        self._stop = hub.loop.async_(ref=False)
        self._stop.start(done.set)
        try:
            self.wsgi.start()
            self._ready.set()
            done.wait()
        finally:
            live.remove_waker(self.waker)
            self.wsgi.stop(timeout=1)
            self.pool.kill()
            self.waker.close()
            self._stop.stop()

    def start(self) -> Server:
        """Serve on a thread of its own (its own loop); returns once it listens."""
        self._thread = threading.Thread(target=self.serve_forever, name="companion-server",
                                        daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the server did not start")
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving (from any thread) and close the listening socket."""
        if self._stop is not None:
            self._stop.send()
        if self._thread is not None:
            self._thread.join(timeout)

    # --- one request --------------------------------------------------------------

    def _app(self, environ: dict[str, Any], start_response: Start) -> Iterable[bytes]:
        """On the loop: read the body, run Flask on a thread, answer (or stream)."""
        body = environ["wsgi.input"].read(MAX_BODY + 1)
        environ["wsgi.input"] = io.BytesIO(body)
        if body or "CONTENT_LENGTH" not in environ:     # else a body refused unread
            environ["CONTENT_LENGTH"] = str(len(body))
        environ["wsgi.input_terminated"] = False        # the app reads CONTENT_LENGTH
        handed: list[tuple[live.Subscription, float, bool]] = []
        environ["companion.loop"] = lambda sub, keepalive, gz: handed.append(
            (sub, keepalive, gz))
        status, headers, chunks = cast(Answer, self.pool.apply(_run, (self.app, environ)))
        start_response(status, headers)
        if not handed:
            return chunks
        sub, keepalive, gz = handed[0]
        out = self._stream(sub, keepalive, environ.get("companion.socket"))
        return gzip_stream(out) if gz else out

    def _stream(self, sub: live.Subscription, keepalive: float, sock: Any) -> Iterator[bytes]:
        """A live stream on the loop: wait for its channel, write what is new."""
        ev, gone = Event(), [False]
        key = sub.ch.key
        self.waker.add(key, ev)
        watch = gevent.spawn(_watch_close, sock, gone, ev) if sock is not None else None
        self.streams += 1
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
            self.streams -= 1
            if watch is not None:
                watch.kill(block=False)
            self.waker.discard(key, ev)
            sub.close()


def _run(app: Any, environ: dict[str, Any]) -> Answer:
    """On a pool thread: the whole WSGI answer of ``app`` (a stream's body is empty: the
    loop writes it)."""
    answer: list[Any] = []

    def start_response(status: str, headers: list[tuple[str, str]],
                       exc_info: Any = None) -> Callable[[bytes], None]:
        answer[:] = [status, headers]
        return _no_write

    it = app(environ, start_response)
    try:
        chunks = [bytes(c) for c in it]
    finally:
        close = getattr(it, "close", None)
        if close is not None:
            close()
    return answer[0], answer[1], chunks


def _no_write(data: bytes) -> None:
    raise RuntimeError("the companion's server does not take write() bodies")
