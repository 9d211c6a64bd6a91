"""Issue 50: a hostile page open in the table's own browsers spends their address's
budget of wrong table codes; the TV and the phones keep their table all the same.

Every screen here reaches the server from 127.0.0.1, as the TV and the phones of a
table reach it from the addresses a hostile page in their browser spends: once it has
loaded 61 images of unknown tables, that address is refused look-ups without a key.
The pages and QR codes come all the same, and what the screens ask with their keys
(the view, the live stream, the story) is answered.
"""

from __future__ import annotations

import random
import time

from companion.engine.simulate import random_record

from .table import Table
from .test_teams import PLAYERS, WALL

HOSTILE = """() => Promise.all(Array.from({length: 61}, (_, i) => new Promise(done => {
  const img = new Image(); img.onload = img.onerror = done;
  img.src = "/t/Q" + String(i).padStart(4, "0"); })))"""


def test_the_tv_and_the_phones_keep_their_table_when_a_hostile_page_spent_their_address(
        screens, live):
    # test_teams' game, up to its first reveal: the guessing side's part of missions 1-2
    # taps, its part of missions 3-4 does not
    events = random_record(random.Random(4), wall_distance=WALL, disorder=0, lie=0).events
    first = next(i for i, e in enumerate(events) if e.to_dict()["type"] == "reveal")
    table = Table(screens, live, WALL, teams=True)
    for side in ("red", "blue"):
        table.join(side, PLAYERS[side, 1], part=1)
    table.enter_by_http(events[:first])
    check, seen = live.app.test_client(), {"REMOTE_ADDR": "127.0.0.9"}   # another address
    view = check.get(f"/api/tables/{table.code}/state", environ_base=seen).get_json()["view"]
    guesser = view["taps"]["sides"][0]
    assert view["taps"]["part"] == 1
    table.join(guesser, PLAYERS[guesser, 2], part=2)
    version = table.version

    table.tv.evaluate(HOSTILE)
    assert check.get(f"/api/tables/{table.code}/state").status_code == 429   # 127.0.0.1 waits
    # the TV loads its page again (an upgrade does, a person may): the board, the QR code
    # to join, its stream (the host counts as here: nobody is offered its screen)
    table.tv.reload()
    table.tv.wait_for_function("v => +(document.body.dataset.version || 0) >= v", arg=version)
    qr = table.tv.locator("img.qr")
    assert qr.evaluate("img => img.complete ? img.naturalWidth : new Promise("
                       "r => img.onload = () => r(img.naturalWidth))") > 0
    end = time.monotonic() + 10
    while "host" not in check.get(f"/api/tables/{table.code}/state?since={version}",
                                  environ_base=seen).get_json()["connected"]:
        assert time.monotonic() < end, "the TV's stream was refused"
        time.sleep(0.05)
    # each phone too: its seat, and a turn only for the part whose mission is up (the
    # page, drawn without the table looked up, learns team play from the view)
    for (side, part), phone in table.phones.items():
        phone.reload()
        phone.wait_for_function("v => +(document.body.dataset.version || 0) >= v", arg=version)
        assert PLAYERS[side, part] in phone.locator("#who").inner_text()
        turn = phone.evaluate("() => document.body.classList.contains('your-turn')")
        assert turn == (side == guesser and part == 1), (side, part)
    # the story of the game so far, from the TV
    table.tv.goto(f"{live.url}/t/{table.code}/story")
    table.tv.wait_for_selector("body[data-ready='1']", state="attached")
    # a screen with no key of the table, on that address: told why it gets nothing
    stranger = screens("phone")
    stranger.goto(f"{live.url}/j/{table.code}")
    stranger.wait_for_selector("#toast:not([hidden])")
    assert "Too many table codes" in stranger.locator("#toast").inner_text()
    assert stranger.locator("[data-join]").count() == 0
