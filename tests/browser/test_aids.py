"""The deduction aid on the phones (issue 13, part 2): opted in on the create page, it
dims the ranks no consistent line-up puts on the mission guessed and shows each other
rank's share; with N = 0 the phone says some intel must be wrong; off, nothing changes."""

from __future__ import annotations

import json

from companion.engine import Record, replay
from companion.engine.deduce import deduce_side

from .conftest import shot
from .table import RANKS_AT


def _record(blue_exhausted: int, intel: list[int], blue_tokens: list[int]) -> dict:
    return {"format": "spies-and-lies-record/1", "options": {"wall_distance": 3}, "events": [
        {"type": "exhaust", "side": "red", "ranks": [1]},
        {"type": "exhaust", "side": "blue", "ranks": [blue_exhausted]},
        {"type": "intel", "ranks": intel},
        {"type": "tokens", "side": "red", "missions": [2, 4]},
        {"type": "tokens", "side": "blue", "missions": blue_tokens},
        {"type": "start", "side": "red"}]}


def _open(screens, live, tmp_path, rec: dict, aid: bool):
    tv = screens("tv")
    tv.goto(live.url + "/")
    if aid:
        tv.click('[data-aid="1"]')
        shot(tv, "aid-create-1920")
    f = tmp_path / "r.json"
    f.write_text(json.dumps(rec))
    tv.set_input_files('[data-testid="import-file"]', str(f))
    tv.wait_for_url("**/t/*")
    tv.wait_for_selector("body[data-version]", state="attached")
    code = tv.url.rstrip("/").rsplit("/", 1)[1]
    phones = {}
    for side, name in (("red", "Ann"), ("blue", "Bob")):
        p = screens("phone")
        p.goto(f"{live.url}/j/{code}")
        p.click(f'[data-join="{side}:0"]')
        p.fill("#name", name)
        p.click("#do-join")
        p.wait_for_function("n => document.getElementById('who').textContent.includes(n)",
                            arg=name)
        phones[side] = p
    red = phones["red"]
    red.wait_for_selector('#act[data-step="reveal-guess"] [data-guess]')
    return tv, red


def test_the_aid_dims_impossible_ranks_and_shows_shares(screens, live, tmp_path):
    rec = _record(10, [3, 5, 8, 9], [1, 3])
    tv, red = _open(screens, live, tmp_path, rec, aid=True)
    assert tv.locator("#aids").is_visible()
    shot(tv, "aid-tv-1920")
    d = deduce_side(replay(Record.from_dict(rec)), "blue")
    here = d.missions[1]
    buttons = red.locator("#act .ranks.aid [data-guess]")
    assert buttons.count() == 9                       # blue's exhausted 10 is no guess
    for i in range(9):
        b = buttons.nth(i)
        r = int(b.get_attribute("data-guess"))
        assert ("dim" in (b.get_attribute("class") or "")) == (r not in here)
        assert int(b.get_attribute("data-share")) == round(100 * here.get(r, 0) / d.lineups)
    assert f"{d.lineups} line-ups fit" in red.locator(".aid-note").inner_text()
    shot(red, "aid-phone-390")
    red.set_viewport_size({"width": 360, "height": 640})
    shot(red, "aid-phone-360")
    # a dimmed rank can still be guessed (a guess may name any rank blue could hold)
    at = red.evaluate(RANKS_AT, "#act")
    red.locator('[data-guess="2"]').click()
    red.wait_for_selector('#act[data-step="reveal-guess"]', state="detached")
    # the card turned up: the same grid, shares held unseen, nothing dimmed, each rank
    # where it stood for the guess (a right guess taps it twice)
    red.wait_for_selector('#act[data-step="reveal-actual"] [data-actual]')
    assert red.evaluate(RANKS_AT, "#act") == at
    assert red.locator("#act .ranks.aid [data-actual].dim").count() == 0
    assert not red.locator("#act .pct").first.is_visible()


def test_no_honest_line_up_says_some_intel_is_wrong(screens, live, tmp_path):
    # Sergeant exhausted, a token only on mission 4 of a card 1 2 3 5: nothing fits
    tv, red = _open(screens, live, tmp_path, _record(4, [1, 2, 3, 5], [4]), aid=True)
    assert "must be wrong" in red.get_by_test_id("aid-none").inner_text()
    assert red.locator("#act [data-guess]").count() == 9     # not blue's exhausted 4
    shot(red, "aid-phone-none-390")


def test_R61_after_an_intel_lie_is_caught_the_aid_still_deduces(screens, live, tmp_path):
    """Issue 22 item 15, ruling D3: red's mission 1 turned up a 7 without a token while
    the intel card holds a 7 (R61). The card is fixed where it lies; red's face-down
    missions are still deduced, so blue's guess on mission 2 shows shares, not 'some
    intel must be wrong'."""
    rec = {"format": "spies-and-lies-record/1", "options": {"wall_distance": 3}, "events": [
        {"type": "exhaust", "side": "red", "ranks": [10]},
        {"type": "exhaust", "side": "blue", "ranks": [10]},
        {"type": "intel", "ranks": [1, 2, 3, 7]},
        {"type": "tokens", "side": "red", "missions": []},
        {"type": "tokens", "side": "blue", "missions": [1, 2, 3]},
        {"type": "start", "side": "blue"},
        {"type": "reveal", "guesser": "blue", "mission": 1, "guess": 5, "actual": 7,
         "deception": False},
        {"type": "reveal", "guesser": "red", "mission": 1, "guess": 2, "actual": 1,
         "deception": False}]}
    state = replay(Record.from_dict(rec))
    assert state.reveals[0].rule == "R61"
    d = deduce_side(state, "red")
    assert d is not None and d.lineups > 0
    tv = screens("tv")
    tv.goto(live.url + "/")
    tv.click('[data-aid="1"]')
    f = tmp_path / "r61.json"
    f.write_text(json.dumps(rec))
    tv.set_input_files('[data-testid="import-file"]', str(f))
    tv.wait_for_url("**/t/*")
    code = tv.url.rstrip("/").rsplit("/", 1)[1]
    blue = screens("phone")
    blue.goto(f"{live.url}/j/{code}")
    blue.click('[data-join="blue:0"]')
    blue.fill("#name", "Bob")
    blue.click("#do-join")
    blue.wait_for_selector('#act[data-step="reveal-guess"] .ranks.aid [data-guess]')
    assert blue.get_by_test_id("aid-none").count() == 0
    assert f"{d.lineups} line-ups fit" in blue.locator(".aid-note").inner_text()
    here = d.missions[2]
    for b in blue.locator("#act .ranks.aid [data-guess]").all():
        r = int(b.get_attribute("data-guess") or 0)
        assert int(b.get_attribute("data-share") or -1) == round(100 * here.get(r, 0) / d.lineups)
    shot(blue, "aid-phone-r61-390")


def test_without_the_aid_the_guess_grid_is_unchanged(screens, live, tmp_path):
    tv, red = _open(screens, live, tmp_path, _record(10, [3, 5, 8, 9], [1, 3]), aid=False)
    assert not tv.locator("#aids").is_visible()
    assert red.locator("#act .ranks.aid, #act [data-share], .aid-note").count() == 0
    assert red.locator("#act .ranks [data-guess]").count() == 9     # not blue's exhausted 10
