"""Measuring: the drivers play (:func:`play_phases`) while the kinds take turns in blocks
(:func:`alternate`), so every kind sees the machine's load of the same minutes; each
kind's phase is summed up in a :class:`Phase` (latency to every screen, the answer, the
server's CPU and memory, the client's own CPU and timer lag)."""

from __future__ import annotations

import asyncio
import resource
import time
from dataclasses import dataclass, field
from typing import Any

from .drivers import Driver, Run
from .served import CLK_TCK, Proc


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
            run.blocks.append((kind, phase, t0, time.perf_counter()))
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
        for post in run.posts:
            if post.kind != kind or post.phase != phase:
                continue
            got = [s.received(post.version) for s in post.screens]
            seen = [g for g in got if g is not None]
            if len(seen) < len(got):
                missed += 1
                continue
            lat.append(max(seen) - post.sent)
            answers.append(post.answered - post.sent)
        cpu_s = t.ticks / CLK_TCK
        out.append(Phase(kind, phase, t.wall, lat, answers, missed, cpu_s / t.busy * 100,
                         cpu_s * 1000 / max(1, len(lat) + missed), t.client / t.busy * 100,
                         pct(t.lags, 95), t.peak["VmRSS"] / 1024, t.peak["Threads"],
                         t.peak["fds"]))
    return out


async def open_all(drivers: list[Any], at_once: int = 10) -> None:
    for i in range(0, len(drivers), at_once):
        await asyncio.gather(*(d.setup() for d in drivers[i:i + at_once]))


async def play_phases(drivers: list[Driver], run: Run, procs: dict[str, list[Proc]],
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
