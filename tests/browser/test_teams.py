"""Team play at a real table (R80): four phones, two a side, play day 1 by taps.

Each reveal is tapped on the phones of the part that holds the mission (missions 1-2 or
3-4, for both the guesser and the owner); the two other players' phones show nothing
to tap and no "your turn", and every header keeps its name and its missions in view.
"""

from __future__ import annotations

import random

from companion.engine.simulate import random_record

from .conftest import TAPS, shot, still
from .table import Table, expected_after, normalise

WALL = 3
# Cleo's: the longest name there can be, with no place to break a line (a nickname)
PLAYERS = {("red", 1): "Ann", ("red", 2): "Cleo" + "W" * 36, ("blue", 1): "Bob",
           ("blue", 2): "Dirk"}


def day_one() -> list[dict]:
    """The events of a random legal game up to its first round's eighth reveal."""
    events = normalise([e.to_dict() for e in random_record(
        random.Random(4), wall_distance=WALL, disorder=0, lie=0).events])
    eighth = [i for i, e in enumerate(events) if e["type"] == "reveal"][7]
    return events[: eighth + 1]


def test_four_phones_play_a_team_round_each_part_tapping_its_own_missions(screens, live):
    events = day_one()
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
    table.check_board(want)
    # the TV's moments of a day played this fast queue up; the day's recap comes last
    table.tv.wait_for_function("() => document.getElementById('moment').dataset.kind"
                               " === 'day-end'", timeout=15_000)
    still(table.tv, "teams-day1-end-tv")
    for (side, part), p in phones.items():
        table.sync(p)
        shot(p, f"teams-day1-end-{side}{part}")
