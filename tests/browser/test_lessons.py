"""A learning game teaches as it goes (issue 53): over a whole game with two new players on
phones, every rule the game meets shows on the big screen once, at the step it is first
due and before that step is tapped, and on the phone that acts, in each screen's
language; "Got it" puts it away on that screen only; "More" opens its rule. A second
learning game with the same two players explains nothing (the big screen offers "Teach
again"); "Teach again" brings the lessons back from that step on. The moments themselves
are the server's, checked over whole games in tests/web/test_lessons_view.py and
tests/test_lessons.py."""

from __future__ import annotations

from typing import Any

import pytest

from companion.engine import Options, event_from_dict
from companion.table.lessons import moments

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


# the lessons photographed on the TV at 1920x1080 (and the stage they showed at)
SHOTS = {("deploy", ""), ("reveal", ""), ("ability-10", "choice"), ("da", ""),
         ("flag", ""), ("check", ""), ("last-day", ""), ("order", ""), ("lie", "")}


def named(page: Any) -> list[str]:
    """The lessons the table's view names now."""
    return page.evaluate("() => SL.view.lessons || []")


def showing(page: Any, box: str, key: str | None) -> None:
    """Wait until ``page``'s lesson ``box`` shows lesson ``key`` (None: shows none)."""
    if key is None:
        page.wait_for_selector(f"{box}.hidden", state="attached")
    else:
        page.wait_for_selector(f'{box}[data-lesson="{key}"]:not(.hidden)')


def test_a_learning_game_teaches_each_rule_once_before_its_step_and_remembers_the_players(
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
    seen_tv: list[str] = []                  # each lesson the TV showed, in order
    named_at: dict[str, int] = {}            # each lesson's step (events entered) named

    def look(stage: str = "") -> None:
        """The view names each lesson at one step only; the TV shows each one it names, one
        after the other as "Got it" puts them away there; a phone shows the first it has
        not put away while its side taps the step (in its language)."""
        table.sync(tv)
        keys, n = named(tv), tv.evaluate("() => SL.view.state.events")
        for k in keys:
            assert named_at.setdefault(k, n) == n, (k, named_at[k], n)     # once, not again
        sides = tv.evaluate("() => SL.view.taps.sides")
        owner = tv.evaluate("() => (SL.view.state.next || {}).owner")
        for side, (page, lang) in phones.items():
            table.sync(page)
            # the acting side's phone; the deception token's on the side that may lay it
            acts = not sides or side in sides
            mine = next((k for k in keys if k not in put[side] and (
                acts or (k == "deception" and side == owner))), None)
            showing(page, "#lesson", mine)
            if mine in TITLES[lang]:
                assert TITLES[lang][mine] in page.locator("#lesson").inner_text()
        if keys and tv.locator("#end:not(.hidden)").count():
            tv.click("#close-end")         # the game's last lessons: under the result
        for k in keys:
            if k in put["tv"]:
                continue
            showing(tv, "#first-time", k)
            seen_tv.append(k)
            words = tv.locator("#first-time").inner_text()
            assert "First time in this game:" in words, words
            if k in TITLES["en"]:
                assert TITLES["en"][k] in words, (k, words)
            # its rule one tap away; the note whole on the screen, the tools beside it
            assert tv.get_by_test_id("lesson-more").get_attribute("href").startswith("/rules#R")
            assert in_view(tv, "#first-time") and in_view(tv, ".host-tools")
            if (k, stage) in SHOTS:
                shot(tv, f"lessons-tv-{k}-1920")
            if k == "deception":            # (the TV at 1280x720 too)
                tv.set_viewport_size({"width": 1280, "height": 720})
                assert in_view(tv, "#first-time")
                shot(tv, "lessons-tv-deception-1280")
                tv.set_viewport_size({"width": 1920, "height": 1080})
            tv.get_by_test_id("lesson-got").click()
            put["tv"].add(k)
        showing(tv, "#first-time", None)

    look()
    assert named(tv) == ["exhaust"]                       # R3, before the first draw
    shot(tv, "lessons-tv-exhaust-1920")
    shot(red, "lessons-phone-de-exhaust")
    # "Got it" on red's phone: gone there, still on blue's phone (the TV's own is put
    # away on the TV only)
    red.get_by_test_id("lesson-got").click()
    put["red"].add("exhaust")
    look()
    for d in events:
        table.play(d, before=lambda stage, page: look(stage) if stage == "choice" else None)
        look()
        if named_at.get("reveal") is not None and "phone-reveal" not in table.shot_done:
            table.shot_done.add("phone-reveal")
            for side, (page, lang) in phones.items():
                shot(page, f"lessons-phone-reveal-{side}-{lang}")
    assert tv.evaluate("() => SL.view.state.phase") == "over"
    red.set_viewport_size({"width": 360, "height": 640})
    shot(red, "lessons-phone-de-360")
    # every lesson the game met, once each, in the order the game met them
    given = moments(Options(WALL), [event_from_dict(e) for e in events])
    assert seen_tv == list(given), (seen_tv, list(given))
    assert seen_tv[:6] == ["exhaust", "deploy", "intel", "start", "reveal", "deception"]
    assert {"ability-10", "da", "flag", "last-day"} <= set(seen_tv) and len(seen_tv) >= 15

    # a second learning game, the same two players (their phones remember them): nothing
    # explained, and the big screen offers to teach again
    tv.close()
    again = Table(screens, live, WALL, shots="lessons-again", first_game=True)
    tv = again.tv
    for side, (page, _lang) in phones.items():
        page.goto(again.join_url)
        page.wait_for_selector("body[data-version]", state="attached")
        again.join(side, "Ann" if side == "red" else "Bob", page=page)
    tv.get_by_test_id("walk-skip").press("Enter")
    tv.locator("#walk").wait_for(state="detached")
    teach = tv.get_by_test_id("teach-again")
    teach.wait_for()
    assert teach.inner_text() == "Teach again"
    shot(tv, "lessons-again-tv-1920")
    first_reveal = next(i for i, e in enumerate(events) if e["type"] == "reveal")
    for d in events[:first_reveal + 1]:
        again.play(d)
        again.sync(tv)
        assert named(tv) == [] and tv.locator("#first-time").is_hidden()
        for page, _lang in phones.values():
            again.sync(page)
            assert page.locator("#lesson").is_hidden()
    # "Teach again": the lessons count anew from this step; the next reveal's are shown
    teach.click()
    tv.wait_for_function("() => SL.view.lessons_from > 0 && SL.view.lessons.length > 0")
    assert teach.is_hidden()
    keys = named(tv)
    showing(tv, "#first-time", keys[0])
    assert "reveal" in keys or any(k.startswith("ability-") or k == "da" for k in keys), keys
    shot(tv, "lessons-again-taught-1920")
