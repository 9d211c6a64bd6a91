"""The group's memory at scale (issue 21): every finished game counts, its summary is a
cache that always equals a fresh replay, the history pages and filters, and ratings
(incremental = rebuilt, teams included)."""

from __future__ import annotations

import json
import random

import pytest
import sqlalchemy as sa

from companion.cli import main
from companion.engine import Record, replay
from companion.engine.simulate import random_record
from companion.group import games as memory_games
from companion.memory import ratings
from companion.memory.stats import group_stats, player_stats
from companion.memory.summary import summarize
from companion.store.models import Game, GameSide, Player, Table, db
from companion.web import create_app
from harness.steps import steps

from .conftest import ORIGIN, enter, sit

KEYS = [f"{c}" * 40 for c in "abcdefgh"]            # eight recurring players' phone keys
NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


def kept(app, code: str) -> dict | None:
    """The summary the database keeps for a table's game, in summarize()'s shape."""
    with app.app_context():
        t = db.session.scalar(sa.select(Table).where(Table.code == code))
        g = db.session.get(Game, t.id)
        if g is None:
            assert not db.session.scalars(sa.select(GameSide).where(
                GameSide.table_id == t.id)).all()
            return None
        sides = {}
        for s in db.session.scalars(sa.select(GameSide).where(GameSide.table_id == t.id)):
            sides[s.side] = {"result": s.result, "ip": s.ip, "guesses": s.guesses,
                             "correct": s.correct, "ip_identified": s.ip_identified,
                             "ip_abilities": s.ip_abilities, "ip_deception": s.ip_deception,
                             "infiltrations": s.infiltrations,
                             "soldiers": {r: getattr(s, f"s{r}") for r in range(1, 11)}}
        return {"winner": g.winner, "reason": g.reason, "days": g.days,
                "ending": json.loads(g.ending), "sides": sides}


def fresh(client, code: str) -> dict:
    """The summary of a table's game from a fresh replay of its saved record."""
    saved = client.get(f"/api/tables/{code}/record").get_json()
    return summarize(replay(Record.from_dict(saved)))


def test_the_kept_summary_is_a_fresh_replay_across_an_undone_end(app, table, client):
    for seed in range(4):
        rec = random_record(random.Random(40 + seed), wall_distance=2)
        host = table(wall_distance=2)
        seats = {"red": sit(host, "red", "Ann", player=KEYS[0]),
                 "blue": sit(host, "blue", "Bob", player=KEYS[1])}
        # the end: the last event; an empty capture check is recorded with the capture
        # itself (R71), so there the end is the reveal that took the flag
        last = rec.events[-1].to_dict()
        end = len(rec.events) - (2 if last["type"] == "check" and not last["ranks"] else 1)
        enter(host, seats, rec.events[:end])
        assert kept(app, host.code) is None                  # in play: nothing kept
        enter(host, seats, rec.events[end:])
        assert host.refresh()["state"]["phase"] == "over"
        assert kept(app, host.code) == fresh(client, host.code)
        # the end undone (the other side's phone agrees): the summary goes with it
        last = seats["red"]
        r = last.undo()
        if r.get_json().get("asked"):
            seats["blue" if r.get_json()["asked"] == "blue" else "red"].post(
                "/undo", {"confirm": True}, 200)
        assert host.refresh()["state"]["phase"] != "over"
        assert kept(app, host.code) is None
        assert client.get("/api/stats").get_json()["games"] == seed
        # ... and the end again: the same summary as a fresh replay
        enter(host, seats, rec.events[end:])
        assert kept(app, host.code) == fresh(client, host.code)
    assert client.get("/api/stats").get_json()["games"] == 4


def test_every_game_counts_past_200(app, client, keeper_key):
    """210 finished games, eight recurring players: the history, the group's statistics
    and each player's page count every one, as the records fed in say (imported by the
    keeper: the group's own games, counted as played here, issue 50)."""
    app.config["RATE_LIMITS"] = {"imports": "100000 per minute", "tables": "100000 per minute"}
    rng = random.Random(21)
    games, ids = [], {}
    for i in range(210):
        rec = random_record(random.Random(1000 + i), wall_distance=3)
        r = client.post("/api/tables/import", json={"record": rec.to_dict()},
                        headers={"Origin": ORIGIN, "Authorization": f"Bearer {keeper_key}"})
        assert r.status_code == 201, r.get_json()
        code = r.get_json()["code"]
        v = r.get_json()["view"]["version"]
        red, blue = rng.sample(range(8), 2)
        sides = {}
        for side, who in (("red", red), ("blue", blue)):
            j = client.post(f"/api/tables/{code}/seats", headers={"Origin": ORIGIN}, json={
                "version": v, "idempotency_key": f"m{i:04d}{side}", "side": side,
                "name": NAMES[who], "player": KEYS[who]})
            assert j.status_code == 201, j.get_json()
            v += 1
            ids[who] = j.get_json()["seat"]["player"]
            sides[side] = [{"id": ids[who], "name": NAMES[who]}]
        games.append({"summary": summarize(replay(rec)), "sides": sides})
    want = group_stats(games)
    got = client.get("/api/stats").get_json()
    assert got["games"] == 210 == want["games"]
    for key in ("winners", "reasons", "days"):
        assert got[key] == want[key], key
    assert {int(k): v for k, v in got["soldiers"].items()} == want["soldiers"]
    assert [(p["id"], p["games"], p["wins"]) for p in got["players"]] == \
        [(p["id"], p["games"], p["wins"]) for p in want["players"]]
    assert sum(p["games"] for p in got["players"]) == 420
    for who in range(8):
        mine = client.get(f"/api/players/{ids[who]}/stats").get_json()
        expect = player_stats(games, ids[who])
        for key in ("games", "wins", "losses", "draws", "by_side", "wins_by_reason",
                    "guesses", "right", "ip", "infiltrations", "best_soldier", "accuracy"):
            assert mine[key] == expect[key], (who, key)
        assert [(h["id"], h["games"], h["wins"]) for h in mine["head_to_head"]] == \
            [(h["id"], h["games"], h["wins"]) for h in expect["head_to_head"]]
    assert mine["games"] > 40
    # the history: 210 games in pages of 20, newest first, a player's own filter
    first = client.get("/api/history").get_json()
    assert (first["total"], first["pages"], len(first["games"])) == (210, 11, 20)
    last = client.get("/api/history?page=11").get_json()
    assert len(last["games"]) == 10 and last["page"] == 11
    codes = [g["code"] for p in range(1, 12)
             for g in client.get(f"/api/history?page={p}").get_json()["games"]]
    assert len(set(codes)) == 210
    theirs = client.get(f"/api/history?player={ids[0]}").get_json()
    assert theirs["total"] == player_stats(games, ids[0])["games"]
    assert all(any(p["id"] == ids[0] for s in g["sides"].values() for p in s)
               for g in theirs["games"])
    page = client.get(f"/history?page=2&player={ids[0]}").get_data(as_text=True)
    assert 'data-testid="pager"' in page and f"player={ids[0]}" in page
    # the pages write numbers as their language does: 2,8 days in French, 55 % in
    # German, 1.234 IP in Dutch (they wrote 2.8, 55% and 1234 in every language)
    share = got["players"][0]["share"]
    most = max(got["soldiers"].values())
    assert most >= 1000
    rating = mine["rating"] if "rating" in mine else None
    for locale, point, thousands, pct in (("en", ".", ",", "%"), ("fr", ",", "\u202f", "\xa0%"),
                                          ("de", ",", ".", "\xa0%"), ("nl", ",", ".", "%")):
        client.set_cookie("sl-lang", locale)
        stats = client.get("/stats").get_data(as_text=True)
        assert f"{got['days']:.1f}".replace(".", point) in stats, locale
        assert f">{share}{pct}<" in stats, locale
        assert f">{most // 1000}{thousands}{most % 1000:03d}<" in stats, locale
        theirs = client.get(f"/stats/players/{ids[who]}").get_data(as_text=True)
        assert f">{mine['accuracy']}{pct}<" in theirs, locale
        if locale == "fr":                  # "29 parties : 16 gagnées", not "parties:"
            assert f"{mine['games']} parties\u202f: " in theirs
        if rating is not None:
            assert f">{rating}<" in theirs, locale     # a whole number, as chess writes it


def test_imported_records_say_when_and_who(client):
    """A record may carry when it was played and who sat (options.played, options.players;
    RULINGS.md D4): the history shows them, and the month filter finds them (among the
    games kept apart: imported by anyone but the keeper, issue 50)."""
    made = []
    for i, month in enumerate(["2025-03", "2025-03", "2025-04"]):
        rec = random_record(random.Random(300 + i), wall_distance=3).to_dict()
        rec["options"].update(played=f"{month}-1{i}T20:30:00+01:00",
                              players={"red": ["Zoé", "Yann"], "blue": ["Xavier"]})
        r = client.post("/api/tables/import", json={"record": rec}, headers={"Origin": ORIGIN})
        assert r.status_code == 201, r.get_json()
        made.append(r.get_json()["code"])
    march = client.get("/api/history?month=2025-03&apart=1").get_json()
    assert march["total"] == 2 and {g["code"] for g in march["games"]} == set(made[:2])
    g = march["games"][0]
    assert g["finished"].startswith("2025-03-11T19:30") and g["imported"]
    assert [p["name"] for p in g["sides"]["red"]] == ["Zoé", "Yann"]
    assert client.get("/api/history?month=2025-05&apart=1").get_json()["total"] == 0
    assert client.get("/api/history?month=garbage&apart=1").get_json()["total"] == 3
    # what a stranger may type in the address bar: an answer, never a 500
    huge = "99999999999999999999999"
    for query in ("month=9999-12", "month=0001-01", f"player={huge}", f"player=-{huge}",
                  f"page={huge}", f"player={huge}&page={huge}&month=9999-12"):
        for path in ("/api/history", "/history"):
            r = client.get(f"{path}?{query}")
            assert r.status_code == 200, (path, query, r.status_code)
        found = client.get(f"/api/history?{query}&apart=1").get_json()
        assert found["total"] == (3 if query.startswith("page") else 0), query
    client.set_cookie("sl-tz", "Europe/Paris")          # the screen's zone (history.js)
    page = client.get("/history?month=2025-04&apart=1").get_data(as_text=True)
    assert "Xavier" in page and 'datetime="2025-04-12T19:30Z"' in page
    assert "Apr 12, 2025, 9:30\u202fPM" in page             # 21:30 in Paris in April
    # its record says so again, so a second server shows the same
    saved = client.get(f"/api/tables/{made[2]}/record").get_json()
    assert saved["options"]["played"] == "2025-04-12T19:30:00+00:00"
    assert saved["options"]["players"] == {"red": ["Zoé", "Yann"], "blue": ["Xavier"]}
    assert Record.from_dict(saved).options.wall_distance == 3        # the referee ignores them


@pytest.mark.parametrize("played", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59-01:00"])
def test_an_imported_date_past_the_ends_of_the_calendar_is_no_date(client, played):
    rec = random_record(random.Random(320), wall_distance=3).to_dict()
    rec["options"]["played"] = played                  # in UTC: year 0, or year 10000
    r = client.post("/api/tables/import", json={"record": rec}, headers={"Origin": ORIGIN})
    assert r.status_code == 201, r.get_json()
    assert client.get(f"/api/tables/{r.get_json()['code']}/record").get_json()[
        "options"].get("played") != played


def test_an_imported_records_names_meet_the_rules_of_a_seats_name(client):
    """options.players is what a stranger's file says: its names are cleaned and checked
    as a name typed on a phone is (invisible characters, reordering, stacked marks)."""
    rec = random_record(random.Random(310), wall_distance=3).to_dict()
    rec["options"]["players"] = {"red": ["Ann\u200b", " Cy  Dee "],
                                 "blue": ["\u202eboB"]}        # reordered: not kept
    r = client.post("/api/tables/import", json={"record": rec}, headers={"Origin": ORIGIN})
    assert r.status_code == 201, r.get_json()
    game = next(g for g in client.get("/api/history?apart=1").get_json()["games"]
                if g["code"] == r.get_json()["code"])
    assert [p["name"] for p in game["sides"]["red"]] == ["Ann", "Cy Dee"]
    assert game["sides"]["blue"] == []
    for seed, invisible in ((311, ["\u200b\u00ad"]), (312, ["Zoe" + "\u0301" * 6])):
        rec = random_record(random.Random(seed), wall_distance=3).to_dict()
        rec["options"]["players"] = {"red": invisible, "blue": ["Bob"]}
        r = client.post("/api/tables/import", json={"record": rec}, headers={"Origin": ORIGIN})
        assert r.status_code == 201, r.get_json()
        game = next(g for g in client.get("/api/history?apart=1").get_json()["games"]
                    if g["code"] == r.get_json()["code"])
        assert game["sides"]["red"] == [] and game["sides"]["blue"][0]["name"] == "Bob"


def team_enter(host, seats, events) -> None:
    """Enter a team game's events (R80): each request from the side's part that may send
    it (part 1 first; a 403 says it is the other part's)."""
    for e in events:
        todo, status = steps(e, host.refresh()), None
        try:
            while True:
                who, path, body = todo.send(status)
                phones = [host] if who == "host" else [seats[f"{who}1"], seats[f"{who}2"]]
                for phone in phones:
                    r = phone.post(path, body)
                    if r.status_code != 403:
                        break
                assert r.status_code in (200, 201), r.get_json()
                status = r.status_code
        except StopIteration:
            pass


def _ratings(app) -> dict[int, tuple[float, float, int]]:
    with app.app_context():
        return {p.id: (round(p.mu, 9), round(p.sigma, 9), p.rated)
                for p in db.session.scalars(sa.select(Player)) if p.mu is not None}


def test_ratings_incremental_equal_rebuilt_and_teams_are_rated(app, table, client, monkeypatch,
                                                               tmp_path, capsys):
    # two duels and a team game, played live: rated as each ends
    for seed, (red, blue) in enumerate([((0,), (1,)), ((1,), (2,)), ((0, 1), (2, 3))]):
        teams = len(red) > 1
        rec = random_record(random.Random(500 + seed), wall_distance=2)
        host = table(wall_distance=2, teams=teams)
        seats = {}
        for side, who in (("red", red), ("blue", blue)):
            for part, w in enumerate(who, start=1):
                p = sit(host, side, NAMES[w], part=part if teams else None, player=KEYS[w])
                seats[side if not teams else f"{side}{part}"] = p
        if teams:
            team_enter(host, seats, rec.events)
        else:
            enter(host, seats, rec.events)
        assert host.refresh()["state"]["phase"] == "over"
    incremental = _ratings(app)
    assert len(incremental) == 4                         # the team game rated all four
    # spies-lies ratings --rebuild, on this database: the same ratings
    monkeypatch.setenv("DATABASE_URL", app.config["SQLALCHEMY_DATABASE_URI"])
    monkeypatch.setenv("SPIES_LIES_INSTANCE", str(tmp_path))
    assert main(["ratings", "--rebuild"]) == 0
    printed = json.loads(capsys.readouterr().out)["players"]
    assert {p["id"]: (p["mu"], p["sigma"], p["games"]) for p in printed} == {
        i: (round(mu, 3), round(sigma, 3), k) for i, (mu, sigma, k) in incremental.items()}
    with app.app_context():
        db.session.remove()
        games = memory_games.rated_games(1)
    assert _ratings(app) == incremental
    assert {i: (round(r.mu, 9), round(r.sigma, 9), r.games)
            for i, r in ratings.rebuild(games).items()} == incremental
    assert sorted(k for _, _, k in incremental.values()) == [1, 2, 2, 3]
    ladder = client.get("/api/stats").get_json()["ladder"]
    assert len(ladder) == 4 and ladder == sorted(ladder, key=lambda p: -p["rating"])
    me = client.get(f"/api/players/{ladder[0]['id']}/stats").get_json()
    assert me["rating"] == ladder[0]["rating"] and me["sigma"] < ratings.START.sigma


def test_games_finished_before_are_summarised_at_start(app, table, client, tmp_path):
    rec = random_record(random.Random(77), wall_distance=2)
    host = table(wall_distance=2)
    enter(host, {"red": sit(host, "red", "Ann", player=KEYS[0]),
                 "blue": sit(host, "blue", "Bob", player=KEYS[1])}, rec.events)
    before = kept(app, host.code)
    with app.app_context():                      # as a database from before issue 21
        db.session.execute(sa.delete(GameSide))
        db.session.execute(sa.delete(Game))
        db.session.execute(sa.update(Player).values(mu=None, sigma=None, rated=0))
        db.session.commit()
    assert client.get("/api/stats").get_json()["games"] == 0
    again = create_app({"TESTING": True, "SECRET_KEY": "t",
                        "SQLALCHEMY_DATABASE_URI": app.config["SQLALCHEMY_DATABASE_URI"]},
                       instance_path=str(tmp_path))
    try:
        assert kept(app, host.code) == before
        assert len(_ratings(app)) == 2
    finally:
        from companion import live
        live.close(again)
        with again.app_context():
            db.session.remove()
            db.engine.dispose()


@pytest.mark.parametrize("month", ["2026-1", "26-01", "2026-00", "", "2026-01-01"])
def test_a_month_that_is_no_month_is_no_filter(client, month):
    assert client.get(f"/api/history?month={month}").get_json()["month"] is None


def test_the_history_shows_each_game_in_the_time_of_the_screen_looking(client, monkeypatch):
    """The database keeps UTC. A group in Amsterdam that ends a game at half past
    midnight on 1 April reads 00:30 and finds it among April's games; the same game seen
    from New York ended on 31 March. The zone is the browser's (history.js tells it in
    the sl-tz cookie); until it is told, the zone of the computer running the companion
    (companion/edge/when.py). A cookie that names no zone is that too, never an error."""
    import time
    rec = random_record(random.Random(330), wall_distance=3).to_dict()
    rec["options"]["played"] = "2026-03-31T22:30:00Z"
    r = client.post("/api/tables/import", json={"record": rec}, headers={"Origin": ORIGIN})
    assert r.status_code == 201, r.get_json()
    client.set_cookie("sl-lang", "de")

    def seen(zone: str | None) -> tuple[int, int, str]:
        if zone is None:
            client.delete_cookie("sl-tz")
        else:
            client.set_cookie("sl-tz", zone)
        march, april = (client.get(f"/api/history?month=2026-0{m}&apart=1").get_json()["total"]
                        for m in (3, 4))
        page = client.get(f"/history?month=2026-0{4 if april else 3}&apart=1")
        assert page.status_code == 200
        text = page.get_data(as_text=True)
        assert 'datetime="2026-03-31T22:30Z"' in text
        return march, april, text

    march, april, text = seen("Europe/Amsterdam")              # summer time: UTC+2
    assert (march, april) == (0, 1) and "01.04.2026, 00:30" in text
    assert 'data-zone="Europe/Amsterdam"' in text
    march, april, text = seen("America/New_York")              # UTC-4
    assert (march, april) == (1, 0) and "31.03.2026, 18:30" in text
    # no zone told, or one that is none: the computer's own (here Tokyo, UTC+9)
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        for told in (None, "../../../etc/passwd", "Europe", "Mars/Olympus_Mons", "x" * 4000,
                     "Europe/Paris/../../UTC", "UTC;", "/etc/localtime"):
            march, april, text = seen(told)
            assert (march, april) == (0, 1) and "01.04.2026, 07:30" in text, told
            assert 'data-zone=""' in text
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
