"""Only real play counts in the group's memory (issue 50): a game moves the ratings, the
statistics and the history's own list when it was played live here at a table's pace by
seats that sat before it began, or when the keeper counts it. Imported games and games a
script enters in seconds are kept apart ("not counted"); a stranger's made-up games
leave the ladder and the history's first page as they were; the keeper counts a game,
sets one apart, and removes a player with every game they sat at in one step."""

from __future__ import annotations

import random
import time
from typing import Any

from companion.engine import Record
from companion.engine.simulate import random_record
from harness.steps import steps

from .conftest import ORIGIN, Player, enter, sit

STRANGER = {"REMOTE_ADDR": "127.0.3.2"}        # another device on the same Wi-Fi
SHORT = [50, 196, 251, 150, 178, 194, 283, 352, 377, 28]   # games over in 10-13 steps (R70)
MORE = [65, 67, 145, 185, 187, 269, 301, 321, 363, 399, 401, 411, 433, 458, 463, 470, 483, 517,
        616, 635, 646, 662, 686, 701, 710, 713, 741, 775, 785, 801, 847, 869, 919, 935, 993,
        1003, 1086, 1100, 1109, 1139, 1158, 1183, 1265, 1281, 1310, 1331, 1397, 1406, 1503,
        1510, 1511, 1517, 1528, 1624, 1729, 1789, 1798, 1826, 1839, 1846, 1902, 1958, 1969,
        1971, 1977, 2029, 2110, 2114, 2144, 2148, 2191, 2193, 2309, 2350, 2383, 2410, 2419,
        2591, 2599, 2641]                        # and 80 more (a shorter game is a faster test)


def short_game(i: int) -> Record:
    return random_record(random.Random(SHORT[i % len(SHORT)]), wall_distance=2)


def play_fast(host: Player, seats: dict[str, Player], rec: Record) -> None:
    """Enter a whole game as a script does: every request at once, no look between."""
    screens = {**seats, "host": host}
    version = host.refresh()["version"]
    for e in rec.events:
        todo, status = steps(e, host.view), None
        try:
            while True:
                who, path, body = todo.send(status)
                screens[who].version = version
                r = screens[who].post(path, body, fresh=False)
                assert r.status_code in (200, 201), r.get_json()
                status, version = r.status_code, r.get_json()["view"]["version"]
                host.view = r.get_json()["view"]
        except StopIteration:
            pass


def as_stranger(client: Any, method: str, path: str, body: Any = None,
                key: str | None = None) -> Any:
    h = {"Origin": ORIGIN, **({"Authorization": f"Bearer {key}"} if key else {})}
    return client.open(path, method=method, json=body, headers=h, environ_base=STRANGER)


def what_the_group_sees(client: Any) -> dict[str, Any]:
    """The history's first page (API and page), the statistics with the ladder, each
    player's page: everything a stranger's games must leave as it was."""
    first = client.get("/api/history").get_json()
    page = client.get("/history").get_data(as_text=True)
    stats = client.get("/api/stats").get_json()
    players = {p["id"]: client.get(f"/api/players/{p['id']}/stats").get_json()
               for p in stats["players"]}
    # (each game's turning point comes in the background, whenever: not compared)
    games = [{k: v for k, v in g.items() if k != "turning"} for g in first["games"]]
    return {"games": games, "total": first["total"], "pages": first["pages"],
            "listed": [line for line in page.splitlines() if 'data-testid="game"' in line],
            "stats": {k: v for k, v in stats.items() if k != "in_play"},
            "players": players}


def test_a_strangers_hundred_made_up_games_move_no_rating_and_leave_the_history_as_it_was(
        app, client, keeper_key):
    app.config["RATE_LIMITS"] = {"imports": "100000 per minute", "tables": "100000 per minute",
                                 "players": "100000 per minute"}
    # the group: three games played at the table (the suite plays them fast: counted
    # here at any pace), Ann and Bob rated
    for i in range(3):
        r = client.post("/api/tables", json={"wall_distance": 2}, headers={"Origin": ORIGIN})
        host = Player(client, r.get_json()["code"], r.get_json()["host_secret"])
        enter(host, {"red": sit(host, "red", "Ann", player="a" * 40),
                     "blue": sit(host, "blue", "Bob", player="b" * 40)}, short_game(i).events)
    before = what_the_group_sees(client)
    assert before["total"] == 3 and [p["name"] for p in before["stats"]["ladder"]] \
        and len(before["stats"]["ladder"]) == 2
    # from now on the server's own rule: a game counts at a table's pace
    app.config["TABLE_PACE"] = 1.0
    mallory, trent = "m" * 40, "t" * 40
    made: list[str] = []
    # 80 finished records imported, each played "now", their free seats taken by the
    # stranger's own players
    for i in range(80):
        rec = random_record(random.Random(MORE[i]), wall_distance=2).to_dict()
        rec["options"]["played"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        r = as_stranger(client, "POST", "/api/tables/import", {"record": rec})
        assert r.status_code == 201, r.get_json()
        code, v = r.get_json()["code"], r.get_json()["view"]["version"]
        for side, key in (("red", mallory), ("blue", trent)):
            j = as_stranger(client, "POST", f"/api/tables/{code}/seats", {
                "version": v, "idempotency_key": f"fake-{i}-{side}", "side": side,
                "name": side.capitalize() + "Star", "player": key})
            assert j.status_code == 201, j.get_json()
            v += 1
        made.append(code)
    # ... a date to come, to stay at the top of the history for good, is refused
    rec = random_record(random.Random(4999), wall_distance=3).to_dict()
    rec["options"]["played"] = "9999-12-31"
    r = as_stranger(client, "POST", "/api/tables/import", {"record": rec})
    assert r.status_code == 400 and r.get_json()["field"] == "record", r.get_json()
    assert "9999-12-31" in r.get_json()["error"]
    # 20 games played live by a script, in a second or so each, seats sat before
    for i in range(20):
        r = as_stranger(client, "POST", "/api/tables", {"wall_distance": 2})
        host = Player(client, r.get_json()["code"], r.get_json()["host_secret"])
        seats = {"red": sit(host, "red", "RedStar", player=mallory),
                 "blue": sit(host, "blue", "BlueStar", player=trent)}
        play_fast(host, seats, short_game(i))
        assert host.refresh()["state"]["phase"] == "over"
        made.append(host.code)
    after = what_the_group_sees(client)
    assert after == before                      # not one figure, not one line moved
    # they are kept apart, marked, and told apart on the page
    apart = client.get("/api/history?apart=1").get_json()
    assert apart["total"] == 100 and apart["others"] == 3 and apart["pages"] == 5
    whys = {g["why"] for p in range(1, 6)
            for g in client.get(f"/api/history?apart=1&page={p}").get_json()["games"]}
    assert whys == {"imported", "pace"}
    assert "data-testid=\"apart-link\"" in client.get("/history").get_data(as_text=True)
    page = client.get("/history?apart=1").get_data(as_text=True)
    assert 'data-testid="apart-note"' in page and page.count('data-testid="game"') == 20
    # a stranger cannot count them, nor remove anyone's games
    assert as_stranger(client, "POST", f"/api/history/{made[0]}/count",
                       {"count": True}).status_code == 403
    star = next(p["id"] for g in apart["games"] for p in g["sides"]["red"] if p["id"])
    r = as_stranger(client, "POST", f"/api/players/{star}/delete", {"games": True}, key=mallory)
    assert r.status_code == 403 and r.get_json()["code"] == "not_keeper"
    # the keeper counts one imported game: it joins the group's list and rates its seats
    r = client.post(f"/api/history/{made[0]}/count", json={"count": True},
                    headers={"Origin": ORIGIN, "Authorization": f"Bearer {keeper_key}"})
    assert r.status_code == 200 and r.get_json()["counted"] is True
    now = client.get("/api/history").get_json()
    assert now["total"] == 4 and made[0] in {g["code"] for g in now["games"]}
    assert {p["name"] for p in client.get("/api/stats").get_json()["ladder"]} == \
        {"Ann", "Bob", "RedStar", "BlueStar"}
    # ... and sets it apart again: the group's memory as it was
    r = client.post(f"/api/history/{made[0]}/count", json={"count": False},
                    headers={"Origin": ORIGIN, "Authorization": f"Bearer {keeper_key}"})
    assert r.status_code == 200 and r.get_json()["counted"] is False
    assert what_the_group_sees(client) == before
    gone = client.get("/api/history?apart=1&page=5").get_json()["games"]
    assert [g["why"] for g in gone if g["code"] == made[0]] == ["keeper"]
    for bad in ("yes", 1, "missing"):
        body = {} if bad == "missing" else {"count": bad}
        r = client.post(f"/api/history/{made[1]}/count", json=body,
                        headers={"Origin": ORIGIN, "Authorization": f"Bearer {keeper_key}"})
        assert r.status_code == 400 and r.get_json()["field"] == "count"
    # the keeper removes the stranger's player and every game she sat at, in one step
    r = client.post(f"/api/players/{star}/delete", json={"games": True},
                    headers={"Origin": ORIGIN, "Authorization": f"Bearer {keeper_key}"})
    assert r.status_code == 200 and r.get_json() == {"deleted": star, "games": 100}
    assert client.get("/api/history?apart=1").get_json()["total"] == 0
    assert what_the_group_sees(client) == before


def test_a_game_counts_at_a_tables_pace_by_the_seats_that_sat_before_it_began(app, client):
    """The rule itself (here at 0.2 s a step, the server's is 1 s): the same game entered
    by a script is kept apart, entered at a table's pace it counts; a seat that sat down
    after the game began is not rated for it."""
    app.config["TABLE_PACE"] = 0.2
    rec = short_game(0)

    def game(pace: float, late: bool = False) -> tuple[str, dict[str, Any]]:
        r = client.post("/api/tables", json={"wall_distance": 2}, headers={"Origin": ORIGIN})
        host = Player(client, r.get_json()["code"], r.get_json()["host_secret"])
        seats = {"red": sit(host, "red", "Ann", player="a" * 40)}
        if not late:
            seats["blue"] = sit(host, "blue", "Bob", player="b" * 40)
        if not pace:
            play_fast(host, seats, rec)
        for n, e in enumerate(rec.events if pace else ()):
            if late and n == 1:                # after the first step: Cy sits down
                seats["blue"] = sit(host, "blue", "Cy", player="c" * 40)
            enter(host, seats, [e])
            time.sleep(pace)
        return host.code, seats

    fast, _ = game(0)
    slow, _ = game(0.21)
    counted = {g["code"] for g in client.get("/api/history").get_json()["games"]}
    apart = client.get("/api/history?apart=1").get_json()["games"]
    assert counted == {slow} and [(g["code"], g["why"]) for g in apart] == [(fast, "pace")]
    ladder = {p["name"]: p["rated"] for p in client.get("/api/stats").get_json()["ladder"]}
    assert ladder == {"Ann": 1, "Bob": 1}
    late, _ = game(0.21, late=True)
    assert late in {g["code"] for g in client.get("/api/history").get_json()["games"]}
    stats = client.get("/api/stats").get_json()
    assert {p["name"]: p["rated"] for p in stats["ladder"]} == {"Ann": 2, "Bob": 1}
    assert "Cy" not in {p["name"] for p in stats["players"]}


def test_a_finished_game_is_known_by_the_options_it_has_whatever_the_request_says(client):
    """A record without team play imported with "teams": true is refused (it would open a
    team game holding the plain record's digest, and its own record, imported, a second
    copy); a team record opens as one, and its own record again is the same game."""
    plain = random_record(random.Random(7), wall_distance=3).to_dict()
    r = client.post("/api/tables/import", json={"record": plain, "teams": True},
                    headers={"Origin": ORIGIN})
    assert r.status_code == 400 and r.get_json()["field"] == "teams", r.get_json()
    first = client.post("/api/tables/import", json={"record": plain}, headers={"Origin": ORIGIN})
    assert first.status_code == 201
    code = first.get_json()["code"]
    for body in ({"record": plain}, {"record": plain, "teams": False},
                 {"record": client.get(f"/api/tables/{code}/record").get_json()}):
        r = client.post("/api/tables/import", json=body, headers={"Origin": ORIGIN})
        assert r.status_code == 200 and r.get_json()["code"] == code, r.get_json()
    team = {**plain, "options": {**plain["options"], "teams": True}}
    second = client.post("/api/tables/import", json={"record": team}, headers={"Origin": ORIGIN})
    assert second.status_code == 201 and second.get_json()["view"]["teams"] is True
    again = client.get(f"/api/tables/{second.get_json()['code']}/record").get_json()
    r = client.post("/api/tables/import", json={"record": again}, headers={"Origin": ORIGIN})
    assert r.status_code == 200 and r.get_json()["code"] == second.get_json()["code"]
    assert client.get("/api/history?apart=1").get_json()["total"] == 2
