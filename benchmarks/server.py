"""``python -m benchmarks server``: how soon a tap shows on every screen of its table.

Starts the production server with the floor endpoints added
(``python -m benchmarks.floor_server``: the companion's app and its own server with the
options of ``spies-lies serve``) on loopback with a fresh SQLite database (or
``--database-url``), opens T tables with 4 phones (team play) and the host screen each,
all five connected to the
live push, and plays random legal games through the JSON API as the phones
would (reveals tap by tap). For every accepted post it measures the time from
sending the post until *every* screen of that table has received a message
with the new version (or a later one).

Phases, each ``--seconds`` long:

- human: every table posts once every 1-2 s (random), as people at a table do;
- burst: every table posts back-to-back (the server's throughput limit).

The floor: the same server, the same client, the same number of streams, but
``/_floor/<n>`` (a bare endpoint pushing a tiny message through the same hub:
no database, no referee). Our p95 over the floor's p95 is the figure to watch.

``--anatomy`` runs that server with marks around a post's steps and prints where ours'
human-pace posts spend their time (``anatomy``).

``--soak SECONDS`` instead opens and closes tables and streams over and over and
samples the server's RSS, threads and open files, to show nothing leaks.

The client is one asyncio loop on raw sockets in this process; its own CPU use
and how late its timers fire are printed, so a busy client is visible.

This module is the command and its first mode (ours against the floors); the parts
are beside it: the server process and its /proc figures (``served``), the client
(``client``), the tables' drivers and their shared run (``drivers``), the blocks taken in
turn and their figures (``measure``), ``--soak`` (``soak``), ``--workers`` and
``--against`` (``side_by_side``), ``--chances`` (``chance_load``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from .anatomy import ANATOMY_SERVER, report
from .chance_load import chance_load
from .drivers import KINDS, Driver, FloorDriver, Run, TableDriver
from .measure import Phase, open_all, pct, play_phases
from .served import FLOOR_SERVER, Proc, running_server
from .side_by_side import against_load, scale_out
from .soak import soak


async def idle_sockets(port: int, n: int) -> list[asyncio.StreamWriter]:
    """``n`` connections that cost the server without asking anything: half never send a
    byte, half send the start of a request and never finish its headers."""
    out = []
    for i in range(n):
        _, w = await asyncio.open_connection("127.0.0.1", port)
        if i % 2:
            w.write(f"GET /api/openapi.json HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
        out.append(w)
    return out


async def bench(port: int, procs: list[Proc], tables: int, seconds: float,
                burst: float, idle: int = 0, pace: tuple[float, float] = (1.0, 2.0),
                block: float = 5.0, run: Run | None = None) -> list[Phase]:
    idlers = await idle_sockets(port, idle)
    if idle:
        print(f"  ({idle} idle or half-sent connections held open throughout)", flush=True)
    try:
        return await _bench(port, procs, tables, seconds, burst, pace, block,
                            run or Run(every=pace))
    finally:
        for w in idlers:
            w.close()


async def _bench(port: int, procs: list[Proc], tables: int, seconds: float,
                 burst: float, pace: tuple[float, float], block: float,
                 run: Run) -> list[Phase]:
    """The floor, the durable floor and the tables, all open at once (the same number
    of streams each), posting in turn in short blocks."""
    drivers: list[Driver] = [*(FloorDriver(port, run, n) for n in range(tables)),
                             *(FloorDriver(port, run, tables + n, durable=True)
                               for n in range(tables)),
                             *(TableDriver(port, run, seed) for seed in range(tables))]
    t0 = time.perf_counter()
    await open_all(drivers)
    print(f"  ({tables} floor channels, {tables} durable floor channels and {tables} tables "
          f"seated: {len(drivers) * 5} streams open in {time.perf_counter() - t0:.1f} s)",
          flush=True)
    return await play_phases(drivers, run, {k: procs for k in KINDS}, seconds, burst, block)


def main(args: argparse.Namespace) -> int:
    tables = args.tables
    threads = getattr(args, "threads", None) or 32
    idle = getattr(args, "idle", 0) or 0
    lo, _, hi = (getattr(args, "pace", None) or "1-2").partition("-")
    pace = (float(lo), float(hi or lo))
    database_url = getattr(args, "database_url", None)
    soak_seconds = getattr(args, "soak", None)
    seconds = max(args.seconds, 5.0)
    from companion.run.server import raise_file_limit
    raise_file_limit(tables * 18 + idle + 1024)     # this client's sockets too
    burst = getattr(args, "burst", None) or max(5.0, seconds / 3)
    block = getattr(args, "block", None) or 5.0
    against = getattr(args, "against", None)
    if against and database_url and (getattr(args, "chances", False)
                                     or not database_url.startswith("postgresql")):
        print("error: --chances --against runs each checkout's server on a SQLite file of its "
              "own, and server --against on SQLite or on a PostgreSQL cluster (a database of "
              "each side's own): leave out --database-url", file=sys.stderr)
        return 2
    if against and (getattr(args, "workers", None) or 1) > 1:
        print("error: server --against compares two checkouts' single servers; --workers "
              "compares one process with several: one at a time", file=sys.stderr)
        return 2
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"server benchmark: {tables} tables x (4 phones + 1 host screen) = {tables * 5} "
          f"open screens, the companion's server (event loop + {threads} request threads), "
          f"{'PostgreSQL' if database_url else 'SQLite'}; "
          f"{os.cpu_count()} cores; load average before: {load}", flush=True)
    print(f"  database: {durability(database_url)}", flush=True)
    if getattr(args, "chances", False):
        return chance_load(database_url, against, tables, threads, seconds, pace, block)
    if against:
        return against_load(against, tables, threads, seconds, burst, pace, block,
                            database_url)
    workers = getattr(args, "workers", None) or 1
    if workers > 1:
        if not (database_url or "").startswith("postgresql"):
            print("error: --workers needs --database-url postgresql+psycopg://… (the "
                  "companion refuses several processes on SQLite)", file=sys.stderr)
            return 2
        return scale_out(database_url or "", workers, tables, threads, seconds, burst, pace,
                         block)
    anatomy = None
    if getattr(args, "anatomy", False):      # the server with marks around a post's steps
        anatomy = Path(tempfile.mkdtemp(prefix="spies-lies-anatomy-"), "marks.json")
        os.environ["ANATOMY_OUT"] = str(anatomy)
    run = Run(every=pace)
    with running_server(threads, database_url,
                        ANATOMY_SERVER if anatomy else FLOOR_SERVER) as (srv, proc):
        if soak_seconds:
            print(f"soak: {soak_seconds:.0f} s of tables opening, playing and closing")
            return asyncio.run(soak(srv.port, proc, tables, soak_seconds))
        print(f"phases: human pace (a post per table every {pace[0]:g}-{pace[1]:g} s, "
              f"~{tables * 2 / (pace[0] + pace[1]):.0f} posts/s in all) {seconds:.0f} s, "
              f"burst (back-to-back) {burst:.0f} s, for each of: the floor (a push, nothing "
              f"else), the durable floor (a push after one durable single-row commit) and "
              f"ours; latency = post sent -> all 5 screens have it", flush=True)
        results = asyncio.run(bench(srv.port, [proc], tables, seconds, burst, idle, pace,
                                    block, run))
        if anatomy:
            time.sleep(2.5)                  # the server's last marks are written
            report(anatomy, run.blocks)
            shutil.rmtree(anatomy.parent, ignore_errors=True)
    by = {(p.kind, p.name): p for p in results}

    def p95(kind: str, q: float = 95) -> float:
        return pct(by[(kind, "human")].latencies, q) * 1000

    def rate(kind: str) -> float:
        p = by[(kind, "burst")]
        return len(p.latencies) / p.seconds
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    cpu = {k: by[(k, "burst")].cpu_ms for k in KINDS}
    print(f"result: {tables * 5} screens of each kind; human pace p95 ours {p95('ours'):.2f} ms"
          f" / durable floor {p95('durable'):.2f} ms = {p95('ours') / p95('durable'):.2f} x "
          f"(target <= 2), p99 {p95('ours', 99):.2f} / {p95('durable', 99):.2f} ms = "
          f"{p95('ours', 99) / p95('durable', 99):.2f} x (target <= 3); against the floor "
          f"(p95 {p95('floor'):.2f} ms): {p95('ours') / p95('floor'):.2f} x")
    print(f"  burst {rate('ours'):.0f} posts/s vs floor {rate('floor'):.0f} = "
          f"{rate('ours') / rate('floor') * 100:.0f}% (target >= 40%), durable floor "
          f"{rate('durable'):.0f}; server CPU per post in the burst: ours {cpu['ours']:.2f} ms "
          f"(target <= 1.5), durable floor {cpu['durable']:.2f}, floor {cpu['floor']:.2f}; "
          f"peak RSS {max(p.rss_mb for p in results):.1f} MB (target <= "
          f"{150 if tables <= 50 else 400}); load average after: {load}")
    return 0


def durability(database_url: str | None) -> str:
    """How durable the benchmark's commits are: SQLite's journal and sync settings as the
    server sets them, or PostgreSQL's ``fsync`` and ``synchronous_commit``."""
    if not database_url:
        return ("SQLite, a fresh file, WAL journal, synchronous=FULL (the default: each "
                "commit is on disk before the tap is acknowledged)")
    from sqlalchemy import create_engine, text
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            fsync = conn.execute(text("SHOW fsync")).scalar()
            sync = conn.execute(text("SHOW synchronous_commit")).scalar()
            version = conn.execute(text("SHOW server_version")).scalar()
    finally:
        engine.dispose()
    warn = "" if fsync == "on" and sync == "on" else "  NOT DURABLE: figures not comparable"
    return f"PostgreSQL {version}, fsync={fsync}, synchronous_commit={sync}{warn}"
