"""Python's cyclic garbage collector without long pauses (issue 21).

A server that keeps 1,024 tables' states, views and words in memory holds some 10^5 to
10^6 long-lived container objects. Each full collection of CPython's collector walks all
of them while every thread waits: ~0.2-0.3 s here for 360,000 objects, 0.5-1 s with the
caches full. Those objects are kept on purpose and die by reference counting when a
cache lets them go (they hold no cycles), so walking them again and again finds nothing.

So the server moves what has lived a while into the collector's permanent generation
(``gc.freeze()``) at start and then every ``interval`` seconds: a full collection walks
only what came since the last freeze, and takes a few milliseconds. A frozen object is
still freed when its last reference goes; what a freeze puts off is only the collection
of *cycles* that were alive at that moment and die later (a request in flight: its
environ and request refer to each other), a few hundred objects a freeze under load.
Those are taken back when the server is idle — no request for ``idle`` seconds, at most
every ``reclaim`` seconds — by one whole collection of everything, which nobody waits
for. ``python -m benchmarks history`` measures the pauses (``gc.callbacks``).

The young generations are collected between requests (:class:`Between`), so what a
collection costs is paid while nobody waits.
"""

from __future__ import annotations

import gc
import threading
import time
from typing import Any

from flask import Flask

INTERVAL = 10.0      # seconds between freezes
IDLE = 2.0           # seconds without a request before the frozen objects are collected
RECLAIM = 600.0      # ... at most this often


class Freezer:
    """Freezes on a daemon thread; counts the app's requests in flight to know when the
    server is idle."""

    def __init__(self, interval: float = INTERVAL, idle: float = IDLE,
                 reclaim: float = RECLAIM) -> None:
        self.interval, self.idle, self.reclaim = interval, idle, reclaim
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.busy = 0
        self.last = time.monotonic()
        self.reclaimed = time.monotonic()

    def enter(self) -> None:
        with self.lock:
            self.busy += 1
            self.last = time.monotonic()

    def leave(self, _: Any = None) -> None:
        with self.lock:
            self.busy -= 1
            self.last = time.monotonic()

    def tick(self) -> None:
        """One turn: reclaim when idle and due, else freeze."""
        now = time.monotonic()
        with self.lock:
            idle = self.busy == 0 and now - self.last >= self.idle
        if idle and now - self.reclaimed >= self.reclaim:
            gc.unfreeze()
            gc.collect()
            self.reclaimed = time.monotonic()
        gc.freeze()

    def run(self) -> None:
        while not self.stop.wait(self.interval):
            self.tick()


class Between:
    """Young collections between requests, not in the middle of one (issue 54).

    CPython collects once ~700 more containers were made than freed (by any thread),
    whatever runs then: a collection stops every thread, so a tap in flight waited for
    it (28 % of taps at a human pace, p95 24 ms: ``python -m benchmarks server
    --anatomy``). The server is idle most of the time at a human pace, so the young
    generations are collected there: when the loop has nothing else to do (a libev idle
    watcher: every answer written, every screen pushed) and no request is on a thread,
    by CPython's own thresholds (the youngest past threshold0 new containers, the next
    after threshold1 of those, the oldest after threshold2), as "out-of-band" collection
    in other servers does. When requests never stop (a burst), CPython still collects by
    itself, at ``BUSY`` new containers: the same work, in fewer and longer pauses. Lives
    on the loop's thread (:class:`companion.run.server.Server`)."""

    BUSY = 7000            # CPython's threshold0 while it serves: when requests never stop

    def __init__(self) -> None:
        self.in_flight = 0
        self.watcher: Any = None
        self.collected = [0, 0, 0]          # collections made between requests, by generation
        self._before: tuple[int, int, int] | None = None

    def listen(self, loop: Any) -> None:
        self._before = gc.get_threshold()
        gc.set_threshold(self.BUSY, *self._before[1:])
        self.watcher = loop.idle(ref=False)

    def close(self) -> None:
        if self._before is not None:
            gc.set_threshold(*self._before)
            self._before = None
        if self.watcher is not None:
            self.watcher.stop()

    def started(self) -> None:
        self.in_flight += 1

    def ended(self) -> None:
        self.in_flight -= 1
        if self.in_flight == 0 and self.watcher is not None and not self.watcher.active:
            self.watcher.start(self._idle)

    def _idle(self) -> None:
        self.watcher.stop()
        if self.in_flight or self._before is None:
            return
        young, middle, old = self._before
        c0, c1, c2 = gc.get_count()
        if c0 <= young:
            return
        gen = 2 if c2 > old else 1 if c1 > middle else 0
        gc.collect(gen)
        self.collected[gen] += 1


def start(app: Flask, interval: float = INTERVAL) -> Freezer:
    """Freeze now and every ``interval`` seconds on a daemon thread (set ``.stop`` to
    end it), watching ``app``'s requests."""
    f = Freezer(interval)
    app.before_request_funcs.setdefault(None, []).insert(0, f.enter)   # first: always paired
    app.teardown_request(f.leave)
    gc.collect()          # what start-up left as garbage goes before the first freeze
    gc.freeze()
    threading.Thread(target=f.run, name="gc-freeze", daemon=True).start()
    return f
