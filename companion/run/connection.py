"""One connection on the event loop: pywsgi's handler, made to the companion's measure.

Each connection is a greenlet: it is admitted by the guard (:mod:`companion.run.guard`)
or closed at once, reads each request's line and head within their deadlines and bounds
(:mod:`companion.run.heads`), leaves a body over ``MAX_BODY`` unread (the app refuses it
with 413 from its ``Content-Length``), and hands the request to the server's WSGI call
(:class:`companion.run.server.Server`). Idle and slow connections cost a greenlet each and
are closed after ``idle`` seconds without a byte; a client that goes away leaves one debug
line, never a trace.
"""

from __future__ import annotations

import ctypes
import errno
import logging
import os
import socket
from contextlib import suppress
from functools import partial
from typing import Any

import gevent
from gevent import socket as gsocket
from gevent.pywsgi import WSGIHandler

from .guard import Guard
from .heads import HEAD, HEAD_TOO_LARGE, TOO_LARGE, Headers, TooLarge, refuse

log = logging.getLogger(__name__)
MAX_BODY = 64 * 1024        # bytes; the app itself refuses a body over 16 KB
IDLE = 120.0                # seconds a live stream's connection may stay silent

# libc's send, called through ctypes.PyDLL: with the GIL held throughout (None: a system
# without it, Windows; every write goes through gevent's send)
try:
    _send: Any = ctypes.PyDLL(None, use_errno=True).send
    _send.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    _send.restype = ctypes.c_ssize_t
    _NOW = int(socket.MSG_DONTWAIT | socket.MSG_NOSIGNAL)
except (AttributeError, OSError, TypeError):
    _send, _NOW = None, 0


def send_holding(sock: Any, data: bytes) -> int:
    """``sock.send(data)`` without letting go of the GIL (issue 54).

    Python lets go of the GIL around every system call; the loop's writes (a push to a
    table's five screens is five) each gave a request thread the lock, and the loop
    waited up to a switch interval (5 ms) for it back, with the screens' messages
    half written. A send that cannot block takes microseconds: made with the lock
    held, the loop writes them all in one go. What the socket cannot take at once
    (or anything but a plain socket and bytes) is left to gevent's own send."""
    if type(data) is not bytes or type(sock) is not gsocket.socket:
        return int(sock.send(data))
    n = send_now(sock, data)          # (0 without libc: gevent's send)
    return n if n or not data else int(sock.send(data))


def send_now(sock: Any, data: bytes) -> int:
    """As much of ``data`` as ``sock`` takes at once (0 when it is full), sent from any
    thread with the GIL held: the loop's writes (:func:`send_holding`), and a live
    stream's message written by the thread that made it
    (:class:`companion.run.streams.Writer`). ``OSError``: the connection is gone."""
    if _send is None:            # (no libc: the loop writes every message)
        return 0
    n: int = _send(sock.fileno(), data, len(data), _NOW)
    if n >= 0:
        return n
    err = ctypes.get_errno()
    if err in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EINTR):
        return 0
    raise OSError(err, os.strerror(err))


class _Unread:
    """The body of a request refused for its size: never read, never drained."""

    def read(self, *_: Any) -> bytes:
        return b""

    def _discard(self) -> None:
        pass


class Slow(OSError):
    """A client that did not send its request in time, or closed its connection before
    its head was whole (closed without a word)."""


class Handler(WSGIHandler):  # type: ignore[misc]
    """pywsgi's handler, with its socket in the environment (a stream watches it close),
    and a body longer than ``MAX_BODY`` left unread: the app refuses it with 413 from
    its ``Content-Length`` and the connection is closed.

    Every connection sends at once (``TCP_NODELAY``): an answer's headers and body, or
    a stream's messages, never wait ~40 ms for the client's delayed acknowledgement.
    """

    peer = ""
    head_bytes = 0         # bytes of the head being read (counted by the guard)
    code: int              # pywsgi's: the status code of the answer being written

    def MessageClass(self, fp: Any, *_: Any) -> Headers:  # noqa: N802 (pywsgi's name)
        """The headers, in what the head has left after the request line (pywsgi has
        just kept that line, without its line end, in ``requestline``)."""
        guard: Guard | None = getattr(self.server, "guard", None)
        headers = Headers(fp, HEAD - len(self.requestline) - 2,
                          None if guard is None else partial(guard.took, self))
        if headers.status in TOO_LARGE:
            raise TooLarge(headers.status)
        if not headers.whole and not headers.status:
            # the client closed before its head was whole: not a request, nothing to answer
            raise Slow("the request's head was cut short")
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
            raise Slow("the request's headers came too slowly") from None
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
        if isinstance(ex, TooLarge):
            log.debug("connection from %s: %s", self.peer, ex)
            self.close_connection = True
            return ("431", HEAD_TOO_LARGE)
        return super()._handle_client_error(ex)

    def handle_one_request(self) -> Any:
        """pywsgi's, but a head refused for its size (414, 431) is answered and the
        client's further bytes read and dropped for a moment before the connection is
        closed (:func:`companion.run.heads.refuse`)."""
        result = super().handle_one_request()
        if not (isinstance(result, tuple) and result[0] in ("414", "431")):
            return result
        self.status = result[0]
        refuse(self.socket, result[1])
        return None

    def _sendall(self, data: bytes) -> None:
        """pywsgi's write, in one ``send`` (an answer or a stream's message is nearly
        always taken whole) before gevent's ``sendall`` for any rest: that asks the
        socket for its buffer size, a system call, before every write (issue 24: ~2 %
        of the server's time in a burst)."""
        try:
            sent: int = send_holding(self.socket, data)
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
