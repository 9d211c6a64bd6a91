"""What a newcomer still tripped on at a table kept on one screen (issue 52): the
deception token's question names the side laying it (item 4: both sides share the one
dialog there), a token laid leaves its side's hand at once (item 6: "DT 1" stayed until
the reveal was recorded), an activated card is marked gold with a spark, not a green ✓
that read as "guessed right" (item 7), and a flag taken by a side whose four cards are
already face up ends the game at that tap: R71's check is empty then, and nobody is asked
to confirm it (item 3).

The game is the referee's simulator's, its days before the last token entered over HTTP
with the screen's key; the rest by taps on the big screen."""

from __future__ import annotations

import random
from typing import Any

from companion.engine import event_from_dict
from companion.engine.simulate import random_record

from .conftest import shot
from .table import Table, expected_after, normalise
from .test_first_contact import want_version

WALL = 3
SEED = 59         # (day 1: a token laid on the 11th step, the flag on the 14th)


def game() -> tuple[list[dict[str, Any]], int]:
    """A game that ends by a flag taken with the capturer's four cards face up (its check
    empty), and the index of the last reveal on a deception token before it, one that
    activated the card."""
    rec = random_record(random.Random(SEED), wall_distance=WALL, disorder=0, lie=0)
    events = normalise([e.to_dict() for e in rec.events])
    assert events[-1] == {"type": "check", "side": events[-1]["side"], "ranks": {}}
    end = expected_after(WALL, events)
    assert end["reason"] == "flag"
    reveals = end["reveals"]
    at = [i for i, e in enumerate(events) if e["type"] == "reveal"]
    k = max(i for n, i in enumerate(at) if events[i]["deception"]
            and reveals[n]["outcome"] == "activated")
    return events, k


def _other(side: str) -> str:
    return "blue" if side == "red" else "red"


def test_a_game_on_one_screen_to_its_flag(screens, live):
    events, k = game()
    table = Table(screens, live, WALL, enter="screen")
    tv = table.tv
    table.enter_by_http([event_from_dict(e) for e in events[:k]])
    table.version = want_version(table)
    d = events[k]
    owner, m = _other(d["guesser"]), d["mission"]
    held = expected_after(WALL, events[:k])["dt"][owner]
    assert held >= 1

    # 4: the token's question names the side that lays it
    table.sync(tv)
    laid = tv.get_by_test_id("dt-on").count()        # (tokens laid earlier today)
    tv.locator('#entry [data-dec="ask"]').click()
    tv.get_by_test_id("ask").wait_for()
    assert tv.locator("#ask-title").inner_text() == (
        f"{owner.capitalize()}: lay a deception token on your mission {m}?")
    shot(tv, "newcomer-deceive-ask-1920")
    table.submit(tv, '[data-testid="ask-yes"]')
    # 6: laid, it lies on the card and no longer counts in the hand
    dt = tv.get_by_test_id(f"dt-{owner}")
    assert (dt.get_attribute("data-value"), dt.text_content()) == (
        str(held - 1), f"DT {held - 1}")
    assert tv.get_by_test_id("dt-on").count() == laid + 1
    shot(tv, "newcomer-token-laid-1920")
    table.play({**d, "deception": False})
    # ... and spent once the reveal is recorded: the referee's count
    after = expected_after(WALL, events[: k + 1])
    assert dt.get_attribute("data-value") == str(after["dt"][owner])

    # 7: the card activated by the wrong guess: gold with a spark, no green ✓
    card = tv.locator(f'[data-testid="activated"][data-side="{owner}"][data-mission="{m}"]')
    looks = card.evaluate("""g => { const gold = getComputedStyle(document.documentElement)
        .getPropertyValue('--gold').trim();
        return [g.textContent.includes('✓'),
                g.querySelector('rect').getAttribute('stroke') === gold,
                !!g.querySelector('[data-testid="spark"]')]; }""")
    assert looks == [False, True, True], looks
    tv.keyboard.press("Shift")                   # the moment over the board, skipped
    tv.wait_for_selector("#moment.hidden", state="attached")
    for size in ((1920, 1080), (1280, 720)):
        tv.set_viewport_size({"width": size[0], "height": size[1]})
        shot(tv, f"newcomer-activated-{size[0]}")
    tv.set_viewport_size({"width": 1920, "height": 1080})

    # 3: the flag, taken with the capturer's four cards face up: the game ends at that tap,
    # no capture check to confirm (R71: it is empty), and one undo takes the capture back
    for e in events[k + 1:-1]:
        table.play(e)
    table.play(events[-1])                       # (recorded with the capture: no tap)
    assert tv.locator("#do-check").count() == 0
    tv.get_by_test_id("winner").wait_for()
    shot(tv, "newcomer-flag-end-1920")
    record = live.app.test_client().get(f"/api/tables/{table.code}/record").get_json()
    assert record["events"][-1] == events[-1]
    # one undo takes the capture back with its check: the reveal is due again, not a
    # check with nothing to turn up
    tv.locator("#close-end").click()
    table.undo(tv)
    assert table.step(tv) in ("reveal-guess", "reveal-actual")
