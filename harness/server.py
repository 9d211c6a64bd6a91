"""A real companion server in its own process, for the tests that kill it, run two of
it or talk to it over real sockets, and for the benchmarks.

``Server(database_url, log)`` runs ``python -m companion serve`` on a free loopback
port; ``command`` names another program that takes the same options (the
benchmark's floor server, or an installed ``spies-lies serve``). Its instance
folder (``SPIES_LIES_INSTANCE``) is ``instance/`` beside the log unless ``env``
names one: nothing is written into the checkout.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from companion.edge.limits import LIMITS

ROOT = Path(__file__).resolve().parents[1]          # the checkout
COMPANION = (sys.executable, "-m", "companion", "serve")



UNLIMITED = json.dumps({name: "1000000 per second" for name in LIMITS})


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (the workers of ``serve --workers N``, the chances'
    helper), whichever of its threads started them."""
    kids: set[int] = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                kids.update(int(p) for p in f.read().split())
        except OSError:         # a thread that ended meanwhile
            pass
    return sorted(kids)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int, what: str = "VmRSS") -> float:
    """A process's resident memory now (or at its highest: ``VmHWM``), in MB (Linux)."""
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(what)) / 1024


def server_side(port: int, sources: Sequence[str]) -> tuple[int, int]:
    """The server's connections on ``port`` from ``sources`` still open, and the bytes
    they sent that the server has not read yet (``/proc/net/tcp``: its side of each
    connection; Linux)."""
    hexed = {socket.inet_aton(a)[::-1].hex().upper() for a in sources}
    held = unread = 0
    with open("/proc/net/tcp") as f:
        next(f)
        for row in f:
            cols = row.split()
            local, remote, state = cols[1], cols[2], cols[3]
            if (int(local.split(":")[1], 16) == port
                    and remote[:8] in hexed
                    and state in ("01", "08")):          # established, or closed by the client
                held += 1
                unread += int(cols[4].split(":")[1], 16)
    return held, unread


class Server:
    """One server process on 127.0.0.1; its output goes to ``log``."""

    def __init__(self, database_url: str, log: Path, threads: int = 32,
                 command: Sequence[str] = COMPANION, env: Mapping[str, str] | None = None,
                 cwd: Path = ROOT) -> None:
        self.database_url, self.log, self.threads = database_url, Path(log), threads
        self.command, self.env, self.cwd = list(command), dict(env or {}), cwd
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def start(self, timeout: float = 60.0) -> Server:
        """Start the process and wait until it answers ``GET /api/openapi.json``."""
        env = {**os.environ, "DATABASE_URL": self.database_url, "PYTHONUNBUFFERED": "1",
               "SPIES_LIES_INSTANCE": str(self.log.parent / "instance"),
               # one client (this machine) plays hundreds of tables: no per-client limit
               "SPIES_LIES_RATE_LIMITS": UNLIMITED, **self.env}
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [*self.command, "--host", "127.0.0.1", "--port", str(self.port),
                 "--threads", str(self.threads), "--public-url", self.origin],
                cwd=self.cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError("the server stopped at start:\n" + self.output()[-3000:])
            try:
                if self.call("GET", "/api/openapi.json", timeout=2)[0] == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        self.kill()
        raise RuntimeError("the server did not answer in time:\n" + self.output()[-3000:])

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, no flush, nothing."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 10 s."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def call(self, method: str, path: str, body: Any = None, secret: str | None = None,
             timeout: float = 30.0) -> tuple[int, Any]:
        """One request on a new connection; JSON in, (status, JSON or text) out."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            headers = {"Origin": self.origin}
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
            if secret:
                headers["Authorization"] = f"Bearer {secret}"
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
            ctype = resp.getheader("Content-Type") or ""
            return resp.status, json.loads(raw) if "json" in ctype else raw.decode()
        finally:
            conn.close()


@contextmanager
def database(tmp: Path) -> Iterator[tuple[str, Path]]:
    """A fresh database for server processes: a SQLite file in ``tmp``, or a new
    PostgreSQL database beside the one $DATABASE_URL names (dropped afterwards)."""
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith("postgresql"):
        yield f"sqlite:///{tmp / 'server.sqlite'}", tmp
        return
    import sqlalchemy as sa
    name = f"proc_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:
            c.execute(sa.text(f'CREATE DATABASE "{name}"'))
        url = sa.engine.make_url(base).set(database=name).render_as_string(hide_password=False)
        yield url, tmp
    finally:
        with admin.connect() as c:
            c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
