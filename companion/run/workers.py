"""``spies-lies serve --workers N``: N server processes on one port (issue 24).

One process serves a table's screens on one core; a hosted service with many tables
wants more. Here a small parent process

- refuses to start on SQLite (one file takes one writer at a time, and a change reaches
  the screens held by another process only through PostgreSQL's LISTEN/NOTIFY);
- brings the database up to date once, prints the addresses, and opens the listening
  socket;
- starts N workers (``python -m companion serve --listen-fd FD …``), each a whole
  companion server (:class:`companion.run.server.Server`) accepting on that one socket: the
  kernel gives each new connection to whichever worker accepts first, and a connection
  waiting in the socket's queue is never lost when a worker dies;
- starts a new worker when one ends (kill -9, a crash), waiting a little longer each time
  one dies within seconds of its start; Ctrl+C or SIGTERM stops them all.

What one process knew alone, the workers share through PostgreSQL: every change is
announced with NOTIFY and pushed by every worker to the screens it holds, and who is
connected to a table is announced the same way (:mod:`companion.live.fanout`). Per-client
limits (opening tables, wrong codes, connections per address) are counted by each worker
on its own: behind a reverse proxy, let the proxy cap them (the README's *A hosted
service*).
An acknowledged tap is committed before its answer, whichever worker took it: a worker
killed at any moment loses nothing acknowledged.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import threading
import time

REFUSED_ON_SQLITE = (
    "spies-lies serve --workers needs PostgreSQL: set DATABASE_URL (for example "
    "postgresql+psycopg://user@localhost/spies_lies).\n"
    "On SQLite the companion runs as one process (leave out --workers): its file takes one "
    "writer at a time, and a change reaches the screens held by another process only "
    "through PostgreSQL.\n")
QUICK_DEATH = 5.0         # a worker that dies sooner than this after its start: back off
MAX_BACKOFF = 10.0


def worker_command(args: argparse.Namespace, port: int, url: str, fd: int) -> list[str]:
    """The command line of one worker: the parent's options, the port it got, the
    address it printed, and the socket to accept on."""
    cmd = [sys.executable, "-m", "companion", "serve", "--host", str(args.host),
           "--port", str(port), "--public-url", url, "--threads", str(args.threads),
           "--client-connections", str(args.client_connections),
           "--trust-proxy", str(args.trust_proxy or 0), "--listen-fd", str(fd)]
    for name in args.allow_host or ():
        cmd += ["--allow-host", name]
    if getattr(args, "many_groups", False):
        cmd.append("--many-groups")
    return cmd


class Supervisor:
    """The parent: N workers on one listening socket, a dead one replaced."""

    def __init__(self, command: list[str], workers: int, sock: socket.socket) -> None:
        self.command, self.n, self.sock = command, workers, sock
        self.procs: list[subprocess.Popen[bytes] | None] = [None] * workers
        self.started = [0.0] * workers
        self.backoff = [0.0] * workers
        self.stopping = threading.Event()

    def spawn(self, i: int) -> None:
        proc = subprocess.Popen(self.command, pass_fds=(self.sock.fileno(),),
                                env={**os.environ, "SPIES_LIES_WORKER": str(i + 1)})
        self.procs[i], self.started[i] = proc, time.monotonic()
        print(f"  worker {i + 1} started (pid {proc.pid})", flush=True)

    def run(self) -> int:
        """Start the workers and keep them running until SIGTERM or Ctrl+C."""
        def stop(_sig: int, _frame: object) -> None:
            self.stopping.set()
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        for i in range(self.n):
            self.spawn(i)
        due: dict[int, float] = {}
        while not self.stopping.wait(0.2):
            now = time.monotonic()
            for i, proc in enumerate(self.procs):
                if proc is None or proc.poll() is None:
                    continue
                if i not in due:
                    quick = now - self.started[i] < QUICK_DEATH
                    self.backoff[i] = (min(MAX_BACKOFF, max(0.5, self.backoff[i] * 2))
                                       if quick else 0.0)
                    due[i] = now + self.backoff[i]
                    print(f"  worker {i + 1} (pid {proc.pid}) ended with "
                          f"{_how(proc.returncode)}; starting another"
                          + (f" in {self.backoff[i]:.1f} s" if self.backoff[i] else ""),
                          flush=True)
                if now >= due[i]:
                    del due[i]
                    self.spawn(i)
        self.shutdown()
        return 0

    def shutdown(self) -> None:
        live = [p for p in self.procs if p is not None and p.poll() is None]
        for p in live:
            p.terminate()
        end = time.monotonic() + 10
        for p in live:
            try:
                p.wait(max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.sock.close()


def _how(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


def watch_parent() -> None:
    """In a worker: end when the parent is gone (killed without passing on the signal),
    so that no orphan keeps serving on its own."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(0)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
