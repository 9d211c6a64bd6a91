"""Two servers measured side by side, their tables taking turns in blocks:
``server --workers N`` (one process against N workers, on one PostgreSQL database,
:func:`scale_out`) and ``server --against PATH`` (another checkout's server and this
one's, :func:`against_load`)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from harness.server import children

from .drivers import Driver, Run, TableDriver
from .measure import Phase, open_all, pct, play_phases
from .served import Proc, running_server


def address(i: int) -> str:
    """The ``i``-th loopback address a benchmark client sends from (127.0.1.1, ...)."""
    return f"127.0.{1 + i // 250}.{1 + i % 250}"


def scale_out(database_url: str, workers: int, tables: int, threads: int, seconds: float,
              burst: float, pace: tuple[float, float], block: float) -> int:
    """``spies-lies serve`` (one process) and ``spies-lies serve --workers N`` on the same
    PostgreSQL database, ``tables`` tables on each, taking turns in blocks: what the
    second process buys in posts per second, CPU counted over each server's processes."""
    from harness.server import COMPANION
    one, many = "1 proc", f"{workers} procs"
    print(f"scale-out: {tables} tables on one process and {tables} on {workers} workers, "
          f"the same database; human pace {seconds:.0f} s and burst {burst:.0f} s for each, "
          f"in blocks of {block:g} s taken in turn", flush=True)
    with running_server(threads, database_url, COMPANION) as (a, pa), \
            running_server(threads, database_url,
                           (*COMPANION, "--workers", str(workers))) as (b, pb):
        end = time.monotonic() + 30
        while len(children(pb.pid)) < workers and time.monotonic() < end:
            time.sleep(0.2)
        procs = {one: [pa], many: [pb, *(Proc(k) for k in children(pb.pid))]}
        print(f"  one process: pid {pa.pid}; {workers} workers: pids "
              f"{', '.join(str(p.pid) for p in procs[many][1:])} (parent {pb.pid})", flush=True)
        by = side_by_side({one: (a.port, procs[one]), many: (b.port, procs[many])}, tables,
                          seconds, burst, pace, block)

    def rate(kind: str) -> float:
        return len(by[(kind, "burst")].latencies) / by[(kind, "burst")].seconds
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"result: burst {rate(many):.0f} posts/s on {workers} workers vs {rate(one):.0f} on "
          f"one = {rate(many) / rate(one):.2f} x (target >= 1.6 on 2 cores); server CPU per "
          f"post {by[(many, 'burst')].cpu_ms:.2f} vs {by[(one, 'burst')].cpu_ms:.2f} ms; human "
          f"p95 {pct(by[(many, 'human')].latencies, 95) * 1000:.2f} vs "
          f"{pct(by[(one, 'human')].latencies, 95) * 1000:.2f} ms; {os.cpu_count()} cores; "
          f"load average after: {load}")
    return 0


def side_by_side(servers: dict[str, tuple[int, list[Proc]]], tables: int, seconds: float,
                 burst: float, pace: tuple[float, float], block: float,
                 table: Callable[[int, Run, int, str, str], Driver] | None = None
                 ) -> dict[tuple[str, str], Phase]:
    """``tables`` tables on each of ``servers`` (a kind → its port and processes), taking
    turns in blocks at a human pace, then in a burst (none when ``burst`` is 0): each
    kind's phases by (kind, phase). ``table(port, run, i, kind, source)``: the driver of
    a table (``i``: its number; default a :class:`TableDriver` seeded by it)."""
    make = table or (lambda port, run, i, kind, source: TableDriver(port, run, i, kind, source))

    async def run_all() -> list[Phase]:
        run = Run(every=pace, kinds=tuple(servers))
        # each table from its own loopback address, as each group's devices would come
        # from their own: the real server caps one client's streams (64)
        drivers: list[Driver] = [
            make(port, run, 1000 * i + seed, kind, address(i * tables + seed))
            for i, (kind, (port, _procs)) in enumerate(servers.items())
            for seed in range(tables)]
        await open_all(drivers)
        procs = {kind: ps for kind, (_port, ps) in servers.items()}
        return await play_phases(drivers, run, procs, seconds, burst, block)
    return {(p.kind, p.name): p for p in asyncio.run(run_all())}


def against_load(against: str, tables: int, threads: int, seconds: float, burst: float,
                 pace: tuple[float, float], block: float, database_url: str | None = None
                 ) -> int:
    """The server of the checkout at ``against`` and this one's, each on a fresh SQLite
    file (or, with a PostgreSQL ``database_url``, a fresh database of its own in that
    cluster), ``tables`` tables on each taking turns in blocks: what a change of the post
    path buys, both sides under the same minutes of the machine's load."""
    from harness.server import COMPANION
    print(f"against: {tables} tables on the server of {against} (before) and {tables} on "
          f"this checkout's (this), each on its own "
          f"{'PostgreSQL database' if database_url else 'SQLite file'}; human pace "
          f"{seconds:.0f} s and burst {burst:.0f} s for each, in blocks of {block:g} s taken "
          f"in turn", flush=True)
    with contextlib.ExitStack() as stack:
        urls = ([stack.enter_context(scratch_database(database_url, side))
                 for side in ("before", "this")] if database_url else [None, None])
        a, pa = stack.enter_context(running_server(threads, urls[0], COMPANION, against))
        b, pb = stack.enter_context(running_server(threads, urls[1], COMPANION))
        by = side_by_side({"before": (a.port, [pa]), "this": (b.port, [pb])}, tables,
                          seconds, burst, pace, block)
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])

    def fig(kind: str) -> tuple[float, float, float, float]:
        human, fast = by[(kind, "human")], by[(kind, "burst")]
        return (pct(human.latencies, 95) * 1000, pct(human.latencies, 99) * 1000,
                len(fast.latencies) / fast.seconds, fast.cpu_ms)
    (b95, b99, brate, bcpu), (t95, t99, trate, tcpu) = fig("before"), fig("this")
    print(f"result: human p95 {b95:.2f} -> {t95:.2f} ms ({b95 / t95:.2f} x), p99 {b99:.2f} -> "
          f"{t99:.2f} ms; burst {brate:.0f} -> {trate:.0f} posts/s ({trate / brate:.2f} x); "
          f"server CPU per post in the burst {bcpu:.2f} -> {tcpu:.2f} ms ({bcpu / tcpu:.2f} x); "
          f"{os.cpu_count()} cores; load average after: {load}")
    return 0


@contextmanager
def scratch_database(database_url: str, side: str) -> Iterator[str]:
    """A fresh database beside ``database_url``'s in its cluster (``<name>_<side>``),
    dropped after: each checkout's server its own schema and its own NOTIFY."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    url = make_url(database_url)
    name = f"{url.database}_{side}"
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        engine.dispose()
