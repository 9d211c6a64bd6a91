"""Two groups on one hosted server (issue 54): each starts its group on the first page,
keeps its two links, plays a game, and sees only its own history, ladder and intel
cards; a phone that opens a group's link remembers the group."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from companion.engine.simulate import random_record

from .conftest import shot
from .table import Table

WALL = 2
GROUPS = (("Tuesday club", None, ("Ann", "Bob"), 3), ("Famille Roux", (1280, 720),
                                                     ("Cyd", "Dan"), 11))


def start_group(tv: Any, url: str, name: str) -> tuple[str, str]:
    """The first page of a server for many groups: no group yet; "Start a group"; the two
    links shown once; on with the group. The links."""
    tv.goto(url + "/")
    tv.get_by_test_id("no-group").wait_for()
    tv.fill("#group-name", name)
    tv.get_by_test_id("start-group").click()
    tv.get_by_test_id("group-made").wait_for()
    link = tv.get_by_test_id("group-link").input_value()
    keeper = tv.get_by_test_id("group-keeper").input_value()
    shot(tv, f"groups-made-{tv.viewport_size['width']}")
    tv.get_by_test_id("group-go-on").click()
    tv.get_by_test_id("group-name").wait_for()
    assert name in tv.get_by_test_id("group-name").inner_text()
    return link, keeper


def cards_offered(table: Table, phones: list[Any], players: tuple[str, str],
                  seed: int) -> set[tuple[int, ...]]:
    """The known intel cards a seated red phone is offered at a new table's intel step."""
    for page, side, name in zip(phones, ("red", "blue"), players, strict=True):
        page.goto(table.join_url)
        page.wait_for_selector("body[data-version]", state="attached")
        table.join(side, name, page=page)
    table.enter_by_http(list(random_record(random.Random(seed), wall_distance=WALL).events[:2]))
    table.version += 2
    red = table.phones["red"]
    red.wait_for_selector('[data-testid="known-cards"] [data-card]')
    return {tuple(int(x) for x in b.split(",")) for b in red.eval_on_selector_all(
        "[data-card]", "bs => bs.map(b => b.dataset.card)")}


def test_two_groups_on_one_server_each_see_only_their_own(screens, live):
    live.app.config.update(MANY_GROUPS=True, TABLE_PACE=0.0)
    seen: dict[str, dict[str, Any]] = {}
    for name, size, players, seed in GROUPS:
        tv = screens("tv", size=size) if size else screens("tv")
        link, keeper = start_group(tv, live.url, name)
        assert "#group=" in link and "&key=" in keeper and live.url in link
        table = Table(screens, live, WALL, tv=tv)
        phones = [table.join(side, who) for side, who in zip(("red", "blue"), players,
                                                               strict=True)]
        record = random_record(random.Random(seed), wall_distance=WALL)
        table.enter_by_http(list(record.events))
        cards = {tuple(sorted(e.ranks)) for e in record.events if e.type == "intel"}
        seen[name] = {"tv": tv, "link": link, "keeper": keeper, "code": table.code,
                      "cards": cards,
                      "phones": phones, "players": players, "seed": seed}
    assert seen["Tuesday club"]["cards"] != seen["Famille Roux"]["cards"]
    for name, g in seen.items():
        other = next(o for n, o in seen.items() if n != name)
        tv = g["tv"]
        tv.goto(live.url + "/history")
        games = tv.get_by_test_id("game")
        games.first.wait_for()
        assert games.count() == 1
        text = games.first.inner_text()
        assert all(p in text for p in g["players"]) and not any(p in text for p in other["players"])
        shot(tv, f"groups-history-{name.split()[0].lower()}")
        tv.goto(live.url + "/stats")
        ladder = tv.get_by_test_id("players").inner_text()
        assert all(p in ladder for p in g["players"])
        assert not any(p in ladder for p in other["players"])
        # a new table of the group: the red phone is offered the group's own cards
        table = Table(screens, live, WALL, tv=tv)
        offered = cards_offered(table, g["phones"], g["players"], g["seed"])
        assert offered <= g["cards"] and offered, (offered, g["cards"])
        assert not offered & (other["cards"] - g["cards"])
    # a phone opens the club's link: it is in the club (its history), and remembers it
    phone = screens("phone")
    phone.goto(seen["Tuesday club"]["link"])
    phone.wait_for_url(live.url + "/")
    phone.get_by_test_id("my-groups").wait_for()
    assert "Tuesday club" in phone.get_by_test_id("my-groups").inner_text()
    shot(phone, "groups-phone-390")
    phone.goto(live.url + "/history")
    assert phone.get_by_test_id("group-named").inner_text() == "· Tuesday club"
    shot(phone, "groups-history-phone-390")
    assert phone.get_by_test_id("game").count() == 1
    assert "Ann" in phone.get_by_test_id("game").first.inner_text()
    # the club's keeper link on its TV: the group's data downloaded, then the group deleted
    club = seen["Tuesday club"]
    tv = club["tv"]
    tv.goto(club["keeper"])
    tv.wait_for_url("**/keeper")
    tv.get_by_test_id("keeper-group").wait_for()
    shot(tv, "groups-keeper-1920")
    with tv.expect_download() as got:
        tv.get_by_test_id("keeper-export").click()
    data = json.loads(Path(got.value.path()).read_text())
    assert data["group"] == "Tuesday club"
    codes = [g["code"] for g in data["games"]]
    assert club["code"] in codes and seen["Famille Roux"]["code"] not in codes
    tv.get_by_test_id("keeper-delete").click()           # a second tap means it
    tv.get_by_test_id("keeper-delete").click()
    tv.wait_for_function("() => document.body.dataset.keeper === '0'")
    tv.goto(live.url + "/history")
    assert tv.locator("[data-testid=game]").count() == 0
    # the family's games stay
    fam = seen["Famille Roux"]["tv"]
    fam.goto(live.url + "/history")
    assert fam.get_by_test_id("game").count() == 1
