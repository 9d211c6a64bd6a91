"""A second game, ended by a flag capture and the capturer's capture check."""

from __future__ import annotations

import random

from companion.engine.simulate import random_record

from .conftest import shot
from .table import RANKS_AT, Table, expected_after, normalise

WALL = 2


def plan() -> list[dict]:
    """Day 1: the double agent reaches blue's flag, so red must turn up its last missions."""
    rec = random_record(random.Random(50), wall_distance=WALL, disorder=0, lie=0)
    events = normalise([e.to_dict() for e in rec.events])
    assert events[-1]["type"] == "check" and events[-1]["ranks"]
    return events


def test_a_flag_capture_ends_the_game_after_the_capture_check(screens, live):
    events = plan()
    table = Table(screens, live, WALL)
    red = table.join("red", "Ann")
    blue = table.join("blue", "Bob")
    for d in events[:-1]:
        table.play(d)
    want = expected_after(WALL, events[:-1])
    assert want["phase"] == "capture_check" and want["capturer"] == "red"
    table.check_board(want)
    assert table.step(red) == "check"
    assert red.locator("#act").inner_text().startswith("Capture check: turn up mission 3")
    assert blue.locator("#act").inner_text().startswith("Nothing for you to tap now")
    shot(table.tv, "flag-check-tv")
    shot(red, "flag-check-phone")
    check = events[-1]
    first, second = (r for _m, r in sorted((int(m), r) for m, r in check["ranks"].items()))
    at = red.evaluate(RANKS_AT, "#act")
    table.tap(red, f'#act [data-pick="{first}"]')
    assert red.locator("#act").inner_text().startswith("Capture check: turn up mission 4")
    # the rank tapped stays in its place, spent; the others do not move under the next tap
    assert red.evaluate(RANKS_AT, "#act") == at
    assert red.locator(f'#act [data-pick="{first}"]').is_disabled()
    table.tap(red, f'#act [data-pick="{second}"]')
    shot(red, "flag-check-confirm-phone")
    table.submit(red, "#do-check")
    want = expected_after(WALL, events)
    assert want["phase"] == "over" and want["reason"] == "flag"
    assert table.check_end(want) == "flag captured"
    shot(table.tv, "flag-winner-tv")
    table.sync(blue)
    assert blue.get_by_test_id("winner").inner_text().split("\n\n") == ["R Red wins", want["end"]]
    shot(blue, "flag-winner-phone")
    # the game's story from the phone, and back to the phone's own page (not the big
    # screen's, which the story's way back had been)
    blue.get_by_test_id("story-link").tap()
    blue.wait_for_url(f"**/t/{table.code}/story?from=phone")
    blue.wait_for_function("() => document.body.dataset.ready === '1'")
    blue.locator("#next").tap()
    blue.wait_for_function("() => document.body.dataset.step === '1'")
    blue.get_by_test_id("back").tap()
    blue.wait_for_url(f"**/j/{table.code}")
    assert blue.get_by_test_id("winner").get_attribute("data-winner") == "red"
