"""Back to your game over HTTP: the first page asks which tables its keys belong to
(``POST /api/tables/mine``) and offers the ones still in play, after a closed tab or a
restarted browser. Only a table's own key gets an answer; a stranger learns nothing and
no code miss is counted."""

from __future__ import annotations

import random
from datetime import timedelta

import sqlalchemy as sa

from companion.engine.simulate import random_record
from companion.store.models import Table, db, now

from .conftest import ORIGIN, enter, sit

STRANGER = {"REMOTE_ADDR": "127.0.3.2"}       # another device on the network
HOST2 = "n" * 43


def mine(client, tables, expect=200, environ=None, origin=ORIGIN):
    r = client.post("/api/tables/mine", json={"tables": tables}, headers={"Origin": origin},
                    environ_base=environ or {})
    assert r.status_code == expect, r.get_json()
    return r.get_json()


def test_a_screen_finds_the_games_it_holds_keys_for_newest_first(table, client):
    first = table(wall_distance=2)
    ann = sit(first, "red", "Ann")
    bob = sit(first, "blue", "Bob")
    second = table(wall_distance=3)                  # opened, nobody seated yet
    enter(first, {"red": ann, "blue": bob},
          random_record(random.Random(3), wall_distance=2).events[:6])
    got = mine(client, [{"code": second.code, "key": second.secret},
                        {"code": first.code.lower(), "key": first.secret}])["tables"]
    assert [g["code"] for g in got] == [first.code, second.code]   # the last changed first
    assert got[0]["role"] == "host" and got[0]["side"] is None
    assert got[0]["started"] and got[0]["day"] == 1
    assert got[0]["players"] == {"red": ["Ann"], "blue": ["Bob"]}
    assert got[1] == {**got[1], "role": "host", "started": False,
                      "players": {"red": [], "blue": []}}
    # a phone's seat key: its own seat, from its own address
    got = mine(client, [{"code": first.code, "key": bob.secret}], environ=STRANGER)["tables"]
    assert [(g["code"], g["role"], g["side"], g["part"]) for g in got] == [
        (first.code, "seat", "blue", 0)]
    # a team's half says which
    team = table(teams=True)
    eve = sit(team, "red", "Eve", part=2)
    got = mine(client, [{"code": team.code, "key": eve.secret}])["tables"]
    assert [(g["side"], g["part"]) for g in got] == [("red", 2)]


def test_only_games_in_play_are_offered(table, client, app):
    host = table(wall_distance=2)
    seats = {"red": sit(host, "red", "Ann"), "blue": sit(host, "blue", "Bob")}
    enter(host, seats, random_record(random.Random(7), wall_distance=2).events)
    held = [{"code": host.code, "key": host.secret}]
    assert mine(client, held)["tables"] == []                     # finished
    host.undo()                                                   # its end taken back
    assert [g["code"] for g in mine(client, held)["tables"]] == [host.code]
    enter(host, seats, random_record(random.Random(7), wall_distance=2).events[-1:])
    r = host.post("/rematch", {"swap": False, "host_secret": HOST2}, 201)
    new = r.get_json()["rematch"]["code"]
    # the old table moved on to the rematch: the new one is offered, to the host and a seat
    got = mine(client, held + [{"code": new, "key": HOST2},
                               {"code": new, "key": seats["red"].secret}])["tables"]
    assert [(g["code"], g["role"]) for g in got] == [(new, "host")]
    assert [g["side"] for g in mine(client, [{"code": new, "key": seats["red"].secret}])[
        "tables"]] == ["red"]
    with app.app_context():                                       # untouched for 31 days
        db.session.execute(sa.update(Table).where(Table.code == new)
                           .values(updated=now() - timedelta(days=31)))
        db.session.commit()
    assert mine(client, [{"code": new, "key": HOST2}])["tables"] == []


def test_a_stranger_learns_nothing_and_is_never_locked_out(table, client):
    host = table()
    ann = sit(host, "red", "Ann")
    wrong = "w" * 43
    # a wrong key, another table's key, a code with no table: left out alike
    other = table()
    asked = [{"code": host.code, "key": wrong}, {"code": host.code, "key": other.secret},
             {"code": "ZZZZZ", "key": wrong}]
    assert mine(client, asked, environ=STRANGER)["tables"] == []
    # a phone whose seat another phone took over holds a key that no longer counts
    ann2 = sit(host, "red", "Ann")
    assert ann2.seat["status"] == "pending"
    assert mine(client, [{"code": host.code, "key": ann2.secret}])["tables"] == []   # waiting
    host.refresh()
    decided = host.post(f"/seats/{ann2.seat['id']}/decision", {"approve": True})
    assert decided.status_code == 200, decided.get_json()
    assert mine(client, [{"code": host.code, "key": ann.secret}])["tables"] == []
    assert [g["side"] for g in mine(client, [{"code": host.code, "key": ann2.secret}])[
        "tables"]] == ["red"]
    # codes with no table cost nothing: a phone with many old keys still reaches its table
    for n in range(3):
        gone = [{"code": f"GONE{n}{i}", "key": wrong} for i in range(12)]
        assert mine(client, gone, environ=STRANGER)["tables"] == []
    r = client.get(f"/api/tables/{host.code}/state", environ_base=STRANGER)
    assert r.status_code == 200


def test_malformed_or_cross_site_asks_are_refused(client, table):
    host = table()
    ok = {"code": host.code, "key": host.secret}
    for bad in ("ABCDE", [ok] * 13, [{"code": host.code}], [{"code": "AB-CD", "key": host.secret}],
                [{"code": host.code, "key": "short"}], [ok, "x"], None):
        got = mine(client, bad, 400)
        assert got["field"] == "tables", got
    mine(client, [ok], 403, origin="http://evil.example")
    assert len(mine(client, [ok] * 12)["tables"]) == 1            # the same table once
