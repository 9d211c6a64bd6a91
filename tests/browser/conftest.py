"""Real-browser fixtures: Debian's Chromium driven by Playwright against a live server.

The browser tests check what a person sees and does; what the server does with each of
their requests is checked in tests/web on SQLite and PostgreSQL alike. So they run once,
in the SQLite pass, but for the one whole game marked ``db`` (tests/browser/test_game.py),
which plays on PostgreSQL too.

- ``live``: the companion on 127.0.0.1 (a port of its own) in a thread, on a
  fresh database; the QR codes it draws point at that address.
- ``browser``: one headless Chromium for the session, never downloaded: Debian's
  headless build of it (``chromium-headless-shell``, the one Playwright itself runs
  headless: the same Blink without the desktop browser's processes, ~30 % less CPU a
  game, issue 51); the tests marked ``full_chromium`` (tests/browser/test_home.py: the
  install, the service worker, the wake lock) in Debian's whole ``chromium``, as a
  TV's or a phone's browser is. Without the headless build, everything in ``chromium``.
- ``phone()`` / ``tv()``: pages of 390x844 (touch, mobile) and 1920x1080, each
  watched by a :class:`Wire` that fails the test if any request leaves the
  server's origin, the Content-Security-Policy blocks anything or a script
  throws, and (``weigh=True``) counts the bytes the page transfers; no service
  worker unless ``worker=True``, reduced motion unless ``motion=True``.
- ``shot(page, name)``: a screenshot into ``test-output/screens`` (git-ignored), to
  look at; ``SL_SHOTS=0`` takes none (CI: nobody looks there, and they were a fifth of
  a looks game's CPU). A screenshot waits for the page's next frame; without one ``shot``
  waits for it all the same, and a page's ``set_viewport_size`` waits for the frame in
  which the page has handled its resize, so no check leans on a picture being taken.
"""

from __future__ import annotations

import os
import pathlib
import shutil
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from ..report import TAPS, WEIGHTS  # noqa: F401  (the tests import them from here)

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCREENS = ROOT / "test-output" / "screens"
SHOTS = os.environ.get("SL_SHOTS", "1") != "0"
# two animation frames: the page has run its resize handlers and drawn what they changed
FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
HEADLESS = shutil.which("chromium-headless-shell") or CHROMIUM
NO_LOOKUPS = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost"


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def driver() -> Iterator[Any]:
    """Playwright, once a process (a second one inside the first's loop refuses to start)."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        yield p


def launch(p: Any, executable: str) -> Iterator[Any]:
    if not os.path.exists(executable):
        pytest.fail(f"{executable} is missing: ./scripts/test installs it (apt-get install "
                    "chromium chromium-headless-shell)")
    b = p.chromium.launch(executable_path=executable, args=[NO_LOOKUPS])
    yield b
    b.close()


@pytest.fixture(scope="session")
def headless_browser(driver) -> Iterator[Any]:
    yield from launch(driver, HEADLESS)


@pytest.fixture(scope="session")
def whole_browser(driver) -> Iterator[Any]:
    yield from launch(driver, CHROMIUM)


@pytest.fixture
def browser(request) -> Any:
    """The session's headless Chromium; the whole one for a test marked ``full_chromium``."""
    whole = request.node.get_closest_marker("full_chromium") or HEADLESS == CHROMIUM
    return request.getfixturevalue("whole_browser" if whole else "headless_browser")


class Live:
    """The companion served over real HTTP on loopback by its own server (the event loop
    of ``spies-lies serve``), as phones would meet it."""

    def __init__(self, tmp_path: pathlib.Path) -> None:
        from companion.run.server import Server
        from companion.web import create_app

        db_url = os.environ.get("DATABASE_URL") or f"sqlite:///{tmp_path / 'live.sqlite'}"
        self.app = create_app({"SQLALCHEMY_DATABASE_URI": db_url, "SECRET_KEY": "browser-tests"})
        self.server = Server(self.app, threads=8)
        self.url = f"http://127.0.0.1:{self.server.port}"
        self.app.config["PUBLIC_URL"] = self.url
        self.server.start()

    def close(self) -> None:
        from companion import live
        self.server.stop()
        live.close(self.app)
        from companion.store.models import db
        with self.app.app_context():
            db.session.remove()
            if os.environ.get("DATABASE_URL"):
                import sqlalchemy as sa
                db.drop_all()
                with db.engine.begin() as c:
                    c.execute(sa.text("DROP TABLE IF EXISTS alembic_version"))
            db.engine.dispose()


@pytest.fixture
def live(tmp_path) -> Iterator[Live]:
    server = Live(tmp_path)
    yield server
    server.close()


class Wire:
    """Watches one page's traffic: every request must stay on ``origin``; ``paths``: what
    it asked for. ``weigh``: the bytes of each path too (``bytes``, ``total()``), for the
    pages whose weight a test reports (each request's sizes are one more round trip to
    the browser)."""

    def __init__(self, page: Any, origin: str, weigh: bool = False) -> None:
        self.origin = urlsplit(origin).netloc
        self.foreign: list[str] = []
        self.paths: set[str] = set()
        self.bytes: dict[str, int] = {}
        self.weighed = weigh
        self.refused: list[str] = []      # what the Content-Security-Policy blocked
        self.errors: list[str] = []       # uncaught script errors
        page.on("request", self._request)
        if weigh:
            page.on("requestfinished", self._finished)
        page.on("console", self._console)
        page.on("pageerror", lambda err: self.errors.append(str(err)))

    def _console(self, msg: Any) -> None:
        if "Content Security Policy" in msg.text:
            self.refused.append(msg.text)

    def _request(self, request: Any) -> None:
        url = urlsplit(request.url)
        if url.scheme in ("data", "blob", "about"):
            return
        if url.netloc != self.origin:
            self.foreign.append(request.url)
        self.paths.add(url.path)

    def _finished(self, request: Any) -> None:
        try:
            sizes = request.sizes()
        except Exception:  # the page closed first
            return
        path = urlsplit(request.url).path
        size = sizes["responseBodySize"] + sizes["responseHeadersSize"]
        self.bytes[path] = self.bytes.get(path, 0) + size

    def total(self) -> int:
        assert self.weighed, "this page was opened without weigh=True"
        return sum(self.bytes.values())


@pytest.fixture
def screens(browser, live) -> Iterator[Callable[..., Any]]:
    """``screens("phone")`` / ``screens("tv")``: a new page of that size, watched;
    ``locale``: the browser's language (what it sends as Accept-Language); ``size``:
    another screen's viewport for the TV (a tablet, a laptop); ``mobile``: that tablet's
    browser in mobile mode, as an Android tablet's reports itself (a meta viewport, a
    page wider than the screen zoomed out); ``weigh``: count the bytes of its requests
    (:class:`Wire`); ``motion``: its animations drawn (else reduced motion asked for)."""
    contexts, wires = [], []

    def open_page(kind: str, locale: str | None = None,
                  size: tuple[int, int] | None = None, worker: bool = False,
                  mobile: bool = False, weigh: bool = False, motion: bool = False) -> Any:
        # the screens ask for the dark room, the pages' default look (test_home.py switches);
        # no service worker, as on a LAN's plain-http address, where browsers give a page
        # none (worker=True: as on https; the worker installs the whole shell into each
        # new context and sees every request: ~12 % of a browser game's CPU)
        # the Screen Wake Lock the TV asks for: Chromium grants it to a page in view,
        # its headless build only when told (else every TV showed the hint a browser with
        # no wake lock gets, over the side column's last lines)
        # ...and the pages ask for reduced motion, as a screen set so can: the board's pulses
        # and the moments' entrances not drawn frame by frame (~29 % less CPU a game);
        # motion=True draws them (test_moments checks them)
        opts: dict[str, Any] = {"color_scheme": "dark", "permissions": ["screen-wake-lock"],
                                "reduced_motion": "no-preference" if motion else "reduce",
                                **({"locale": locale} if locale else {}),
                                **({} if worker else {"service_workers": "block"})}
        if kind == "phone":
            ctx = browser.new_context(viewport={"width": 390, "height": 844},
                                      device_scale_factor=2, is_mobile=True, has_touch=True,
                                      **opts)
        else:              # a TV, or (size) a laptop or a tablet used as the table's screen
            w, h = size or (1920, 1080)
            ctx = browser.new_context(viewport={"width": w, "height": h},
                                      has_touch=size is not None, **opts,
                                      **({"is_mobile": True, "device_scale_factor": 2}
                                         if mobile else {}))
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(10_000)
        resize = page.set_viewport_size

        def resized(size: dict[str, int]) -> None:     # (the frame its resize is handled in)
            resize(size)
            page.evaluate(FRAMES)
        page.set_viewport_size = resized
        page.wire = Wire(page, live.url, weigh)
        wires.append(page.wire)
        return page

    yield open_page
    for ctx in contexts:
        # a test's request handlers (page.route) go first, their errors ignored: a request
        # still in flight as its page closes would raise "Response has been disposed" in
        # the next test's first call (seen once in test_moments, three files at a time)
        for page in ctx.pages:
            page.unroute_all(behavior="ignoreErrors")
        ctx.close()
    foreign = [u for w in wires for u in w.foreign]
    assert not foreign, f"requests left the server's origin: {foreign}"
    refused = [m for w in wires for m in w.refused]
    assert not refused, f"the pages broke their own security policy: {refused}"
    errors = [m for w in wires for m in w.errors]
    assert not errors, f"script errors on the pages: {errors}"


# the smallest word of the drawings with these ids (SVGs) on the screen, in CSS px; a word
# narrowed to fit its room (textLength) counts as small as it was narrowed; a drawing not
# shown counts for nothing: ``page.evaluate(SMALLEST_WORD, ["board", "chart"])``
SMALLEST_WORD = """ids => Math.min(...ids.flatMap(id => {
  const svg = document.getElementById(id), k = svg && svg.getScreenCTM() && svg.getScreenCTM().a;
  return k ? [...svg.querySelectorAll("text")].map(t => {
    const fit = t.getAttribute("textLength");
    if (!fit) return k * t.getAttribute("font-size");
    t.removeAttribute("textLength");
    const natural = t.getComputedTextLength();
    t.setAttribute("textLength", fit);
    return k * t.getAttribute("font-size") * Math.min(1, fit / natural);
  }) : [];
}))"""


# the smallest words shown, in px of the screen (a page's zoom counted)
LEAST_WORD = """() => { const z = parseFloat(getComputedStyle(document.documentElement).zoom) || 1;
  return Math.min(...[...document.querySelectorAll("body *")].filter(el => el.offsetWidth
    && [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
    .map(el => parseFloat(getComputedStyle(el).fontSize) * z)); }"""


# every visible word of the page (not the board's drawing) whose colour stands out from what
# is behind it by less than WCAG's 4.5 : 1 (3 : 1 for large words: 24 px, or 18.66 px bold);
# what is behind it: the nearest box with an opaque background (axe-core passed a dark glyph
# on a dark cell and a white letter on light red as large words)
LOW_CONTRAST = """() => {
  const lum = c => { const m = c.match(/[\\d.]+/g); if (!m) return null;
    const [r, g, b] = m.slice(0, 3).map(x => { x = x / 255;
      return x <= .03928 ? x / 12.92 : Math.pow((x + .055) / 1.055, 2.4); });
    return .2126 * r + .7152 * g + .0722 * b; };
  const behind = e => { for (; e; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor, m = c.match(/[\\d.]+/g);
      if (m && (m.length < 4 || +m[3] > .9)) return c; }
    return getComputedStyle(document.body).backgroundColor; };
  const out = [];
  for (const e of document.querySelectorAll("body *:not(svg *):not(script):not(style)")) {
    const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    if (!r.width || !r.height || cs.visibility === "hidden" || +cs.opacity < 1) continue;
    if (![...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const a = lum(cs.color), b = lum(behind(e));
    if (a === null || b === null) continue;
    const ratio = (Math.max(a, b) + .05) / (Math.min(a, b) + .05), px = parseFloat(cs.fontSize);
    const large = px >= 24 || (px >= 18.66 && +cs.fontWeight >= 700);
    if (ratio < (large ? 3 : 4.5))
      out.push(`${e.tagName}.${e.className} "${e.textContent.trim().slice(0, 20)}" `
               + ratio.toFixed(2));
  }
  return out; }"""


def wider_than_screen(page: Any) -> int:
    """How many pixels the page is wider than the screen it is shown on (0: not at all).
    A phone's browser lays a page out as wide as its widest line and lets the user pan
    sideways to it: ``innerWidth`` grows with the page, so the width is compared with the
    screen's own (the viewport the test set), never with ``innerWidth``."""
    width = page.evaluate("() => Math.max(document.documentElement.scrollWidth, innerWidth)")
    return max(0, width - page.viewport_size["width"])


def shot(page: Any, name: str, scale: str = "device") -> pathlib.Path:
    SCREENS.mkdir(parents=True, exist_ok=True)
    path = SCREENS / f"{name}.png"
    if SHOTS:
        page.screenshot(path=str(path), full_page=False, scale=scale)
    else:
        page.evaluate(FRAMES)
    return path


def still(page: Any, name: str) -> None:
    """A screenshot with the moment's entrance finished (its animations run to their end)."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"), animations="disabled", scale="css")


def read_qr(png: bytes) -> str:
    """Decode the QR code in a screenshot (its PNG bytes) with a real decoder (zxing-cpp)."""
    import io

    import zxingcpp
    from PIL import Image
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))
    assert found, "no QR code readable in the screenshot"
    return found[0].text


def audit(page: Any) -> list[dict[str, Any]]:
    """axe-core in the page: its violations from moderate up (a page with no level-one
    heading, content outside the landmarks a screen reader jumps between, included);
    the minor ones are best practice a page may answer otherwise."""
    from axe_playwright_python.base import AXE_SCRIPT
    # (axe-core is put in the page once, not at each audit: its 500 KB made again and
    # again were a sixth of a looks game's time)
    if not page.evaluate("() => typeof axe === 'object' && typeof axe.run === 'function'"):
        page.evaluate(AXE_SCRIPT)
    found = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    return [v for v in found["violations"]
            if v.get("impact") in ("moderate", "serious", "critical")]
