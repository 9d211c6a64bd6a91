"""My line-up, checked in private (issue 13, part 3): the phone's panel says whether a
planned order is legal and which missions need a token, offers them at the tokens step, and
never sends the plan anywhere: every request the page makes is recorded and checked.
The JS check is run on the same cases as the engine's (tests/cases/lineups.json)."""

from __future__ import annotations

import json
import urllib.request
from urllib.parse import urlsplit

from .conftest import ROOT, shot

CASES = json.loads((ROOT / "tests" / "cases" / "lineups.json").read_text())
RECORD = {"format": "spies-and-lies-record/1", "options": {"wall_distance": 3}, "events": [
    {"type": "exhaust", "side": "red", "ranks": [1]},
    {"type": "exhaust", "side": "blue", "ranks": [10]},
    {"type": "intel", "ranks": [3, 5, 8, 9]}]}


def _table(screens, live, tmp_path):
    tv = screens("tv")
    tv.goto(live.url + "/")
    f = tmp_path / "r.json"
    f.write_text(json.dumps(RECORD))
    tv.set_input_files('[data-testid="import-file"]', str(f))
    tv.wait_for_url("**/t/*")
    return tv.url.rstrip("/").rsplit("/", 1)[1]


def _join(screens, live, code, requests=None):
    p = screens("phone")
    if requests is not None:
        p.on("request", lambda r: requests.append(
            {"method": r.method, "url": r.url, "body": r.post_data}))
    p.goto(f"{live.url}/j/{code}")
    p.click('[data-join="red:0"]')
    p.fill("#name", "Ann")
    p.click("#do-join")
    p.wait_for_function("() => document.getElementById('who').textContent.includes('Ann')")
    return p


def test_R10_R11_the_js_check_agrees_with_the_engine_on_the_shared_cases(screens, live,
                                                                          tmp_path):
    p = screens("phone")
    p.goto(f"{live.url}/j/{_table(screens, live, tmp_path)}")
    got = p.evaluate("cases => cases.map(c => Lineup.check(c.ranks, c.intel))", CASES)
    assert got == [c["expect"] for c in CASES]


def test_the_plan_stays_on_the_phone_and_prefills_the_tokens(screens, live, tmp_path):
    code = _table(screens, live, tmp_path)
    requests: list[dict] = []
    p = _join(screens, live, code, requests)
    p.wait_for_selector('#act[data-step="tokens"]')
    p.get_by_test_id("plan-lineup").click()
    before = len(requests)
    assert p.locator('[data-lrank="1"]').is_disabled()          # red's exhausted Spy
    for r in (2, 5, 4, 9):                                       # missions 1-4 in turn
        p.click(f'#panel [data-lrank="{r}"]')
    order, tokens = p.get_by_test_id("lu-order"), p.get_by_test_id("lu-tokens")
    assert order.get_attribute("data-legal") == "1"
    assert tokens.get_attribute("data-tokens") == "2,4"          # the 5 and the 9 are on the card
    assert "Sergeant on mission 3" in tokens.inner_text()
    shot(p, "lineup-phone-390")
    p.set_viewport_size({"width": 360, "height": 640})
    shot(p, "lineup-phone-360")
    p.set_viewport_size({"width": 390, "height": 844})
    p.click('#panel [data-lslot="3"]')                           # mission 4: a 3 breaks R10
    p.click('#panel [data-lrank="3"]')
    assert order.get_attribute("data-legal") == "0"
    shot(p, "lineup-phone-out-of-order-390")
    p.click('#panel [data-lrank="9"]')                           # mission 4 again: the 9
    assert p.get_by_test_id("lu-order").get_attribute("data-legal") == "1"
    # planning asked nothing (the live link's own GETs, …/stream and its catch-up …/state,
    # may come at any time: on a busy machine the stream opens late, or opens again; so
    # may the seat's heartbeat, …/me every 4 s, on a machine that slow)
    asked = [r for r in requests[before:]
             if not (r["method"] == "GET" and r["body"] is None
                     and urlsplit(r["url"]).path.endswith(("/state", "/stream", "/me")))]
    assert asked == [], asked
    p.click("#panel-close")
    # (issue 22 item 11) the plan selects nothing by itself: the tokens on the table are
    # what the player taps; the plan is offered, in words, as one tap
    assert p.locator("#act .mission.sel").count() == 0
    assert p.locator("#act [aria-pressed='true']").count() == 0
    assert p.locator("#do-tokens").inner_text() == "No intel tokens"
    offer = p.get_by_test_id("use-plan")
    assert offer.inner_text() == "From my private line-up: select missions 2, 4"
    shot(p, "lineup-phone-offer-390")
    offer.click()
    assert p.locator("#do-tokens").inner_text() == "Tokens on 2, 4"
    assert p.locator("#act [aria-pressed='true']").count() == 2
    assert p.get_by_test_id("use-plan").count() == 0             # offered while it differs
    p.click("#do-tokens")
    p.wait_for_selector('#act[data-step="tokens"] #do-tokens', state="detached")
    posts = [r for r in requests if r["method"] == "POST"]
    token_posts = [json.loads(r["body"]) for r in posts if '"tokens"' in (r["body"] or "")]
    assert len(token_posts) == 1
    assert set(token_posts[0]) == {"version", "idempotency_key", "event", "answer"}
    assert token_posts[0]["event"] == {"type": "tokens", "side": "red", "missions": [2, 4]}
    plan = "[2,5,4,9]"
    for r in requests:                  # no request anywhere carried the plan
        if "/static/" not in r["url"]:        # the panel's own script, lineup.js, aside
            assert "lineup" not in r["url"] and "lineup" not in (r["body"] or "")
        assert plan not in (r["body"] or "").replace(" ", "")
    assert p.evaluate(f"() => localStorage.getItem('sl-lineup-{code}-red-day1')") == plan
    with urllib.request.urlopen(f"{live.url}/api/tables/{code}/record") as f:
        events = json.load(f)["events"]
    assert events[len(RECORD["events"]):] == [
        {"type": "tokens", "side": "red", "missions": [2, 4]}]
