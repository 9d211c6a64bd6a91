"""The chance to win is worked out in a helper process, not in the server's (issue 24):
seconds of Python there held the GIL while every table's posts waited. The helper gives
the same numbers, runs niced, costs this process next to nothing while it works, is
replaced when it dies, tells a job's error without dying, and ends with its server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from companion.engine import Options
from companion.engine.chances import step_chances
from companion.group.offload import NICE, Helper, HelperFailed
from harness.server import Server, children, database

# the chances' helper process: no database in what it does (its figures reach the
# tables in tests/web/test_chances.py, run on both)
pytestmark = pytest.mark.anydb

RECORD = json.loads((Path(__file__).resolve().parents[1] / "records" / "random-flag-1.json")
                    .read_text())
OPTIONS = Options(RECORD["options"]["wall_distance"])
# a short finished game (13 events): a story whose chances take a fraction of a second
SHORT = json.loads((Path(__file__).resolve().parents[1] / "records"
                    / "worked-capture-cancelled.json").read_text())


def _cpu(pid: int) -> float:
    """A process's CPU seconds so far (user and system)."""
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def _until(ok: Any, seconds: float = 30) -> Any:
    end = time.monotonic() + seconds
    while not (got := ok()) and time.monotonic() < end:
        time.sleep(0.05)
    return got


@pytest.fixture
def helper():
    # at the suite's priority: at 10 beside a busy test run it may get a few percent of a
    # core, and these tests would wait minutes for seconds of work
    h = Helper(0)
    yield h
    h.stop()


def test_the_server_s_helper_runs_niced():
    h = Helper()                # as a server starts it (the suite sets its own variable)
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.delenv("SPIES_LIES_HELPER_NICE", raising=False)
            assert h.call("step_chances", OPTIONS, [], 1, 10) == step_chances(OPTIONS, [], 1, 10)
        pid = h.pid()
        assert pid is not None and pid != os.getpid()
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(
            19, os.getpriority(os.PRIO_PROCESS, 0) + NICE)
    finally:
        h.stop()


def test_the_same_numbers_worked_out_in_a_process_that_costs_this_one_nothing(helper):
    events = RECORD["events"][:10]
    got = helper.call("step_chances", OPTIONS, events, 7, 300)
    assert got == step_chances(OPTIONS, events, 7, 300)     # the same seeds, the same numbers
    pid = helper.pid()
    assert pid is not None and pid != os.getpid()
    # while it works, this process only waits on a pipe (no GIL held): a second of the
    # helper's CPU costs this process a few pickles
    mine, theirs = time.process_time(), _cpu(pid)
    helper.call("step_chances", OPTIONS, RECORD["events"], 7, 120)
    mine, theirs = time.process_time() - mine, _cpu(pid) - theirs
    assert theirs > 0.3 and mine < theirs / 10, (mine, theirs)


def test_a_helper_killed_mid_job_is_replaced_and_the_job_done(helper):
    events = RECORD["events"]
    helper.call("step_chances", OPTIONS, events[:1], 1, 10)     # started
    first = helper.pid()
    assert first is not None
    out: list[Any] = []
    t = threading.Thread(target=lambda: out.append(
        helper.call("step_chances", OPTIONS, events, 3, 100)))
    t.start()
    assert _until(lambda: _cpu(first) > 0.2), "the job never ran"
    os.kill(first, signal.SIGKILL)
    t.join(120)
    assert out == [step_chances(OPTIONS, events, 3, 100)]
    assert helper.started == 2 and helper.pid() not in (None, first)


def test_a_job_that_fails_is_told_and_the_helper_goes_on(helper):
    helper.call("step_chances", OPTIONS, [], 1, 10)
    pid = helper.pid()
    with pytest.raises(HelperFailed, match="step_chances: MalformedEvent"):
        helper.call("step_chances", OPTIONS, [{"type": "no such event"}], 1, 10)
    with pytest.raises(HelperFailed, match="KeyError"):
        helper.call("nothing of ours")
    assert helper.call("step_chances", OPTIONS, [], 1, 10) == step_chances(OPTIONS, [], 1, 10)
    assert helper.pid() == pid and helper.started == 1


@pytest.mark.parametrize("end", ["stopped", "killed"])
def test_the_helper_ends_with_its_server(tmp_path, end):
    """A stopped server (SIGTERM: no exit handler runs) or a killed one (SIGKILL) leaves
    no helper behind: it ends when its pipe does."""
    with database(tmp_path) as (url, _):
        srv = Server(url, tmp_path / "server.log").start()
        try:
            st, made = srv.call("POST", "/api/tables/import", {"record": SHORT})
            assert st == 201, made
            code = made["code"]
            story = _until(lambda: not srv.call("GET", f"/api/tables/{code}/story")[1]
                           ["chances"].get("pending"), 120)
            assert story, "the story's chances never came"
            helpers = children(srv.pid)
            assert len(helpers) == 1
            if end == "stopped":
                srv.stop()
            else:
                srv.kill()
            assert _until(lambda: not os.path.exists(f"/proc/{helpers[0]}")
                          or _state(helpers[0]) == "Z", 20), "the helper outlived its server"
        finally:
            srv.kill()


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def test_a_process_that_is_ending_starts_no_helper(helper):
    """At exit the helper is killed, even mid-job, and none is started again for the job
    the chances' thread was waiting on (its failure is not logged as one)."""
    helper.call("step_chances", OPTIONS, [], 1, 10)
    pid = helper.pid()
    helper.kill_now()
    with pytest.raises(HelperFailed, match="ending"):
        helper.call("step_chances", OPTIONS, [], 1, 10)
    assert helper.ending and helper.started == 1
    assert _until(lambda: _state(pid) in ("Z", "gone"), 10)


@pytest.mark.parametrize("mid_job", [False, True])
def test_a_process_that_ends_leaves_no_helper_to_warn_of(mid_job):
    """A process that used the helper ends without the interpreter warning of a
    subprocess still running or of its pipes left open (the suite's workers printed
    both at their end), whether the helper was idle or mid-job on a daemon thread."""
    events = RECORD["events"] if mid_job else []      # a long job, or none under way
    script = (
        "import threading, time\n"
        "from companion.engine import Options\n"
        "from companion.group.offload import helper\n"
        f"OPTIONS = Options({OPTIONS.wall_distance})\n"
        "helper.call('step_chances', OPTIONS, [], 1, 10)\n"
        f"job = lambda: helper.call('step_chances', OPTIONS, {events!r}, 3, 2000)\n"
        f"{'threading.Thread(target=job, daemon=True).start()' if mid_job else ''}\n"
        "time.sleep(0.5)\n"
        "print(helper.pid(), flush=True)\n")
    done = subprocess.run([sys.executable, "-W", "default", "-c", script],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "SPIES_LIES_HELPER_NICE": "0"})
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr, done.stderr
    assert _until(lambda: _state(int(done.stdout)) in ("Z", "gone"), 10)
