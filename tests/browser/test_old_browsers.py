"""Screens whose browsers are years old: the big screen is often a smart TV's own browser
(Samsung's of 2021-2023 are Chromium 85-94, LG's webOS 6 Chromium 79) or an iPad that
cannot update past iOS 15, and a group has no other.

Each page here runs without what such a browser lacks: the script functions newer than
Chromium 79 and Safari 14, and ``<dialog>`` (Safari before 15.4). Without
``structuredClone`` every change that came down the live stream was thrown away by the
page (a TV stayed on the board it first loaded); without ``<dialog>`` every confirmation
was a button that did nothing. The scripts' syntax is checked the same way: one
expression newer than the browser and it runs none of the file."""

import pathlib
import re
from typing import Any

from .conftest import shot
from .table import Table
from .test_looks import WALL, plan
from .test_memory_pages import fill
from .test_screen import whole

# what Chromium 79 / Safari 14 lack and the pages might reach for, removed before any
# script of the page runs; and the style rules such a browser cannot read (":has()",
# "@container"), dropped as it drops them, once the page's styles are in
OLD_BROWSER = """(() => {
  const gone = [[window, "structuredClone"], [Array.prototype, "at"], [Object, "hasOwn"],
    [String.prototype, "replaceAll"], [Array.prototype, "findLast"],
    [Array.prototype, "findLastIndex"], [Array.prototype, "toSorted"], [Object, "groupBy"],
    [Promise, "any"], [window, "WeakRef"], [Element.prototype, "replaceChildren"],
    [Element.prototype, "checkVisibility"], [window.crypto, "randomUUID"],
    [AbortSignal, "timeout"], [window, "HTMLDialogElement"]];
  for (const [where, name] of gone) { try { delete where[name]; } catch (e) { /* kept */ } }
  const unread = list => { for (let i = list.length - 1; i >= 0; i--) {
    const rule = list[i];
    if ((rule.selectorText || "").includes(":has(") || rule.constructor.name === "CSSContainerRule")
      (rule.parentRule || rule.parentStyleSheet).deleteRule(i);
    else if (rule.cssRules) unread(rule.cssRules);
  } };
  const drop = () => { for (const sheet of document.styleSheets) unread(sheet.cssRules); };
  document.addEventListener("DOMContentLoaded", drop);
})()"""


def old(screens: Any) -> Any:
    """``screens`` whose pages each run as an old browser would (OLD_BROWSER)."""
    def open_page(*args: Any, **kwargs: Any) -> Any:
        page = screens(*args, **kwargs)
        page.context.add_init_script(OLD_BROWSER)
        return page
    return open_page


def test_a_game_on_an_old_tv_browser_and_old_phones(screens, live):
    events = plan()
    # a 1080p TV whose browser counts 960 x 540 (each CSS pixel two of the screen's): the
    # board is staged, the codes to join in view (it stacked like a phone's page, the
    # codes below the fold, a remote's scroll away)
    aged = old(screens)
    table = Table(aged, live, WALL, tv_size=(960, 540))
    tv = table.tv
    assert tv.evaluate("() => typeof structuredClone + typeof HTMLDialogElement") == \
        "undefinedundefined"
    assert tv.evaluate("""() => [...document.styleSheets].every(s => [...s.cssRules].every(
        r => !(r.selectorText || "").includes(":has(")))""")
    assert tv.evaluate("() => document.body.classList.contains('staged')")
    assert tv.evaluate("""() => { const page = document.documentElement;
        const q = document.querySelector("img.qr").getBoundingClientRect();
        return q.bottom <= innerHeight && q.right <= innerWidth && q.width >= 90
               && page.scrollHeight <= innerHeight && page.scrollWidth <= innerWidth; }""")
    shot(tv, "old-tv-960x540")
    asked: list[str] = []

    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept()

    tv.on("dialog", answer)
    red = table.join("red", "Ann")
    blue = table.join("blue", "Bob")
    for d in events[:8]:
        table.play(d)
        # every change reaches the TV down its live stream (it threw each one away)
        table.sync(tv)
    assert tv.evaluate("() => SL.streaming")
    # red lays a deception token: the browser's own question, answered yes by the phone
    table.sync(red)
    before = table.seen(red)
    table.tap(red, '#act [data-dec="ask"]')
    red.wait_for_function("v => +document.body.dataset.version > v", arg=before)
    table.version = table.seen(red)
    table.play({**events[8], "deception": False})         # the guess and the card, as dealt
    table.sync(tv)
    assert "(deception token played)" in tv.locator("#narration").inner_text()
    # the TV takes the last reveal back: its question is the browser's, and it is asked
    table.sync(tv)
    before = table.seen(tv)
    tv.locator("#undo").click()
    tv.wait_for_function("v => +document.body.dataset.version > v", arg=before)
    table.version = table.seen(tv)
    assert len(asked) == 1 and asked[0]
    for page in (red, blue):              # the reveal is gone on every screen
        table.sync(page)
    assert tv.locator("#narration").inner_text().startswith("Red guessed Scout")
    record = live.app.test_client().get(f"/api/tables/{table.code}/record").get_json()
    assert len(record["events"]) == 8
    # the pages read from the sofa are a quarter larger on a 1080p TV there too (they were
    # told by :has(), which such a TV drops), and the table's own screen is not
    # ... and a TV box that cannot tell its time zone (Chromium names it "Etc/Unknown", and
    # cannot write a date in it: the history page's script stopped there, its buttons dead)
    fill(live, 2)
    sofa = aged("tv")
    sofa.context.add_init_script("""(() => {
      const own = Intl.DateTimeFormat.prototype.resolvedOptions;
      Intl.DateTimeFormat.prototype.resolvedOptions = function () {
        return Object.assign(own.call(this), {timeZone: "Etc/Unknown"}); }; })()""")
    for path, zoom in (("/rules", "1.25"), ("/history", "1.25"), (f"/t/{table.code}", "1")):
        sofa.goto(live.url + path)
        sofa.wait_for_load_state()
        assert sofa.evaluate("() => getComputedStyle(document.documentElement).zoom") == zoom
    sofa.goto(live.url + "/history")
    assert sofa.get_by_test_id("game").count() == 2
    assert sofa.locator("time").first.inner_text()       # the server's words stand
    # (a script error on any page fails the test as it closes: conftest's screens)


def test_an_old_ipad_upright_enters_a_game_with_every_button_in_sight(screens, live):
    """An iPad that stays on iOS 15 (the Air 2, the mini 4), upright, as the one screen of a
    table without phones: the panel's layout for its width was a container query, which
    it has not, and the soldiers 9 and 10 and "Draw for me" were below the screen."""
    table = Table(old(screens), live, WALL, tv_size=(768, 1024), enter="screen")
    for d in plan()[:8]:
        assert whole(table.tv), table.step(table.tv)
        table.play(d)
    shot(table.tv, "old-ipad-768x1024")


# syntax an old browser cannot read (it then runs nothing of the file): what the pages'
# scripts must do without (a string that happens to hold one of these is said too)
NEWER_SYNTAX = {
    "optional chaining, a?.b (Chromium 80)": r"\?\.(?!\d)",
    "nullish coalescing, a ?? b (Chromium 80)": r"\?\?",
    "logical assignment, a ||= b (Chromium 85)": r"(\|\||&&)=",
    "a regular expression's lookbehind (Safari 16.4)": r"\(\?<[=!]",
}


# ... and style an old browser drops where the page needs it (a rule with :has() is
# dropped whole; an element placed by inset stayed where it stood, the end of the game
# drawn over nothing)
NEWER_STYLE = {
    ":has() (Chromium 105, Safari 15.4)": r":has\(",
    "a container query (Chromium 105, Safari 16)": r"@container|container-type",
    "overflow-wrap: anywhere alone (Chromium 80, Safari 15.4): break-word first":
        r"(?<!overflow-wrap: break-word; )overflow-wrap: anywhere",
    "inset (Chromium 87, Safari 14.1): top, right, bottom, left": r"(^|[;{\s])inset\s*:",
}


def test_the_scripts_and_styles_use_nothing_newer_than_the_old_browsers():
    root = pathlib.Path(__file__).resolve().parents[2]
    files = [(p, NEWER_SYNTAX) for p in sorted((root / "static").glob("*.js"))] + [
        (p, NEWER_STYLE) for p in sorted((root / "static").glob("*.css"))
        + sorted((root / "templates").glob("*.html"))]
    found = [f"{path.name}:{n}: {what}" for path, newer in files
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for what, pattern in newer.items() if re.search(pattern, line)]
    assert found == []
