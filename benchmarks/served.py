"""The server under test: a real server process on a fresh database in a temporary folder
(:func:`running_server`), and its figures read from /proc (:class:`Proc`, :class:`Family`)."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from harness.server import Server, children

# every screen of the benchmark is on this machine: no cap on one address's connections
FLOOR_SERVER = (sys.executable, "-m", "benchmarks.floor_server", "--client-connections", "0")

CLK_TCK = os.sysconf("SC_CLK_TCK")


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
    where: dict[str, Any] = {} if checkout is None else {
        "env": {"PYTHONPATH": str(Path(checkout).resolve())}, "cwd": Path(checkout).resolve()}
    with tempfile.TemporaryDirectory(prefix="spies-lies-bench-") as tmp:
        srv = Server(database_url or f"sqlite:///{tmp}/bench.sqlite", Path(tmp, "server.log"),
                     threads, command, **where)
        srv.start()
        try:
            yield srv, Proc(srv.pid)
        except BaseException:
            # the run failed: what the server said (its log goes with its folder)
            with suppress(OSError):
                tail = Path(tmp, "server.log").read_text(errors="replace")[-6000:]
                print(f"--- the end of the server's log ({srv.pid}):\n{tail}", file=sys.stderr)
            raise
        finally:
            srv.stop()


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
