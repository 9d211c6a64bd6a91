"""The story of a game (issue 13, part 3) in a real browser: a saved game imported on the
create page, the story opened from the big screen's end box, stepped with the arrow keys,
Home/End and the slider, a key moment tapped; a first game explains a new ability once.
Screenshots at 1920x1080, 1280x720 and 390x844 (a French phone, also turned sideways)."""

from __future__ import annotations

import json
import pathlib
import urllib.request

import pytest

from .conftest import SMALLEST_WORD, audit, shot

RECORDS = pathlib.Path(__file__).resolve().parents[1] / "records"


def _story(live, code: str) -> dict:
    with urllib.request.urlopen(f"{live.url}/api/tables/{code}/story") as r:
        return json.loads(r.read())


def _import(live, name: str, **extra) -> str:
    body = json.dumps({"record": json.loads((RECORDS / name).read_text()), **extra}).encode()
    req = urllib.request.Request(f"{live.url}/api/tables/import", data=body, method="POST",
                                 headers={"Content-Type": "application/json",
                                          "Origin": live.url})
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read())["code"]


DRAWINGS = ["board", "chart", "chance"]       # the story's SVGs
# every step in turn (by the slider): how far its words overflow their box, where ▶ stands
# on the screen and whether it is in view
EVERY_STEP = """() => { const s = document.getElementById('slider'), out = [];
  const p = document.getElementById('told'), next = document.getElementById('next');
  for (let i = 0; i <= +s.max; i++) {
    s.value = i; s.dispatchEvent(new Event('input'));
    const r = next.getBoundingClientRect();
    out.push([p.scrollHeight - p.clientHeight, Math.round(r.top), r.bottom <= innerHeight]);
  }
  return out; }"""


def _steady(page, where: object = None) -> list:
    """Every step in turn: its words whole in their box and ▶ in one place, in view."""
    steps = page.evaluate(EVERY_STEP)
    assert {(max(0, over), top, seen) for over, top, seen in steps} == {
        (0, steps[0][1], True)}, where
    return steps


def _open_in(page, live, code: str, language: str) -> None:
    """The table's story, in ``language``."""
    page.goto(f"{live.url}/lang/{language}?next=/t/{code}/story")
    page.wait_for_function("() => document.body.dataset.ready === '1'")


def _at(page, n: int) -> None:
    page.wait_for_function("n => document.body.dataset.step === n", arg=str(n))


def test_the_story_steps_through_an_imported_game(screens, live):
    tv = screens("tv")
    tv.goto(live.url + "/")
    tv.set_input_files('[data-testid="import-file"]', str(RECORDS / "random-flag-1.json"))
    tv.wait_for_url("**/t/*")
    code = tv.url.rstrip("/").rsplit("/", 1)[1]
    link = tv.locator('#end [data-testid="story-link"]')
    link.wait_for()
    shot(tv, "story-tv-end-box")
    link.click()
    tv.wait_for_url(f"**/t/{code}/story*")
    tv.wait_for_function("() => document.body.dataset.ready === '1'")
    story = _story(live, code)
    last = len(story["steps"]) - 1
    _at(tv, 0)
    words = tv.locator('[data-testid="narration"]')
    assert words.inner_text() == story["steps"][0]["text"]
    assert tv.locator('[data-testid="ip-red"]').get_attribute("data-value") == "0"

    for n in range(1, 4):                       # → steps on, the words follow
        tv.keyboard.press("ArrowRight")
        _at(tv, n)
        assert words.inner_text() == story["steps"][n]["text"]
    tv.keyboard.press("ArrowLeft")
    _at(tv, 2)
    tv.keyboard.press("End")
    _at(tv, last)
    assert words.inner_text() == story["steps"][last]["text"]
    assert "wins" in words.inner_text()
    da = tv.locator('[data-testid="da"]').get_attribute("data-pos")
    assert da == str(story["steps"][last]["da"])
    tv.keyboard.press("Home")
    _at(tv, 0)

    # the slider: focused, its own arrow keys move it; dragged, it jumps
    slider = tv.locator('[data-testid="slider"]')
    slider.focus()
    tv.keyboard.press("ArrowRight")
    _at(tv, 1)
    mid = next(s["step"] for s in story["steps"] if s["type"] == "reveal" and s["day"] == 2)
    slider.fill(str(mid))
    _at(tv, mid)
    assert words.inner_text() == story["steps"][mid]["text"]
    step = story["steps"][mid]
    ip = tv.locator('[data-testid="ip-blue"]').get_attribute("data-value")
    assert ip == str(step["ip"]["blue"])
    assert tv.locator('[data-testid="day"]').get_attribute("data-day") == "2"
    owner, cards = next((s, c) for s, c in step["revealed"].items() if c)
    m, card = next(iter(cards.items()))
    shown = tv.locator(f'[data-testid="card-{owner}-{m}"]').get_attribute("data-rank")
    assert shown == str(card["rank"])

    # a key moment: the flag's capture, tapped, shows its step
    flag = next(x for x in story["moments"] if "flag" in x["kinds"])
    button = tv.locator(f'[data-testid="moment"][data-step="{flag["step"]}"]')
    assert "flag" in button.inner_text()
    button.click()
    _at(tv, flag["step"])
    assert "captures the flag" in words.inner_text()
    assert "on" in (button.get_attribute("class") or "")
    assert tv.locator('[data-testid="moments"] h3').all_inner_texts() == ["Day 1", "Day 2", "Day 3"]
    # the chart has both IP lines, the double agent and a cursor at the step
    assert tv.locator("#chart path").count() > 10 and tv.locator("#cursor path").count() == 1
    shot(tv, "story-tv-1920")
    assert audit(tv) == []
    # the TV: the step's words in a box of three lines, so ▶ under them stays put (it moved
    # by 8-27 px with the words' lines), every step's words whole
    _steady(tv)
    tv.locator("#slider").fill(str(flag["step"]))
    _at(tv, flag["step"])
    tv.set_viewport_size({"width": 1280, "height": 720})
    tv.keyboard.press("ArrowLeft")
    _at(tv, flag["step"] - 1)
    shot(tv, "story-laptop-1280")
    # nothing of the page falls outside a 1280x720 screen
    assert tv.evaluate("() => document.documentElement.scrollWidth") <= 1280
    # a laptop or a 720p TV: the drawings have the left's whole height (under the step's
    # words and controls they were drawn at two thirds, words of 8.3 px), the words and
    # controls are beside them: at every step all the words shown, ▶ where it was
    assert tv.evaluate(SMALLEST_WORD, DRAWINGS) >= 10
    assert len(_steady(tv)) == last + 1
    assert audit(tv) == []
    # a tablet, on its side and upright, in German: ▶ in one place at every step (above the
    # chart it moved 23-37 px as the step's facts took one line or two, and the words' box
    # shrank with a long step's smaller words), every step's words whole
    _open_in(tv, live, code, "de")
    for w, h in ((1024, 768), (1180, 820), (1024, 1366)):
        tv.set_viewport_size({"width": w, "height": h})
        _steady(tv, (w, h))
    shot(tv, "story-tablet-de-1024x1366")
    # a laptop's short window, in French: the drawings the left's whole height beside the
    # step (under it, at 1000 x 560 their words were 3.9 px), the words whole at every step
    # (a long one ran 18-52 px past its box at 1280 x 600 and 1000 x 560)
    _open_in(tv, live, code, "fr")
    for w, h in ((1280, 600), (1000, 560), (901, 600)):
        tv.set_viewport_size({"width": w, "height": h})
        _steady(tv, (w, h))
        assert tv.evaluate(SMALLEST_WORD, DRAWINGS) >= 6, (w, h)
    shot(tv, "story-window-fr-1000x560")
    # a 4:3 tablet in French: the game's result in two lines at most, under the title
    # and the way back (squeezed beside them, a win on IP after day 3 took four lines)
    _open_in(tv, live, _import(live, "random-ip-27.json"), "fr")
    tv.set_viewport_size({"width": 1024, "height": 768})
    lines = tv.evaluate("""() => { const r = document.createRange();
        r.selectNodeContents(document.getElementById('result'));
        return new Set([...r.getClientRects()].map(x => Math.round(x.bottom))).size; }""")
    assert 1 <= lines <= 2, lines


def test_the_story_on_a_phone(screens, live):
    code = _import(live, "random-territory-2.json")
    phone = screens("phone", locale="fr")
    phone.goto(f"{live.url}/t/{code}/story#step=10")
    phone.wait_for_function("() => document.body.dataset.ready === '1'")
    _at(phone, 10)
    phone.locator("#next").tap()
    _at(phone, 11)
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
    # the board and the chart drawn for the phone, not the TV's drawing shrunk to a third:
    # their smallest words at least 10 px on the screen, in French (the TV's drawing: 4.8 px)
    assert phone.evaluate(SMALLEST_WORD, DRAWINGS) >= 10
    # the board's abbreviations in the page's language, as on the table's screen
    assert phone.locator('[data-testid="da"]').text_content() == "AD"
    assert phone.locator('[data-testid="dt-red"]').text_content() == "JT"
    assert "JT Rouge" in phone.locator('[data-testid="facts"]').inner_text()
    shot(phone, "story-phone-390")
    assert audit(phone) == []
    phone.set_viewport_size({"width": 844, "height": 390})       # turned sideways: wide again
    phone.wait_for_function("() => board.getAttribute('viewBox') === '0 0 1000 320'")
    assert phone.evaluate(SMALLEST_WORD, DRAWINGS) >= 10
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.wait_for_function("() => board.getAttribute('viewBox') === '0 0 440 480'")
    # ▶ at the foot of the screen at every step, on a 390 x 844 and a 360 x 640 phone and
    # turned sideways (it was 0-160 px lower from one step to the next, and below the fold
    # of a 360 x 640 phone at every step)
    for w, h in ((390, 844), (360, 640), (640, 360)):
        phone.set_viewport_size({"width": w, "height": h})
        phone.evaluate("() => scrollTo(0, 0)")
        tops = {(top, seen) for _, top, seen in phone.evaluate(EVERY_STEP)}
        assert len(tops) == 1 and next(iter(tops))[1], (w, h, tops)
        # every control thumb-size, the slider too (it was 36 px high)
        low = phone.evaluate("""() => [...document.querySelectorAll(
            '.controls button, .controls input')].map(e => [e.id, e.getBoundingClientRect().height])
            .filter(([, h]) => h < 44)""")
        assert low == [], (w, h, low)
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.locator("#slider").fill("11")
    _at(phone, 11)
    box = phone.locator("#next").bounding_box()
    for n in (12, 13):                   # tapped where it stands, the page not scrolled
        phone.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        _at(phone, n)
    assert phone.evaluate("() => scrollY") == 0
    decisive = phone.locator('[data-testid="moment"].decisive')
    decisive.scroll_into_view_if_needed()
    decisive.tap()
    n = int(decisive.get_attribute("data-step"))
    _at(phone, n)
    shot(phone, "story-phone-390-moments")


def test_an_imported_learning_game_teaches_what_comes_next_not_its_past(screens, live):
    """A learning game opened from a record (issue 53): what the record already played
    is not taught again (its Marshal, its first steps); the view names no lesson until
    one is first due (the lessons in play: tests/browser/test_lessons.py)."""
    tv = screens("tv")
    tv.goto(live.url + "/")
    tv.click('[data-testid="first-game"]')
    tv.set_input_files('[data-testid="import-file"]', str(RECORDS / "worked-marshal-drain.json"))
    tv.wait_for_url("**/t/*")
    tv.locator('[data-testid="ip-red"]').wait_for()
    tv.wait_for_function("() => SL.view && SL.view.first_game && SL.view.lessons")
    assert tv.evaluate("() => SL.view.lessons") == []
    assert tv.locator('[data-testid="first-explain"]').is_hidden()
    assert tv.locator("#undo").is_visible()      # this screen opened the table: it holds its key
    shot(tv, "story-first-game-tv")
    code = tv.url.rstrip("/").rsplit("/", 1)[1]
    view = json.loads(urllib.request.urlopen(f"{live.url}/api/tables/{code}/state").read())
    assert view["view"]["first_game"] is True
    # a table that is not a learning game is named no lessons
    other = _import(live, "worked-marshal-drain.json")
    tv.goto(f"{live.url}/t/{other}")
    tv.locator('[data-testid="ip-red"]').wait_for()
    assert tv.evaluate("() => SL.view.lessons") is None
    # a screen that did not open the table (no key) offers no undo it would only refuse
    assert tv.locator("#undo").is_hidden()
    assert tv.locator("#rules-link").is_visible()


# where a page's heading and widest block stand, and whether it scrolls sideways
MEASURE = """() => {
  const box = q => { const e = document.querySelector(q); if (!e) return null;
    const r = e.getBoundingClientRect(); return [r.width, r.height, r.bottom]; };
  return {h1: box("h1"), open: box("#create button[type=submit]"), board: box("#board"),
          body: box("body"), sideways: document.scrollingElement.scrollWidth - innerWidth};
}"""


def test_the_pages_on_a_big_tv_at_its_own_pixels_and_on_a_laptop(screens, live):
    """A 1440p or 4K TV with no scaling (a laptop on HDMI at 100 %) shows every page as a
    1080p TV does, larger: the set-up page, the story, the group's pages, the rules and a
    mistyped address had their 1080p size in the middle of a 4K screen (text 18-22 px).
    A laptop's screen shows the set-up page's "Open the table" without a scroll."""
    code = _import(live, "random-flag-1.json")
    tv = screens("tv")
    for path in ("/", f"/t/{code}/story", "/history", "/stats", "/rules", "/histroy"):
        tv.set_viewport_size({"width": 1920, "height": 1080})
        tv.goto(live.url + path)
        story = path.endswith("/story")
        if story:
            tv.wait_for_function("() => document.body.dataset.ready === '1'")
        at = {1920: tv.evaluate(MEASURE)}
        for w, h in ((2560, 1440), (3840, 2160)):
            tv.set_viewport_size({"width": w, "height": h})
            tv.wait_for_function("w => innerWidth === w", arg=w)
            at[w] = tv.evaluate(MEASURE)
            if story and w == 3840:
                shot(tv, "story-tv-3840", scale="css")
        for w, h, k in ((2560, 1440, 4 / 3), (3840, 2160, 2.0)):
            big, base = at[w], at[1920]
            assert big["sideways"] <= 0, (path, w)
            grown = [k * x for x in base["h1"][:2]]
            assert big["h1"][:2] == pytest.approx(grown, rel=0.05), (path, w)
            if base["board"]:             # (its height is its share of the screen's)
                assert big["board"][0] == pytest.approx(k * base["board"][0], rel=0.02), (path, w)
            if base["open"]:              # "Open the table" above the fold, as at 1080p
                assert base["open"][2] <= 1080 and big["open"][2] <= h
            if story:                     # the story is one screen, as at 1080p
                assert big["body"][2] <= h + 1
    # a laptop as the table's screen: "Open the table" in view too, at the foot of the
    # screen while the set-up scrolls (it stood 165-290 px below the fold in German)
    for w, h in ((1366, 768), (1280, 720)):
        tv.set_viewport_size({"width": w, "height": h})
        tv.goto(live.url + "/lang/de?next=/")
        tv.wait_for_selector('html[lang="de"]', state="attached")
        assert tv.evaluate(MEASURE)["open"][2] <= h, (w, h)
