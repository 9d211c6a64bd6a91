"""A real companion server in its own process (``python -m companion serve``) for the
tests that kill it, run two of it, or talk to it over real sockets."""

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
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """One server process on 127.0.0.1; its output goes to a file the tests read."""

    def __init__(self, db_url: str, log: Path, threads: int = 32) -> None:
        self.db_url, self.log, self.threads = db_url, log, threads
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> "Server":
        env = {**os.environ, "DATABASE_URL": self.db_url, "PYTHONUNBUFFERED": "1"}
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1",
                 "--port", str(self.port), "--threads", str(self.threads),
                 "--public-url", self.origin],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError("the server stopped at start:\n" + self.log.read_text())
            try:
                if self.call("GET", "/api/openapi.json", timeout=2)[0] == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("the server did not answer in time:\n" + self.log.read_text())

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, no flush, nothing."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def call(self, method: str, path: str, body: Any = None, secret: str | None = None,
             timeout: float = 30.0) -> tuple[int, Any]:
        """One request on a new connection; JSON in, (status, JSON) out."""
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


@pytest.fixture
def server_db(tmp_path):
    with database(tmp_path) as (url, tmp):
        yield url, tmp
