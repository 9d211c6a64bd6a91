"""At home on the table (issue 14): the dark-room and light looks on the TV and a phone, the
big screen kept awake while the game is in play, and the app installed on a phone (its
manifest and icons, the service worker that keeps the shell, the "reconnecting" page when
the server cannot be reached)."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from .conftest import SMALLEST_WORD, audit, shot, wider_than_screen
from .table import Table
from .test_looks import FOLDED, SMALL, WALL, fits_every_tv, plan, sides_marked, small_targets

# what a phone and a TV do with a whole browser (installing the app, its service worker, the
# wake lock asked for and granted): in Debian's whole Chromium, not its headless build
pytestmark = pytest.mark.full_chromium

THEME = "() => document.documentElement.dataset.theme"

# a stand-in for the Screen Wake Lock that records what the page asks of it
FAKE_WAKE_LOCK = """(() => {
  window.__wake = {asked: 0, released: 0};
  const lock = {request: async type => {
    window.__wake.asked += 1;
    const s = new EventTarget();
    s.type = type; s.released = false; window.__wake.last = s;
    s.release = async () => {
      s.released = true; window.__wake.released += 1; s.dispatchEvent(new Event("release")); };
    return s;
  }};
  Object.defineProperty(Navigator.prototype, "wakeLock", {get: () => lock, configurable: true});
})()"""
NO_WAKE_LOCK = """Object.defineProperty(Navigator.prototype, "wakeLock",
                                       {get: () => undefined, configurable: true})"""


def switch(page: Any, theme: str) -> None:
    """One tap on the screen's own control, unless it already shows ``theme``."""
    if page.evaluate(THEME) != theme:
        page.get_by_test_id("theme").click()
    page.wait_for_function(f"() => ({THEME})() === {json.dumps(theme)}")


def test_both_looks_fit_every_screen_and_the_tv_stays_awake(screens, live):
    events = plan()
    table = Table(screens, live, WALL)
    tv = table.tv
    # the look follows the system's until this screen chooses (the fixtures ask for dark)
    assert tv.evaluate(THEME) == "dark"
    tv.emulate_media(color_scheme="light")
    tv.wait_for_function(f"() => ({THEME})() === 'light'")
    tv.emulate_media(color_scheme="dark")
    tv.wait_for_function(f"() => ({THEME})() === 'dark'")
    # the real Screen Wake Lock, held while the game is in play (Chromium grants it on localhost)
    tv.wait_for_selector("body[data-awake=held]", state="attached")
    red = table.join("red", "Ann")
    table.join("blue", "Bob")
    for d in events[:-1]:
        table.play(d)                    # to the capture check: reveals, tokens, intel on the board
    table.sync(tv)
    table.sync(red)
    problems: dict[str, Any] = {}
    for theme in ("light", "dark"):
        for page in (tv, red):
            switch(page, theme)
            if bad := audit(page):
                problems[f"{theme} {'tv' if page is tv else 'phone'}: axe"] = [
                    (v["id"], v["impact"], v["help"]) for v in bad]
            assert sides_marked(page) > 0
        # the board drawn again in this look's colours
        cell = tv.evaluate("() => getComputedStyle(document.documentElement)"
                           ".getPropertyValue('--b-red-cell').trim()")
        assert tv.locator(f'#board rect[fill="{cell}"]').count() == WALL - 1, (theme, cell)
        fits_every_tv(tv, f"home-{theme}", problems, looked=True)
        shot(red, f"home-{theme}-phone-390")
        red.set_viewport_size(SMALL)
        shot(red, f"home-{theme}-phone-360", scale="css")
        if small := small_targets(red):
            problems[f"{theme} phone at 360: targets below 44 px"] = small
        red.set_viewport_size({"width": 390, "height": 844})
    # the choice is this screen's, kept across pages: a reload keeps it
    switch(tv, "light")
    tv.reload()
    tv.wait_for_selector("#board text")
    assert tv.evaluate(THEME) == "light"
    assert red.evaluate(THEME) == "dark"
    assert not problems, json.dumps(problems, indent=1)

    # the end of the game lets the screen sleep again
    tv.wait_for_selector("body[data-awake=held]", state="attached")
    table.play(events[-1])
    table.sync(tv)
    tv.wait_for_selector("body[data-awake=released]", state="attached")
    shot(tv, "home-light-tv-winner")

    # a browser without a wake lock (plain http on a LAN address): a polite line instead
    plain = screens("tv")
    plain.add_init_script(NO_WAKE_LOCK)
    plain.goto(f"{live.url}/t/{table.code}")
    plain.wait_for_selector("#board text")
    assert plain.locator("#awake-hint").count() == 0        # the game is over: nothing to say


def test_the_wake_lock_is_asked_for_in_play_and_a_hint_shown_without_one(screens, live):
    table = Table(screens, live, WALL)
    faked = screens("tv")
    faked.add_init_script(FAKE_WAKE_LOCK)
    faked.goto(f"{live.url}/t/{table.code}")
    faked.wait_for_selector("body[data-awake=held]", state="attached")
    assert faked.evaluate("() => [__wake.asked, __wake.released]") == [1, 0]
    # the browser lets the lock go while the page is hidden; back in view, the page asks again
    faked.evaluate("() => __wake.last.release()")
    faked.wait_for_selector("body[data-awake=released]", state="attached")
    faked.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
    faked.wait_for_selector("body[data-awake=held]", state="attached")
    assert faked.evaluate("() => [__wake.asked, __wake.released]") == [2, 1]
    plain = screens("tv")
    plain.add_init_script(NO_WAKE_LOCK)
    plain.goto(f"{live.url}/t/{table.code}")
    hint = plain.get_by_test_id("awake-hint")
    hint.wait_for()
    assert "sleep timer" in hint.inner_text()
    shot(plain, "home-tv-awake-hint")
    hint.get_by_role("button").click()
    assert hint.count() == 0
    plain.reload()
    plain.wait_for_selector("body[data-awake=hint]", state="attached")
    assert plain.locator("#awake-hint").count() == 0        # said once on this screen


def test_a_phone_installs_the_app_and_sees_reconnecting_offline(screens, live, tmp_path):
    table = Table(screens, live, WALL)
    phone = table.phone(worker=True)
    assert phone.locator('link[rel="manifest"]').get_attribute("href") == "/manifest.webmanifest"
    manifest = phone.evaluate("() => fetch('/manifest.webmanifest').then(r => r.json())")
    assert manifest["short_name"] and manifest["name"]
    assert (manifest["start_url"], manifest["display"]) == ("/", "standalone")
    assert manifest["theme_color"] and manifest["background_color"]
    sizes = {(i["sizes"], i.get("purpose", "any")) for i in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for icon in manifest["icons"]:
        got = phone.evaluate("""src => new Promise((ok, no) => { const i = new Image();
            i.onload = () => ok([i.naturalWidth, i.naturalHeight]); i.onerror = no;
            i.src = src; })""", icon["src"])
        assert f"{got[0]}x{got[1]}" == icon["sizes"], icon

    # the worker registers, controls the page after a reload, keeps the shell, not the game
    phone.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    phone.reload()
    phone.wait_for_selector("body[data-version]", state="attached")
    assert phone.evaluate("() => !!navigator.serviceWorker.controller")
    kept = phone.evaluate("""async () => { const out = [];
        for (const k of await caches.keys())
          for (const r of await (await caches.open(k)).keys()) out.push(new URL(r.url).pathname);
        return out; }""")
    assert {"/static/phone.js", "/static/live.js", "/static/phone.css", "/offline"} <= set(kept)
    assert not [p for p in kept if p.startswith("/api/")], kept
    table.join("red", "Ann", phone)                      # the live table works through it

    # the server out of reach: a reload shows "reconnecting", not the browser's error page
    phone.context.set_offline(True)
    phone.reload()
    phone.get_by_test_id("offline").wait_for()
    assert "Reconnecting" in phone.locator("h1").inner_text()
    shot(phone, "home-phone-offline")
    assert audit(phone) == []        # its words a status in the page's main landmark
    # on a folding phone's cover screen (280 px) "Reconnecting…" fits: it made the page
    # 29 px wider than the screen
    phone.set_viewport_size(FOLDED)
    assert wider_than_screen(phone) == 0
    shot(phone, "home-phone-offline-280")
    phone.set_viewport_size({"width": 390, "height": 844})
    # …and it goes back to the table by itself once the server answers again
    phone.context.set_offline(False)
    phone.wait_for_function("() => document.getElementById('who')"
                            " && document.getElementById('who').textContent.includes('Ann')",
                            timeout=15_000)

    # the companion upgraded (a script changed, so a new worker): the first page after it
    # came with the old worker's files, so it loads once more with the new ones, by itself
    old = phone.evaluate("() => caches.keys()")
    upgrade(live, tmp_path / "static", "true")
    phone.reload()
    phone.wait_for_function("() => window.SL_UPGRADED === true", timeout=15_000)
    phone.wait_for_function("() => document.getElementById('who')"
                            " && document.getElementById('who').textContent.includes('Ann')")
    assert phone.evaluate("() => caches.keys()") not in ([], old)

    # a phone on a plain-http LAN address (no worker) left open through an upgrade: when it
    # looks at the table again (the server restarted, the stream back; shown again) the
    # answer names the new version, and the page loads again, with the new scripts
    lan = screens("phone")
    lan.goto(table.join_url)
    lan.wait_for_selector("body[data-version]", state="attached")
    assert lan.evaluate("() => [window.SL_UPGRADED, !!navigator.serviceWorker.controller]") == [
        True, False]
    upgrade(live, tmp_path / "static-2", "2")
    lan.wait_for_function("""() => {        // each page looks at the table once (as when
      if (window.SL_UPGRADED === 2) return true;          // it is shown again), then waits
      if (!window.poked) { window.poked = true;
        setTimeout(() => document.dispatchEvent(new Event("visibilitychange")), 0); }
      return false; }""", timeout=15_000, polling=300)
    # (CI once waited 10 s in vain here: what the page was doing is said if it happens again)
    try:
        lan.wait_for_selector("body[data-version]", state="attached", timeout=20_000)
    except Exception as e:
        raise AssertionError(lan.evaluate("""() => { const on = typeof SL === "object";
            return {url: location.href, ready: document.readyState, upgraded: window.SL_UPGRADED,
              link: document.body.dataset.link,
              view: on && !!SL.view, streaming: on && SL.streaming,
              page: document.querySelector('meta[name="sl-assets"]').content,
              noted: sessionStorage.getItem("sl-assets-reload")}; }"""),
            lan.wire.errors) from e


def upgrade(live, files, mark: str) -> None:
    """The companion upgraded, as a restarted server would serve it: phone.js changed
    (setting ``window.SL_UPGRADED`` to ``mark``)."""
    shutil.copytree(live.app.static_folder, files)
    with open(files / "phone.js", "a", encoding="utf-8") as f:
        f.write(f"\nwindow.SL_UPGRADED = {mark};\n")
    live.app.static_folder = str(files)
    live.app.extensions.pop("companion.assets")      # as a restarted server would


# each word of the set-up picture against what it is drawn on: its contrast ratio (WCAG)
PICTURE_CONTRAST = """() => {
  const ctx = document.createElement("canvas").getContext("2d");
  const rgb = c => { ctx.fillStyle = "#000"; ctx.fillStyle = c; const h = ctx.fillStyle;
    return h.startsWith("#") ? [1, 3, 5].map(i => parseInt(h.slice(i, i + 2), 16))
                             : h.match(/[\\d.]+/g).slice(0, 3).map(Number); };
  const lum = c => { const [r, g, b] = rgb(c).map(v => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const page = getComputedStyle(document.documentElement).getPropertyValue("--panel");
  return [...document.querySelectorAll("#wd-pic text")].map(t => {
    const r = t.getBoundingClientRect();
    const under = document.elementsFromPoint(r.left + r.width / 2, r.top + r.height / 2)
      .find(e => e.tagName === "rect");
    const back = under ? getComputedStyle(under).fill : page;
    const [hi, lo] = [lum(getComputedStyle(t).fill), lum(back)].sort((a, b) => b - a);
    return [t.textContent, +((hi + 0.05) / (lo + 0.05)).toFixed(2)];
  });
}"""


def test_the_set_up_picture_reads_in_both_looks(screens, live):
    """How to count the wall distance, drawn on the set-up page: in the light look the flags'
    word was grey on their dark squares (1.6:1) and the wall's number gold on blue (2.6:1)."""
    tv = screens("tv")
    tv.goto(live.url + "/")
    for theme in ("light", "dark"):
        tv.emulate_media(color_scheme=theme)
        tv.wait_for_function(f"() => ({THEME})() === {json.dumps(theme)}")
        for wall in ("2", "8"):
            tv.locator(f'[data-w="{wall}"]').click()
            tv.wait_for_function("n => document.getElementById('wd-show').textContent === n",
                                 arg=wall)
            words = tv.evaluate(PICTURE_CONTRAST)
            assert len(words) >= 4
            # its words are large (18-22 px, bold or on a square): 3:1 at least
            assert [w for w in words if w[1] < 3] == [], (theme, wall)
    # on the smallest phone (320 px, the set-up opened) the picture is drawn narrower, not
    # shrunk: its words at least 10 px (they were 2-8 px; a flag's word squeezed to 2 px)
    phone = screens("phone", "fr")
    phone.set_viewport_size({"width": 320, "height": 568})
    phone.goto(live.url + "/")
    phone.locator(".setup > summary").click()
    for wall in ("2", "8"):
        phone.locator(f'[data-w="{wall}"]').click()
        phone.wait_for_function("n => document.getElementById('wd-show').textContent === n",
                                arg=wall)
        assert phone.evaluate(SMALLEST_WORD, ["wd-pic"]) >= 10, wall
