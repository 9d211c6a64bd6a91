"""``python -m benchmarks history``: the group's memory at scale (issue 21).

For each N (``--sizes``, default 100, 1,000 and 10,000) a fresh database gets N finished
games seated by 8 recurring players (as the companion would have kept them: events,
seats, summaries, ratings), 1,024 tables in play, and one table a phone plays at.
Then the real server (``spies-lies serve``, with Python's garbage collector watched:
:mod:`benchmarks.gcwatch`) is started and measured:

- cold: the first ``/history``, ``/stats`` and player page after the start;
- warm: each page again and again (median and p95), 110 ms apart: a client gets one page
  of the group's memory every 100 ms at most (:mod:`companion.run.pacing`);
- no stall: the phone's posts (back to back, 20 ms apart) alone and while two clients
  load the history, statistics and player pages in a loop, in alternating blocks, with
  every one of the 1,024 tables' states in the server's cache first: p95 loaded / alone;
- the collector: every pause while measuring (the longest, and how many over 20 ms);
- the server's memory (RSS, and its peak).
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from companion.engine import Record, replay
from companion.engine.simulate import random_record
from harness.server import Server

GC_SERVER = (sys.executable, "-m", "benchmarks.gcwatch", "serve")
LIVE = 1024                  # tables in play: the server's states cache holds 1,024
PLAYERS = 8
DISTINCT = 500               # distinct random games, reused (their content is irrelevant)


def populate(url: str, n: int, instance: Path) -> dict[str, Any]:
    """N finished games, the tables in play and the phone's table, written straight into
    the database the way the companion keeps them."""
    import sqlalchemy as sa

    from companion.group import games
    from companion.store.models import (
        DEFAULT_GROUP,
        Event,
        Player,
        Seat,
        Table,
        db,
        hash_secret,
        now,
    )
    from companion.web import create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench"},
                     instance_path=str(instance))
    rng = random.Random(n)
    records = [random_record(random.Random(i), wall_distance=3) for i in range(DISTINCT)]
    ends = [replay(r) for r in records]
    seq = iter(range(10**9))
    with app.app_context():
        players = []
        for i in range(PLAYERS):
            p = Player(key_hash=hash_secret(f"player-{i}-" + "k" * 30), name=f"Player {i}",
                       group_id=DEFAULT_GROUP)
            db.session.add(p)
            players.append(p)
        db.session.flush()
        t0 = now() - timedelta(days=400)

        def add_table(rec: Record, events: int, finished: Any,
                      seated: list[int | None]) -> tuple[int, int]:
            k = next(seq)
            res = db.session.execute(sa.insert(Table).values(
                code=f"B{k:07d}", wall_distance=3, teams=False, deduction=False,
                first_game=False, host_hash=hash_secret(f"host-{k}"), version=1 + events,
                created=t0, updated=now(), finished=finished, imported=False,
                accepted=True if finished else None, group_id=DEFAULT_GROUP))
            tid = res.inserted_primary_key[0]
            if events:
                db.session.execute(sa.insert(Event), [
                    {"table_id": tid, "seq": j + 1, "data": json.dumps(e.to_dict()),
                     "created": t0, "undone": False}
                    for j, e in enumerate(rec.events[:events])])
            db.session.execute(sa.insert(Seat), [
                {"table_id": tid, "side": side, "part": 0, "name": f"Player {who}",
                 "secret_hash": hash_secret(f"seat-{k}-{side}"), "status": "active",
                 "player_id": None if who is None else players[who].id, "created": t0}
                for side, who in zip(("red", "blue"), seated, strict=True)])
            return int(tid), k

        for i in range(n):
            j = i % DISTINCT
            finished = t0 + timedelta(minutes=50 * i)
            red, blue = rng.sample(range(PLAYERS), 2)
            tid, _ = add_table(records[j], len(records[j].events), finished, [red, blue])
            games.remember_game(SimpleNamespace(id=tid, finished=finished,  # type: ignore[arg-type]
                                                  accepted=True, group_id=DEFAULT_GROUP),
                                  ends[j], rate=False)
            if i % 500 == 499:
                db.session.commit()
        games.rebuild_ratings(DEFAULT_GROUP)
        live = [add_table(records[i % DISTINCT], 12, None, [None, None])[0]
                for i in range(LIVE)]
        probe, k = add_table(Record(records[0].options, ()), 0, None, [None, None])
        db.session.commit()
        codes = dict(db.session.execute(sa.select(Table.id, Table.code)
                                        .where(Table.id.in_([*live, probe]))).all())
        first = players[0].id
        db.session.remove()
        db.engine.dispose()
    from companion import live as push
    push.close(app)
    return {"live": [codes[t] for t in live], "probe": codes[probe],
            "probe_secret": f"seat-{k}-red", "player": first}


class Client:
    """Plain HTTP/1.1 requests on one kept-alive connection (``cookie``: a group's link,
    the group's cookie on each request: :mod:`benchmarks.groups`)."""

    def __init__(self, port: int, cookie: str | None = None) -> None:
        self.port, self.cookie = port, cookie
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method: str, path: str, body: Any = None,
             secret: str | None = None) -> tuple[int, Any, float]:
        h = {"Origin": f"http://127.0.0.1:{self.port}"}
        if self.cookie:
            h["Cookie"] = f"sl_group={self.cookie}"
        if secret:
            h["Authorization"] = f"Bearer {secret}"
        data = None
        if body is not None:
            data, h["Content-Type"] = json.dumps(body), "application/json"
        t = time.perf_counter()
        for attempt in range(2):
            try:
                self.conn.request(method, path, data, h)
                r = self.conn.getresponse()
                raw = r.read()
                break
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                if attempt:
                    raise
        took = (time.perf_counter() - t) * 1000
        try:
            out = json.loads(raw)
        except ValueError:
            out = None
        return r.status, out, took


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


def rss(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process in MB."""
    got = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                got[k] = int(v.split()[0]) / 1024
    return got["VmRSS"], got["VmHWM"]


@contextmanager
def server(url: str, tmp: Path, *options: str) -> Iterator[tuple[Server, Path]]:
    gclog = tmp / "gc.jsonl"
    srv = Server(url, tmp / "server.log", command=(*GC_SERVER, *options),
                 env={"GCWATCH_FILE": str(gclog), "SPIES_LIES_INSTANCE": str(tmp / "inst")})
    srv.start()
    try:
        yield srv, gclog
    finally:
        srv.stop()


def pauses(gclog: Path, since: float) -> list[dict[str, Any]]:
    out = []
    with open(gclog) as f:
        for line in f:
            d = json.loads(line)
            if d["at"] >= since:
                out.append(d)
    return out


def probe_loop(port: int, code: str, secret: str, stop: threading.Event,
               out: list[tuple[float, float]], cookie: str | None = None) -> None:
    """The phone's table: an exhausted soldier entered and taken back, again and again
    (two durable posts a round), 20 ms apart; each post's (time, ms)."""
    c = Client(port, cookie)
    version = c.call("GET", f"/api/tables/{code}/state")[1]["view"]["version"]
    k = 0
    while not stop.is_set():
        for path, body in (("/events", {"event": {"type": "exhaust", "side": "red",
                                                  "ranks": [1]}}), ("/undo", {})):
            k += 1
            st, d, ms = c.call("POST", f"/api/tables/{code}{path}",
                               {"version": version, "idempotency_key": f"probe-{k:08d}",
                                "answer": "delta", **body}, secret)
            if st in (200, 201):
                version = d.get("view", {}).get("version") or d["delta"]["to"]
                out.append((time.time(), ms))
            else:
                version = c.call("GET", f"/api/tables/{code}/state")[1]["view"]["version"]
            time.sleep(0.02)


def loader(port: int, pages: list[str], stop: Any, count: Any,
           cookie: str | None = None) -> None:
    """A screen loading the group's pages in a loop (in a process of its own, so that the
    phone's timing never waits for this client's own interpreter)."""
    c = Client(port, cookie)
    i = 0
    while not stop.is_set():
        c.call("GET", pages[i % len(pages)])
        i += 1
    with count.get_lock():
        count.value += i


def warm(c: Client, pages: list[str], rounds: int) -> dict[str, tuple[float, float]]:
    """Each page again and again, 110 ms apart (one client's pages come at most every
    100 ms): its (median, p95) in ms."""
    took: dict[str, list[float]] = {p: [] for p in pages}
    for _ in range(rounds):
        for p in pages:
            time.sleep(0.11)
            st, _, ms = c.call("GET", p)
            assert st == 200, (p, st)
            took[p].append(ms)
    return {p: (statistics.median(v), pct(v, 95)) for p, v in took.items()}


def alone_and_loaded(port: int, made: dict[str, Any], pages: list[str], blocks: int,
                     seconds: float, cookie: str | None = None) -> dict[str, Any]:
    """The phone's posts at ``made``'s probe table, alone, then while two screens load
    ``pages`` in a loop, then while two screens load a page that costs nothing (the
    manifest: the same load, without our pages), in alternating blocks: per kind the
    posts' (count, median, p95, p99) in ms, and the page loads (``cookie``: a group's)."""
    stop = threading.Event()
    posts: list[tuple[float, float]] = []
    th = threading.Thread(target=probe_loop, args=(
        port, made["probe"], made["probe_secret"], stop, posts, cookie))
    th.start()
    loads = {"pages": mp.Value("i", 0), "trivial": mp.Value("i", 0)}
    lists = {"pages": pages, "trivial": ["/manifest.webmanifest"]}
    windows: dict[str, list[tuple[float, float]]] = {"alone": [], "pages": [], "trivial": []}
    for _ in range(blocks):
        for kind in ("alone", "pages", "trivial"):
            halt = mp.Event()
            ls = [] if kind == "alone" else [
                mp.Process(target=loader, args=(port, lists[kind], halt, loads[kind], cookie))
                for _ in range(2)]
            for x in ls:
                x.start()
            time.sleep(0.3)                    # under way
            a = time.time()
            time.sleep(seconds)
            windows[kind].append((a, time.time()))
            halt.set()
            for x in ls:
                x.join()
    stop.set()
    th.join()
    out: dict[str, Any] = {}
    for kind, spans in windows.items():
        ms = [m for at, m in posts if any(s <= at <= e for s, e in spans)]
        out[kind] = (len(ms), statistics.median(ms) if ms else 0, pct(ms, 95), pct(ms, 99))
    out["page_loads"] = {k: v.value for k, v in loads.items()}
    return out


def run_size(n: int, url: str | None, seconds: float, blocks: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        db_url = url or f"sqlite:///{tmp}/history.sqlite"
        if url:
            _drop_all(url)
        t = time.perf_counter()
        made = populate(db_url, n, tmp / "inst")
        fill_s = time.perf_counter() - t
        pages = ["/history", "/stats", f"/stats/players/{made['player']}"]
        out: dict[str, Any] = {"n": n, "fill_s": fill_s}
        with server(db_url, tmp) as (srv, gclog):
            c = Client(srv.port)
            out["cold"] = {p: c.call("GET", p)[2] for p in pages}
            for code in made["live"]:                      # every state into the cache
                assert c.call("GET", f"/api/tables/{code}/state")[0] == 200
            out["warm"] = warm(c, pages, 15)
            # the phone's posts, alone and while two clients load the pages
            since = time.time()
            out.update(alone_and_loaded(srv.port, made, [
                *pages, "/history?page=3", f"/history?player={made['player']}"], blocks,
                seconds))
            gcs = pauses(gclog, since)
            out["gc"] = {"count": len(gcs), "full": sum(g["gen"] == 2 for g in gcs),
                         "max_ms": max((g["ms"] for g in gcs), default=0.0),
                         "over_20": sum(g["ms"] > 20 for g in gcs)}
            out["rss"] = rss(srv.pid)
            out["load"] = os.getloadavg()[0]
    return out


def _drop_all(url: str) -> None:
    import sqlalchemy as sa
    eng = sa.create_engine(url)
    with eng.begin() as c:
        c.execute(sa.text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
    eng.dispose()


def report(r: dict[str, Any]) -> None:
    print(f"\n== N = {r['n']:,} finished games (database filled in {r['fill_s']:.0f} s; "
          f"load average {r['load']:.2f})")
    for p, ms in r["cold"].items():
        med, p95 = r["warm"][p]
        print(f"  {p:<22} cold {ms:7.1f} ms   warm median {med:6.1f} ms, p95 {p95:6.1f} ms")
    a = r["alone"]
    print(f"  a phone's post alone : {a[0]:4d} posts, median {a[1]:5.1f} ms, p95 {a[2]:5.1f}, "
          f"p99 {a[3]:5.1f}")
    for kind, what in (("pages", "load the history, statistics and player pages"),
                       ("trivial", "load the manifest (the same load, none of our pages)")):
        lo = r[kind]
        ratio = lo[2] / a[2] if a[2] else float("nan")
        print(f"  ... while 2 screens {what} ({r['page_loads'][kind]} loads): {lo[0]:4d} "
              f"posts, median {lo[1]:5.1f} ms, p95 {lo[2]:5.1f}, p99 {lo[3]:5.1f}  -> p95 "
              f"{ratio:.2f} x alone")
    g = r["gc"]
    print(f"  garbage collector: {g['count']} pauses ({g['full']} full), longest "
          f"{g['max_ms']:.1f} ms, {g['over_20']} over 20 ms")
    print(f"  server RSS {r['rss'][0]:.0f} MB (peak {r['rss'][1]:.0f} MB)")


def main(args: argparse.Namespace) -> int:
    sizes = [int(x) for x in args.sizes.split(",")]
    print(f"python -m benchmarks history: sizes {sizes}, {args.blocks} blocks of "
          f"{args.seconds:.0f} s alone / loaded, database "
          f"{'PostgreSQL' if args.database_url else 'SQLite'}; {os.cpu_count()} CPUs")
    for n in sizes:
        report(run_size(n, args.database_url, args.seconds, args.blocks))
    return 0
