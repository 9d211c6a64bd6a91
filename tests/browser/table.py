"""Playing a table through the screens only: the TV creates it, phones tap every event.

A game is scripted from a plan (engine events); each event is entered by the taps a
player would make on the phone of the side concerned. Each screen marks the table
version it shows (``body[data-version]``), so the driver waits on conditions,
never on sleeps.
"""

from __future__ import annotations

import itertools
import json
import pathlib
from collections.abc import Callable
from typing import Any

from companion.engine import Options, Record, event_from_dict, replay, replay_output, team_part
from harness.steps import steps

from .conftest import SCREENS, read_qr, shot

SIDES = ("red", "blue")

# where each rank's button stands on the screen (a guess, the card turned up, a pick)
RANKS_AT = """p => Object.fromEntries([...document.querySelectorAll(
  `${p} [data-guess], ${p} [data-actual], ${p} [data-pick]`)].map(b => [
  b.dataset.guess || b.dataset.actual || b.dataset.pick,
  Math.round(b.getBoundingClientRect().top)]))"""


class Places:
    """Where the ranks' buttons of a panel stood when marked, and how far each has moved
    at the next look (a rank tapped twice, or tapped while the page changes, must not)."""

    def __init__(self) -> None:
        self.moved: list[int] = []
        self.marked: dict[str, int] = {}

    def mark(self, page: Any, panel: str) -> None:
        self.marked = page.evaluate(RANKS_AT, panel)

    def since(self, page: Any, panel: str) -> None:
        """Each rank's move since the mark (none without one); the mark is then spent."""
        at = page.evaluate(RANKS_AT, panel)
        self.moved.extend(abs(at[r] - self.marked[r]) for r in at if r in self.marked)
        self.marked = {}

    def still(self) -> bool:
        return not [m for m in self.moved if m > 1]


class Layouts:
    """How many times a page laid itself out (Chromium's own count) since this was made,
    per version of the table it drew since."""

    def __init__(self, page: Any) -> None:
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Performance.enable")
        self.page = page
        self.start, self.version = self.count(), int(page.evaluate(
            "() => +(document.body.dataset.version || 0)"))

    def count(self) -> float:
        metrics = self.cdp.send("Performance.getMetrics")["metrics"]
        return float(next(m["value"] for m in metrics if m["name"] == "LayoutCount"))

    def per_change(self, table: Any) -> float:
        table.sync(self.page)
        changes = table.seen(self.page) - self.version
        assert changes > 0, changes
        return (self.count() - self.start) / changes


def normalise(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events as the phones record them (intel ranks and token missions sorted)."""
    out = []
    for d in events:
        d = dict(d)
        if d["type"] == "intel":
            d["ranks"] = sorted(d["ranks"])
        if d["type"] == "tokens":
            d["missions"] = sorted(d["missions"])
        out.append(d)
    return out


def expected_after(wall: int, events: list[dict[str, Any]]) -> dict[str, Any]:
    """The referee's own view of the game after ``events``."""
    rec = Record(Options(wall), tuple(event_from_dict(e) for e in events))
    return replay_output(replay(rec))


class Table:
    """A table opened on the TV and played from phones."""

    def __init__(self, screens: Callable[..., Any], live: Any, wall: int,
                 shots: str | None = None, teams: bool = False,
                 tv_language: str | None = None, enter: str = "phones",
                 tv_size: tuple[int, int] | None = None, chances: bool = False,
                 first_game: bool = False, walk: bool = False, tv: Any | None = None,
                 worker: bool = False, weigh: bool = False, motion: bool = False) -> None:
        self.screens, self.live, self.wall, self.shots = screens, live, wall, shots
        self.worker = worker            # its screens run the service worker (conftest)
        self.weigh = weigh              # …and count their bytes (conftest.Wire)
        self.motion = motion            # …and draw their animations (conftest)
        self.teams = teams
        # the seats entered on the TV (issue 23): a side, or (side, part) in team play
        parts = (1, 2) if teams else (0,)
        self.on_screen: set[Any] = {(x, p) if teams else x for x in (
            SIDES if enter == "screen" else ("blue",) if enter == "blue" else ()) for p in parts}
        self.version = 0
        self.taps = 0                   # every tap a player made on a phone, counted
        self._sent = itertools.count()  # the HTTP entries' idempotency keys (enter_by_http)
        self.shot_done: set[str] = set()
        # (``tv``: a screen already open, with what its browser keeps: a group's cookie)
        tv = self.tv = tv or screens("tv", size=tv_size, worker=worker, weigh=weigh,
                                     motion=motion)
        tv.goto(live.url + "/")
        if tv_language:                 # the TV's language is chosen on the create page
            tv.click(f'[data-testid="langs"] [data-lang="{tv_language}"]')
            tv.wait_for_selector(f'html[lang="{tv_language}"]', state="attached")
            tv.wait_for_load_state()
        if shots:
            shot(tv, f"{shots}-tv-create")
        tv.click(f'[data-w="{wall}"]')
        if teams:
            tv.click('[data-teams="1"]')
        if enter != "phones":
            tv.click(f'[data-enter="{enter}"]')
        if chances:                      # the chance-to-win bar, opted in (issue 25)
            tv.click('[data-testid="chances"]')
        # a learning game (each ability explained the first time it acts, the set-up shown
        # first, issue 53) or not: chosen either way, the page offers one to a new group
        tv.click('[data-testid="first-game"]' if first_game else '[data-testid="known-game"]')
        tv.click('#create button[type="submit"]')
        tv.wait_for_url("**/t/*")
        tv.wait_for_selector("body[data-version]", state="attached")
        self.code = tv.url.rstrip("/").rsplit("/", 1)[1]
        if first_game and enter == "screen" and not walk:    # its set-up skipped (walk: shown)
            # by the keyboard, as a laptop's player would: a click would leave the next
            # focused key without its ring (:focus-visible follows the last input)
            tv.get_by_test_id("walk-skip").press("Enter")
            tv.locator("#walk").wait_for(state="detached")
        self.phones: dict[Any, Any] = {}     # by side, or (side, part) in team play
        if enter == "screen":                # no phone will join: no code to scan
            self.join_url = f"{live.url}/j/{self.code}"
            return
        # the address phones will open: read from the QR code the TV draws, with a real
        # decoder, from the screenshot itself (the test processes share the screenshots'
        # folder: a file read back could be another process's table)
        tv.locator("img.qr").evaluate("img => img.complete || new Promise(r => img.onload = r)")
        png = tv.screenshot()
        if shots:
            SCREENS.mkdir(parents=True, exist_ok=True)
            (SCREENS / f"{shots}-tv-qr.png").write_bytes(png)
        self.join_url = read_qr(png)
        assert self.join_url == f"{live.url}/j/{self.code}", self.join_url

    # --- waiting and tapping ---------------------------------------------------------
    def seen(self, page: Any) -> int:
        return int(page.evaluate("() => +(document.body.dataset.version || 0)"))

    def sync(self, page: Any) -> None:
        """Wait until ``page`` shows the table as of the last tap anywhere."""
        page.wait_for_function("v => +(document.body.dataset.version || 0) >= v", arg=self.version)

    def submit(self, page: Any, selector: str) -> None:
        """A tap that changes the table: wait for the answer to show on that phone."""
        self.sync(page)
        before = self.seen(page)
        page.locator(selector).click()
        self.taps += 1
        page.wait_for_function("v => +(document.body.dataset.version || 0) > v", arg=before)
        self.version = max(self.version, self.seen(page))

    def slow_answers(self, page: Any, ms: int) -> None:
        """From now on ``page`` gets each of its posts' answers ``ms`` later (a slow
        Wi-Fi, a busy server): the live stream brings the change first."""
        page.evaluate("""ms => { const f = window.fetch; window.answers = 0;
          window.fetch = async (url, o) => { const r = await f(url, o);
            if (o && o.method === "POST") { await new Promise(ok => setTimeout(ok, ms));
                                             window.answers++; }
            return r; }; }""", ms)

    def panel(self, page: Any) -> str:
        """Where ``page`` shows the step to enter: a phone's #act, the TV's #entry."""
        return "#entry" if page is self.tv else "#act"

    def step(self, page: Any) -> str:
        self.sync(page)
        return page.locator(self.panel(page)).get_attribute("data-step") or ""

    def facing(self, page: Any, side: str) -> None:
        """On a screen both sides enter at, the panel for ``side``: a tap if the other
        side's is up (the setup's soldiers and tokens, the capture check)."""
        if page is self.tv and page.locator("#entry").get_attribute("data-side") != side:
            self.tap(page, f'[data-entry-side="{side}"]')
            page.wait_for_selector(f'#entry[data-side="{side}"]', state="attached")

    def tap(self, page: Any, selector: str) -> None:
        """A tap that only changes what this phone has picked so far."""
        page.locator(selector).click()
        self.taps += 1

    def undo(self, page: Any) -> None:
        """Undo on ``page``: its Undo button, then "Undo it" in the dialog that asks."""
        self.sync(page)
        page.locator("#b-undo, #undo").first.click()
        self.taps += 1
        page.get_by_test_id("ask").wait_for()
        self.submit(page, '[data-testid="ask-yes"]')

    # --- seats -----------------------------------------------------------------------
    def phone(self, locale: str | None = None, worker: bool | None = None,
              weigh: bool | None = None) -> Any:
        page = self.screens("phone", locale,
                            worker=self.worker if worker is None else worker,
                            weigh=self.weigh if weigh is None else weigh, motion=self.motion)
        page.on("dialog", lambda d: d.accept())
        page.goto(self.join_url)
        page.wait_for_selector("body[data-version]", state="attached")
        return page

    def join(self, side: str, name: str, page: Any | None = None, part: int = 0,
             locale: str | None = None) -> Any:
        page = page or self.phone(locale)
        self.tap(page, f'[data-join="{side}:{part}"]')
        page.fill("#name", name)
        if self.shots and "join" not in self.shot_done:
            self.shot_done.add("join")
            shot(page, f"{self.shots}-phone-join")
        self.submit(page, "#do-join")
        page.wait_for_function("n => document.getElementById('who').textContent.includes(n)",
                               arg=name)
        self.phones[(side, part) if part else side] = page
        return page

    def of(self, side: str, mission: int = 1) -> Any:
        """The phone that taps for ``side``: in team play (R80) the player of the part
        holding ``mission`` (missions 1-2 or 3-4; the part of missions 1-2 otherwise)."""
        who = (side, team_part(mission)) if self.teams else side
        return self.tv if who in self.on_screen else self.phones[who]

    def copy(self, page: Any, locale: str, onto: Any | None = None) -> Any:
        """Another screen showing what ``page`` (the TV or a seated phone) shows, in the
        language of ``locale``: it holds the same keys (the browser's storage copied), as a
        second device of the same person would, so that one game is looked at in several
        languages at once. ``onto``: a page of that kind and language already open on this
        server (else a new one)."""
        kind = "tv" if page is self.tv else "phone"
        other = onto or self.screens(kind, locale)
        kept = page.evaluate("() => Object.entries(localStorage)")
        if onto is None:
            other.on("dialog", lambda d: d.accept())
            other.goto(self.live.url + "/", wait_until="commit")
        other.evaluate("kept => kept.forEach(([k, v]) => localStorage.setItem(k, v))", kept)
        other.goto(page.url)
        other.wait_for_selector("body[data-version]", state="attached")
        self.sync(other)
        return other

    # --- one event, by taps ----------------------------------------------------------
    def play(self, d: dict[str, Any], before: Callable[[str, Any], None] | None = None) -> None:
        """Enter event ``d`` by taps; ``before(stage, page)`` runs before each decisive tap."""
        hook = before or (lambda stage, page: None)
        kind = d["type"]
        if kind == "exhaust":
            p = self.of(d["side"])
            assert self.step(p) == "exhaust"
            self.facing(p, d["side"])
            hook("exhaust", p)
            for r in d["ranks"]:
                self.tap(p, f'{self.panel(p)} [data-pick="{r}"]')
            self.submit(p, f"{self.panel(p)} #do-exhaust")
        elif kind == "intel":
            p = self.of("red")
            assert self.step(p) == "intel"
            card = f'{self.panel(p)} [data-card="{",".join(map(str, sorted(d["ranks"])))}"]'
            if p.locator(card).count():           # seen before on this server: one tap
                hook("intel", p)
                self.submit(p, card)
                return
            for r in d["ranks"][:-1]:
                self.tap(p, f'{self.panel(p)} [data-pick="{r}"]')
            hook("intel", p)
            # the fourth records it
            self.submit(p, f'{self.panel(p)} [data-pick="{d["ranks"][-1]}"]')
        elif kind == "tokens":
            p = self.of(d["side"])
            assert self.step(p) == "tokens"
            self.facing(p, d["side"])
            for m in d["missions"]:
                self.tap(p, f'{self.panel(p)} [data-pick="{m}"]')
            hook("tokens", p)
            self.submit(p, f"{self.panel(p)} #do-tokens")
        elif kind == "start":
            p = self.of(d["side"])
            if self.step(p) != "start":          # days 2 and 3 start by themselves (R12)
                assert self.step(p).startswith("reveal-")
                return
            hook("start", p)
            self.submit(p, f'{self.panel(p)} [data-start="{d["side"]}"]')
        elif kind == "reveal":
            owner = self.of("blue" if d["guesser"] == "red" else "red", d["mission"])
            guesser = self.of(d["guesser"], d["mission"])
            if d["deception"]:                   # laid while the guess waits; else no tap
                hook("deception", owner)
                self.sync(owner)
                self.tap(owner, f'{self.panel(owner)} [data-dec="ask"]')   # a second tap lays it
                owner.get_by_test_id("ask").wait_for()
                self.submit(owner, '[data-testid="ask-yes"]')
            if self.step(guesser) == "reveal-guess":   # none after R60 broke the order
                hook("guess", guesser)
                self.submit(guesser, f'{self.panel(guesser)} [data-guess="{d["guess"]}"]')
            assert self.step(guesser) == "reveal-actual"
            hook("actual", guesser)
            self.submit(guesser, f'{self.panel(guesser)} [data-actual="{d["actual"]}"]')  # seen
            if d.get("choice") is not None and self.step(owner) == "reveal-choice":
                hook("choice", owner)
                self.submit(owner, f'{self.panel(owner)} [data-choice="{d["choice"]}"]')
        elif kind == "check":
            p = self.of(d["side"])
            if not d["ranks"]:                   # nothing face down: recorded with the
                assert self.step(p) == "over"    # capture, by the rules (R71)
                return
            assert self.step(p) == "check"
            self.facing(p, d["side"])
            for _m, r in sorted((int(m), r) for m, r in d["ranks"].items()):
                self.tap(p, f'{self.panel(p)} [data-pick="{r}"]')
            hook("check", p)
            self.submit(p, f"{self.panel(p)} #do-check")
        else:  # pragma: no cover
            raise AssertionError(kind)

    # --- the rest of a game over HTTP, with the keys the screens made ----------------
    def enter_by_http(self, events: list[Any]) -> None:
        """Enter ``events`` (engine events) as the seated phones and the TV would, over
        HTTP with the keys they keep (for tests about what comes after the taps)."""
        client = self.live.app.test_client()
        keys = {}
        for who, p in self.phones.items():     # a seat's key is kept once its answer is in
            got = p.wait_for_function("k => localStorage.getItem(k)", arg=f"sl-seat-{self.code}")
            keys[who] = json.loads(got.json_value())["secret"]
        keys["host"] = self.tv.evaluate(f"() => localStorage.getItem('sl-host-{self.code}')")
        url = f"/api/tables/{self.code}"
        sent = self._sent                       # keys unique over the table's life
        for e in events:
            view = client.get(url + "/state").get_json()["view"]
            todo, status = steps(e, view), None
            try:
                while True:
                    who, path, body = todo.send(status)
                    if self.teams and who in SIDES:    # R80: the part holding the mission
                        draft = client.get(url + "/state").get_json()["view"]["draft"]
                        who = (who, draft["part"] if draft and path == "/draft" else 1)
                    v = client.get(url + "/state").get_json()["view"]["version"]
                    key = keys[who] if who in keys else keys["host"]   # a side on the TV
                    r = client.post(url + path, headers={
                        "Origin": "http://localhost", "Authorization": f"Bearer {key}"},
                        json={"version": v, "idempotency_key": f"http-{self.code}-{next(sent)}",
                              **body})
                    assert r.status_code in (200, 201), r.get_json()
                    status = r.status_code
            except StopIteration:
                pass
        # what the pages must show before the next wait on them (sync): a page not yet
        # at this version may still show what came before these events
        self.version = max(self.version, client.get(url + "/state").get_json()["view"]["version"])

    # --- what the TV shows -----------------------------------------------------------
    def board(self) -> dict[str, Any]:
        """What the host screen shows now, read from its rendered board and side panel."""
        tv = self.tv
        self.sync(tv)
        ids = lambda t: tv.get_by_test_id(t)  # noqa: E731
        return {
            "ip": {s: ids(f"ip-{s}").text_content() for s in SIDES},
            "dt": {s: ids(f"dt-{s}").text_content() for s in SIDES},
            "da": int(ids("da").get_attribute("data-pos") or "x"),
            "da_text": ids("da-text").text_content(),
            "da_label": ids("da").get_attribute("aria-label"),
            "day": tv.locator("#day .on").text_content(),
            "narration": tv.locator("#narration").inner_text(),
            # "Today": each earlier reveal of the day in a short line, its whole words its title
            "history": tv.eval_on_selector_all("#history li > span", "s => s.map(x => x.title)"),
            # how many of them show whole (issue 52: 1-3 of a day's 7, cut with "…", at 1920)
            "whole": tv.evaluate("""() => [...document.querySelectorAll('#history li')].filter(li =>
                li.offsetParent && li.firstChild.scrollHeight <= li.firstChild.clientHeight + 1
                && li.getBoundingClientRect().bottom <= document.getElementById('history')
                   .getBoundingClientRect().bottom + 1).length"""),
        }

    def check_board(self, want: dict[str, Any]) -> None:
        got = self.board()
        assert got["ip"] == {s: f"IP {want['ip'][s]}" for s in SIDES}, (got, want["ip"])
        assert got["dt"] == {s: f"DT {want['dt'][s]}" for s in SIDES}
        assert got["da"] == want["da"]
        da, toward = want["da"], "red" if want["da"] < 0 else "blue"
        where = ("at the centre" if da == 0 else f"on {toward}'s flag" if abs(da) > self.wall
                 else f"{abs(da)} toward {toward}")
        assert got["da_text"] == f"Double agent {where}"
        assert got["da_label"] == f"double agent {where}"
        assert got["day"] == str(want["day"])
        today = [r["narration"] for r in want["reveals"] if r["day"] == want["day"]]
        if today:
            assert got["narration"] == today[-1]
            assert got["history"] == today[-2::-1]
            if self.tv.viewport_size == {"width": 1920, "height": 1080}:    # a TV: all of it
                # (a team game's four seats too: 6 of 7 shown there, 4 before issue 52)
                assert got["whole"] == len(today) - 1, got

    def check_end(self, want: dict[str, Any]) -> str:
        tv = self.tv
        self.sync(tv)
        w = tv.get_by_test_id("winner")
        w.wait_for()
        assert w.get_attribute("data-winner") == want["winner"]
        text = w.inner_text()
        w = want["winner"]
        assert text == ("A draw" if w == "draw" else f"{w[0].upper()} {w.capitalize()} wins")
        reason = tv.get_by_test_id("reason")
        assert reason.get_attribute("data-reason") == want["reason"]
        said = reason.inner_text()
        # the board looked at, the result shown again (nothing led back to it, nor to the
        # rematch): from the host's tools, or on a screen a side enters at, from its panel
        tv.locator("#close-end").click()
        tv.wait_for_selector("#end.hidden", state="attached")
        tv.locator("#open-end:visible, [data-testid='open-end']:visible").click()
        tv.get_by_test_id("winner").wait_for()
        return said


def shots_of(table: Table, name: str, *pages: Any) -> list[pathlib.Path]:
    return [shot(p, f"{name}") for p in pages]
