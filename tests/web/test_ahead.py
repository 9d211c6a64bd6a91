"""Issue 54: a tap that has reached its screens lets the taps still on their way go first
(:mod:`companion.play.ahead`): its answer waits while another tap is before its push.
"""

from __future__ import annotations

import threading
import time

import pytest

from companion.play import ahead
from companion.play.ahead import Ahead, Turn

from .conftest import Player, sit


def _after_in_thread(a: Ahead, patience: float) -> tuple[threading.Thread, list[float]]:
    took: list[float] = []

    def run() -> None:
        t0 = time.monotonic()
        a.after(patience)
        took.append(time.monotonic() - t0)
    t = threading.Thread(target=run)
    t.start()
    return t, took


@pytest.mark.anydb
def test_an_answer_waits_only_while_another_tap_is_before_its_push():
    a = Ahead()
    t0 = time.monotonic()
    a.after(30.0)                              # nobody before a push: no wait at all
    assert time.monotonic() - t0 < 5.0
    other = Turn(a)                            # a tap on its way
    t, took = _after_in_thread(a, 30.0)
    time.sleep(0.2)
    assert t.is_alive() and not took           # ... this answer waits for it
    other.passed()                             # its push: the answer goes
    t.join(10.0)
    assert took and took[0] < 10.0
    other.passed()                             # (twice is once)
    assert a.waiting == 0
    stuck = Turn(a)                            # a tap that takes long: at most the patience
    t, took = _after_in_thread(a, 0.3)
    t.join(10.0)
    assert took and 0.25 <= took[0] < 10.0
    stuck.passed()
    assert a.waiting == 0


def test_every_tap_leaves_its_turn_and_a_pushed_one_lets_the_others_pass(
        table, app, monkeypatch):
    """Taps accepted and refused (stale, out of turn, no seat key): none stays
    counted as before its push (else every later answer would wait its patience). A tap
    pushed by its own statement (PostgreSQL) asks to let the others pass, once; one
    pushed after its request (SQLite) has nothing to wait for."""
    with app.app_context():
        from companion.store.models import db
        pg = db.engine.dialect.name == "postgresql"
    host = table()
    red, blue = sit(host, "red", "Ann"), sit(host, "blue", "Bob")
    asked: list[int] = []
    after = ahead.taps.after
    monkeypatch.setattr(ahead.taps, "after",
                        lambda *a: (asked.append(ahead.taps.waiting), after(*a))[1])
    before = red.refresh()["version"]
    red.event({"type": "exhaust", "side": "red", "ranks": [4]})
    blue.post("/events", {"event": {"type": "exhaust", "side": "blue", "ranks": [9]},
                          "version": before}, 409, fresh=False)                 # stale
    blue.event({"type": "exhaust", "side": "blue", "ranks": [9]})
    red.event({"type": "exhaust", "side": "red", "ranks": [4]}, expect=409)     # done
    Player(host.client, host.code).post(                                  # no seat key
        "/events", {"event": {"type": "start", "side": "red"},
                    "version": red.refresh()["version"]}, 401)
    assert ahead.taps.waiting == 0
    # the two accepted taps (and no refusal) let the others pass, with nobody left
    assert asked == ([0, 0] if pg else []), asked
