"""Who holds the server's connections (issue 20), how long a connection may take to send
its request and how much all the heads being sent may hold (issue 50): :class:`Guard`,
kept on the event loop. The caps' defaults here are ``spies-lies serve``'s.
"""

from __future__ import annotations

import ctypes
import socket
from collections.abc import Callable
from contextlib import suppress
from typing import Any, cast

import gevent

from .heads import HEADER_LINE

# one address may hold this many connections: a browser opens at most 6 per server, a
# laptop showing the big screen and a few more tabs some 40; a phone a stream and a post
PER_CLIENT = 128
REQUEST_LINE = 5.0          # seconds a connection has to send a whole request line
REQUEST_HEAD = 10.0         # ... and its headers; a body has as long again
# the heads being sent, all connections together: past this the oldest make room (512
# heads at their largest: so 10,000 connections cannot hold 320 MB between them)
HEADS = 16 * 1024 * 1024
# memory handed back to the system (glibc's ``malloc_trim``) this long after this much of
# heads was let go: a head's bytes sit in the heap between longer-lived objects, so free()
# keeps them (300 heads of 25 KB: +19 MB kept for good without it, +0 with it; 14 ms)
TRIM_AFTER = 1024 * 1024
TRIM_DELAY = 1.0


def _trimmer() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` (``None`` elsewhere: musl, macOS): it hands back to the
    system every free page of the heap, not only its top as ``free`` does."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return cast("Callable[[int], int]", trim)


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
      has closed it, a moment later: the count passes the cap by those only; the server's
      ``RESERVE`` has room);
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
                self._trim_later()

    def _trim_later(self) -> None:
        """Hand the memory back ``TRIM_DELAY`` seconds from now once ``TRIM_AFTER`` bytes
        of heads were let go, or any at all once no head is being sent (the last of a
        crowd: on a slow machine the crowd's tail goes after the first trim, and a trim
        at its end is the one that finds the most free pages)."""
        if (self._trimming is None and self.trim is not None and self.let_go
                and (self.let_go >= TRIM_AFTER or not self.in_head)):
            self._trimming = gevent.spawn_later(TRIM_DELAY, self._hand_back)

    def _hand_back(self) -> None:
        """Give the memory of the heads let go back to the system: ~1-15 ms on one of the
        hub's own threads (not the loop's: it serves on), at most once a ``TRIM_DELAY``;
        again a ``TRIM_DELAY`` later if more was let go meanwhile."""
        self.let_go = 0
        try:
            if self.trim is not None:
                gevent.get_hub().threadpool.apply(self.trim, (0,))
                self.trims += 1
        finally:
            self._trimming = None
        self._trim_later()

    def release(self, handler: Any) -> None:
        self.arrived(handler)
        self.open -= 1
        n = self.peers.get(handler.peer, 1) - 1
        if n > 0:
            self.peers[handler.peer] = n
        else:
            self.peers.pop(handler.peer, None)
