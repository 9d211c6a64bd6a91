"""A learning game's set-up walked through on the big screen (issue 53): before day 1, the
goal and a day, then the box laid out step by step, each with a drawing; "Done" or Enter
goes on, "Skip the set-up" ends it, and day 1's first step follows. One screen, no phones,
on a 1920x1080 TV in English and a 1024x768 tablet in German (where the whole learning
game is then played on the one screen: every rule shown once, before its step, in
German); a table that is not a learning game never shows it. Read at 3 m: at 1080p every
word of it is 24 px or more."""

from __future__ import annotations

from typing import Any

from companion.engine import event_from_dict

from .conftest import shot
from .table import Table
from .test_game import WALL
from .test_lessons import Teaching, learning_plan

TITLES = {
    "en": ["The game in a minute", "The board: count your wall distance",
           "Both point markers on 0", "The double agent in the middle", "Each side's soldiers",
           "The intel card and the intel tokens", "The deception tokens"],
    "de": ["Das Spiel in einer Minute", "Das Brett: zählt euren Mauerabstand",
           "Beide Punktezähler auf 0", "Der Doppelagent in der Mitte",
           "Die Soldaten jeder Seite", "Die Geheimdienstkarte und die Plättchen",
           "Die Täuschungsplättchen"],
}
# the smallest word of the step shown, in screen pixels: the drawing's labels at the
# drawing's scale, and the step's own text and buttons
SMALLEST = """() => {
  const step = document.querySelector('#walk .walk-step:not([hidden])');
  const svg = step.querySelector('svg');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const px = e => parseFloat(getComputedStyle(e).fontSize);
  const drawn = [...svg.querySelectorAll('text')].map(t => px(t) * scale);
  const said = [...step.querySelectorAll('p, li, h2'), ...document.querySelectorAll('#walk button')]
    .map(px);
  return {drawn: Math.min(...drawn), said: Math.min(...said), strokes: scale * 4}; }"""
# every part of the step shown lies on the screen (nothing cut off below, no scroll)
ON_SCREEN = """() => [...document.querySelectorAll(
    '#walk .walk-step:not([hidden]) > *, #walk button')].every(e => {
  const r = e.getBoundingClientRect();
  return r.top >= 0 && r.bottom <= innerHeight + 1 && r.left >= 0 && r.right <= innerWidth + 1;
})"""


def _shown(tv: Any) -> str:
    return tv.locator("#walk .walk-step:not([hidden]) h2").inner_text()


def test_a_learning_game_walks_the_group_through_the_set_up(screens, live):
    # a table that is not a learning game: day 1's first step at once, nothing fetched
    plain = Table(screens, live, 3, enter="screen")
    assert plain.step(plain.tv) == "exhaust"
    assert plain.tv.locator("#walk").count() == 0
    assert not any("walk" in path for path in plain.tv.wire.paths), plain.tv.wire.paths
    plain.tv.close()

    # 1920x1080 in English, every step by "Done" and by Enter in turn
    table = Table(screens, live, 3, enter="screen", first_game=True, walk=True)
    tv = table.tv
    tv.locator("#walk").wait_for()
    for i, title in enumerate(TITLES["en"]):
        assert _shown(tv) == title
        assert tv.locator("#walk .walk-count").filter(visible=True).inner_text().endswith(
            f"step {i + 1} of 7")
        assert tv.evaluate(ON_SCREEN), title
        size = tv.evaluate(SMALLEST)
        assert size["drawn"] >= 24 and size["said"] >= 24 and size["strokes"] >= 4, (title, size)
        shot(tv, f"learning-setup-tv-1920-en-{i + 1}")
        if i % 2:
            tv.keyboard.press("Enter")
        else:
            tv.get_by_test_id("walk-done").click()
    tv.locator("#walk").wait_for(state="detached")
    # day 1's first step, on this screen: the exhausted soldier drawn (R3)
    assert table.step(tv) == "exhaust" and tv.get_by_test_id("entry").is_visible()
    shot(tv, "learning-setup-tv-1920-en-day1")
    tv.reload()                          # done once: this screen does not show it again
    tv.wait_for_selector("body[data-version]", state="attached")
    assert table.step(tv) == "exhaust" and tv.locator("#walk").count() == 0
    tv.close()

    # a 1024x768 tablet in German: each step shown, then "Skip the set-up" ends it; then
    # the whole learning game on this one screen, each rule once before its step
    table = Table(screens, live, WALL, enter="screen", first_game=True, walk=True,
                  tv_size=(1024, 768), tv_language="de")
    tv = table.tv
    tv.locator("#walk").wait_for()
    for i, title in enumerate(TITLES["de"]):
        assert _shown(tv) == title
        assert tv.evaluate(ON_SCREEN), title
        shot(tv, f"learning-setup-tablet-1024-de-{i + 1}")
        if i < 3:
            tv.get_by_test_id("walk-done").click()
        elif i < len(TITLES["de"]) - 1:
            tv.keyboard.press("Enter")
    assert tv.get_by_test_id("walk-skip").inner_text() == "Aufbau überspringen"
    tv.get_by_test_id("walk-skip").click()
    tv.locator("#walk").wait_for(state="detached")
    assert table.step(tv) == "exhaust" and tv.get_by_test_id("entry").is_visible()
    shot(tv, "learning-setup-tablet-1024-de-day1")
    teach = Teaching(table, {}, lang="de", shots="learning-tablet-1024-de")
    teach.play(learning_plan())
    assert teach.seen[:6] == ["exhaust", "deploy", "intel", "start", "reveal", "deception"]


def test_with_phones_the_set_up_waits_for_every_seat_and_the_phones_say_so(screens, live):
    """The codes to join stay in view until every seat is taken; then the big screen walks
    the group through the set-up while each phone says where to look (in its language),
    and "Skip the set-up" brings day 1's first step, the exhausted soldiers, to the phones."""
    table = Table(screens, live, 3, first_game=True)
    tv = table.tv
    red = table.join("red", "Ann")
    assert tv.get_by_test_id("join").is_visible() and tv.locator("#walk").count() == 0
    blue = table.join("blue", "Bert", locale="fr-FR")
    tv.locator("#walk").wait_for()
    assert _shown(tv) == TITLES["en"][0]
    assert red.get_by_test_id("setup-on-tv").inner_text() == (
        "The big screen shows how to set up the box.")
    assert blue.get_by_test_id("setup-on-tv").inner_text() == (
        "Le grand écran montre comment mettre le jeu en place.")
    shot(tv, "learning-setup-tv-1920-phones")
    shot(red, "learning-setup-phone-390-en")
    shot(blue, "learning-setup-phone-390-fr")
    tv.get_by_test_id("walk-skip").click()
    tv.locator("#walk").wait_for(state="detached")
    assert table.step(red) == "exhaust"
    # the first step entered: the phones' line is gone with the set-up
    table.enter_by_http([event_from_dict({"type": "exhaust", "side": "red", "ranks": [5]})])
    table.sync(red)
    assert red.get_by_test_id("setup-on-tv").count() == 0
