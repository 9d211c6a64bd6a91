"""``python -m benchmarks server --anatomy``: where a post's time goes on the server.

The server benchmark's server (``benchmarks.floor_server``) run with marks put around the
steps of a post (``python -m benchmarks.anatomy [serve options]``; never part of the
companion): for each post to a table, the moment the server's loop has its request, when a
thread takes it, the table read, the action, the write, the push, the answer; the CPU time
of the post's own thread; the moment each screen's stream takes the new version; and every
pause of Python's garbage collector (``gc.callbacks``: its wall-clock span and the CPU
time of the thread that collected). The marks go to the file named by ``ANATOMY_OUT``
every 2 s. After the run, :func:`report` prints the steps of ours' human-pace posts: their
median and p95, and their mean in the fastest half and in the slowest 5 %, so what makes
the slow ones slow shows beside what every post costs; then the same posts parted by what
else ran while each was on its way (nothing, another post, a collector pause), which
tells a post's own cost from the waiting that others make.
"""

from __future__ import annotations

import bisect
import gc
import json
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ANATOMY_SERVER = (sys.executable, "-m", "benchmarks.anatomy", "--client-connections", "0")

# (name, from mark, to mark): the wall-clock steps of a post, in order
STEPS = [("waiting for a thread", "arrive", "start"),
         ("Flask, before the read", "start", "load0"),
         ("table read", "load0", "load1"),
         ("action (referee, words)", "load1", "commit0"),
         ("before the write", "commit0", "write0"),
         ("view, NOTIFY, write", "write0", "write1"),
         ("write -> push (pushed by it)", "write0", "push0"),
         ("after the write", "write1", "commit1"),
         ("until the push", "commit1", "push0"),
         ("push (encoded)", "push0", "push1"),
         ("push -> last screen's take", "push0", "taken"),
         ("  push -> the loop wakes streams", "push0", "woken"),
         ("  the loop wakes -> last take", "woken", "taken"),
         ("whole: arrival -> last take", "arrive", "taken"),
         ("answer after the push", "push1", "end")]
CPU = [("CPU: table read", "load0", "load1"), ("CPU: action", "load1", "commit0"),
       ("CPU: commit (view, write)", "commit0", "commit1"), ("CPU: whole post", "start", "end")]


def install(out: Path) -> None:
    """Put the marks around a post's steps in this process (the server's)."""
    from companion import live
    from companion.api import base
    from companion.live import stream
    from companion.play import authority
    from companion.run import server, streams

    local = threading.local()
    posts: list[dict[str, Any]] = []
    takes: dict[tuple[str, int], float] = {}       # (code, version) -> the last take
    wakes: dict[str, list[float]] = {}             # code -> when the loop woke its streams
    pauses: list[tuple[int, float, float, float]] = []   # generation, start, end, CPU
    started: dict[int, tuple[float, float]] = {}
    lock = threading.Lock()

    def mark(name: str) -> None:
        marks = getattr(local, "marks", None)
        if marks is not None:
            marks[name] = (time.perf_counter(), time.thread_time())

    def around(owner: Any, name: str, before: str, after: str) -> None:
        inner = getattr(owner, name)

        def wrapped(*args: Any, **kw: Any) -> Any:
            mark(before)
            try:
                return inner(*args, **kw)
            finally:
                mark(after)
        setattr(owner, name, wrapped)

    run, app = server._run, server.Server._app

    def timed_run(application: Any, environ: dict[str, Any]) -> Any:
        if environ.get("REQUEST_METHOD") != "POST" or \
                not environ.get("PATH_INFO", "").startswith("/api/tables/"):
            return run(application, environ)
        local.marks = {"arrive": (environ["anatomy.arrive"], 0.0)}
        mark("start")
        try:
            return run(application, environ)
        finally:
            mark("end")
            with lock:
                posts.append({"marks": local.marks, "at": getattr(local, "pushed", None)})
            local.marks = local.pushed = None

    def timed_app(self: Any, environ: dict[str, Any], start: Any) -> Any:
        environ["anatomy.arrive"] = time.perf_counter()
        return app(self, environ, start)

    server._run, server.Server._app = timed_run, timed_app
    around(base, "load", "load0", "load1")
    around(authority.Transaction, "commit", "commit0", "commit1")
    around(authority.Transaction, "_write_one", "write0", "write1")
    publish = live.publish

    def timed_publish(view: dict[str, Any], since: int | None = None) -> None:
        local.pushed = (view["code"], view["version"])
        mark("push0")
        publish(view, since)
        mark("push1")
    live.publish = timed_publish
    show = live.PgFanout.show

    def timed_show(self: Any, view: dict[str, Any]) -> None:    # a tap pushed by its write
        local.pushed = (view["code"], view["version"])
        mark("push0")
        show(self, view)
        mark("push1")
    live.PgFanout.show = timed_show  # type: ignore[method-assign]
    take = stream.Subscription.take

    def timed_take(self: Any) -> list[bytes]:
        before = self.version
        got = take(self)
        if self.version != before:
            with lock:
                takes[(self.ch.key, self.version)] = time.perf_counter()
        return got
    stream.Subscription.take = timed_take  # type: ignore[method-assign]
    wake = streams.Waker._wake

    def timed_wake(self: Any) -> None:          # on the loop: it holds the GIL now
        with self._lock:
            keys = list(self._changed)
        t = time.perf_counter()
        wake(self)
        with lock:
            for key in keys:
                wakes.setdefault(key, []).append(t)
    streams.Waker._wake = timed_wake  # type: ignore[method-assign]

    def noted(phase: str, info: dict[str, Any]) -> None:
        me = threading.get_ident()
        if phase == "start":
            started[me] = (time.perf_counter(), time.thread_time())
        elif me in started:
            t0, cpu = started.pop(me)
            pauses.append((info["generation"], t0, time.perf_counter(),
                           time.thread_time() - cpu))
    gc.callbacks.append(noted)

    def write() -> None:
        while True:
            time.sleep(2.0)
            with lock:
                done = [_woken(dict(p, taken=takes.get(tuple(p["at"] or ())),
                                    woken=_first_after(wakes.get((p["at"] or ("",))[0], []),
                                                       p["marks"].get("push0", (0.0,))[0])))
                        for p in posts]
                gcs = list(pauses)
            tmp = out.with_suffix(".tmp")
            tmp.write_text(json.dumps({"posts": done, "gc": gcs}))
            tmp.replace(out)
    threading.Thread(target=write, name="anatomy", daemon=True).start()


def report(path: Path, blocks: Sequence[tuple[str, str, float, float]],
           kind: str = "ours", phase: str = "human") -> None:
    """Print the steps of ``kind``'s posts that arrived in its ``phase`` blocks."""
    data = json.loads(path.read_text())
    spans = [(t0, t1) for k, p, t0, t1 in blocks if (k, p) == (kind, phase)]
    posts = [p for p in data["posts"] if p["taken"] is not None and "push0" in p["marks"]
             and any(t0 <= p["marks"]["arrive"][0] <= t1 + 0.5 for t0, t1 in spans)]
    if len(posts) < 20:
        print(f"anatomy: only {len(posts)} posts measured", flush=True)
        return
    for p in posts:
        p["marks"]["taken"] = (p["taken"], 0.0)
        if p.get("woken") is not None:
            p["marks"]["woken"] = (p["woken"], 0.0)
        a, b = p["marks"]["arrive"][0], p["taken"]
        p["gc"] = sum(max(0.0, min(b, t1) - max(a, t0)) for _, t0, t1, _cpu in data["gc"])
    posts.sort(key=lambda p: p["taken"] - p["marks"]["arrive"][0])
    fast, slow = posts[:len(posts) // 2], posts[-max(1, len(posts) // 20):]
    print(f"anatomy of the {kind} posts at a {phase} pace, on the server ({len(posts)} posts; ms): "
          f"median, p95, mean of the fastest half, mean of the slowest 5 %", flush=True)

    def line(name: str, value: Callable[[dict[str, Any]], float | None]) -> None:
        xs = [v for v in map(value, posts) if v is not None]
        if not xs:
            return
        f = [v for v in map(value, fast) if v is not None] or [0.0]
        s = [v for v in map(value, slow) if v is not None] or [0.0]
        print(f"  {name:30s} {_median_p95(xs)} "
              f"{statistics.fmean(f):7.2f} {statistics.fmean(s):7.2f}")

    def step(a: str, b: str, i: int) -> Callable[[dict[str, Any]], float | None]:
        def value(p: dict[str, Any]) -> float | None:
            m = p["marks"]
            if a not in m or b not in m or m[b][0] < m[a][0]:
                return None   # (a tap pushed by its write: before commit1; or not by it)
            if (a, b) == ("write0", "push0") and m["push0"][0] > m["write1"][0]:
                return None
            return (m[b][i] - m[a][i]) * 1000
        return value
    for name, a, b in STEPS:
        line(name, step(a, b, 0))
    for name, a, b in CPU:
        line(name, step(a, b, 1))
    line("garbage collector, overlapping", lambda p: p["gc"] * 1000)
    _company(posts, data["posts"])
    gcs = data["gc"]
    for gen in (0, 1, 2):
        xs = [(t1 - t0) * 1000 for g, t0, t1, _cpu in gcs if g == gen]
        cpu = sorted(c * 1000 for g, _t0, _t1, c in gcs if g == gen)
        if xs:
            print(f"  collector pauses of generation {gen} in the whole run: {len(xs)}, "
                  f"{sum(xs):.0f} ms in all, longest {max(xs):.1f} ms; its CPU "
                  f"{sum(cpu):.0f} ms in all, median {statistics.median(cpu):.2f} ms")


def _woken(post: dict[str, Any]) -> dict[str, Any]:
    """A post whose screens all had it from its own thread (the loop was not woken for
    it, :class:`companion.run.streams.Writer`): no wake of a later post counted as its."""
    if post["woken"] is not None and (post["taken"] is None or post["woken"] > post["taken"]):
        post["woken"] = None
    return post


def _first_after(times: list[float], t: float) -> float | None:
    """The first of ``times`` (in order) at or after ``t``."""
    i = bisect.bisect_left(times, t)
    return times[i] if i < len(times) else None


def _median_p95(xs: list[float]) -> str:
    """The median and the p95 of ``xs``, as the report's two columns."""
    p95 = statistics.quantiles(xs, n=20)[-1] if len(xs) > 1 else xs[0]
    return f"{statistics.median(xs):7.2f} {p95:7.2f}"


def _company(posts: list[dict[str, Any]], every: list[dict[str, Any]]) -> None:
    """The posts parted by what else was on its way while each was (from its arrival to
    the last screen's take): nothing; another post to a table (the floors' posts are
    not marked, and their blocks are not ours), and no collector pause; a collector
    pause. How many, and their median and p95 (ms)."""
    spans = [(p["marks"]["arrive"][0], p["marks"]["end"][0]) for p in every
             if "arrive" in p["marks"] and "end" in p["marks"]]
    parts: dict[str, list[float]] = {"alone": [], "beside another post": [],
                                     "during a collector pause": []}
    for p in posts:
        a, b = p["marks"]["arrive"][0], p["taken"]
        others = sum(1 for s, e in spans if s < b and e > a) - 1     # itself among them
        part = ("during a collector pause" if p["gc"] > 50e-6 else
                "beside another post" if others > 0 else "alone")
        parts[part].append((b - a) * 1000)
    print("  whole (arrival -> last take), by what else ran meanwhile: posts, median, p95")
    for name, xs in parts.items():
        if len(xs) >= 20:
            print(f"    {name:28s} {len(xs):5d} ({100 * len(xs) / len(posts):3.0f} %) "
                  f"{_median_p95(xs)}")


def main(argv: Sequence[str] | None = None) -> int:
    install(Path(os.environ["ANATOMY_OUT"]))
    from .floor_server import main as serve
    return serve(argv)


if __name__ == "__main__":
    raise SystemExit(main())
