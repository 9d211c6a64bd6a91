"""``python -m benchmarks server --chances [--against PATH]``: the chance to win worked out
beside the tables (issues 24 and 25). Every table opted in, its host screen asking for the
figure as static/live.js does; the figure is a post's latency meanwhile, and how soon
and with how many playouts each game state's figure was shown."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any

from .client import Conn
from .drivers import Run, TableDriver
from .measure import pct
from .served import Family, running_server
from .side_by_side import side_by_side


@dataclass
class Figures:
    """The live figures one kind's screens were shown: how long after its game state
    each came, and its playouts; how many states there were."""

    states: int = 0
    delays: list[float] = field(default_factory=list)
    playouts: list[int] = field(default_factory=list)


class ChanceTable(TableDriver):
    """A table that opted in to the live chance to win: its host screen asks for the
    figure as static/live.js does (every 0.7 s while the figure shown is older than
    the game, every 2 s when it is not), while its kind takes its turn."""

    options = {"chances": True}

    def __init__(self, port: int, run: Run, seed: int, kind: str, source: str,
                 figures: Figures) -> None:
        super().__init__(port, run, seed, kind, source)
        self.figures = figures
        self.reached: dict[tuple[str, int], float] = {}   # (table, events) -> when

    async def _post(self, secret: str | None, path: str, body: dict[str, Any],
                    phase: str | None) -> tuple[int, dict[str, Any]]:
        got = await super()._post(secret, path, body, phase)
        key = (self.code, self.view["state"]["events"])
        if phase is not None and key not in self.reached:
            self.reached[key] = time.perf_counter()
            self.figures.states += 1
        return got

    async def play(self) -> None:
        watcher = asyncio.ensure_future(self.watch())
        try:
            await super().play()
        finally:
            watcher.cancel()

    async def watch(self) -> None:
        conn = Conn(self.port, self.source)
        shown: tuple[str, int] | None = None
        try:
            while True:
                await self.run.active[self.kind].wait()
                now = (self.code, self.view["state"]["events"])
                if shown != now:
                    st, data = await conn.request("GET", f"/api/tables/{self.code}/chances")
                    live = json.loads(data)["live"] if st == 200 else None
                    got = None if live is None else (self.code, live["events"])
                    if live is not None and got is not None and got != shown:
                        shown = got
                        at = self.reached.pop(got, None)
                        if at is not None:
                            self.figures.delays.append(time.perf_counter() - at)
                            self.figures.playouts.append(live["playouts"])
                await asyncio.sleep(2.0 if shown == now else 0.7)
        finally:
            conn.close()


def chance_load(database_url: str | None, against: str | None, tables: int, threads: int,
                seconds: float, pace: tuple[float, float], block: float) -> int:
    """Tables that opted in to the live chance to win, their host screens asking for it:
    the server at ``against`` (another checkout) and this one's, side by side (or this
    one alone), their tables taking turns in blocks at a human pace. The figure: a
    post's latency while the chances are worked out beside it."""
    from harness.server import COMPANION
    sides = [("this", None)] if against is None else [("before", against), ("this", None)]
    print(f"chance load: {tables} tables on each server, every one opted in to the live "
          f"chance to win (its host asking for the figure as live.js does); "
          f"{'PostgreSQL' if database_url else 'SQLite'}; human pace {seconds:.0f} s for "
          f"each, in blocks of {block:g} s taken in turn; "
          + "; ".join(f"{name}: {path or 'this checkout'}" for name, path in sides),
          flush=True)
    with open("/proc/loadavg") as f:
        print(f"  {os.cpu_count()} cores; load average before: "
              f"{' '.join(f.read().split()[:3])}", flush=True)
    with contextlib.ExitStack() as stack:
        servers = {name: stack.enter_context(running_server(threads, database_url, COMPANION,
                                                            path))[0]
                   for name, path in sides}
        figures = {name: Figures() for name, _ in sides}
        # (a server's CPU counts its helper's: Family)
        played = side_by_side({name: (srv.port, [Family(srv.pid)])
                               for name, srv in servers.items()}, tables, seconds, 0, pace,
                              block, lambda port, run, i, kind, source: ChanceTable(
                                  port, run, i, kind, source, figures[kind]))
    by = {kind: ph for (kind, _phase), ph in played.items()}
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    for name, _ in sides:
        fg, ph = figures[name], by[name]
        print(f"result {name}: post -> every screen p50 {pct(ph.latencies, 50) * 1000:.2f}, "
              f"p95 {pct(ph.latencies, 95) * 1000:.2f}, p99 {pct(ph.latencies, 99) * 1000:.2f}"
              f" ms; the answer p95 {pct(ph.answers, 95) * 1000:.2f} ms; CPU per post "
              f"{ph.cpu_ms:.2f} ms (the server and its helper); live figures: "
              f"{len(fg.delays)} of {fg.states} game states shown, "
              f"{pct(fg.delays, 50) * 1000:.0f} ms after the state (p50), "
              f"playouts p50 {pct([float(x) for x in fg.playouts], 50):.0f}")
    if against is not None:
        ratio = pct(by["before"].latencies, 95) / pct(by["this"].latencies, 95)
        print(f"result: p95 before / this = {ratio:.2f} x; load average after: {load}")
    return 0
