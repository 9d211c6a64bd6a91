"""A request's head, read within its bounds, and refused beyond them (issue 50).

A head is what a connection may make the server hold before its request is whole.
The bounds are nginx's default (``large_client_header_buffers 4 8k``): a header line of
at most 8 KB, the request line and its headers at most 32 KB together, and at most 100
header lines; beyond, 431 and the connection is closed. The request line itself stays
under pywsgi's 8 KB (beyond, 414). A browser's head is 0.5-2 KB, 5 KB with many cookies
(each at most 4 KB); so 300 connections from strangers hold ~20 MB (measured: 92 -> 113
MB), not the 2 GB that 100 lines of 64 KB each let them pile up. How much all the heads
being sent may hold together is the guard's (:class:`companion.run.guard.Guard`).
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from contextlib import suppress
from typing import Any, cast

import gevent

HEADER_LINE = 8192          # bytes in one header line, its line end included
HEAD = 32 * 1024            # bytes in the request line and its header lines together
HEADER_LINES = 100          # header lines in a request
LINGER = 1.0                # seconds a refused head's client may still send (then closed)
LINGER_BYTES = 256 * 1024   # ... and at most this much of it, read and dropped

HEAD_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n"
                  b"Content-Length: 0\r\n\r\n")
TOO_LARGE = frozenset({"Line too long", "Too many headers", "Head too large"})
_DROPPED = bytearray(16384)     # what a refused client still sends is read into it, unkept


class TooLarge(ValueError):
    """A request's head over its limits: answered 431 and closed."""


class Headers:
    """A request's headers, read as ``http.client.parse_headers`` reads them (Latin-1)
    but without the e-mail parser behind it, which cost ~0.2 ms a request (issue 24), and
    within the head's limits (issue 50): a line of at most ``HEADER_LINE`` bytes, at most
    ``HEADER_LINES`` of them, and ``budget`` bytes in all (what ``HEAD`` leaves after the
    request line). It answers what pywsgi asks of its headers: ``get`` (the first of a
    name, any case), ``del``, ``headers`` (the lines), ``typeheader``, ``getheader`` and
    ``status`` (not empty: the request is refused, with 431 when it is one of
    ``TOO_LARGE``, else 400); ``took`` is told the bytes of each line read; ``whole``:
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


def refuse(sock: Any, answer: bytes) -> None:
    """Send ``answer`` (a 414 or 431 for a head over its limits), then read and drop the
    client's further bytes for a moment (``LINGER`` seconds, ``LINGER_BYTES`` at most)
    before the connection is closed: closed at once with bytes unread, the client would
    get a reset that may swallow the answer."""
    sock.sendall(answer)
    with suppress(OSError):
        sock.shutdown(socket.SHUT_WR)
        left = LINGER_BYTES
        with gevent.Timeout(LINGER, False):
            while left > 0:
                got = sock.recv_into(_DROPPED)
                if not got:
                    break
                left -= got
