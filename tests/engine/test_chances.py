"""The chance to win (issue 25): ``spies-lies chances FILE`` and the estimate behind it,
tested through the command and the engine's public functions."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from companion.engine import Record, event_from_dict, new_game, replay
from companion.engine.chances import (
    PLAYOUTS,
    chances_output,
    estimate,
    public_key,
    split,
    standard_error,
)
from companion.engine.referee import apply
from companion.engine.simulate import random_record

RECORDS = Path(__file__).resolve().parents[1] / "records"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", "chances", *args],
                          capture_output=True, text=True, timeout=300)


def test_the_command_prints_every_event_and_its_method():
    path = RECORDS / "random-flag-1.json"
    got = _run(str(path), "--playouts", "30", "--seed", "4")
    assert got.returncode == 0, got.stderr
    out = json.loads(got.stdout)
    rec = Record.from_json(path.read_bytes())
    assert [s["event"] for s in out["steps"]] == list(range(len(rec.events)))
    for step in out["steps"]:      # probabilities, summing to exactly 1 (issue 52: each
        assert all(0 <= step[k] <= 1 for k in ("red", "blue", "draw"))   # rounded on its
        assert sum(round(step[k] * 10_000) for k in ("red", "blue", "draw")) == 10_000  # own
    # (they summed to 0.9999 or 1.0001)
    end = replay(rec)
    last = out["steps"][-1]
    assert last[str(end.winner)] == 1.0            # a finished game is 1 / 0
    assert out["method"]["playouts"] == 30 and out["method"]["seed"] == 4
    assert out["method"]["standard_error"] == round(standard_error(30), 4)
    # the same seed, the same numbers; another seed, other numbers
    assert json.loads(_run(str(path), "--playouts", "30", "--seed", "4").stdout) == out
    assert json.loads(_run(str(path), "--playouts", "30", "--seed", "5").stdout) != out


@pytest.mark.parametrize("name", ["bad-no-deception-token"])
def test_a_bad_record_is_refused_as_replay_refuses_it(name):
    path = RECORDS / f"{name}.json"
    got = _run(str(path))
    want = subprocess.run([sys.executable, "-m", "companion", "replay", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert got.returncode == want.returncode == 2
    assert got.stderr == want.stderr and got.stdout == ""
    assert _run(str(path.with_name("no-such-file.json"))).returncode == 2
    assert _run(str(RECORDS / "random-flag-1.json"), "--playouts", "0").returncode == 2


def test_the_estimate_follows_the_board():
    """A side far ahead wins more often than one far behind; sums are 1; the hidden
    cards of the round in play are drawn from what the table saw (never a line-up the
    public record rules out): an estimate from a state whose line-ups are known exactly
    agrees with itself whatever the seed's draws."""
    rng = random.Random(8)
    for _ in range(5):
        rec = random_record(rng, wall_distance=3, disorder=0, lie=0)
        states = [replay(rec.options, rec.events[:n]) for n in range(1, len(rec.events) + 1)]
        for s in states[:: max(1, len(states) // 6)]:
            p = estimate(s, 60, random.Random(1))
            assert abs(sum(p.values()) - 1) < 1e-9
            if s.phase == "over":
                assert p[str(s.winner)] == 1.0
        lead = [s for s in states if s.phase == "mission" and s.ip["red"] - s.ip["blue"] >= 8
                and s.da <= -2 and s.day == 3]
        for s in lead:
            p = estimate(s, 100, random.Random(2))
            assert p["red"] > p["blue"], (s.ip, s.da, p)


def test_the_default_playouts_keep_the_standard_error_under_two_points():
    assert standard_error(PLAYOUTS) <= 0.0205
    rec = random_record(random.Random(2), wall_distance=4)
    out = chances_output(rec, playouts=20, events=[0, 5])
    assert [s["event"] for s in out["steps"]] == [0, 5]


def test_the_same_public_state_gives_the_same_figure():
    """Issue 52: the playouts are seeded from the public state. Tokens laid in either
    order, and the intel card before any token (the model plays the same game with or
    without it), give the same figure as the state without them; before any event both
    sides' chances are equal; shares rounded by the largest remainder sum to 100."""
    rec = random_record(random.Random(11), wall_distance=3)
    events = [e.to_dict() for e in rec.events]
    first = next(i for i, d in enumerate(events) if d["type"] == "intel")
    assert [d["type"] for d in events[first + 1:first + 3]] == ["tokens", "tokens"]
    before = replay(rec.options, rec.events[:first])
    carded = replay(rec.options, rec.events[:first + 1])
    assert before != carded and public_key(before) == public_key(carded)
    assert estimate(before, 200) == estimate(carded, 200)      # no move on the intel card
    s1 = replay(rec.options, rec.events[:first + 3])
    swapped = apply(apply(carded, event_from_dict(events[first + 2])),
                    event_from_dict(events[first + 1]))
    assert swapped == s1 or public_key(swapped) == public_key(s1)
    assert estimate(swapped, 200) == estimate(s1, 200)
    p = estimate(new_game(rec.options), 300)       # nothing seen: the sides alike
    assert p["red"] == p["blue"] and split(p, 100)["red"] == split(p, 100)["blue"]
    # the command: the same state, the same numbers, whatever its place in the record
    out = chances_output(rec, playouts=40, events=[first - 1, first])
    a, b = ({k: v for k, v in x.items() if k != "event"} for x in out["steps"])
    assert a == b
    rng = random.Random(5)
    for _ in range(2000):
        n = [rng.randint(0, 600) for _ in range(3)]
        total = sum(n) or 1
        got = split({"red": n[0] / total, "blue": n[1] / total, "draw": n[2] / total}, 100)
        assert sum(got.values()) == 100 and all(abs(got[k] - 100 * x / total) < 1
                                                for k, x in zip(got, n, strict=True))
