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
  (:func:`companion.live.add_waker`), ended when its socket closes;
- idle and slow connections cost a greenlet each and are closed after ``idle``
  seconds without a byte;
- a request's head is bounded (issue 50: 8 KB a line, 32 KB and 100 lines in all, else
  431), and the connections still sending theirs make room at a cap (:class:`Guard`).

So the number of open screens is bounded by memory and file descriptors, not
threads (``python -m benchmarks server`` measures it; docs/PERFORMANCE.md).
"""

from __future__ import annotations

import ctypes
import io
import logging
import resource
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from functools import partial
from typing import Any, cast

import gevent
from gevent import socket as gsocket
from gevent.event import Event
from gevent.pool import Pool
from gevent.pywsgi import WSGIHandler, WSGIServer
from gevent.threadpool import ThreadPool

from .. import live
from ..edge.compress import gzip_stream
from .pacing import Pacer

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
# a request's head (issue 50): what a connection may make the server hold before its
# request is whole. nginx's default (``large_client_header_buffers 4 8k``): a header line
# of at most 8 KB, the request line and its headers at most 32 KB together, and at most
# 100 header lines; beyond, 431 and the connection is closed. The request line itself
# stays under pywsgi's 8 KB (beyond, 414). A browser's head is 0.5-2 KB, 5 KB with
# many cookies (each at most 4 KB); so 300 connections from strangers hold ~20 MB
# (measured: 92 -> 113 MB), not the 2 GB that 100 lines of 64 KB each let them pile up.
HEADER_LINE = 8192          # bytes in one header line, its line end included
HEAD = 32 * 1024            # bytes in the request line and its header lines together
HEADER_LINES = 100          # header lines in a request
LINGER = 1.0                # seconds a refused head's client may still send (then closed)
LINGER_BYTES = 256 * 1024   # ... and at most this much of it, read and dropped
# the heads being sent, all connections together: past this the oldest make room (512
# heads at their largest: so 10,000 connections cannot hold 320 MB between them)
HEADS = 16 * 1024 * 1024
# memory handed back to the system (glibc's ``malloc_trim``) this long after this much of
# heads was let go: a head's bytes sit in the heap between longer-lived objects, so free()
# keeps them (300 heads of 25 KB: +19 MB kept for good without it, +0 with it; 14 ms)
TRIM_AFTER = 1024 * 1024
TRIM_DELAY = 1.0

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


def _trimmer() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` (``None`` elsewhere: musl, macOS): it hands back to the
    system every free page of the heap, not only its top as ``free`` does."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return cast("Callable[[int], int]", trim)


class _Unread:
    """The body of a request refused for its size: never read, never drained."""

    def read(self, *_: Any) -> bytes:
        return b""

    def _discard(self) -> None:
        pass


class _Slow(OSError):
    """A client that did not send its request in time, or closed its connection before
    its head was whole (closed without a word)."""


class Guard:
    """Who holds the server's connections (issue 20), on the event loop only (no lock).

    - one address holds at most ``per_client`` (``None``: no cap — behind a reverse
      proxy every visitor has the proxy's address, and the proxy caps them);
    - all together at most ``cap``, below the process's open-file limit;
    - at either cap a new connection makes room by closing the oldest one that is only
      *waiting* — connected or between two requests, or still sending its request line,
      its headers or its body (issue 50: a slow head is no better than silence) — the
      oldest of its own address at the per-address cap, of all at the global one. A
      live stream or a request being answered is never closed for it, so seated phones
      and the big screen always get in. (The evicted one is counted until its greenlet
      has closed it, a moment later: the count passes the cap by those only; RESERVE has
      room);
    - a waiting connection has ``line`` seconds to send its request line and ``head``
      for its headers (a body as long again), then it is closed without a word;
    - the heads being sent hold at most ``heads`` bytes together: past that, the oldest
      connection still sending one makes room (a phone's head comes in one packet and is
      read at once: it is never the oldest);
    - once heads of ``TRIM_AFTER`` bytes in all were let go, the memory they took is
      handed back to the system ``TRIM_DELAY`` seconds later (:func:`_trimmer`).
    """

    def __init__(self, cap: int, per_client: int | None, line: float, head: float,
                 heads: int = HEADS) -> None:
        self.cap, self.per_client, self.line, self.head = cap, per_client, line, head
        self.heads_cap = heads
        self.open = 0
        self.peers: dict[str, int] = {}
        # the waiting connections (their handlers), oldest first: all, and by address
        self.waiting: dict[Any, None] = {}
        self.waiting_from: dict[str, dict[Any, None]] = {}
        self.in_head: dict[Any, None] = {}     # those with part of a head, oldest first
        self.heads = 0                         # bytes of those parts, together
        self.let_go = 0                        # bytes of heads let go since the last trim
        self.trim = _trimmer()
        self.trims = 0                         # times the memory was handed back
        self._trimming: Any = None
        self.refused = self.evicted = 0
        self.expired = 0                       # closed at the request line's deadline

    def admit(self, handler: Any) -> bool:
        peer = str(handler.client_address[0]) if handler.client_address else ""
        if (self.per_client is not None and self.peers.get(peer, 0) >= self.per_client
                and not self._evict(self.waiting_from.get(peer))):
            self.refused += 1
            return False
        if self.open >= self.cap and not self._evict(self.waiting):
            self.refused += 1
            return False
        self.open += 1
        self.peers[peer] = self.peers.get(peer, 0) + 1
        handler.peer = peer
        return True

    def _evict(self, among: dict[Any, None] | None) -> bool:
        """Close the oldest of ``among`` (if any) to make room; whether one was."""
        if not among:
            return False
        self._close(next(iter(among)))
        return True

    def _close(self, handler: Any) -> None:
        """End a waiting connection at once, wherever its greenlet is: it reads the end
        of its connection (a head cut short: closed without a word; a body: 408), and
        closes it a moment later. (Not ``kill``: that lands a moment later too, and by
        then the request may have become whole and be answered.)"""
        self.arrived(handler)
        self.evicted += 1
        with suppress(OSError, AttributeError):     # (AttributeError: already closed)
            handler.socket.shutdown(socket.SHUT_RDWR)

    def wait(self, handler: Any) -> None:
        """``handler``'s connection waits for its next request (it may make room)."""
        if handler not in self.waiting:
            handler.head_bytes = 0
            self.waiting[handler] = None
            self.waiting_from.setdefault(handler.peer, {})[handler] = None

    def took(self, handler: Any, n: int) -> None:
        """``handler``'s connection sent ``n`` more bytes of its head; past ``heads``
        bytes in all, the oldest other connections still sending one make room."""
        if handler not in self.waiting:
            return
        handler.head_bytes += n
        self.heads += n
        self.in_head[handler] = None
        while self.heads > self.heads_cap:
            oldest = next((h for h in self.in_head if h is not handler), None)
            if oldest is None:
                return
            self._close(oldest)

    def arrived(self, handler: Any, whole: bool = False) -> None:
        """``handler``'s request is ``whole`` (or its connection ends, or makes room): it
        no longer makes room for another. The memory of a head that never became a
        request, or of a big one, is handed back later: an ordinary request's (~0.5-2
        KB) asks for nothing."""
        if handler in self.waiting:
            del self.waiting[handler]
            mine = self.waiting_from[handler.peer]
            del mine[handler]
            if not mine:
                del self.waiting_from[handler.peer]
            if handler in self.in_head:
                del self.in_head[handler]
                self.heads -= handler.head_bytes
                if not whole or handler.head_bytes >= HEADER_LINE:
                    self.let_go += handler.head_bytes
                if (self.let_go >= TRIM_AFTER and self._trimming is None
                        and self.trim is not None):
                    self._trimming = gevent.spawn_later(TRIM_DELAY, self._hand_back)

    def _hand_back(self) -> None:
        """Give the memory of the heads let go back to the system: ~1-15 ms on one of the
        hub's own threads (not the loop's: it serves on), at most once a ``TRIM_DELAY``."""
        self.let_go = 0
        try:
            if self.trim is not None:
                gevent.get_hub().threadpool.apply(self.trim, (0,))
                self.trims += 1
        finally:
            self._trimming = None

    def release(self, handler: Any) -> None:
        self.arrived(handler)
        self.open -= 1
        n = self.peers.get(handler.peer, 1) - 1
        if n > 0:
            self.peers[handler.peer] = n
        else:
            self.peers.pop(handler.peer, None)


_HEAD_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n"
                   b"Content-Length: 0\r\n\r\n")
_TOO_LARGE = frozenset({"Line too long", "Too many headers", "Head too large"})
_DROPPED = bytearray(16384)     # what a refused client still sends is read into it, unkept


class _TooLarge(ValueError):
    """A request's head over its limits: answered 431 and closed."""


class _Headers:
    """A request's headers, read as ``http.client.parse_headers`` reads them (Latin-1)
    but without the e-mail parser behind it, which cost ~0.2 ms a request (issue 24), and
    within the head's limits (issue 50): a line of at most ``HEADER_LINE`` bytes, at most
    ``HEADER_LINES`` of them, and ``budget`` bytes in all (what ``HEAD`` leaves after the
    request line). It answers what pywsgi asks of its headers: ``get`` (the first of a
    name, any case), ``del``, ``headers`` (the lines), ``typeheader``, ``getheader`` and
    ``status`` (not empty: the request is refused, with 431 when it is one of
    ``_TOO_LARGE``, else 400); ``took`` is told the bytes of each line read; ``whole``:
    the blank line that ends them came (not the end of the connection)."""

    __slots__ = ("status", "items", "whole")

    def __init__(self, fp: Any, budget: int = HEAD,
                 took: Callable[[int], None] | None = None) -> None:
        self.status = ""
        self.items: list[tuple[str, str]] = []
        self.whole = False
        broken = False
        for count in range(HEADER_LINES + 2):
            # never more read than a line may hold, nor than the head has left
            line = fp.readline(min(HEADER_LINE, max(budget, 0)) + 1)
            if took is not None:                # the guard counts what heads hold
                took(len(line))
            if len(line) > HEADER_LINE:
                self.status = "Line too long"
                return
            budget -= len(line)
            if budget < 0:
                self.status = "Head too large"
                return
            if line in (b"\r\n", b"\n", b""):
                self.whole = bool(line)
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
    head_bytes = 0         # bytes of the head being read (counted by the guard)
    code: int              # pywsgi's: the status code of the answer being written

    def MessageClass(self, fp: Any, *_: Any) -> _Headers:  # noqa: N802 (pywsgi's name)
        """The headers, in what the head has left after the request line (pywsgi has
        just kept that line, without its line end, in ``requestline``)."""
        guard: Guard | None = getattr(self.server, "guard", None)
        headers = _Headers(fp, HEAD - len(self.requestline) - 2,
                           None if guard is None else partial(guard.took, self))
        if headers.status in _TOO_LARGE:
            raise _TooLarge(headers.status)
        if not headers.whole and not headers.status:
            # the client closed before its head was whole: not a request, nothing to answer
            raise _Slow("the request's head was cut short")
        return headers

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
        connection is closed). From here until its request is whole (its headers and
        body read: ``companion.arrived``) the connection may make room for another."""
        guard: Guard | None = getattr(self.server, "guard", None)
        if guard is None:
            line: str = super().read_requestline()
            return line
        guard.wait(self)
        with gevent.Timeout(guard.line, False):
            line = super().read_requestline()
            guard.took(self, len(line))
            return line
        guard.expired += 1
        return ""

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
        slow is closed without an answer and with one short debug line, never a trace;
        a head over its limits is answered 431 (then closed), with a debug line too."""
        if isinstance(ex, OSError):
            log.debug("connection from %s: %s", self.peer, type(ex).__name__)
            self.close_connection = True
            return None
        if isinstance(ex, _TooLarge):
            log.debug("connection from %s: %s", self.peer, ex)
            self.close_connection = True
            return ("431", _HEAD_TOO_LARGE)
        return super()._handle_client_error(ex)

    def handle_one_request(self) -> Any:
        """pywsgi's, but a head refused for its size (414, 431) is answered and the
        client's further bytes read and dropped for a moment before the connection is
        closed: closed at once with bytes unread, the client would get a reset that
        may swallow the answer."""
        result = super().handle_one_request()
        if not (isinstance(result, tuple) and result[0] in ("414", "431")):
            return result
        self.status = result[0]
        self.socket.sendall(result[1])
        with suppress(OSError):
            self.socket.shutdown(socket.SHUT_WR)
            left = LINGER_BYTES
            with gevent.Timeout(LINGER, False):
                while left > 0:
                    got = self.socket.recv_into(_DROPPED)
                    if not got:
                        break
                    left -= got
        return None

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
        guard: Guard | None = getattr(self.server, "guard", None)
        if guard is not None:
            env["companion.arrived"] = partial(guard.arrived, self, True)
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
        # ``spies-lies serve --workers N`` (their parent made it; :mod:`companion.run.workers`)
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
