"""Known-good records in tests/records must keep replaying to the same result.

Each ``NAME.json`` has a ``NAME.expected.json`` with RECORD.md's replay keys (and
the reveals' index, guesser, mission, actual, outcome, IP and DA), or a
``NAME.error.txt`` with the exact error line. These files are a contract: do
not regenerate them unless a ruling in RULES.md changes.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from companion.engine import Record, replay, replay_output

RECORDS = pathlib.Path(__file__).resolve().parents[1] / "records"
GOOD = sorted(p for p in RECORDS.glob("*.json") if not p.name.endswith(".expected.json")
              and (RECORDS / (p.stem + ".expected.json")).exists())
BAD = sorted(p for p in RECORDS.glob("*.json") if (RECORDS / (p.stem + ".error.txt")).exists())
KEYS = ("day", "phase", "ip", "da", "dt", "winner", "reason")
RKEYS = ("index", "guesser", "mission", "actual", "outcome", "ip", "da")


def test_the_records_cover_every_way_a_game_ends():
    reasons = {json.loads((RECORDS / (p.stem + ".expected.json")).read_text())["reason"]
               for p in GOOD}
    assert {"flag", "flag_cancelled", "territory", "ip", "draw", None} <= reasons


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_known_record_replays_to_the_same_result(path):
    expected = json.loads((RECORDS / (path.stem + ".expected.json")).read_text())
    out = replay_output(replay(Record.from_json(path.read_bytes())))
    assert {k: out[k] for k in KEYS} == {k: expected[k] for k in KEYS}
    assert [{k: r[k] for k in RKEYS} for r in out["reveals"]] == expected["reveals"]


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(RECORDS.parents[1])}
    return subprocess.run(list(args), capture_output=True, text=True, env=env, timeout=60)


def _commands(path: pathlib.Path) -> list[list[str]]:
    script = pathlib.Path(sys.executable).with_name("spies-lies")
    cmds = [[sys.executable, "-m", "companion", "replay", str(path)]]
    if script.exists():
        cmds.append([str(script), "replay", str(path)])
    return cmds


@pytest.mark.parametrize("path", GOOD[:2], ids=lambda p: p.stem)
def test_replay_command_prints_the_state_and_exits_0(path):
    expected = json.loads((RECORDS / (path.stem + ".expected.json")).read_text())
    for cmd in _commands(path):
        run = _cli(*cmd)
        assert (run.returncode, run.stderr) == (0, "")
        out = json.loads(run.stdout)
        assert {k: out[k] for k in KEYS} == {k: expected[k] for k in KEYS}


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_replay_command_refuses_a_bad_record_with_one_line(path):
    line = (RECORDS / (path.stem + ".error.txt")).read_text()
    for cmd in _commands(path):
        run = _cli(*cmd)
        assert (run.returncode, run.stdout, run.stderr) == (2, "", line)


@pytest.mark.parametrize("content, line", [
    ("{", "error: not valid JSON"),
    ('{"format": "spies-and-lies-record/2", "events": []}', "error: 'format' must be"),
    ('{"format": "spies-and-lies-record/1", "events": [{"type": "fly"}]}',
     'error: event 0: unknown event type "fly"'),
])
@pytest.mark.parametrize("command", ["replay", "deduce", "chances"])
def test_the_commands_refuse_bad_files(tmp_path, content, line, command):
    """``replay``, ``deduce`` and ``chances`` read records alike: one error line, exit 2."""
    f = tmp_path / "r.json"
    f.write_text(content)
    run = _cli(sys.executable, "-m", "companion", command, str(f))
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith(line) and run.stderr.count("\n") == 1
    missing = _cli(sys.executable, "-m", "companion", command, str(tmp_path / "none.json"))
    assert missing.returncode == 2 and missing.stderr.startswith("error: cannot read")
