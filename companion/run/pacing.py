"""Reads of the group's memory at a human pace, per client (issue 21).

One server process runs every table's posts and every page on one interpreter. A
screen that loads the history, statistics or player pages in a loop — a script, a
stuck reload — would take as much of it as it can, and the tables' posts would wait.
So each client gets at most one such page every ``interval`` seconds: a request that
comes sooner waits on the server's event loop (no thread held, nothing refused) until
its turn. A person opening pages by hand never waits; a loop gets 10 pages a second.

The client is the socket's peer, or behind ``--trust-proxy N`` the address the N-th
proxy forwarded (as :func:`companion.edge.hosts.client` reads it).

>>> p = Pacer(interval=0.05, clock=iter([10.0, 10.0, 10.01, 10.2]).__next__)
>>> env = {"PATH_INFO": "/stats", "REQUEST_METHOD": "GET", "REMOTE_ADDR": "10.0.0.5"}
>>> [round(p.delay(env), 3) for _ in range(3)]
[0.0, 0.05, 0.09]
>>> p.delay({**env, "PATH_INFO": "/api/tables/ABCDE/state"})
0.0
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

PATHS = ("/history", "/stats", "/api/history", "/api/stats", "/api/players/")
INTERVAL = 0.1


class Pacer:
    """When each client may next be answered a page of the group's memory (used on the
    server's event loop only: no lock)."""

    def __init__(self, interval: float = INTERVAL, trust_proxy: int = 0,
                 max_clients: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.interval, self.trust_proxy, self.max_clients = interval, trust_proxy, max_clients
        self.clock = clock
        self.next: dict[str, float] = {}

    def client(self, environ: dict[str, Any]) -> str:
        if self.trust_proxy:
            hops = [h.strip() for h in environ.get("HTTP_X_FORWARDED_FOR", "").split(",")
                    if h.strip()]
            if len(hops) >= self.trust_proxy:
                return str(hops[-self.trust_proxy])
        return str(environ.get("REMOTE_ADDR", ""))

    def delay(self, environ: dict[str, Any]) -> float:
        """Seconds this request waits before it is run (0: at once)."""
        if environ.get("REQUEST_METHOD") != "GET" or \
                not str(environ.get("PATH_INFO", "")).startswith(PATHS):
            return 0.0
        now, who = self.clock(), self.client(environ)
        turn = max(now, self.next.get(who, now))
        if len(self.next) >= self.max_clients:
            self.next = {k: t for k, t in self.next.items() if t > now}
        self.next[who] = turn + self.interval
        return turn - now
