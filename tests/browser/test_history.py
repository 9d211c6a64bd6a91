"""The group's home in the browser (issue 14): a phone's player is recognised at the
next table, and the history and statistics pages show the finished games.

The phones sit down by taps; the rest of each game is entered over HTTP with the keys
the phones made (the taps of a whole game are covered by test_game)."""

from __future__ import annotations

import json
import os
import pathlib
import random
import sqlite3

from companion.engine.simulate import random_record
from companion.play.keeper import new_link

from .conftest import shot
from .table import Table

WALL = 2


def finish(table: Table, seed: int) -> None:
    table.enter_by_http(list(random_record(random.Random(seed), wall_distance=WALL).events))


def test_a_player_is_recognised_and_the_history_shows_the_games(screens, live, tmp_path):
    first = Table(screens, live, WALL)
    ann = first.join("red", "Ann")
    bob = first.join("blue", "Bob")
    assert ann.get_by_test_id("known-player").count() == 0
    finish(first, 1)

    # the next table: the same phones are recognised; the name is already there
    second = Table(screens, live, WALL)
    for page, side in ((bob, "red"), (ann, "blue")):
        page.goto(second.join_url)
        page.wait_for_selector("body[data-version]", state="attached")
        known = page.get_by_test_id("known-player")
        assert known.count() == 1
        second.tap(page, f'[data-join="{side}:0"]')
        if page is bob:
            shot(page, "home-phone-known-390")
        assert page.locator("#name").input_value() == ("Bob" if page is bob else "Ann")
        second.submit(page, "#do-join")
        page.wait_for_function("n => document.getElementById('who').textContent.includes(n)",
                               arg="Bob" if page is bob else "Ann")      # the answer is in
        second.phones[side] = page
    me = json.loads(ann.evaluate("() => localStorage.getItem('sl-player')"))
    v = live.app.test_client().get(f"/api/tables/{second.code}/state").get_json()["view"]
    assert {s["side"]: s["player"] for s in v["seats"]}["blue"] == me["id"]
    finish(second, 2)

    # the history on the TV (the serving laptop: it may delete, after a confirming tap),
    # found from the first page (no link led there: it had to be typed)
    tv = second.tv
    tv.goto(live.url + "/")
    tv.get_by_test_id("our-games").click()
    tv.wait_for_url("**/history")
    games = tv.get_by_test_id("game")
    assert games.count() == 2
    assert "Ann" in games.first.inner_text() and "Bob" in games.first.inner_text()
    shot(tv, "home-history-tv-1920")
    tv.set_viewport_size({"width": 1280, "height": 720})
    shot(tv, "home-history-tv-1280")
    tv.set_viewport_size({"width": 1920, "height": 1080})
    tv.goto(live.url + "/stats")
    assert tv.locator("svg.chart").count() >= 3
    assert "Ann" in tv.get_by_test_id("players").inner_text()
    shot(tv, "home-stats-tv-1920")
    tv.goto(f"{live.url}/stats/players/{me['id']}")
    assert tv.get_by_test_id("player-name").inner_text() == "Ann"
    assert "Bob" in tv.get_by_test_id("rivals").inner_text()
    shot(tv, "home-player-tv-1920")
    ann.goto(f"{live.url}/stats/players/{me['id']}")
    shot(ann, "home-player-phone-390")

    # the TV is no one in particular (issue 20): no delete button until it opens the
    # keeper link the server printed
    tv.goto(live.url + "/history")
    tv.wait_for_selector("[data-del]", state="attached")
    assert tv.locator(f'[data-del="{first.code}"]').is_hidden()
    # the link the server printed works once (issue 50): the page trades it for the key,
    # and the copy the browser's history keeps opens nothing on another screen
    once = new_link(pathlib.Path(live.app.instance_path))
    tv.goto(f"{live.url}/keeper#once={once}")
    tv.wait_for_selector("body[data-keeper='1']")
    assert "#" not in tv.url                   # the secret leaves the address bar at once
    key = (pathlib.Path(live.app.instance_path) / "keeper_key").read_text().strip()
    assert tv.evaluate("() => localStorage.getItem('sl-keeper')") == key
    shot(tv, "home-keeper-tv-1920")
    ann.goto(f"{live.url}/keeper#once={once}")
    ann.wait_for_selector("body[data-keeper='0']")
    assert "opened before" in ann.locator("#keeper-status").inner_text()
    # the keeper downloads a copy of the games (spies-lies restore takes it back); on
    # PostgreSQL pg_dump does that, and the page offers nothing
    if os.environ.get("DATABASE_URL"):               # (shown with data-keeper, above)
        assert tv.locator("#keeper-backup").is_hidden()
    else:
        with tv.expect_download() as got:
            tv.get_by_test_id("keeper-download").click()
        file = tmp_path / got.value.suggested_filename
        assert file.name.startswith("spies-lies-games-") and file.suffix == ".sqlite"
        got.value.save_as(file)
        with sqlite3.connect(file) as conn:
            assert conn.execute("SELECT count(*) FROM game").fetchone() == (2,)
    tv.goto(live.url + "/history")
    tv.locator(f'[data-del="{first.code}"]').click()
    shot(tv, "home-history-confirm-tv-1920")
    tv.get_by_role("button", name="Delete", exact=True).click()
    tv.wait_for_function("() => document.querySelectorAll('[data-testid=game]').length === 1")
    tv.reload()
    assert tv.get_by_test_id("game").count() == 1
    # a game a stranger imported is kept apart, behind a link; the keeper counts it with
    # one tap and it joins the group's list
    rec = random_record(random.Random(3), wall_distance=WALL).to_dict()
    made = live.app.test_client().post("/api/tables/import", json={"record": rec},
                                       headers={"Origin": "http://localhost"}).get_json()
    tv.reload()
    assert tv.get_by_test_id("game").count() == 1
    tv.get_by_test_id("apart-link").get_by_role("link").click()
    tv.wait_for_url("**/history?apart=1")
    count = tv.locator(f'[data-count="{made["code"]}"]')
    count.wait_for(state="visible")
    assert tv.get_by_test_id("apart-note").is_visible()
    assert tv.get_by_test_id("imported").count() == 1
    shot(tv, "home-history-apart-tv-1920")
    count.click()
    tv.wait_for_function("() => !document.querySelector('[data-testid=game]')")
    tv.goto(live.url + "/history")
    assert tv.get_by_test_id("game").count() == 2 and tv.get_by_test_id("apart-link").count() == 0
