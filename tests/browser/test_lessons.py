"""A learning game teaches as it goes (issue 53): the rule first due at each step shows on
the big screen and on the phone that acts, in each screen's language, before the step is
tapped; "Got it" puts it away on that screen only; "More" opens its rule. The moments
themselves (each rule once, before the step that uses it) are the server's, checked over
whole games in tests/web/test_lessons_view.py and tests/test_lessons.py."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import shot
from .table import Table
from .test_first_contact import in_view
from .test_game import WALL, plan

pytestmark = pytest.mark.browser

# the first lesson each screen shows, in its language, at the game's first steps
TITLES = {"en": {"exhaust": "A soldier rests", "deploy": "Lay four soldiers",
                 "intel": "Intel tokens", "start": "Who reveals first",
                 "reveal": "Guess, then turn up", "deception": "A deception token"},
          "de": {"exhaust": "Ein Soldat ruht", "deploy": "Vier Soldaten auslegen",
                 "intel": "Geheimdienstplättchen", "start": "Wer beginnt",
                 "reveal": "Raten, dann aufdecken", "deception": "Ein Täuschungsplättchen"}}


def named(page: Any) -> list[str]:
    """The lessons the table's view names now."""
    return page.evaluate("() => SL.view.lessons || []")


def showing(page: Any, box: str, key: str | None) -> None:
    """Wait until ``page``'s lesson ``box`` shows lesson ``key`` (None: shows none)."""
    if key is None:
        page.wait_for_selector(f"{box}.hidden", state="attached")
    else:
        page.wait_for_selector(f'{box}[data-lesson="{key}"]:not(.hidden)')


def test_a_learning_game_shows_each_rule_before_its_step_on_the_tv_and_the_acting_phone(
        screens, live):
    events = plan()
    table = Table(screens, live, WALL, shots="lessons", first_game=True)
    tv = table.tv
    red = table.join("red", "Ann", locale="de")
    blue = table.join("blue", "Bob")
    # every seat taken: the set-up walked through first, the lessons after it (skipped)
    tv.get_by_test_id("walk-skip").press("Enter")
    tv.locator("#walk").wait_for(state="detached")
    phones = {"red": (red, "de"), "blue": (blue, "en")}
    put: dict[str, set[str]] = {"tv": set(), "red": set(), "blue": set()}
    seen_tv: list[str] = []

    def look(stage: str = "") -> None:
        """Each screen shows the first lesson the view names that it has not put away;
        a phone only while its side taps the step."""
        table.sync(tv)
        keys = named(tv)
        first = next((k for k in keys if k not in put["tv"]), None)
        showing(tv, "#first-time", first)
        if first:
            if not seen_tv or seen_tv[-1] != first:
                seen_tv.append(first)
            words = tv.locator("#first-time").inner_text()
            assert "First time in this game:" in words, words
            if first in TITLES["en"]:
                assert TITLES["en"][first] in words, (first, words)
            # its rule one tap away; the note whole on the screen, the tools beside it
            assert tv.get_by_test_id("lesson-more").get_attribute("href").startswith("/rules#R")
            assert in_view(tv, "#first-time") and in_view(tv, ".host-tools")
        sides = tv.evaluate("() => SL.view.taps.sides")
        for side, (page, lang) in phones.items():
            table.sync(page)
            acts = not sides or side in sides
            mine = next((k for k in keys if k not in put[side]), None) if acts else None
            showing(page, "#lesson", mine)
            if mine in TITLES[lang]:
                assert TITLES[lang][mine] in page.locator("#lesson").inner_text()
                page.locator("#lesson").scroll_into_view_if_needed()

    look()
    assert named(tv) == ["exhaust"]                       # R3, before the first draw
    shot(tv, "lessons-tv-exhaust-1920")
    shot(red, "lessons-phone-de-exhaust")
    # "Got it" on red's phone: gone there, still on the TV and on blue's phone
    red.get_by_test_id("lesson-got").click()
    put["red"].add("exhaust")
    look()
    for i, d in enumerate(events):
        table.play(d)
        look()
        if named(tv)[:2] == ["reveal", "deception"]:      # the first reveal: two at once
            assert "1 / 2" in tv.locator("#first-time").inner_text().replace(" of ", " / ") \
                or "1 von 2" in tv.locator("#first-time").inner_text()
            shot(tv, "lessons-tv-reveal-1920")
            guesser = d["type"] == "reveal" and events[i + 1]["guesser"]
            shot(phones[guesser or "red"][0], "lessons-phone-reveal")
            tv.get_by_test_id("lesson-got").click()       # the next one, on the TV only
            put["tv"].add("reveal")
            look()
            tv.set_viewport_size({"width": 1280, "height": 720})
            look()
            shot(tv, "lessons-tv-deception-1280")
            tv.set_viewport_size({"width": 1920, "height": 1080})
        if any(k.startswith("ability-") for k in named(tv)):   # the first ability at work
            shot(tv, "lessons-tv-ability-1920")
            break
    # the first steps' rules, each at its step, in the game's order
    assert seen_tv[:6] == ["exhaust", "deploy", "intel", "start", "reveal", "deception"], seen_tv
    assert any(k.startswith("ability-") for k in seen_tv), seen_tv
    red.set_viewport_size({"width": 360, "height": 640})
    shot(red, "lessons-phone-de-360")
