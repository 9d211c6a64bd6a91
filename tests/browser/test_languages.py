"""One day of play in three languages at one table: a French TV (chosen on the create
page), a German phone and a Dutch phone (each from its browser's language). No English
sentence shows on those screens, and each reveal's narration reaches each screen in
its own language."""

from __future__ import annotations

import random
import re
from typing import Any

from companion.edge.lang import translations
from companion.engine import Options, Record, event_from_dict, replay, reveal_words
from companion.engine.simulate import random_record

from .conftest import shot, wider_than_screen
from .table import Table, normalise

WALL = 3
# words that would give an English sentence away (whole words; "mission" is French too)
ENGLISH = ["Waiting", "guess", "guessed", "mission", "wins", "Undo", "the", "Tap", "Record",
           "your", "Join", "deception", "token", "double agent", "Nothing"]
SCREENS = {"tv": "fr", "red": "de", "blue": "nl"}


def english_in(page, locale: str) -> list[str]:
    text = page.locator("body").inner_text()
    words = [w for w in ENGLISH if not (locale == "fr" and w == "mission")]
    return [w for w in words if re.search(rf"\b{w}\b", text)]


# what does not fit a phone's width: the page itself, or a button's words past its edges
SPILLS = """() => [...document.querySelectorAll("button")].filter(b => b.offsetParent
      && b.scrollWidth > b.clientWidth + 1).map(b => b.textContent.trim())"""


def spills(page: Any) -> list[str]:
    return (["the page"] if wider_than_screen(page) else []) + page.evaluate(SPILLS)


def test_one_day_at_a_table_of_three_languages(screens, live):
    rec = random_record(random.Random(5), wall_distance=WALL, disorder=0, lie=0)
    events = normalise([e.to_dict() for e in rec.events])
    first_day = events[:events.index(next(e for e in events[2:] if e["type"] == "exhaust"))]
    table = Table(screens, live, WALL, tv_language="fr")
    tv = table.tv
    assert tv.locator("html").get_attribute("lang") == "fr"
    # the German phone is the smallest there is (320 px, a first iPhone SE)
    small = table.screens("phone", "de-DE")
    small.set_viewport_size({"width": 320, "height": 568})
    small.on("dialog", lambda d: d.accept())
    small.goto(table.join_url)
    red = table.join("red", "Anke", page=small)
    blue = table.join("blue", "Bram", locale="nl-NL")
    pages = {"tv": tv, "red": red, "blue": blue}
    for who, page in pages.items():
        table.sync(page)
        assert page.locator("html").get_attribute("lang") == SCREENS[who]
        assert english_in(page, SCREENS[who]) == [], who
    shot(red, "lang-de-phone-seated")
    shot(blue, "lang-nl-phone-seated")

    done = []
    for d in first_day:
        table.play(d)
        done.append(d)
        # every German word inside its button at 320 px ("Feldmarschall", "Rückgängig",
        # "Keine Geheimdienstplättchen"), nothing wider than the phone
        table.sync(red)
        assert spills(red) == [], (len(done), d["type"])
        if d["type"] != "reveal":
            continue
        state = replay(Record(Options(WALL), tuple(event_from_dict(e) for e in done)))
        said = {who: reveal_words(state.reveals[-1]).render(translations(loc))
                for who, loc in SCREENS.items()}
        assert len(set(said.values())) == 3              # three languages, three sentences
        for page in pages.values():
            table.sync(page)
        tv.wait_for_function("t => document.getElementById('narration').textContent === t",
                             arg=said["tv"])
        for who in ("red", "blue"):
            last = pages[who].locator("#last")
            assert said[who] in last.inner_text(), (who, last.inner_text())
        if len(state.reveals) in (1, 8):               # a reveal, and the day's end
            for who, page in pages.items():
                assert english_in(page, SCREENS[who]) == [], (who, len(state.reveals))
    for who, page in pages.items():
        shot(page, f"lang-{SCREENS[who]}-{who}-end-of-day")
    # the German phone at its smallest asks to undo the day's last reveal: a long question,
    # a long answer ("Zurücknehmen"); both buttons in view and neither label cut
    red.locator("#b-undo").click()
    red.get_by_test_id("ask").wait_for()
    for b in ("ask-no", "ask-yes"):
        box = red.get_by_test_id(b).bounding_box()
        assert box["y"] + box["height"] <= 568 and box["x"] + box["width"] <= 320, (b, box)
        assert red.get_by_test_id(b).evaluate("e => e.scrollWidth <= e.clientWidth"), b
    shot(red, "lang-de-phone-undo-320")
    red.get_by_test_id("ask-no").click()
    red.set_viewport_size({"width": 390, "height": 844})
    # one tap switches a phone's language, remembered on that phone only
    blue.click('[data-testid="langs"] [data-lang="fr"]')
    blue.wait_for_selector('html[lang="fr"]', state="attached")
    blue.reload()
    blue.wait_for_selector("body[data-version]", state="attached")
    assert blue.locator("html").get_attribute("lang") == "fr"
    assert "Bram" in blue.locator("#who").inner_text()      # still seated
    # a French watcher's board: a label before its value as French writes it ("Carte de
    # renseignement : …", a narrow space before the colon)
    watcher = table.phone("fr-FR")
    watcher.set_viewport_size({"width": 320, "height": 568})   # "watch" below the fold
    watcher.get_by_test_id("watch").click()
    board = watcher.get_by_test_id("watch-board")
    board.wait_for()
    # the board from its top, not where the tap on "watch" had scrolled the seats to
    assert watcher.evaluate("() => scrollY") == 0
    for label in (board.locator(".wb-intel"), board.locator(".wb-meta").first):
        assert "\u202f:" in label.inner_text() and " :" not in label.inner_text().replace(
            "\u202f:", ""), label.inner_text()
    watcher.close()
    red.reload()
    red.wait_for_selector("body[data-version]", state="attached")
    assert red.locator("html").get_attribute("lang") == "de"


# each word of a watcher's cards past its card's edges
OUT_OF_CARD = """() => [...document.querySelectorAll('.wb-card > *')].filter(e => e.offsetWidth)
  .filter(e => { const c = e.closest('.wb-card').getBoundingClientRect(),
                       r = e.getBoundingClientRect();
                 return r.left < c.left - 1 || r.right > c.right + 1; })
  .map(e => e.textContent)"""


def test_a_watchers_cards_keep_their_words_in_german_and_dutch(screens, live):
    """A card's outcome ran into the next card on a watcher's board: "zurückgezogen"
    (German) and "teruggetrokken" (Dutch) are wider than a quarter of a phone."""
    from .test_story import _import
    code = _import(live, "random-flag-1.json")          # day 3: cards activated, retreated
    for lang in ("de", "nl"):
        page = screens("phone", locale=lang)
        for w, h in ((320, 568), (360, 640), (390, 844)):
            page.set_viewport_size({"width": w, "height": h})
            page.goto(f"{live.url}/w/{code}")
            page.locator(".wb-card em").first.wait_for()
            assert page.evaluate(OUT_OF_CARD) == [], (lang, w)
        shot(page, f"languages-watcher-{lang}-390")
