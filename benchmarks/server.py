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

``--soak SECONDS`` instead opens and closes tables and streams over and over and
samples the server's RSS, threads and open files, to show nothing leaks.

The client is one asyncio loop on raw sockets in this process; its own CPU use
and how late its timers fire are printed, so a busy client is visible.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import itertools
import json
import os
import random
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.engine.simulate import random_record
from companion.live.delta import patch
from harness.server import Server, children
from harness.steps import steps

# every screen of the benchmark is on this machine: no cap on one address's connections
FLOOR_SERVER = (sys.executable, "-m", "benchmarks.floor_server", "--client-connections", "0")

CLK_TCK = os.sysconf("SC_CLK_TCK")
_keys = itertools.count(1)


# --- the server under test --------------------------------------------------------

class Proc:
    """A process's figures from /proc: RSS, threads, open files, CPU."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def status(self) -> dict[str, int]:
        out = {}
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM", "Threads"):
                    out[k] = int(v.split()[0])
        out["fds"] = len(os.listdir(f"/proc/{self.pid}/fd"))
        return out

    def fd_kinds(self) -> str:
        """Open files by kind: sockets, the database files, others."""
        kinds: dict[str, int] = {}
        base = f"/proc/{self.pid}/fd"
        for fd in os.listdir(base):
            try:
                target = os.readlink(f"{base}/{fd}")
            except OSError:
                continue
            kind = ("socket" if target.startswith("socket:") else
                    "database" if ".sqlite" in target else
                    "pipe" if target.startswith("pipe:") else "other")
            kinds[kind] = kinds.get(kind, 0) + 1
        return ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))

    def cpu_ticks(self) -> int:
        with open(f"/proc/{self.pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return int(parts[11]) + int(parts[12])     # utime + stime


@contextmanager
def running_server(threads: int, database_url: str | None,
           command: Sequence[str] = FLOOR_SERVER,
           checkout: str | None = None) -> Iterator[tuple[Server, Proc]]:
    """A server process on a fresh SQLite file (or ``database_url``) in a temporary
    folder that also holds its log and instance folder; stopped and removed after.
    ``checkout``: another checkout's companion (run from there), not this one's."""
    where = {} if checkout is None else {
        "env": {"PYTHONPATH": str(Path(checkout).resolve())}, "cwd": Path(checkout).resolve()}
    with tempfile.TemporaryDirectory(prefix="spies-lies-bench-") as tmp:
        srv = Server(database_url or f"sqlite:///{tmp}/bench.sqlite", Path(tmp, "server.log"),
                     threads, command, **where)
        srv.start()
        try:
            yield srv, Proc(srv.pid)
        finally:
            srv.stop()


# --- a small HTTP/1.1 client on asyncio streams ------------------------------------

class Conn:
    """One keep-alive connection for ordinary requests."""

    def __init__(self, port: int, source: str = "127.0.0.1") -> None:
        self.port, self.source = port, source
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: Any = None,
                      headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        """One request; on a kept connection the server closed while it was idle (a
        driver waits while the other kinds take their turn), once more on a new one."""
        reused = self.writer is not None
        try:
            return await self._request(method, path, body, headers)
        except (ConnectionError, asyncio.IncompleteReadError):
            if not reused:
                raise
            self.close()
            return await self._request(method, path, body, headers)

    async def _request(self, method: str, path: str, body: Any = None,
                       headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(
                "127.0.0.1", self.port, limit=1 << 22, local_addr=(self.source, 0))
        payload = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}",
                f"Origin: http://127.0.0.1:{self.port}", f"Content-Length: {len(payload)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        head += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        assert self.reader is not None
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("closed")
        status = int(status_line.split()[1])
        length, close, chunked = 0, False, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            k, _, v = line.decode().partition(":")
            k = k.strip().lower()
            if k == "content-length":
                length = int(v)
            elif k == "connection" and v.strip().lower() == "close":
                close = True
            elif k == "transfer-encoding" and "chunked" in v:
                chunked = True
        if chunked:
            data = b""
            while True:
                n = int((await self.reader.readline()).strip(), 16)
                chunk = await self.reader.readexactly(n + 2)
                if n == 0:
                    break
                data += chunk[:-2]
        else:
            data = await self.reader.readexactly(length)
        if close:
            self.close()
        return status, data

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


class Screen:
    """One live stream; notes the time each version arrives."""

    def __init__(self, port: int, path: str, source: str = "127.0.0.1") -> None:
        self.port, self.path, self.source = port, path, source
        self.versions: list[int] = []
        self.times: list[float] = []
        self.connected = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.refused = ""            # the status line of a stream the server refused

    def start(self) -> None:
        self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        reader, self.writer = await asyncio.open_connection(
            "127.0.0.1", self.port, limit=1 << 22, local_addr=(self.source, 0))
        self.writer.write(f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                          f"Accept: text/event-stream\r\n\r\n".encode())
        try:
            status = await reader.readline()
            if b" 200 " not in status:         # refused (a cap, a limit): say so, never hang
                self.refused = status.decode(errors="replace").strip() or "closed"
                self.connected.set()
                return
            while True:
                line = await reader.readline()
                if not line:
                    return
                if line.startswith(b"id: "):
                    self.versions.append(int(line[4:]))
                    self.times.append(time.perf_counter())
                elif line.startswith(b": connected"):
                    self.connected.set()
        except (ConnectionError, asyncio.CancelledError):
            return

    def received(self, version: int) -> float | None:
        """When this screen first had ``version`` or a later one."""
        i = bisect.bisect_left(self.versions, version)
        return self.times[i] if i < len(self.times) else None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if self.task is not None:
            self.task.cancel()


# --- what the tables do ------------------------------------------------------------

@dataclass
class Post:
    kind: str            # "ours", "floor" or "durable"
    phase: str
    screens: list[Screen]
    version: int
    sent: float
    answered: float = 0.0     # when the post's own answer arrived


KINDS = ("floor", "durable", "ours")     # what is measured, side by side


@dataclass
class Run:
    """Shared between drivers: who posts now and at what pace, and every accepted post.

    ``mode`` is ``(kind, phase)``: only the drivers of that kind post (the others wait),
    at a human pace or back-to-back; ``None``: nobody posts.
    """

    mode: tuple[str, str] | None = None
    every: tuple[float, float] = (1.0, 2.0)    # seconds between a table's posts (human)
    posts: list[Post] = field(default_factory=list)
    refused: int = 0
    games: int = 0
    kinds: tuple[str, ...] = KINDS
    active: dict[str, asyncio.Event] = field(default_factory=dict)
    paced: set[int] = field(default_factory=set)   # drivers that posted in this block

    def __post_init__(self) -> None:
        self.active = {k: asyncio.Event() for k in self.kinds}

    def switch(self, mode: tuple[str, str] | None) -> None:
        """Let ``mode``'s drivers post (a new block: each spreads its first post over
        the pace's whole interval, so the tables do not all post in the same second)."""
        self.mode = mode
        self.paced.clear()
        for kind, ev in self.active.items():
            if mode is not None and mode[0] == kind:
                ev.set()
            else:
                ev.clear()

    async def pace(self, who: object, kind: str) -> str:
        """Wait for ``who``'s next post; the phase it is posted in."""
        while True:
            await self.active[kind].wait()
            assert self.mode is not None
            phase = self.mode[1]
            if phase != "human":
                return phase
            lo, hi = self.every
            first = id(who) not in self.paced
            self.paced.add(id(who))
            await asyncio.sleep(random.uniform(0.0 if first else lo, hi))
            if self.mode == (kind, "human"):
                return "human"


class Driver:
    """One table's worth of clients: a connection for posts and five open screens."""

    port: int
    conn: Conn
    screens: list[Screen]
    source = "127.0.0.1"      # the address its connections come from

    async def open_screens(self, paths: list[str]) -> None:
        self.screens = [Screen(self.port, path, self.source) for path in paths]
        for s in self.screens:
            s.start()
        await asyncio.gather(*(s.connected.wait() for s in self.screens))
        refused = [f"{s.path}: {s.refused}" for s in self.screens if s.refused]
        if refused:
            raise RuntimeError("the server refused a screen's stream: " + refused[0])

    def close(self) -> None:
        for s in self.screens:
            s.close()
        self.conn.close()


class TableDriver(Driver):
    """One physical table: a host screen and four phones, playing random games."""

    opened = "tables seated"
    options: dict[str, Any] = {}     # more of the table's options (e.g. the live chance)

    def __init__(self, port: int, run: Run, seed: int, kind: str = "ours",
                 source: str = "127.0.0.1") -> None:
        self.port, self.run, self.kind, self.source = port, run, kind, source
        self.rng = random.Random(seed)
        self.conn = Conn(port, source)
        self.screens: list[Screen] = []
        self.view: dict[str, Any] = {}

    async def setup(self) -> None:
        self.rec = random_record(self.rng)
        st, data = await self.conn.request("POST", "/api/tables",
                                           {"wall_distance": self.rec.options.wall_distance,
                                            "teams": True, **self.options})
        assert st == 201, data
        made = json.loads(data)
        self.code, self.view = made["code"], made["view"]
        self.host = made["host_secret"]
        self.seats: dict[tuple[str, int], str] = {}
        ids = []
        for side in ("red", "blue"):
            for part in (1, 2):
                st, body = await self._post(None, "/seats", {"side": side, "part": part,
                                                             "name": f"{side}{part}"}, None)
                assert st == 201, body
                self.seats[(side, part)] = body["secret"]
                ids.append(str(body["seat"]["id"]))
        v = self.view["version"]
        await self.open_screens([f"/api/tables/{self.code}/stream?since={v}&seat={w}"
                                 for w in ["host", *ids]])

    async def _post(self, secret: str | None, path: str, body: dict[str, Any],
                    phase: str | None) -> tuple[int, dict[str, Any]]:
        for _ in range(5):
            # the answer brings what changed since the version sent, as a page without
            # its stream asks (one with its stream open asks "none" and reads the change
            # there): since 502d977 that answer is the text the streams were sent, so the
            # server's work is the same either way, and the driver keeps its view from it
            full = {"version": self.view["version"], "answer": "delta",
                    "idempotency_key": f"bench-{next(_keys):09d}", **body}
            headers = {"Authorization": f"Bearer {secret}"} if secret else None
            sent = time.perf_counter()
            st, data = await self.conn.request("POST", f"/api/tables/{self.code}{path}",
                                               full, headers)
            out = json.loads(data)
            if "delta" in out:
                self.view = patch(self.view, out["delta"]["ops"])
            elif "view" in out:
                self.view = out["view"]
            if st in (200, 201):
                if phase is not None:
                    self.run.posts.append(Post(self.kind, phase, self.screens,
                                               self.view["version"], sent,
                                               time.perf_counter()))
                return st, out
            self.run.refused += 1
            if st != 409 or out.get("code") != "stale":
                raise RuntimeError(f"{path} {body} refused: {st} {out}")
        raise RuntimeError(f"{path} stayed stale")

    async def act(self, secret: str | None, path: str, body: dict[str, Any]) -> int:
        phase = await self.run.pace(self, self.kind)
        st, _ = await self._post(secret, path, body, phase)
        return st

    async def play(self) -> None:
        """Random legal games, one after the other, entered as the phones would."""
        while True:
            for e in self.rec.events:
                draft = self.view["draft"]
                part = (draft.get("part") if draft else None) or 1
                todo, status = steps(e, self.view), None
                try:
                    while True:
                        who, path, body = todo.send(status)
                        secret = self.host if who == "host" else self.seats[(who, part)]
                        status = await self.act(secret, path, body)
                except StopIteration:
                    pass
            assert self.view["state"]["phase"] == "over", self.view["state"]["phase"]
            self.run.games += 1
            await asyncio.sleep(2.0)       # the last push reaches the screens before they close
            self.close()
            self.conn = Conn(self.port, self.source)
            await self.setup()


class FloorDriver(Driver):
    """The floor: five streams on ``/_floor/<n>`` and posts that push a tiny message
    (``durable``: after one single-row durable commit, ``/_floor/<n>/durable``)."""

    opened = "floor channels"

    def __init__(self, port: int, run: Run, n: int, durable: bool = False) -> None:
        self.port, self.run, self.n = port, run, n
        self.kind = "durable" if durable else "floor"
        self.path = f"/_floor/{n}/durable" if durable else f"/_floor/{n}"
        self.conn = Conn(port)

    async def setup(self) -> None:
        await self.open_screens([f"/_floor/{self.n}/stream?seat={i}" for i in range(5)])

    async def play(self) -> None:
        while True:
            phase = await self.run.pace(self, self.kind)
            sent = time.perf_counter()
            st, data = await self.conn.request("POST", self.path, {})
            assert st == 200, data
            self.run.posts.append(Post(self.kind, phase, self.screens,
                                       json.loads(data)["version"], sent,
                                       time.perf_counter()))


# --- measuring -------------------------------------------------------------------

def pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


@dataclass
class Phase:
    kind: str
    name: str
    seconds: float            # the time this kind was posting (its blocks, summed)
    latencies: list[float]
    answers: list[float]      # post sent -> its answer received
    missed: int
    cpu: float                # server CPU over its blocks, % of one core
    cpu_ms: float             # server CPU per accepted post, ms
    client_cpu: float         # this process, % of one core
    lag95: float              # how late the client's 10 ms timer fired (p95, ms)
    rss_mb: float
    threads: int
    fds: int

    def line(self) -> str:
        ms = [x * 1000 for x in self.latencies]
        ans = [x * 1000 for x in self.answers]
        rate = len(ms) / self.seconds
        return (f"  {self.kind:7} {self.name:5}  posts {len(ms):6} ({rate:6.1f}/s)"
                f"  p50 {pct(ms, 50):7.2f}  p95 {pct(ms, 95):7.2f}  p99 {pct(ms, 99):7.2f} ms"
                f"  (answer p50 {pct(ans, 50):6.2f} p95 {pct(ans, 95):7.2f})"
                f"  missed {self.missed}  server CPU {self.cpu:5.1f}% = {self.cpu_ms:5.2f} ms/post"
                f"  RSS {self.rss_mb:6.1f} MB  threads {self.threads}  fds {self.fds}"
                f"  | client CPU {self.client_cpu:5.1f}%  timer lag p95 {self.lag95:5.2f} ms")


async def _lag_probe(out: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        t = time.perf_counter()
        await asyncio.sleep(0.01)
        out.append((time.perf_counter() - t - 0.01) * 1000)


def _client_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


@dataclass
class _Tally:
    """One kind's share of a phase: its blocks' time, CPU and peaks."""

    wall: float = 0.0          # posting
    busy: float = 0.0          # posting + the drain after each block (CPU is over this)
    ticks: int = 0
    client: float = 0.0
    lags: list[float] = field(default_factory=list)
    peak: dict[str, int] = field(default_factory=lambda: {"VmRSS": 0, "Threads": 0, "fds": 0})


DRAIN = 0.4      # after a block: the posts in flight finish and their pushes go out


async def alternate(procs: dict[str, list[Proc]], run: Run, phase: str, seconds: float,
                    block: float) -> list[Phase]:
    """``seconds`` of ``phase`` for each kind, in blocks of ``block`` seconds taken in
    turn (floor, durable, ours, then the other way round, ...): every kind sees the
    machine's load of the same minutes. A kind's CPU is that of its server's processes
    (``procs``: all of them, a parent and its workers)."""
    kinds = tuple(procs)
    tally = {k: _Tally() for k in kinds}
    blocks = max(1, round(seconds / block))
    for i in range(blocks):
        for kind in (kinds if i % 2 == 0 else kinds[::-1]):
            t = tally[kind]
            ps = procs[kind]
            stop = asyncio.Event()
            probe = asyncio.ensure_future(_lag_probe(t.lags, stop))
            t0, c0, k0 = time.perf_counter(), sum(p.cpu_ticks() for p in ps), _client_cpu()
            run.switch((kind, phase))
            end = t0 + block
            while time.perf_counter() < end:
                await asyncio.sleep(min(0.5, max(0.0, end - time.perf_counter())))
                for p in ps:
                    st = p.status()
                    for k in t.peak:
                        t.peak[k] = max(t.peak[k], st[k])
            run.switch(None)
            t.wall += time.perf_counter() - t0
            await asyncio.sleep(DRAIN)
            stop.set()
            await probe
            t.busy += time.perf_counter() - t0
            t.ticks += sum(p.cpu_ticks() for p in ps) - c0
            t.client += _client_cpu() - k0
    await asyncio.sleep(2.0)             # the last posts' pushes arrive
    out = []
    for kind in kinds:
        t = tally[kind]
        lat, answers, missed = [], [], 0
        for p in run.posts:
            if p.kind != kind or p.phase != phase:
                continue
            got = [s.received(p.version) for s in p.screens]
            if any(g is None for g in got):
                missed += 1
                continue
            lat.append(max(got) - p.sent)       # type: ignore[type-var]
            answers.append(p.answered - p.sent)
        cpu_s = t.ticks / CLK_TCK
        out.append(Phase(kind, phase, t.wall, lat, answers, missed, cpu_s / t.busy * 100,
                         cpu_s * 1000 / max(1, len(lat) + missed), t.client / t.busy * 100,
                         pct(t.lags, 95), t.peak["VmRSS"] / 1024, t.peak["Threads"],
                         t.peak["fds"]))
    return out


async def _open(drivers: list[Any], at_once: int = 10) -> None:
    for i in range(0, len(drivers), at_once):
        await asyncio.gather(*(d.setup() for d in drivers[i:i + at_once]))


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
                block: float = 5.0) -> list[Phase]:
    idlers = await idle_sockets(port, idle)
    if idle:
        print(f"  ({idle} idle or half-sent connections held open throughout)", flush=True)
    try:
        return await _bench(port, procs, tables, seconds, burst, pace, block)
    finally:
        for w in idlers:
            w.close()


async def _bench(port: int, procs: list[Proc], tables: int, seconds: float,
                 burst: float, pace: tuple[float, float], block: float) -> list[Phase]:
    """The floor, the durable floor and the tables, all open at once (the same number
    of streams each), posting in turn in short blocks."""
    run = Run(every=pace)
    drivers: list[Driver] = [*(FloorDriver(port, run, n) for n in range(tables)),
                             *(FloorDriver(port, run, tables + n, durable=True)
                               for n in range(tables)),
                             *(TableDriver(port, run, seed) for seed in range(tables))]
    t0 = time.perf_counter()
    await _open(drivers)
    print(f"  ({tables} floor channels, {tables} durable floor channels and {tables} tables "
          f"seated: {len(drivers) * 5} streams open in {time.perf_counter() - t0:.1f} s)",
          flush=True)
    return await _play(drivers, run, {k: procs for k in KINDS}, seconds, burst, block)


async def _play(drivers: list[Driver], run: Run, procs: dict[str, list[Proc]],
                seconds: float, burst: float, block: float) -> list[Phase]:
    """The drivers (their screens open) play the human phase, then the burst (none when
    ``burst`` is 0), each kind in turn by blocks."""
    tasks = [asyncio.ensure_future(d.play()) for d in drivers]
    await asyncio.sleep(1.0)
    out: list[Phase] = []
    try:
        for name, length in (("human", seconds), ("burst", burst)):
            if not length:
                continue
            print(f"  {name}: {length:.0f} s for each, in blocks of {block:g} s taken in turn",
                  flush=True)
            got = await alternate(procs, run, name, length, block)
            for ph in got:
                print(ph.line(), flush=True)
            out += got
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for task in tasks:
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()        # type: ignore[misc]
    for d in drivers:
        d.close()
    print(f"  (games finished: {run.games}; stale posts retried: {run.refused})")
    return out


# --- soak: connections opened and closed, over and over ------------------------------

async def soak(port: int, proc: Proc, tables: int, seconds: float) -> int:
    await asyncio.sleep(0.5)
    base = proc.status()
    idle_fds = proc.fd_kinds()
    print(f"  idle server: RSS {base['VmRSS'] / 1024:.1f} MB, threads {base['Threads']}, "
          f"fds {base['fds']}", flush=True)
    run = Run()
    end = time.perf_counter() + seconds
    cycles = 0

    async def worker(i: int) -> None:
        nonlocal cycles
        rng = random.Random(i)
        while time.perf_counter() < end:
            d = TableDriver(port, run, rng.randrange(10**9))
            await d.setup()
            play = asyncio.ensure_future(d.play())
            await asyncio.sleep(rng.uniform(2.0, 6.0))
            # one screen drops and comes back, as a phone that slept
            s = d.screens[1]
            s.close()
            d.screens[1] = Screen(port, s.path)
            d.screens[1].start()
            await asyncio.sleep(rng.uniform(1.0, 3.0))
            play.cancel()
            await asyncio.gather(play, return_exceptions=True)
            d.close()
            cycles += 1

    async def paced(i: int) -> None:
        # posts at a human pace inside a busy table: pace() sleeps 1-2 s in "human"
        await worker(i)

    run.switch(("ours", "human"))
    samples: list[tuple[float, dict[str, int]]] = []
    t0 = time.perf_counter()
    workers = [asyncio.ensure_future(paced(i)) for i in range(tables)]
    while time.perf_counter() < end:
        await asyncio.sleep(min(10.0, max(0.0, end - time.perf_counter())))
        st = proc.status()
        samples.append((time.perf_counter() - t0, st))
        print(f"  {samples[-1][0]:6.0f} s  RSS {st['VmRSS'] / 1024:6.1f} MB  threads "
              f"{st['Threads']}  fds {st['fds']}  table cycles {cycles}", flush=True)
    await asyncio.gather(*workers, return_exceptions=True)
    await asyncio.sleep(3.0)
    after = proc.status()
    n = max(1, len(samples) // 5)
    early = [s for _, s in samples[:n]]
    late = [s for _, s in samples[-n:]]

    def avg(xs: list[dict[str, int]], k: str) -> float:
        return sum(x[k] for x in xs) / len(xs)

    print(f"  table cycles (5 streams opened and closed each): {cycles}, "
          f"posts accepted: {len(run.posts)}")
    print(f"  RSS first fifth {avg(early, 'VmRSS') / 1024:.1f} MB -> last fifth "
          f"{avg(late, 'VmRSS') / 1024:.1f} MB (growth "
          f"{(avg(late, 'VmRSS') - avg(early, 'VmRSS')) / 1024:+.1f} MB); threads "
          f"{avg(early, 'Threads'):.0f} -> {avg(late, 'Threads'):.0f}; fds "
          f"{avg(early, 'fds'):.0f} -> {avg(late, 'fds'):.0f}")
    print(f"  all clients gone: RSS {after['VmRSS'] / 1024:.1f} MB, threads {after['Threads']} "
          f"(idle {base['Threads']}), fds {after['fds']} (idle {base['fds']}: "
          f"{idle_fds}; now: {proc.fd_kinds()})")
    return 0


# --- the command -----------------------------------------------------------------

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
    with running_server(threads, database_url) as (srv, proc):
        if soak_seconds:
            print(f"soak: {soak_seconds:.0f} s of tables opening, playing and closing")
            return asyncio.run(soak(srv.port, proc, tables, soak_seconds))
        print(f"phases: human pace (a post per table every {pace[0]:g}-{pace[1]:g} s, "
              f"~{tables * 2 / (pace[0] + pace[1]):.0f} posts/s in all) {seconds:.0f} s, "
              f"burst (back-to-back) {burst:.0f} s, for each of: the floor (a push, nothing "
              f"else), the durable floor (a push after one durable single-row commit) and "
              f"ours; latency = post sent -> all 5 screens have it", flush=True)
        results = asyncio.run(bench(srv.port, [proc], tables, seconds, burst, idle, pace,
                                    block))
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


# --- more processes: one worker against N, side by side ------------------------------

def _address(i: int) -> str:
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
            make(port, run, 1000 * i + seed, kind, _address(i * tables + seed))
            for i, (kind, (port, _procs)) in enumerate(servers.items())
            for seed in range(tables)]
        await _open(drivers)
        return await _play(drivers, run, {k: procs for k, (_port, procs) in servers.items()},
                           seconds, burst, block)
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
        urls = ([stack.enter_context(_scratch_database(database_url, side))
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
def _scratch_database(database_url: str, side: str) -> Iterator[str]:
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


# --- the chance to win worked out beside the tables (issues 24 and 25) ----------------

class Family(Proc):
    """A server process and its children (the chances' helper process): CPU summed."""

    def cpu_ticks(self) -> int:
        total = super().cpu_ticks()
        for kid in children(self.pid):
            try:
                total += Proc(kid).cpu_ticks()
            except OSError:         # ended meanwhile
                pass
        return total


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
