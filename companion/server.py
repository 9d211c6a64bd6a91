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

from .pacing import Pacer
from .web import live
from .web.compress import gzip_stream

log = logging.getLogger(__name__)
MAX_BODY = 64 * 1024        # bytes; the app itself refuses a body over 16 KB
IDLE = 120.0                # seconds a live stream's connection may stay silent
CONNECTIONS = 10_000        # sockets open at once (less if the open-file limit is lower)
RESERVE = 256               # open files kept for the rest: database, logs, the listener
# one address may hold this many connections: a browser opens at most 6 per server, a
# laptop showing the big screen and a few more tabs some 40; a phone a stream and a post
PER_CLIENT = 128
REQUEST_LINE = 5.0          # seconds a connection has to send a whole request line
REQUEST_HEAD = 10.0         # ... and its headers; a body has as long again

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


class _Slow(OSError):
    """A client that did not send its request in time (closed without a word)."""


class Guard:
    """Who holds the server's connections (issue 20), on the event loop only (no lock).

    - one address holds at most ``per_client`` (``None``: no cap — behind a reverse
      proxy every visitor has the proxy's address, and the proxy caps them);
    - all together at most ``cap``, below the process's open-file limit; at the cap a
      new connection makes room by closing the oldest one that is only *waiting*
      (connected, or between two requests, without a whole request line yet). A live
      stream or a request being answered is never closed for it, so seated phones and
      the big screen always get in. (The evicted one is counted until its greenlet has
      closed it, a moment later: the count passes the cap by those only; RESERVE has room);
    - a waiting connection has ``line`` seconds to send its request line and ``head``
      for its headers (a body as long again), then it is closed without a word.
    """

    def __init__(self, cap: int, per_client: int | None, line: float, head: float) -> None:
        self.cap, self.per_client, self.line, self.head = cap, per_client, line, head
        self.open = 0
        self.peers: dict[str, int] = {}
        self.waiting: dict[Any, Any] = {}      # handler -> its greenlet, oldest first
        self.refused = self.evicted = 0
        self.expired = 0                       # closed at the request line's deadline

    def admit(self, handler: Any) -> bool:
        peer = str(handler.client_address[0]) if handler.client_address else ""
        if self.per_client is not None and self.peers.get(peer, 0) >= self.per_client:
            self.refused += 1
            return False
        if self.open >= self.cap:
            if not self.waiting:
                self.refused += 1
                return False
            oldest = next(iter(self.waiting))
            self.waiting.pop(oldest)[0].kill(block=False)
            self.evicted += 1
        self.open += 1
        self.peers[peer] = self.peers.get(peer, 0) + 1
        handler.peer = peer
        return True

    def release(self, handler: Any) -> None:
        self.waiting.pop(handler, None)
        self.open -= 1
        n = self.peers.get(handler.peer, 1) - 1
        if n > 0:
            self.peers[handler.peer] = n
        else:
            self.peers.pop(handler.peer, None)


HEADER_LINE = 65536         # bytes in one header line, and header lines in a request,
HEADER_LINES = 100          # as Python's http.client allows


class _Headers:
    """A request's headers, read as ``http.client.parse_headers`` reads them (lines of
    at most ``HEADER_LINE`` bytes, at most ``HEADER_LINES`` of them, Latin-1) but
    without the e-mail parser behind it, which cost ~0.2 ms a request (issue 24). It
    answers what pywsgi asks of its headers: ``get`` (the first of a name, any case),
    ``del``, ``headers`` (the lines), ``typeheader``, ``getheader`` and ``status``
    (not empty: the request is refused with 400)."""

    __slots__ = ("status", "items")

    def __init__(self, fp: Any) -> None:
        self.status = ""
        self.items: list[tuple[str, str]] = []
        broken = False
        for count in range(HEADER_LINES + 2):
            line = fp.readline(HEADER_LINE + 1)
            if len(line) > HEADER_LINE:
                self.status = "Line too long"
                return
            if line in (b"\r\n", b"\n", b""):
                return
            if count >= HEADER_LINES:
                self.status = "Too many headers"
                return
            text = line.decode("iso-8859-1").rstrip("\r\n")
            if broken:
                continue
            if text[:1] in (" ", "\t"):
                if self.items:                 # an obsolete folded line: the value goes on
                    name, value = self.items[-1]
                    self.items[-1] = (name, f"{value} {text.strip()}")
                continue
            name, colon, value = text.partition(":")
            if not colon:       # not a header: the rest is not read as headers (as e-mail's)
                broken = True
                continue
            self.items.append((name, value.lstrip(" \t")))

    def get(self, name: str, default: Any = None) -> Any:
        name = name.lower()
        for k, v in self.items:
            if k.lower() == name:
                return v
        return default

    getheader = get

    def __delitem__(self, name: str) -> None:
        name = name.lower()
        self.items = [(k, v) for k, v in self.items if k.lower() != name]

    @property
    def headers(self) -> Iterator[str]:
        return (f"{k}: {v}\r\n" for k, v in self.items)

    @property
    def typeheader(self) -> str | None:
        return cast("str | None", self.get("content-type"))


class _Handler(WSGIHandler):  # type: ignore[misc]
    """pywsgi's handler, with its socket in the environment (a stream watches it close),
    and a body longer than ``MAX_BODY`` left unread: the app refuses it with 413 from
    its ``Content-Length`` and the connection is closed.

    Every connection sends at once (``TCP_NODELAY``): an answer's headers and body, or
    a stream's messages, never wait ~40 ms for the client's delayed acknowledgement.
    """

    peer = ""
    code: int              # pywsgi's: the status code of the answer being written

    def MessageClass(self, fp: Any, *_: Any) -> _Headers:  # noqa: N802 (pywsgi's name)
        return _Headers(fp)

    def handle(self) -> None:
        guard: Guard | None = getattr(self.server, "guard", None)
        if guard is not None and not guard.admit(self):
            with suppress(OSError):       # over a cap: closed at once, costing nothing
                self.socket.close()
            return
        try:
            with suppress(OSError):
                self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            # a live stream's connection silent this long is closed
            self.socket.settimeout(getattr(self.server, "idle", IDLE))
            super().handle()
        except OSError:                   # the client went away while we wrote: no trace
            log.debug("connection from %s ended early", self.peer)
        finally:
            if guard is not None:
                guard.release(self)

    def read_requestline(self) -> str:
        """The request line, within the guard's ``line`` seconds (else ``""``: the
        connection is closed); meanwhile the connection may make room for another."""
        guard: Guard | None = getattr(self.server, "guard", None)
        if guard is None:
            line: str = super().read_requestline()
            return line
        guard.waiting[self] = (gevent.getcurrent(),)
        try:
            with gevent.Timeout(guard.line, False):
                line = super().read_requestline()
                return line
            guard.expired += 1
            return ""
        finally:
            guard.waiting.pop(self, None)

    def read_request(self, raw_requestline: str) -> Any:
        """The headers, within the guard's ``head`` seconds of the request line."""
        guard: Guard | None = getattr(self.server, "guard", None)
        if guard is None:
            return super().read_request(raw_requestline)
        timer = gevent.Timeout(guard.head)
        timer.start()
        try:
            return super().read_request(raw_requestline)
        except gevent.Timeout as t:
            if t is not timer:
                raise
            raise _Slow("the request's headers came too slowly") from None
        finally:
            timer.close()

    def _handle_client_error(self, ex: BaseException) -> Any:
        """A connection that went silent, was reset or closed mid-request, or was too
        slow is closed without an answer and with one short debug line, never a trace."""
        if isinstance(ex, OSError):
            log.debug("connection from %s: %s", self.peer, type(ex).__name__)
            self.close_connection = True
            return None
        return super()._handle_client_error(ex)

    def _sendall(self, data: bytes) -> None:
        """pywsgi's write, in one ``send`` (an answer or a stream's message is nearly
        always taken whole) before gevent's ``sendall`` for any rest: that asks the
        socket for its buffer size, a system call, before every write (issue 24: ~2 %
        of the server's time in a burst)."""
        try:
            sent: int = self.socket.send(data)
        except OSError as ex:             # as pywsgi's own: the status says why
            self.status = f"socket error: {ex}"
            if self.code > 0:
                self.code = -self.code
            raise
        self.response_length += sent
        if sent < len(data):
            super()._sendall(memoryview(data)[sent:])

    def log_request(self) -> None:
        """No access log (the server is made with none): not even the line pywsgi
        formats, with the time of day, for every request before its no-op log drops it."""

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
                 listener: socket.socket | None = None) -> None:
        self.app, self.threads, self.connections, self.idle = app, threads, connections, idle
        self.per_client, self.request_line, self.request_head = (per_client, request_line,
                                                                  request_head)
        # ``listener``: a socket already listening, shared with the other workers of
        # ``spies-lies serve --workers N`` (their parent made it; :mod:`companion.workers`)
        self.listener = listener if listener is not None else listening_socket(host, port)
        self.port: int = self.listener.getsockname()[1]
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop: Any = None
        self._halt = False          # stop() came before the loop could hear it
        self.streams = 0                  # open live streams (read on the loop, or for tests)
        config = getattr(app, "config", {})
        self.pacer = Pacer(trust_proxy=int(config.get("TRUST_PROXY") or 0))

    # --- running ------------------------------------------------------------------

    def serve_forever(self) -> None:
        """Serve on this thread until :meth:`stop` (or Ctrl+C)."""
        files = raise_file_limit(self.connections + RESERVE)
        cap = max(16, min(self.connections, files - RESERVE))
        hub = gevent.get_hub()
        self.pool = ThreadPool(self.threads)
        self.waker = _Waker(hub.loop)
        live.add_waker(self.waker)
        listener = gsocket.socket(fileno=self.listener.detach())    # this loop's socket
        # the pool never fills (the guard closes what is over its caps), so the loop
        # always accepts: a phone's connection is never left waiting in the backlog
        self.wsgi = WSGIServer(listener, self._app, spawn=Pool(None),
                               handler_class=_Handler, log=None, error_log=log)
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
            with gevent.Timeout(head.head if head else None, _Slow("the body came too slowly")):
                body = environ["wsgi.input"].read(MAX_BODY + 1)
        except OSError:                    # reset, closed or too slow: no answer, no trace
            log.debug("a request's body did not arrive whole")
            start_response("408 Request Timeout", [("Connection", "close"),
                                                   ("Content-Length", "0")])
            return []
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
