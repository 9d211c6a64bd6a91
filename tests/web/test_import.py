"""Import a game record: only what the referee replays becomes a table; a bad record
is refused with the event number and the reason, and nothing is created. Corrupted
records, thousands of them, never crash the import or the replay."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import Record, RecordError, replay, replay_output
from companion.engine.simulate import random_record
from companion.store.models import Event, Table, db

from .conftest import ORIGIN, Player, sit

RECORDS = Path(__file__).resolve().parents[1] / "records"
GOOD = sorted(p for p in RECORDS.glob("*.json")
              if not p.name.startswith("bad-") and not p.name.endswith(".expected.json"))


def post_import(client, record, key=None, **extra):
    """Import ``record``; ``key``: the bearer (a screen going on with a table's game)."""
    headers = {"Origin": ORIGIN, **({"Authorization": f"Bearer {key}"} if key else {})}
    return client.post("/api/tables/import", json={"record": record, **extra},
                       headers=headers)


def count_tables(app) -> tuple[int, int]:
    with app.app_context():
        return (db.session.scalar(sa.select(sa.func.count(Table.id))),
                db.session.scalar(sa.select(sa.func.count(Event.id))))


@pytest.mark.parametrize("path", GOOD[:4], ids=lambda p: p.stem)
def test_a_good_record_becomes_a_table_that_plays_on(client, path):
    rec = json.loads(path.read_text())
    r = post_import(client, rec)
    assert r.status_code == 201, r.get_json()
    d = r.get_json()
    want = replay_output(replay(Record.from_dict(rec)))
    got = d["view"]["state"]
    for k in ("phase", "winner", "reason", "ip", "da", "dt", "day"):
        assert got[k] == want[k], k
    out = client.get(f"/api/tables/{d['code']}/record").get_json()
    assert out["events"] == [e.to_dict() for e in Record.from_dict(rec).events]
    assert out["options"]["wall_distance"] == Record.from_dict(rec).options.wall_distance
    assert d["view"]["version"] == 1 + len(out["events"])
    assert d["view"]["notice"].startswith("Game imported")
    host = Player(client, d["code"], d["host_secret"])
    assert host.refresh()["code"] == d["code"]


def test_an_imported_game_without_names_is_listed_with_its_sides_unnamed(client):
    """A record saved without the players' names: the history lists the finished game
    with its sides "unnamed" (it said "no one", as if nobody had played them)."""
    rec = json.loads((RECORDS / "random-flag-1.json").read_text())
    assert "names" not in rec
    code = post_import(client, rec).get_json()["code"]
    for lang, word in (("en", "unnamed"), ("fr", "sans nom"), ("de", "ohne Namen")):
        page = client.get("/history?apart=1",
                              headers={"Accept-Language": lang}).get_data(as_text=True)
        assert f'data-code="{code}"' in page
        assert page.count(f'data-testid="unnamed">{word}<') == 2, lang


def test_an_unfinished_import_plays_on_from_the_phones(client):
    rec = random_record(random.Random(5))
    half = {"format": "spies-and-lies-record/1", "options": rec.options.to_dict(),
            "events": [e.to_dict() for e in rec.events[:6]]}
    d = post_import(client, half, teams=False).get_json()
    host = Player(client, d["code"], d["host_secret"])
    host.refresh()
    red, blue = sit(host, "red", "Ann"), sit(host, "blue", "Bob")
    nxt = rec.events[6].to_dict()
    if nxt["type"] in ("tokens", "exhaust"):
        {"red": red, "blue": blue}[nxt["side"]].event(nxt)
    elif nxt["type"] != "reveal":
        host.event(nxt)
    assert len(client.get(f"/api/tables/{d['code']}/record").get_json()["events"]) >= 6


def test_an_unfinished_import_seats_sides_on_its_screen_a_finished_one_none(client):
    """A screen that goes on with a game entered on another screen (issue 23) opens it
    with the same sides on itself; a finished game has nobody left to enter anything."""
    rec = random_record(random.Random(5))
    for events, seated in ((rec.events[:3], [("blue", True), ("red", True)]), (rec.events, [])):
        record = {"format": "spies-and-lies-record/1", "options": rec.options.to_dict(),
                  "events": [e.to_dict() for e in events]}
        d = post_import(client, record, teams=False,
                        screen=[{"side": "blue"}, {"side": "red", "name": "Ann"}]).get_json()
        seats = d["view"]["seats"]
        assert sorted((s["side"], s["screen"]) for s in seats) == seated
        if seated:
            assert {s["side"]: s["name"] for s in seats} == {"red": "Ann", "blue": "Blue"}
            host = Player(client, d["code"], d["host_secret"])
            nxt = rec.events[3].to_dict()          # the screen enters red's tokens itself
            assert nxt["type"] == "tokens"
            host.event(nxt)


def test_a_game_of_this_server_going_on_at_a_new_screen_is_not_an_import(client, app):
    """``from``: the table whose game the record is, as it stands; the new table is the
    group's game going on (the keeper's "delete every imported game" would have taken it).
    A record that is not that table's game (or names no table) is a plain import. Only
    the screen with that table's key names it (issue 50: :mod:`test_lockout`)."""
    rec = random_record(random.Random(5))
    first = post_import(client, {
        "format": "spies-and-lies-record/1", "options": rec.options.to_dict(),
        "events": [e.to_dict() for e in rec.events[:3]]}).get_json()
    outside = first["code"]
    # an imported game going on is imported still: only a game played here is not
    saved = client.get(f"/api/tables/{outside}/record").get_json()
    d = post_import(client, saved, key=first["host_secret"], **{"from": outside}).get_json()
    assert "continued" in d["view"]["notice"]
    with app.app_context():
        assert db.session.scalar(sa.select(Table.imported).where(Table.code == d["code"]))
    made = client.post("/api/tables", json={"wall_distance": rec.options.wall_distance,
                                            "screen": [{"side": "red"}, {"side": "blue"}]},
                       headers={"Origin": ORIGIN}).get_json()
    code = made["code"]
    host = Player(client, code, made["host_secret"])
    for e in rec.events[:4]:
        host.event(e.to_dict())
    saved = client.get(f"/api/tables/{code}/record").get_json()
    shorter = {**saved, "events": saved["events"][:3]}
    for record, source, imported in ((saved, code, False), (shorter, code, True),
                                     (saved, None, True)):
        body = {"screen": [{"side": "red"}, {"side": "blue"}]}
        if source:
            body["from"] = source
        d = post_import(client, record, key=host.secret, **body).get_json()
        with app.app_context():
            made = db.session.scalar(sa.select(Table).where(Table.code == d["code"]))
            assert made.imported is imported, (source, len(record["events"]))
        assert ("continued" in d["view"]["notice"]) is not imported, d["view"]["notice"]
    for bad in (5, "no-such", ""):
        r = post_import(client, saved, **{"from": bad})
        assert r.status_code == 400 and r.get_json()["field"] == "from"


def test_the_table_a_screen_went_on_from_says_where_until_it_is_played_on(client):
    """Issue 23's "go on here": the table left behind says where its game goes on (its
    own screen may come back, a phone of a mixed table joins there), to anyone who looks,
    once however often the import is sent, and only until anything more is entered there:
    then the group plays on there after all. A plain import, or a record that is no
    longer the table's game, says nothing there."""
    rec = random_record(random.Random(5))
    made = client.post("/api/tables", json={"wall_distance": rec.options.wall_distance,
                                            "screen": [{"side": "blue"}]},
                       headers={"Origin": ORIGIN}).get_json()
    code = made["code"]
    host = Player(client, code, made["host_secret"])
    red = sit(host, "red", "Ann")
    for e in rec.events[:4]:
        (red if e.to_dict().get("side") == "red" else host).event(e.to_dict())
    assert host.refresh()["went_on"] is None
    saved = client.get(f"/api/tables/{code}/record").get_json()
    before = host.version
    stranger = Player(client, code)
    body = {"from": code, "screen": [{"side": "blue"}], "idempotency_key": "go-on-key-1",
            "key": made["host_secret"]}
    for _ in range(2):          # a lost answer, sent again: one table, one word of it
        d = post_import(client, saved, **body).get_json()
        for screen in (host, red, stranger):
            view = screen.refresh()
            assert view["went_on"] == d["code"], view["went_on"]
            assert view["version"] == before + 1
    # another screen going on too: the newest table is said
    again = post_import(client, saved, **{**body, "idempotency_key": "go-on-key-2"}).get_json()
    assert again["code"] != d["code"] and host.refresh()["went_on"] == again["code"]
    # a plain import of the same record, or a shorter one naming the table: nothing said
    for record, extra in ((saved, {}), ({**saved, "events": saved["events"][:3]},
                                        {"from": code, "key": made["host_secret"]})):
        post_import(client, record, **extra)
        assert host.refresh()["went_on"] == again["code"]
        assert host.version == before + 2
    # the group plays on here after all: the table no longer says it went on
    nxt = rec.events[4].to_dict()
    (red if nxt.get("side") == "red" else host).event(nxt)
    assert host.refresh()["went_on"] is None
    assert len(client.get(f"/api/tables/{again['code']}/record").get_json()["events"]) == 4


def test_a_bad_record_names_the_event_and_creates_nothing(client, app):
    bad = json.loads((RECORDS / "bad-no-deception-token.json").read_text())
    want = (RECORDS / "bad-no-deception-token.error.txt").read_text().strip()
    assert want.startswith("error: event ")
    before = count_tables(app)
    r = post_import(client, bad)
    assert r.status_code == 400
    d = r.get_json()
    assert d["field"] == "record" and d["error"] == "the record is refused: " + want[7:]
    assert d["event"] == int(want.split()[2].rstrip(":"))
    assert count_tables(app) == before


@pytest.mark.parametrize("body, field, words", [
    ({}, "record", "must be a game record"),
    ({"record": []}, "record", "must be a game record"),
    ({"record": {"format": "chess/1", "events": []}}, "record", "'format'"),
    ({"record": {"format": "spies-and-lies-record/1", "events": {}}}, "record", "'events'"),
    ({"record": {"format": "spies-and-lies-record/1", "options": {"wall_distance": 9},
                 "events": []}}, "record", "'wall_distance'"),
    ({"record": {"format": "spies-and-lies-record/1", "events": [{"type": "nope"}]}},
     "record", "event 0: "),
    ({"record": {"format": "spies-and-lies-record/1", "events": []}, "teams": "yes"},
     "teams", "true or false"),
    ({"record": {"format": "spies-and-lies-record/1", "events": []},
      "idempotency_key": "x"}, "idempotency_key", "8-64"),
])
def test_malformed_imports_name_the_field(client, app, body, field, words):
    before = count_tables(app)
    r = client.post("/api/tables/import", json=body, headers={"Origin": ORIGIN})
    assert r.status_code == 400, r.get_json()
    assert r.get_json()["field"] == field and words in r.get_json()["error"]
    assert count_tables(app) == before


def test_a_retried_import_opens_one_table(client, app):
    rec = json.loads(GOOD[0].read_text())
    r1 = post_import(client, rec, idempotency_key="import-key-01").get_json()
    r2 = post_import(client, rec, idempotency_key="import-key-01").get_json()
    assert r1["code"] == r2["code"]
    assert count_tables(app)[0] == 1


# --- corrupted records ---------------------------------------------------------------------

JUNK = [None, -1, 0, 1, 4, 10, 11, 99, 2**70, "x", "", "red", "blue", True, False, 2.5,
        float("1e308"), [], {}, [1, 2], [1, 1], [1, 2, 3, 4], {"1": 2}, {"9": 1}, "use:10:ip"]


def corrupt(d: dict, rng: random.Random) -> dict:
    """One random damage to a record: events lost, swapped, doubled, fields broken."""
    d = copy.deepcopy(d)
    ev = d.get("events")
    how = rng.randrange(12)
    if not isinstance(ev, list) or not ev or how == 0:
        d[rng.choice(["format", "options", "events", "extra"])] = rng.choice(JUNK)
        return d
    i = rng.randrange(len(ev))
    e = ev[i]
    if how == 1:
        del ev[i]
    elif how == 2:
        j = rng.randrange(len(ev))
        ev[i], ev[j] = ev[j], ev[i]
    elif how == 3:
        ev.insert(rng.randrange(len(ev) + 1), copy.deepcopy(ev[rng.randrange(len(ev))]))
    elif how == 4:
        del ev[i:]
    elif not isinstance(e, dict) or how == 5:
        ev[i] = rng.choice(JUNK)
    elif how == 6 and e:
        e[rng.choice(sorted(e))] = rng.choice(JUNK)
    elif how == 7 and e:
        e.pop(rng.choice(sorted(e)))
    elif how == 8:
        e["type"] = rng.choice(["reveal", "check", "start", "tokens", "intel", "exhaust", "x"])
    elif how == 9:
        e[rng.choice(["choice", "ranks", "missions", "mission", "guess", "actual"])] = \
            rng.choice(JUNK)
    elif how == 10:
        for k in ("side", "guesser"):
            if k in e:
                e[k] = {"red": "blue", "blue": "red"}.get(e[k], "red")
    else:
        d["options"] = {"wall_distance": rng.choice([2, 3, 4, 5, 8, 1, 9, "4", None])}
    return d


BASES = [json.loads(p.read_text()) for p in GOOD]
FIGURES = {"records": 0, "refused": 0, "accepted": 0}


@settings(max_examples=600, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.integers(0, len(BASES) - 1), st.integers(0, 2**32 - 1), st.integers(1, 4))
def test_corrupted_records_never_crash_import_or_replay(app, client, base, seed, times):
    rng = random.Random(seed)
    app.config["RATE_LIMITS"] = {"imports": "100000 per minute"}    # thousands on purpose
    d = BASES[base]
    for _ in range(times):
        d = corrupt(d, rng)
    FIGURES["records"] += 1
    try:                                          # the referee on its own
        expected = replay_output(replay(Record.from_dict(d)))
    except RecordError as err:
        expected, reason = None, str(err)
    with app.app_context():
        before = db.session.scalar(sa.select(sa.func.count(Table.id)))
    try:
        body = json.dumps({"record": d, "idempotency_key": f"imp-{FIGURES['records']:08d}"})
    except ValueError:                            # not even JSON (NaN and friends)
        return
    r = client.post("/api/tables/import", data=body,
                    headers={"Origin": ORIGIN, "Content-Type": "application/json"})
    assert r.status_code in (200, 201, 400, 413), r.get_data(as_text=True)
    with app.app_context():
        after = db.session.scalar(sa.select(sa.func.count(Table.id)))
    if r.status_code in (200, 201):       # 200: the same finished game was already here
        FIGURES["accepted"] += 1
        assert expected is not None and after == before + (r.status_code == 201)
        assert r.get_json().get("existing", False) == (r.status_code == 200)
        got = r.get_json()["view"]["state"]
        assert {k: got[k] for k in ("phase", "winner", "ip", "da")} == \
            {k: expected[k] for k in ("phase", "winner", "ip", "da")}
    else:
        FIGURES["refused"] += 1
        assert after == before
        if r.status_code == 400:
            assert expected is None and r.get_json()["error"] == "the record is refused: " + reason


@pytest.mark.anydb
def test_corruption_figures():
    """Runs after the property above (same module, in order): say what it did."""
    print(f"\ncorrupted records through import and replay: {FIGURES['records']}, "
          f"{FIGURES['refused']} refused cleanly, {FIGURES['accepted']} still legal, 0 crashes")


def test_export_then_import_gives_the_same_game(table, client):
    rec = random_record(random.Random(11))
    host = table(wall_distance=rec.options.wall_distance)
    red, blue = sit(host, "red", "Ann"), sit(host, "blue", "Bob")
    for e in rec.events[:5]:                       # the opening, recorded from the phones
        d = e.to_dict()
        {"red": red, "blue": blue}.get(d.get("side"), host).event(d)
    exported = client.get(f"/api/tables/{host.code}/record")
    assert exported.headers["Content-Disposition"].startswith("attachment")
    d = post_import(client, exported.get_json()).get_json()
    assert d["code"] != host.code
    again = client.get(f"/api/tables/{d['code']}/record").get_json()
    assert again == exported.get_json()
    assert d["view"]["state"] == host.refresh()["state"]


def test_a_saved_team_game_imports_as_a_team_game(client):
    """Issue 11: team play is part of the record's options (an optional key RECORD.md's
    growth rule allows); a game without it keeps the record it always had."""
    r = client.post("/api/tables", json={"teams": True}, headers={"Origin": ORIGIN})
    code = r.get_json()["code"]
    rec = client.get(f"/api/tables/{code}/record").get_json()
    assert rec["options"] == {"wall_distance": 4, "teams": True}
    r = client.post("/api/tables/import", json={"record": rec}, headers={"Origin": ORIGIN})
    assert r.status_code == 201 and r.get_json()["view"]["teams"] is True
    r = client.post("/api/tables", json={}, headers={"Origin": ORIGIN})
    rec = client.get(f"/api/tables/{r.get_json()['code']}/record").get_json()
    assert rec["options"] == {"wall_distance": 4}
    bad = {**rec, "options": {"wall_distance": 4, "teams": "yes"}}
    r = client.post("/api/tables/import", json={"record": bad}, headers={"Origin": ORIGIN})
    assert r.status_code == 400 and "'teams' must be true or false" in r.get_json()["error"]
