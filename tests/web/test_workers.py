"""``spies-lies serve --workers N`` (issue 24): N processes on one port, one database.

On SQLite it is refused with a clear message. On PostgreSQL (``./scripts/test`` runs the
suite a second time there) every change reaches every screen of its table whichever
worker took the post and whichever holds the screen, who is connected is known to every
worker, and a worker killed with SIGKILL mid-game loses nothing acknowledged: its parent
starts another, and the other keeps serving throughout.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import threading
import time

import pytest

from companion.engine.simulate import random_record
from companion.live.delta import patch
from harness.server import COMPANION, ROOT, Server, children
from harness.steps import steps

from .test_durability import Table, _recover, _run

URL = os.environ.get("DATABASE_URL", "")
on_postgresql = pytest.mark.skipif(not URL.startswith("postgresql"),
                                   reason="needs DATABASE_URL on PostgreSQL")
WORKERS = (*COMPANION, "--workers", "2")


@pytest.mark.anydb
def test_workers_are_refused_on_sqlite_with_what_to_do(tmp_path):
    for url in ("", f"sqlite:///{tmp_path}/x.sqlite"):
        env = {**os.environ, "DATABASE_URL": url, "SPIES_LIES_INSTANCE": str(tmp_path / "i")}
        out = subprocess.run([*WORKERS, "--port", "0", "--host", "127.0.0.1"], cwd=ROOT,
                             env=env, capture_output=True, text=True, timeout=60)
        assert out.returncode == 2, out
        assert "needs PostgreSQL" in out.stderr and "DATABASE_URL" in out.stderr
        assert "leave out --workers" in out.stderr
        assert "Spies & Lies table companion" not in out.stdout     # nothing started
    out = subprocess.run([*COMPANION, "--workers", "0", "--port", "0"], cwd=ROOT,
                         env={**os.environ, "DATABASE_URL": ""}, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "argument --workers: 0 is out of range: 1-256" in out.stderr


def wait_for_workers(server: Server, n: int, not_in: tuple[int, ...] = (),
                     timeout: float = 60.0) -> list[int]:
    """``n`` live workers (none of ``not_in``), each answering."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        kids = [k for k in children(server.pid) if k not in not_in]
        if len(kids) == n and len(answering(server, n)) == n:
            return kids
        time.sleep(0.2)
    raise AssertionError(f"not {n} workers in time: {children(server.pid)}\n"
                         + server.output()[-2000:])


def answering(server: Server, n: int, tries: int = 60) -> set[str]:
    """The workers seen answering new connections (up to ``n``)."""
    seen: set[str] = set()
    for _ in range(tries):
        c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        try:
            c.request("GET", "/api/openapi.json")
            r = c.getresponse()
            r.read()
            seen.add(r.getheader("X-Companion-Worker") or "")
        except OSError:
            pass
        finally:
            c.close()
        if len(seen) >= n:
            break
    return seen


class Refused(Exception):
    """A stream the server did not open (429: this client's streams of the table on
    that worker, closed ones not yet noticed, are at its cap)."""


class Screen:
    """One live stream, read on a thread: the views it had, in order."""

    def __init__(self, server: Server, code: str, since: int, view: dict) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        self.conn.request("GET", f"/api/tables/{code}/stream?since={since}&seat=viewer")
        self.resp = self.conn.getresponse()
        if self.resp.status != 200:
            self.resp.read()
            self.conn.close()
            raise Refused(self.resp.status)
        self.worker = self.resp.getheader("X-Companion-Worker")
        self.view, self.versions = view, [view["version"]]
        self.presence: list[list[str]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        name = None
        try:
            while True:
                line = self.resp.fp.readline().decode()
                if not line:
                    return
                if line.startswith("event: "):
                    name = line[7:].strip()
                elif line.startswith("data: "):
                    d = json.loads(line[6:])
                    if name == "state":
                        self.view = d
                    elif name == "delta":
                        assert d["from"] == self.view["version"], (d["from"], self.view)
                        self.view = patch(self.view, d["ops"])
                    elif name == "presence":
                        self.presence.append(d["connected"])
                        continue
                    self.versions.append(self.view["version"])
        except (OSError, ValueError, AttributeError):     # closed by the test
            return

    def close(self) -> None:
        sock = self.conn.sock
        if sock is not None:                 # wakes the reading thread at once
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self.conn.close()


def open_screens(server: Server, code: str, view: dict, per_worker: int = 3,
                 tries: int = 80) -> list[Screen]:
    """Screens of ``code`` until each of the two workers holds ``per_worker`` of them."""
    screens: list[Screen] = []
    for _ in range(tries):
        try:
            s = Screen(server, code, view["version"], view)
        except Refused:
            time.sleep(0.3)            # the screens closed below are let go meanwhile
            continue
        held = sum(1 for x in screens if x.worker == s.worker)
        if held >= per_worker:
            s.close()
        else:
            screens.append(s)
        if len(screens) == 2 * per_worker:
            return screens
    raise AssertionError(f"the workers did not share the screens: {[s.worker for s in screens]}")


@on_postgresql
def test_every_change_reaches_every_screen_whichever_worker_took_it(server_db):
    url, tmp = server_db
    server = Server(url, tmp / "server.log", threads=8, command=WORKERS).start()
    screens: list[Screen] = []
    try:
        wait_for_workers(server, 2)
        rec = random_record(random.Random(2402), wall_distance=3)
        st, made = server.call("POST", "/api/tables", {"wall_distance": 3})
        assert st == 201, made
        code, view = made["code"], made["view"]
        keys = {"host": made["host_secret"]}
        for side in ("red", "blue"):
            st, d = server.call("POST", f"/api/tables/{code}/seats",
                                {"version": view["version"], "side": side, "name": side,
                                 "idempotency_key": f"workers-seat-{side}"})
            assert st == 201, d
            keys[side], view = d["secret"], d["view"]
        # the TV connected on one worker, the other cold (no stream of its own, so no
        # listener: it has not heard of the TV): a seated phone's hand-over is refused on
        # both (issue 50: the cold worker accepted it), a keyless screen only asks on both
        assert _hand_over_on_each_worker(server, code, keys, view["version"]) == {
            "1": (403, 202), "2": (403, 202)}
        screens = open_screens(server, code, view)
        assert {s.worker for s in screens} == {"1", "2"}
        takers: set[str] = set()
        n = 0
        for e in rec.events:              # each post on a new connection: either worker
            todo, status = steps(e, view), None
            try:
                while True:
                    who, path, body = todo.send(status)
                    n += 1
                    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
                    c.request("POST", f"/api/tables/{code}{path}", json.dumps(
                        {"version": view["version"], "idempotency_key": f"workers-{n:05d}",
                         **body}), {"Content-Type": "application/json",
                                    "Origin": server.origin,
                                    "Authorization": f"Bearer {keys[who]}"})
                    r = c.getresponse()
                    d = json.loads(r.read())
                    takers.add(r.getheader("X-Companion-Worker") or "")
                    c.close()
                    status = r.status
                    assert status in (200, 201), d
                    view = d["view"]
            except StopIteration:
                pass
        assert view["state"]["phase"] == "over"
        assert takers == {"1", "2"}, takers          # both workers took posts
        end = time.monotonic() + 15
        while time.monotonic() < end and any(s.view["version"] < view["version"]
                                             for s in screens):
            time.sleep(0.1)
        st, fresh = server.call("GET", f"/api/tables/{code}/state")
        for s in screens:                 # every screen: the very view a fresh load gets
            assert s.view == fresh["view"], (s.worker, s.view["version"], view["version"])
            assert s.versions == sorted(s.versions)
        # who is connected: the host's stream on one worker, seen from the other
        c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        c.request("GET", f"/api/tables/{code}/me",
                  headers={"Authorization": f"Bearer {keys['host']}", "Origin": server.origin})
        r = c.getresponse()
        proof = json.loads(r.read()).get("proof")
        c.close()
        assert proof
        seen = _host_connected(server, code, keys["host"], proof)
        assert seen == {"1", "2"}, seen
    finally:
        for s in screens:
            s.close()
        server.stop()


def _hand_over_on_each_worker(server: Server, code: str, keys: dict[str, str],
                              version: int) -> dict[str, tuple[int, int]]:
    """With the table's screen's stream open (on one worker), what each worker answers
    a seated phone that hands the table to a key it made, and a screen with no key that
    asks for it (the same screen each time: one ask): ``{worker: (phone's status,
    screen's status)}``."""
    _, me = server.call("GET", f"/api/tables/{code}/me", secret=keys["host"])
    tv = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    tv.request("GET", f"/api/tables/{code}/stream?since=0&seat=host&proof={me['proof']}")
    assert tv.getresponse().status == 200
    seen: dict[str, list[int]] = {}
    try:
        for n in range(80):
            if len(seen) == 2 and all(len(x) == 2 for x in seen.values()):
                break
            asker = "red" if n % 2 == 0 else None      # the phone, then a keyless screen
            c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            c.request("POST", f"/api/tables/{code}/host", json.dumps({
                "version": version, "idempotency_key": f"workers-hand-{n:03d}",
                "host_hash": f"{n:064x}" if asker else "ab" * 32}), {
                "Content-Type": "application/json", "Origin": server.origin,
                **({"Authorization": f"Bearer {keys[asker]}"} if asker else {})})
            r = c.getresponse()
            r.read()
            c.close()
            got = seen.setdefault(r.getheader("X-Companion-Worker") or "", [])
            if len(got) == (0 if asker else 1):
                got.append(r.status)
    finally:
        tv.close()
    return {w: (x[0], x[1]) for w, x in seen.items() if len(x) == 2}


def _host_connected(server: Server, code: str, host_key: str, proof: str) -> set[str]:
    """With the host's stream open on one worker, the workers whose ``/state`` lists the
    host as connected (every one, once the announcement went round)."""
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    c.request("GET", f"/api/tables/{code}/stream?since=0&seat=host&proof={proof}")
    r = c.getresponse()
    assert r.status == 200
    seen: set[str] = set()
    try:
        end = time.monotonic() + 20
        while time.monotonic() < end and len(seen) < 2:
            q = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            q.request("GET", f"/api/tables/{code}/state")
            a = q.getresponse()
            d = json.loads(a.read())
            q.close()
            if "host" in d.get("connected", []):
                seen.add(a.getheader("X-Companion-Worker") or "")
            time.sleep(0.05)
    finally:
        c.close()
    return seen


@on_postgresql
def test_a_killed_worker_is_replaced_and_loses_nothing_acknowledged(server_db):
    url, tmp = server_db
    server = Server(url, tmp / "server.log", threads=8, command=WORKERS).start()
    counter = {"acked": 0}
    tables = [Table(server, seed, counter) for seed in range(301, 305)]
    try:
        first = wait_for_workers(server, 2)
        for t in tables:
            t.open()
        errors: list[BaseException] = []
        runner = threading.Thread(target=lambda: errors.extend(_run(tables)))
        runner.start()
        end = time.monotonic() + 60
        while counter["acked"] < 40 and time.monotonic() < end and runner.is_alive():
            time.sleep(0.002)
        victim = first[0]
        os.kill(victim, signal.SIGKILL)                  # mid-game: phones are posting
        served_after = counter["acked"]
        runner.join(120)
        assert not errors, errors
        # the other worker kept serving, and the parent started another
        kids = wait_for_workers(server, 2, not_in=(victim,))
        assert victim not in kids and first[1] in kids
        assert "ended with signal SIGKILL; starting another" in server.output()
        figures = {"in_flight": 0, "unanswered": 0}
        _recover(server, tables, figures)              # every acknowledged event kept
        errors = _run(tables)                           # the games play on to their end
        assert not errors, errors
        assert all(t.done for t in tables)
        assert counter["acked"] > served_after
    finally:
        server.stop()
