"""Team play at a real table (R80): four phones, two a side, play day 1 by taps.

Each reveal is tapped on the phones of the part that holds the mission (missions 1-2 or
3-4, for both the guesser and the owner); the two other players' phones show nothing
to tap and no "your turn", and every header keeps its name and its missions in view.

Then, after the game (issue 14): a watcher follows without a seat, and one tap on the TV
opens the rematch with colours swapped; four phones move to it already seated, the
watcher goes on watching, and a phone that was away finds its seat when it comes back.
"""

from __future__ import annotations

import random

from companion.engine import event_from_dict
from companion.engine.simulate import random_record

from .conftest import TAPS, shot, still
from .table import Table, expected_after, normalise

WALL = 3
# Cleo's: the longest name there can be, with no place to break a line (a nickname)
PLAYERS = {("red", 1): "Ann", ("red", 2): "Cleo" + "W" * 36, ("blue", 1): "Bob",
           ("blue", 2): "Dirk"}


# how many of "Today"'s entries show, and the heading: its lines and whether it stands
# inside the header
SHOWN = """() => { const h = document.getElementById('next'), r = h.getBoundingClientRect(),
  top = document.querySelector('.top').getBoundingClientRect();
  return {items: [...document.querySelectorAll('#history li')].filter(li => li.offsetParent).length,
          heading: {lines: Math.round(h.scrollHeight / parseFloat(getComputedStyle(h).lineHeight)),
                    inside: r.top >= top.top - 1 && r.bottom <= top.bottom + 1}}; }"""


def day_one() -> tuple[list[dict], list[dict]]:
    """The events of a random legal game up to its first round's eighth reveal, and the
    rest of the game."""
    events = normalise([e.to_dict() for e in random_record(
        random.Random(4), wall_distance=WALL, disorder=0, lie=0).events])
    eighth = [i for i, e in enumerate(events) if e["type"] == "reveal"][7]
    return events[: eighth + 1], events[eighth + 1:]


def seated_as(page, name: str) -> str:
    """The seat line of ``page`` once it names ``name`` (the page first says "Table
    CODE": a busy machine may show that before the seat arrives)."""
    page.wait_for_function("n => document.getElementById('who').textContent.includes(n)",
                           arg=name)
    return page.locator("#who").inner_text()


def test_four_phones_play_a_team_game_to_the_rematch_each_part_tapping_its_own_missions(
        screens, live):
    events, rest = day_one()
    table = Table(screens, live, WALL, shots="teams", teams=True)
    for (side, part), name in PLAYERS.items():
        page = table.join(side, name, part=part)
        who = page.locator("#who").inner_text()
        assert name in who and ("missions 1–2" if part == 1 else "missions 3–4") in who
    phones = table.phones
    shot(table.tv, "teams-tv-seated")
    # the long name wraps inside the seats' panel; the sides' marks and the dots keep shape
    seats = table.tv.evaluate("""() => { const s = document.getElementById('seats');
        return {over: s.scrollWidth - s.clientWidth,
                page: document.documentElement.scrollWidth - innerWidth,
                shapes: [...s.querySelectorAll('.seat > *')].map(e => {
                    const r = e.getBoundingClientRect();
                    return [e.className, r.width, r.height]; })}; }""")
    assert seats["over"] <= 0 and seats["page"] <= 0, seats
    dots = [(w, h) for cls, w, h in seats["shapes"] if "dot" in cls]
    assert len(dots) == 4 and all(abs(w - h) < 1 for w, h in dots), seats
    # ... in two lines at most (it took four, and pushed the day's history off the screen)
    names = sorted(h for cls, w, h in seats["shapes"] if cls == "nm")
    assert len(names) == 4 and names[-1] <= 2 * names[0] + 1, seats
    late = table.phone()                   # a fifth phone: "… sits here" on every seat
    late.set_viewport_size({"width": 360, "height": 640})
    late.wait_for_selector('[data-join="red:2"] small')
    assert late.evaluate("document.documentElement.scrollWidth") <= 360
    shot(late, "teams-phone-late-360")
    late.close()

    part = 1                                  # the part holding the mission revealed now

    def idle(stage: str, page) -> None:
        """Before each decisive tap: the phones not concerned have nothing to do."""
        if stage != "deception":             # an optional token is no one's turn
            assert page.evaluate("() => document.body.classList.contains('your-turn')")
        if stage not in ("guess", "actual"):
            return
        for (_side, p_part), p in phones.items():
            if p_part != part:                # the other part of each side: nothing here
                table.sync(p)
                assert p.locator("#act [data-guess], #act [data-actual]").count() == 0
                assert not p.evaluate("() => document.body.classList.contains('your-turn')")
        if stage in ("guess", "actual") and "teams-reveal" not in table.shot_done:
            table.shot_done.add("teams-reveal")
            for (side, n), p in phones.items():
                shot(p, f"teams-reveal-{side}{n}")
            table.sync(table.tv)
            shot(table.tv, "teams-reveal-tv")

    start = table.taps
    parts_tapped: set[tuple[str, int]] = set()
    for d in events:
        if d["type"] == "intel":
            start = table.taps
        if d["type"] == "reveal":
            part = 1 if d["mission"] <= 2 else 2
            parts_tapped |= {(d["guesser"], part)}
        table.play(d, idle)
    # a server's first game: the intel card is new (4 taps); day 1's start is tapped
    TAPS["team round on 4 phones: intel card (new), tokens, start, 8 reveals"] = (
        f"{table.taps - start}")
    assert parts_tapped == set(PLAYERS)      # each of the four players guessed a card
    want = expected_after(WALL, events)
    assert want["phase"] == "round_end" and want["day"] == 1
    shot(table.tv, "teams-day1-today-tv")
    table.check_board(want)           # "Today": all 7 earlier reveals whole at 1920x1080
    # the TV's moments of a day played this fast queue up; the day's recap comes last
    table.tv.wait_for_function("() => document.getElementById('moment').dataset.kind"
                               " === 'day-end'", timeout=15_000)
    still(table.tv, "teams-day1-end-tv")
    # ... and on a 720p screen (the same stage, scaled); a 4:3 one's narrower column shows
    # the newest that fit, each whole (none cut with "…"), and the heading in its two lines
    # inside the header (three there, the first above the screen's edge)
    for w, h, least in ((1280, 720, 7), (1024, 768, 3)):
        table.tv.set_viewport_size({"width": w, "height": h})
        shot(table.tv, f"teams-day1-today-tv-{w}", scale="css")
        got, shown = table.board(), table.tv.evaluate(SHOWN)
        assert got["whole"] == shown["items"] >= least, (w, got["whole"], shown)
        assert shown["heading"]["lines"] <= 2 and shown["heading"]["inside"], (w, shown)
    table.tv.set_viewport_size({"width": 1920, "height": 1080})
    for (side, part), p in phones.items():
        table.sync(p)
        shot(p, f"teams-day1-end-{side}{part}")

    # after the day: a watcher; the smaller QR on the TV opens the read-only view; the TV
    # counts it
    tv = table.tv
    watch_url = table.join_url.replace("/j/", "/w/")
    watcher = screens("phone")
    watcher.goto(watch_url)
    watcher.wait_for_selector("body[data-version]", state="attached")
    assert watcher.get_by_test_id("watching").count() == 1
    tv.wait_for_function("() => document.getElementById('watchers').dataset.count === '1'")
    assert tv.get_by_test_id("watchers").inner_text() == "1 watching"
    assert watcher.locator("#act [data-pick], #act [data-join], #act [data-guess]").count() == 0
    shot(tv, "rematch-tv-watched-1920")
    # the server drops out of the watcher's reach (its stream breaks, every request fails):
    # a clear line says it is reconnecting, and goes once the table answers again
    def cut(route):
        route.abort()
    watcher.route("**/api/**", cut)
    watcher.evaluate("() => SL.connect('watch')")        # the open stream breaks too
    watcher.get_by_test_id("link-down").wait_for(timeout=15_000)
    shot(watcher, "rematch-phone-link-down-390")
    watcher.unroute("**/api/**", cut)
    watcher.get_by_test_id("link-down").wait_for(state="hidden", timeout=15_000)

    # a second screen shows the board too (no key: the table's code on its first page, then
    # "Show the board on this screen")
    board = screens("tv", size=(1280, 720))
    # (every page it shows notes whether the loud offer to take the place of a screen that
    # is gone ever showed: the table's screen only loading is not gone)
    board.add_init_script("""new MutationObserver(() => {
        if (document.querySelector('[data-testid="hand-gone"]')) window.handSeen = true; })
        .observe(document, {childList: true, subtree: true});""")
    board.goto(f"{live.url}/t/{table.code}")
    board.get_by_test_id("move-here").wait_for()

    # the rest of the game, then Dirk's phone goes away (asleep, another page)
    table.enter_by_http([event_from_dict(e) for e in rest])
    table.sync(tv)
    tv.get_by_test_id("winner").wait_for()
    # the watcher sees who won and why, and may open the game's story (it saw the board)
    won = watcher.get_by_test_id("winner")
    won.wait_for()
    assert won.get_attribute("data-winner") == tv.get_by_test_id("winner").get_attribute(
        "data-winner")
    assert watcher.get_by_test_id("story-link").get_attribute("href") == (
        f"/t/{table.code}/story?from=phone")
    assert watcher.get_by_test_id("watch-board").count() == 1
    assert watcher.locator("#next").inner_text() == "Game over"     # (not the card's words twice)
    shot(watcher, "rematch-watcher-over-390")
    away = table.phones[("blue", 2)]
    away.goto("about:blank")
    shot(tv, "rematch-tv-over-1920")

    # one tap: the rematch, colours swapped; the TV opens the new table
    old = table.code
    tv.get_by_role("button", name="Rematch — swap colours").click()
    tv.wait_for_url(lambda u: "/t/" in u and old not in u)
    new = tv.url.rstrip("/").rsplit("/", 1)[1]
    for (side, part), name in PLAYERS.items():
        page = table.phones[(side, part)]
        if page is away:
            continue
        page.wait_for_url(f"**/j/{new}")
        who = seated_as(page, name)
        assert name in who and ("missions 1–2" if part == 1 else "missions 3–4") in who
        swapped = "blue" if side == "red" else "red"
        assert page.locator("#who .mark").first.get_attribute("class").endswith(swapped)
    watcher.wait_for_url(f"**/j/{new}")
    watcher.get_by_test_id("watching").wait_for()
    # ... and the second screen shows the new table's board, still without its key (it
    # stayed on the old game's end, the rematch a link away)
    board.wait_for_url(f"**/t/{new}")
    board.get_by_test_id("move-here").wait_for()
    # it never offered to take over from the TV, which was only opening the new table (the
    # offer, then a hand-over code, showed for ~1 s after each rematch)
    assert not board.evaluate("() => !!window.handSeen")
    assert board.locator("#undo").is_hidden()
    assert not board.evaluate(f"() => localStorage.getItem('sl-host-{new}')")
    # the old table's board opened now stays on its game: the rematch is a link there
    board.goto(f"{live.url}/t/{old}")
    board.get_by_test_id("rematch-at").wait_for()
    assert board.url == f"{live.url}/t/{old}"
    # the TV shows four seats, all seated by the rematch, and is the new table's host
    tv.wait_for_selector("body[data-version]", state="attached")
    assert tv.get_by_test_id("code").inner_text() == new
    assert "colours swapped" in tv.locator("#notice").inner_text()
    shot(tv, "rematch-tv-new-1920")
    # the phone that was away comes back to the old table's address: it follows
    away.goto(table.join_url)
    away.wait_for_url(f"**/j/{new}")
    who = seated_as(away, "Dirk")
    assert "Dirk" in who and "missions 3–4" in who
    shot(away, "rematch-phone-back-390")
    # the old table takes no more changes
    client = live.app.test_client()
    v = client.get(f"/api/tables/{old}/state").get_json()["view"]
    assert v["rematch"]["code"] == new and v["rematch"]["swap"] is True
    r = client.post(f"/api/tables/{old}/undo", json={"version": v["version"],
                                                     "idempotency_key": "after-rematch-1"},
                    headers={"Origin": "http://localhost"})
    assert r.status_code == 409 and r.get_json()["code"] == "rematch"
