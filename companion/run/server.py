"""The companion's HTTP server: every connection on one event loop, Flask on threads.

Issue 15: a screen's live stream waits most of its life. Under a thread-per-request
server each open screen held a thread, so 300 threads held ~300 screens, and idle
sockets took the rest. Here gevent's loop (no monkey-patching) owns every socket:

- it reads each request (a body is refused with 413 from its ``Content-Length``
  before it is read, and read whole, at most 64 KB, before any thread sees it), then
  runs the Flask app on a pool of ``threads`` real threads (:meth:`Server._app`).
  SQLAlchemy, sqlite3 and psycopg stay in ordinary threads, exactly as under any WSGI
  server;
- a live stream is handed back to the loop by the app and lives there as a greenlet,
  an event and a socket (:mod:`companion.run.streams`);
- each connection is a greenlet (:mod:`companion.run.connection`); idle and slow ones
  are closed after ``idle`` seconds without a byte;
- a request's head is bounded (issue 50: 8 KB a line, 32 KB and 100 lines in all, else
  431: :mod:`companion.run.heads`), and the connections still sending theirs make room
  at a cap (:class:`companion.run.guard.Guard`).

So the number of open screens is bounded by memory and file descriptors, not
threads (``python -m benchmarks server`` measures it; docs/PERFORMANCE.md).
"""

from __future__ import annotations

import io
import logging
import resource
import socket
import threading
from collections.abc import Callable, Iterable
from typing import Any, cast

import gevent
from gevent import socket as gsocket
from gevent.event import Event
from gevent.pool import Pool
from gevent.pywsgi import WSGIServer
from gevent.threadpool import ThreadPool

from .. import live
from .connection import IDLE, MAX_BODY, Handler, Slow
from .gcfreeze import Between
from .guard import PER_CLIENT, REQUEST_HEAD, REQUEST_LINE, Guard
from .pacing import Pacer
from .streams import Streams

log = logging.getLogger(__name__)
CONNECTIONS = 10_000        # sockets open at once (less if the open-file limit is lower)
RESERVE = 256               # open files kept for the rest: database, logs, the listener

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


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket listening on ``host:port`` (port 0: a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(1024)
    except BaseException:
        sock.close()
        raise
    return sock


class Server:
    """The app served on ``host:port``: connections on gevent's loop, requests on
    ``threads`` threads. :meth:`serve_forever` on the calling thread, or :meth:`start`
    on a thread of its own (tests) and :meth:`stop`."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0, threads: int = 32,
                 connections: int = CONNECTIONS, idle: float = IDLE,
                 per_client: int | None = PER_CLIENT, request_line: float = REQUEST_LINE,
                 request_head: float = REQUEST_HEAD,
                 listener: socket.socket | None = None, between: bool = False) -> None:
        self.app, self.threads, self.connections, self.idle = app, threads, connections, idle
        self.per_client, self.request_line, self.request_head = (per_client, request_line,
                                                                  request_head)
        # ``listener``: a socket already listening, shared with the other workers of
        # ``spies-lies serve --workers N`` (their parent made it; :mod:`companion.run.workers`)
        self.listener = listener if listener is not None else listening_socket(host, port)
        self.port: int = self.listener.getsockname()[1]
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop: Any = None
        self._halt = False          # stop() came before the loop could hear it
        self.live_streams = Streams()
        config = getattr(app, "config", {})
        self.pacer = Pacer(trust_proxy=int(config.get("TRUST_PROXY") or 0))
        # ``between``: the young garbage collected between requests (a server process's
        # own: it sets the process's collector thresholds while it serves)
        self.between = Between() if between else None

    @property
    def streams(self) -> int:
        """The live streams open now (read on the loop, or by tests)."""
        return self.live_streams.open

    # --- running ------------------------------------------------------------------

    def serve_forever(self) -> None:
        """Serve on this thread until :meth:`stop` (or Ctrl+C)."""
        files = raise_file_limit(self.connections + RESERVE)
        cap = max(16, min(self.connections, files - RESERVE))
        hub = gevent.get_hub()
        self.pool = ThreadPool(self.threads)
        self.live_streams.listen(hub.loop)
        if self.between is not None:
            self.between.listen(hub.loop)
        listener = gsocket.socket(fileno=self.listener.detach())    # this loop's socket
        # the pool never fills (the guard closes what is over its caps), so the loop
        # always accepts: a phone's connection is never left waiting in the backlog
        self.wsgi = WSGIServer(listener, self._app, spawn=Pool(None),
                               handler_class=Handler, log=None, error_log=log)
        self.wsgi.idle = self.idle
        self.guard = self.wsgi.guard = Guard(cap, self.per_client, self.request_line,
                                             self.request_head)
        done = Event()
        self._stop = hub.loop.async_(ref=False)
        self._stop.start(done.set)
        if self._halt:
            done.set()
        try:
            self.wsgi.start()
            self._ready.set()
            done.wait()
        finally:
            self.live_streams.stop_listening()
            self.wsgi.stop(timeout=1)
            self.pool.kill()
            self.live_streams.close()
            self._stop.stop()
            if self.between is not None:
                self.between.close()

    def start(self) -> Server:
        """Serve on a thread of its own (its own loop); returns once it listens."""
        self._thread = threading.Thread(target=self.serve_forever, name="companion-server",
                                        daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the server did not start")
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving (from any thread, or a signal handler) and close the listening
        socket."""
        self._halt = True
        if self._stop is not None:
            self._stop.send()
        if self._thread is not None:
            self._thread.join(timeout)

    # --- one request --------------------------------------------------------------

    def _app(self, environ: dict[str, Any], start_response: Start) -> Iterable[bytes]:
        """On the loop: read the body, run Flask on a thread, answer (or stream)."""
        head = getattr(self.wsgi, "guard", None)
        try:
            with gevent.Timeout(head.head if head else None, Slow("the body came too slowly")):
                body = environ["wsgi.input"].read(MAX_BODY + 1)
        except OSError:        # reset, closed, too slow or made room: no answer, no trace
            log.debug("a request's body did not arrive whole")
            start_response("408 Request Timeout", [("Connection", "close"),
                                                   ("Content-Length", "0")])
            return []
        arrived = environ.get("companion.arrived")
        if arrived is not None:            # whole: from now on it makes room for no one
            arrived()
        environ["wsgi.input"] = io.BytesIO(body)
        if body or "CONTENT_LENGTH" not in environ:     # else a body refused unread
            environ["CONTENT_LENGTH"] = str(len(body))
        environ["wsgi.input_terminated"] = False        # the app reads CONTENT_LENGTH
        handed: list[tuple[live.Subscription, float, bool]] = []
        environ["companion.loop"] = lambda sub, keepalive, gz: handed.append(
            (sub, keepalive, gz))
        wait = self.pacer.delay(environ)      # the group's pages at a human pace per client
        if wait:
            gevent.sleep(wait)
        between = self.between
        if between is not None:
            between.started()
        try:
            status, headers, chunks = cast(Answer, self.pool.apply(_run, (self.app, environ)))
        finally:
            if between is not None:
                between.ended()
        start_response(status, headers)
        if not handed:
            return chunks
        sub, keepalive, gz = handed[0]
        # (pywsgi frames a body in chunks but for HTTP/1.0: the stream's writer does it too)
        return self.live_streams.serve(sub, keepalive, environ["companion.socket"],
                                       environ.get("SERVER_PROTOCOL") != "HTTP/1.0", gz)


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
