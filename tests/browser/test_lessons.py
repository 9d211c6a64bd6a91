"""A learning game teaches as it goes (issue 53): over a whole game with two new players on
phones that meets every rule the issue lists (a broken order, a caught lie, the flag and
its capture check, the last day among them), every lesson shows on the big screen once,
at the step it is first due and before that step is tapped, and on the phone that acts,
in each screen's language; "Got it" puts it away on that screen only; "More" opens its
rule. A second learning game with the same two players explains nothing, not even the
set-up (the big screen offers "Teach again"); "Teach again" brings the lessons back from
that step on.
The moments themselves are the server's, checked over whole games in
tests/web/test_lessons_view.py and tests/test_lessons.py."""

from __future__ import annotations

import random
from typing import Any

import pytest

from companion.engine import Options, event_from_dict
from companion.engine.simulate import random_record
from companion.table.lessons import moments

from .conftest import shot
from .table import Table, normalise
from .test_first_contact import in_view
from .test_game import WALL

pytestmark = pytest.mark.browser

# the first lesson each screen shows, in its language, at the game's first steps
TITLES = {"en": {"exhaust": "A soldier rests", "deploy": "Lay four soldiers",
                 "intel": "Intel tokens", "start": "Who reveals first",
                 "reveal": "Guess, then turn up", "deception": "A deception token"},
          "de": {"exhaust": "Ein Soldat ruht", "deploy": "Vier Soldaten auslegen",
                 "intel": "Geheimdienstplättchen", "start": "Wer beginnt",
                 "reveal": "Raten, dann aufdecken", "deception": "Ein Täuschungsplättchen"}}


FIRST = {"en": "First time in this game:", "de": "Zum ersten Mal in diesem Spiel:"}
# the lessons photographed on the TV at 1920x1080 (and the stage they showed at)
SHOTS = {("deploy", ""), ("reveal", ""), ("ability-10", "choice"), ("da", ""),
         ("flag", ""), ("check", ""), ("last-day", ""), ("order", ""), ("lie", "")}


# every rule issue 53 lists, each in one game: the first steps' (R3, R10-R14, R30), abilities
# with a Captain's or Marshal's choice, the double agent's move (R32), a broken order (R60),
# a caught lie (R61), the flag (R70) and its capture check (R71), the last day (R72)
LISTED = {"exhaust", "deploy", "intel", "start", "reveal", "deception", "da", "order", "lie",
          "flag", "check", "last-day"}


def learning_plan() -> list[dict[str, Any]]:
    """A game of 38 events that meets every rule listed (:data:`LISTED`) and 20 lessons."""
    rec = random_record(random.Random(2893))
    assert rec.options == Options(WALL)
    given = moments(rec.options, rec.events)
    assert LISTED <= set(given) and {"ability-6", "ability-10"} & set(given)
    return normalise([e.to_dict() for e in rec.events])


def named(page: Any) -> list[str]:
    """The lessons the table's view names now."""
    return page.evaluate("() => SL.view.lessons || []")


def showing(page: Any, box: str, key: str | None) -> None:
    """Wait until ``page``'s lesson ``box`` shows lesson ``key`` (None: shows none)."""
    if key is None:
        page.wait_for_selector(f"{box}.hidden", state="attached")
    else:
        page.wait_for_selector(f'{box}[data-lesson="{key}"]:not(.hidden)')


class Teaching:
    """What a test checks at each step of a learning game: the view names each lesson at
    one step only; the big screen shows each lesson it names, one after the other as
    "Got it" puts them away there (each recorded in ``seen``, in order); a phone shows the
    first it has not put away while its side taps the step (the deception token's also
    on the phone of the side that may lay one), in its language."""

    def __init__(self, table: Table, phones: dict[str, tuple[Any, str]], lang: str = "en",
                 shots: str = "lessons") -> None:
        self.table, self.phones, self.lang, self.shots = table, phones, lang, shots
        self.put: dict[str, set[str]] = {"tv": set(), **{s: set() for s in phones}}
        self.seen: list[str] = []
        self.named_at: dict[str, int] = {}
        self.shot: set[tuple[str, str]] = set()

    def look(self, stage: str = "") -> None:
        table, tv = self.table, self.table.tv
        table.sync(tv)
        keys, n = named(tv), tv.evaluate("() => SL.view.state.events")
        for k in keys:
            assert self.named_at.setdefault(k, n) == n, (k, self.named_at[k], n)   # once
        sides = tv.evaluate("() => SL.view.taps.sides")
        owner = tv.evaluate("() => (SL.view.state.next || {}).owner")
        for side, (page, lang) in self.phones.items():
            table.sync(page)
            acts = not sides or side in sides
            mine = next((k for k in keys if k not in self.put[side] and (
                acts or (k == "deception" and side == owner))), None)
            showing(page, "#lesson", mine)
            if mine in TITLES[lang]:
                assert TITLES[lang][mine] in page.locator("#lesson").inner_text()
            if mine and (side, mine) not in self.shot:      # each lesson on each phone
                self.shot.add((side, mine))
                page.locator("#lesson").scroll_into_view_if_needed()
                shot(page, f"{self.shots}-phone-{lang}-{mine}")
        if keys and tv.locator("#end:not(.hidden)").count():
            tv.click("#close-end")         # the game's last lessons: under the result
        for k in keys:
            if k in self.put["tv"]:
                continue
            showing(tv, "#first-time", k)
            self.seen.append(k)
            words = tv.locator("#first-time").inner_text()
            assert FIRST[self.lang] in words, words
            if k in TITLES[self.lang]:
                assert TITLES[self.lang][k] in words, (k, words)
            # its rule one tap away; the note whole on the screen, the tools beside it
            assert tv.get_by_test_id("lesson-more").get_attribute("href").startswith("/rules#R")
            assert in_view(tv, "#first-time") and in_view(tv, ".host-tools")
            if (k, stage) in SHOTS or self.lang != "en":
                shot(tv, f"{self.shots}-tv-{k}")
            if k == "deception" and self.lang == "en":       # (the TV at 1280x720 too)
                tv.set_viewport_size({"width": 1280, "height": 720})
                assert in_view(tv, "#first-time")
                shot(tv, "lessons-tv-deception-1280")
                tv.set_viewport_size({"width": 1920, "height": 1080})
            tv.get_by_test_id("lesson-got").click()
            self.put["tv"].add(k)
        showing(tv, "#first-time", None)

    def play(self, events: list[dict[str, Any]], done: int = 0) -> None:
        """The whole game entered by taps (from event ``done`` on: those before were),
        looked at after each event and at each choice; then every lesson the game met was
        shown once, in the order the game met them."""
        self.look()
        for d in events[done:]:
            self.table.play(d, before=lambda stage, page: self.look(stage)
                            if stage == "choice" else None)
            self.look()
        assert self.table.tv.evaluate("() => SL.view.state.phase") == "over"
        given = moments(Options(self.table.wall), [event_from_dict(e) for e in events])
        assert self.seen == list(given), (self.seen, list(given))


def test_a_learning_game_teaches_each_rule_once_before_its_step_and_remembers_the_players(
        screens, live):
    events = learning_plan()
    table = Table(screens, live, WALL, shots="lessons", first_game=True)
    tv = table.tv
    red = table.join("red", "Ann", locale="de")
    blue = table.join("blue", "Bob")
    # every seat taken: the set-up walked through first, the lessons after it (skipped)
    tv.get_by_test_id("walk-skip").press("Enter")
    tv.locator("#walk").wait_for(state="detached")
    phones = {"red": (red, "de"), "blue": (blue, "en")}
    teach = Teaching(table, phones)
    teach.look()
    assert named(tv) == ["exhaust"]                       # R3, before the first draw
    shot(tv, "lessons-tv-exhaust-1920")
    shot(red, "lessons-phone-de-exhaust")
    # "Got it" on red's phone: gone there, still on blue's phone (the TV's own is put
    # away on the TV only)
    red.get_by_test_id("lesson-got").click()
    teach.put["red"].add("exhaust")
    for d in events[:5]:                  # to the first reveal: both phones photographed
        table.play(d)
        teach.look()
    for side, (page, lang) in phones.items():
        shot(page, f"lessons-phone-reveal-{side}-{lang}")
    teach.play(events, done=5)
    red.set_viewport_size({"width": 360, "height": 640})
    shot(red, "lessons-phone-de-360")
    seen = teach.seen
    assert seen[:6] == ["exhaust", "deploy", "intel", "start", "reveal", "deception"]
    assert LISTED <= set(seen) and len(seen) == 20

    # a second learning game, the same two players (their phones remember them): nothing
    # explained, and the big screen offers to teach again
    tv.close()
    again = Table(screens, live, WALL, shots="lessons-again", first_game=True)
    tv = again.tv
    for side, (page, _lang) in phones.items():
        page.goto(again.join_url)
        page.wait_for_selector("body[data-version]", state="attached")
        again.join(side, "Ann" if side == "red" else "Bob", page=page)
    button = tv.get_by_test_id("teach-again")
    button.wait_for()
    assert button.inner_text() == "Teach again"
    # nor the set-up's walk-through: both were walked through it before the first game
    assert tv.evaluate("() => SL.view.walk") is False and tv.locator("#walk").count() == 0
    for page, _lang in phones.values():
        again.sync(page)
        assert page.get_by_test_id("setup-on-tv").count() == 0
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
    button.click()
    tv.wait_for_function("() => SL.view.lessons_from > 0 && SL.view.lessons.length > 0")
    assert button.is_hidden()
    keys = named(tv)
    showing(tv, "#first-time", keys[0])
    assert "reveal" in keys or any(k.startswith("ability-") or k == "da" for k in keys), keys
    shot(tv, "lessons-again-taught-1920")
