"""The chance to win at a real table (issue 25): the bar between the forts on the big
screen, updated after each reveal, on a watcher's phone too; then the story's chance
line and its turning points, and the history's decisive moment. A second big screen
shows the same table in French: the figures as French writes them, the story's words."""

from __future__ import annotations

from typing import Any

from companion.engine import event_from_dict

from .conftest import shot
from .table import Table, expected_after
from .test_game import WALL, plan


def bar(page: Any, events: int, testid: str = "chance-bar") -> dict[str, int]:
    """The bar once it shows the game after ``events`` events: red's and blue's %."""
    sel = f'[data-testid="{testid}"][data-red]'
    if testid == "chance-bar":
        sel = f'[data-testid="chance-bar"][data-events="{events}"]'
    page.wait_for_selector(sel, state="attached", timeout=30_000)
    got = page.locator(sel)
    return {"red": int(got.get_attribute("data-red") or -1),
            "blue": int(got.get_attribute("data-blue") or -1)}


def test_the_bar_follows_each_reveal_and_the_story_names_the_turning_points(screens, live):
    events = plan()
    table = Table(screens, live, WALL, shots="chances", chances=True)
    tv = table.tv
    table.join("red", "Ann")
    table.join("blue", "Bob")
    watcher = table.phone()
    watcher.get_by_test_id("watch").click()
    watcher.get_by_test_id("watch-board").wait_for()
    french = table.copy(tv, "fr")            # the table's screen, in French
    first = 0
    for i, d in enumerate(events[:14]):
        table.play(d)
        if d["type"] == "reveal":
            got = bar(tv, i + 1)             # a figure for the game after this reveal
            assert 0 <= got["red"] <= 100 and 0 <= got["blue"] <= 100
            assert got["red"] + got["blue"] <= 100
            first = first or i + 1
        if i + 1 == 8:
            in_french(table, french)
    table.sync(watcher)
    assert bar(watcher, 0, "wb-chance")["red"] >= 0
    tv.keyboard.press("Shift")               # a day's recap over the board: skipped
    tv.wait_for_selector("#moment.hidden", state="attached")
    shot(tv, "chances-tv-1920")
    shot(watcher, "chances-watcher-390")
    tv.set_viewport_size({"width": 1280, "height": 720})
    shot(tv, "chances-tv-1280")
    tv.set_viewport_size({"width": 1920, "height": 1080})
    table.enter_by_http([event_from_dict(e) for e in events[14:]])
    want = expected_after(WALL, events)
    assert want["phase"] == "over"
    # the story: the chance over the game under its chart, three turning points
    story = screens("tv")
    story.goto(f"{live.url}/t/{table.code}/story")
    story.wait_for_selector('[data-testid="turning-point"]', timeout=120_000)
    points = story.locator('[data-testid="turning-point"]')
    assert 1 <= points.count() <= 3
    assert story.get_by_test_id("chance-chart").is_visible()
    step = points.nth(0).get_attribute("data-step")
    points.nth(0).click()
    story.wait_for_function("s => document.body.dataset.step === s", arg=step)
    assert story.get_by_test_id("narration").inner_text() in points.nth(0).inner_text()
    shot(story, "chances-story-1920")
    # the turning points' numbers on their gold marks in each look's own colour for it
    # (black on the light look's dark gold read 3.2:1)
    story.emulate_media(color_scheme="light")
    story.wait_for_function("() => document.documentElement.dataset.theme === 'light'")
    mark = story.locator("#chance .turn text").first
    assert mark.evaluate("t => getComputedStyle(t).fill") == "rgb(255, 255, 255)"
    story.emulate_media(color_scheme="dark")
    story.set_viewport_size({"width": 1280, "height": 720})
    shot(story, "chances-story-1280")
    # the history names each game's decisive moment
    story.goto(f"{live.url}/history")
    story.wait_for_selector(f'[data-code="{table.code}"] [data-testid="turning"]', timeout=30_000)
    shot(story, "chances-history")
    # the story in French: its turning points' heading, the chance axis as French writes it
    french.goto(f"{live.url}/t/{table.code}/story")
    french.wait_for_selector('[data-testid="turning-point"]', timeout=120_000)
    assert "Tournants" in (french.locator("#turning h2").text_content() or "")
    axis = french.locator('[data-testid="chance-chart"] text').all_text_contents()
    assert "50 %" in [" ".join(t.split()) for t in axis], axis
    shot(french, "chances-fr-story-1920")


def in_french(table: Table, tv: Any) -> None:
    """The bar on a French big screen after the game's eighth event: its label, and the
    figures as French writes them, as its label says them: "62 %", not "62%"."""
    table.sync(tv)
    got = bar(tv, 8)
    assert "Chances de gagner" in (tv.locator('[data-testid="chance-bar"]').get_attribute(
        "aria-label") or "")
    shown = tv.locator('[data-testid="chance-bar"] text').all_text_contents()
    assert [" ".join(t.split()) for t in shown if "%" in t] == [f"{got['red']} %",
                                                                  f"{got['blue']} %"], shown
    tv.keyboard.press("Shift")               # a moment over the board: skipped
    tv.wait_for_selector("#moment.hidden", state="attached")
    shot(tv, "chances-fr-tv-1920")
