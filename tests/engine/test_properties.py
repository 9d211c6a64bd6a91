"""Property tests over random legal games (hypothesis) and corrupted records."""

from __future__ import annotations

import copy
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import Record, RecordError, apply, new_game, replay, replay_output
from companion.engine.simulate import random_record

games = st.builds(
    lambda seed, disorder, lie: random_record(random.Random(seed), disorder=disorder, lie=lie),
    st.integers(0, 2**32 - 1),
    st.sampled_from([0.0, 0.05, 0.3]),
    st.sampled_from([0.0, 0.1, 0.4]),
)


@settings(max_examples=300, deadline=None)
@given(games)
def test_invariants_hold_after_every_event(record):
    """R31/R33: IP 0-9; R32: DA within the flags; R51: DTs <= 2 a side, <= 4 in all;
    R13: 8 reveals a day; and applying step by step equals a full replay."""
    w = record.options.wall_distance
    state = new_game(record.options)
    for i, event in enumerate(record.events):
        state = apply(state, event)
        assert all(0 <= state.ip[s] <= 9 for s in ("red", "blue"))
        assert -(w + 1) <= state.da <= w + 1
        if state.winner is None or state.reason not in ("flag", "flag_cancelled"):
            assert -w <= state.da <= w
        assert all(0 <= state.dt[s] <= 2 for s in ("red", "blue"))
        assert state.dt["red"] + state.dt["blue"] + state.supply <= 4
        assert state.round_reveals <= 8
        if i % 7 == 0:
            assert state == replay(record.options, record.events[: i + 1])
    assert state == replay(record)
    assert state.phase == "over"
    days = {}
    for r in state.reveals:
        days[r.day] = days.get(r.day, 0) + 1
    if state.reason not in ("flag", "flag_cancelled"):
        assert days == {1: 8, 2: 8, 3: 8}
    else:
        assert all(n == 8 for d, n in days.items() if d < state.day)


@settings(max_examples=100, deadline=None)
@given(games)
def test_undo_is_the_state_without_the_last_event(record):
    states = [new_game(record.options)]
    for e in record.events:
        states.append(apply(states[-1], e))
    for k in random.Random(len(record.events)).sample(range(len(record.events)), 5):
        assert replay(record.options, record.events[:k]) == states[k]


@settings(max_examples=100, deadline=None)
@given(games)
def test_records_round_trip_exactly(record):
    d = json.loads(record.to_json())
    again = Record.from_dict(d)
    assert again == record
    assert again.to_dict() == d
    assert replay_output(replay(again)) == replay_output(replay(record))


def _corrupt(d: dict, rng: random.Random) -> dict:
    d = copy.deepcopy(d)
    events = d["events"]
    how = rng.randrange(9)
    i = rng.randrange(len(events))
    e = events[i]
    if not isinstance(e, dict):   # an earlier corruption left junk here
        how = rng.choice([0, 1, 2, 7])
    junk = rng.choice([None, -1, 0, 11, 99, "x", "", True, False, 2.5, [], {}, [1, 2], {"1": 2}])
    if how == 0:
        del events[i]
    elif how == 1:
        j = rng.randrange(len(events))
        events[i], events[j] = events[j], events[i]
    elif how == 2:
        events.insert(i, copy.deepcopy(events[rng.randrange(len(events))]))
    elif how == 3:
        key = rng.choice(sorted(e))
        e[key] = junk
    elif how == 4:
        e.pop(rng.choice(sorted(e)))
    elif how == 5:
        for key in ("actual", "guess", "mission"):
            if key in e:
                e[key] = rng.randint(-2, 12)
    elif how == 6:
        e["type"] = rng.choice(["reveal", "check", "start", "tokens", "intel", "exhaust", "nope"])
    elif how == 7:
        events[i] = junk
    else:
        if "side" in e:
            e["side"] = "blue" if e["side"] == "red" else "red"
        elif "guesser" in e:
            e["guesser"] = "blue" if e["guesser"] == "red" else "red"
        if "deception" in e:
            e["deception"] = not e["deception"]
        if "choice" in e:
            e["choice"] = rng.choice(["ip", "drain", "use:3", "use:10", "use:99", "", "use:"])
    return d


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games, st.integers(0, 2**32 - 1))
def test_every_corruption_is_refused_cleanly_or_replays(record, seed):
    rng = random.Random(seed)
    d = record.to_dict()
    for _ in range(rng.randint(1, 3)):
        d = _corrupt(d, rng)
    text = json.dumps(d)
    try:
        state = replay(Record.from_json(text))
    except RecordError as err:
        message = str(err)
        assert message and "Traceback" not in message
        assert err.index is None or 0 <= err.index < len(d["events"])
        if err.index is not None:
            assert message.startswith(f"event {err.index}: ")
        return
    replay_output(state)   # a corruption that still makes a legal game must fully derive


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_garbage_files_are_refused_cleanly(raw):
    try:
        Record.from_json(raw)
    except RecordError as err:
        assert str(err)
