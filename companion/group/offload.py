"""Seconds of CPU work done in a helper process, not in the server's (issue 24).

The chance to win (issue 25) is pure Python that runs for seconds: a finished game's
story ~2 s of a core, a live figure ~0.25 s after every change of a table that opted in.
In the server's own process that work holds the GIL beside every table's requests: each
post waits for it, up to a switch interval at a time, while it runs. Here it runs in one
helper process, started when first needed (``python -m companion.group.offload``), niced so
the tables come first when the cores are busy; the thread that asks waits on a pipe,
without the GIL.

The helper reads pickled ``(job, args)`` from its stdin and writes pickled
``(ok, result)`` to its stdout, one at a time. It runs only the jobs it names (plain
functions of the rules engine: ``estimate``, ``step_chances``). When the server's
process ends, the helper is stopped (and if the server is killed, the helper ends at
the end of its pipe). A helper that dies is started again at the next job; the job it
was doing is tried once more.
"""

from __future__ import annotations

import atexit
import os
import pickle
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, cast

NICE = 10       # below the server's threads: a post never waits for a chance figure
# (a test suite on a busy machine runs it at 0: at 10 beside a dozen busy processes it gets
# a few percent of a core, and the tests that wait for a figure wait minutes)
NICE_VARIABLE = "SPIES_LIES_HELPER_NICE"


def _jobs() -> dict[str, Callable[..., Any]]:
    from ..engine.chances import estimate, step_chances
    return {"estimate": estimate, "step_chances": step_chances}


class HelperFailed(RuntimeError):
    """A job raised in the helper, or the helper died twice running it."""


class Helper:
    """One helper process, started on the first :meth:`call`; thread-safe (one job at
    a time)."""

    def __init__(self, nice: int | None = None) -> None:
        self.nice = nice            # None: $SPIES_LIES_HELPER_NICE when it starts, else NICE
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self.ending = False         # the server's process is ending: no new helper
        self.started = 0            # how many helpers were started (a dead one is replaced)

    def call(self, job: str, *args: Any) -> Any:
        """``JOBS[job](*args)`` worked out in the helper process."""
        data = pickle.dumps((job, args), pickle.HIGHEST_PROTOCOL)   # (a bad job fails here)
        with self._lock:
            for attempt in (1, 2):
                proc = self._running()
                try:
                    cast(IO[bytes], proc.stdin).write(data)
                    cast(IO[bytes], proc.stdin).flush()
                    ok, value = pickle.load(cast(IO[bytes], proc.stdout))
                except Exception:       # the pipe broke, whichever way
                    self._stop()        # dead (or killed): a new one for the next try
                    if attempt == 2:
                        raise HelperFailed(f"the helper process died twice on {job}") from None
                    continue
                if not ok:
                    raise HelperFailed(value)
                return value
        raise AssertionError("unreachable")

    def pid(self) -> int | None:
        """The running helper's process id (``None`` before the first job)."""
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def _running(self) -> subprocess.Popen[bytes]:
        if self.ending:
            raise HelperFailed("the process is ending")
        if self._proc is None or self._proc.poll() is not None:
            # the same companion as this process's, wherever it was imported from
            root = str(Path(__file__).resolve().parents[2])
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join(
                [root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "companion.group.offload", str(self._nice())],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, close_fds=True)
            self.started += 1
        return self._proc

    def _nice(self) -> int:
        if self.nice is not None:
            return self.nice
        try:
            return int(os.environ.get(NICE_VARIABLE, NICE))
        except ValueError:
            return NICE

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
            proc.wait()
            for f in (proc.stdin, proc.stdout):
                if f is not None:
                    f.close()

    def stop(self) -> None:
        """End the helper (the next job starts another)."""
        with self._lock:
            self._stop()

    def kill_now(self) -> None:
        """End the helper at once, even mid-job, and start none again (at exit: not
        waiting for its job; the process reaped and its pipes closed, so the
        interpreter's exit warns of no running subprocess or open file)."""
        self.ending = True
        if self._lock.acquire(blocking=False):      # no job under way: ended cleanly
            try:
                self._stop()
            finally:
                self._lock.release()
            return
        proc = self._proc         # mid-job: its thread sees the pipe end and gives up
        if proc is not None:
            proc.kill()
            try:
                proc.wait(1)      # reaped, not left for the interpreter's exit to warn of
            except subprocess.TimeoutExpired:
                pass


helper = Helper()
atexit.register(helper.kill_now)


def main(nice: int) -> None:
    """The helper's loop: one job in, its result out, until the pipe ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C is the server's to handle
    try:
        os.nice(nice)
    except (OSError, AttributeError):     # not allowed, or no such call on this system
        pass
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr           # a stray print never corrupts the pipe
    jobs = _jobs()
    while True:
        try:
            job, args = pickle.load(inp)
        except EOFError:
            return
        try:
            result: tuple[bool, Any] = (True, jobs[job](*args))
        except Exception as err:     # told to the caller, never the helper's end
            result = (False, f"{job}: {type(err).__name__}: {err}")
        try:
            pickle.dump(result, out, pickle.HIGHEST_PROTOCOL)
            out.flush()
        except BrokenPipeError:
            return


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else NICE)
