"""Who may make another screen the table's screen (its host), over HTTP (issue 50).

The host lets phones take over seats, enters sides on the screen, deletes the finished
game from the history and starts the rematch, so it moves only with a key that holds
that power already: the table's screen's own key, or the keeper's; or with the table's
screen's consent, asked by the new screen (it made a key and sends its SHA-256; the
table's screen sees the ask with a number the asking screen shows too, and allows or
refuses it). A seat's key never moves it, whether or not the table's screen is
connected (here none is: the test client opens no stream), and nothing consults who is
connected. Strangers come from another address (127.0.3.2); on the server every path
is the same for them and for a player's device, which is what each path checks.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest
from flask import request

from companion import live
from companion.engine.simulate import random_record

from .conftest import ORIGIN, Player, enter, sit

STRANGER = {"REMOTE_ADDR": "127.0.3.2"}       # another device on the network
PLAYER = {"REMOTE_ADDR": "127.0.0.1"}         # a device of the group, seated at the table


def sha(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def made(n: int) -> str:
    """A key another screen made (43 characters, as a browser's)."""
    return f"{n:03d}" + "k" * 40


def call(client, method: str, path: str, bearer: str | None = None,
         body: dict[str, Any] | None = None, where: dict[str, str] | None = None) -> Any:
    headers = {"Origin": ORIGIN, **({"Authorization": f"Bearer {bearer}"} if bearer else {})}
    return client.open(path, method=method, json=body, headers=headers,
                       environ_base=where or PLAYER)


def hand(client, code: str, key_hash: str, bearer: str | None = None,
         where: dict[str, str] | None = None, n: list[int] = [0]) -> Any:  # noqa: B006
    """POST /host with the table's version as it is now (a screen that saw it)."""
    n[0] += 1
    return call(client, "POST", f"/api/tables/{code}/host", bearer,
                {"version": version(client, code), "idempotency_key": f"hand-{n[0]:05d}",
                 "host_hash": key_hash}, where)


def version(client, code: str) -> int:
    v: int = client.get(f"/api/tables/{code}/state").get_json()["view"]["version"]
    return v


def role(client, code: str, key: str) -> Any:
    """What the table says a key is: host, viewer (asking) — or 401, nobody's."""
    r = client.get(f"/api/tables/{code}/me", headers={"Authorization": f"Bearer {key}"})
    return r.get_json() if r.status_code == 200 else r.status_code


def record(seed: int) -> tuple[list[Any], dict[str, Any]]:
    """A whole game: its events (the referee's) and its record (a saved file's)."""
    rec = random_record(random.Random(seed), wall_distance=2)
    return list(rec.events), {"format": "spies-and-lies-record/1",
                              "options": rec.options.to_dict(),
                              "events": [e.to_dict() for e in rec.events]}


def deleted(client, code: str, bearer: str | None) -> int:
    return call(client, "POST", f"/api/history/{code}/delete", bearer, {}).status_code


def test_a_seated_phone_never_moves_the_table_s_screen(table, client):
    """The issue's first path: the big screen's stream closed, a seated phone sent a key
    of its own making as the table's screen's (200), then put the other side on "its"
    screen, entered that side's steps and deleted the finished game. Now the phone is
    refused (403) in play and once the game is over, by any of its seats; the key it made
    opens nothing, and the table's screen is still the one that opened it."""
    host = table()
    red, blue = sit(host, "red", "Ann"), sit(host, "blue", "Bob")
    eve = sit(host, "red", "Eve")                   # waits for Ann's seat
    events, _ = record(7)
    enter(host, {"red": red, "blue": blue}, events[:4])
    mine = made(1)                                  # the key Ann's phone made
    for when in ("in play", "over"):
        before = host.refresh()["version"]
        for phone in (red, blue, eve):
            r = phone.post("/host", {"host_hash": sha(mine)}, expect=403)
            assert r.get_json()["code"] == "not_host", when
            assert "on the screen itself" in r.get_json()["error"]
        assert host.refresh()["version"] == before
        assert role(client, host.code, mine) == 401
        assert role(client, host.code, host.secret)["role"] == "host"
        # with the key it made: no side onto the screen, no step, no rematch, no delete
        as_screen = {"version": before, "idempotency_key": f"screen-{when[:2]}-1"}
        for path, extra in (("/screen", {"side": "blue", "on": True, "name": "Bob"}),
                            ("/events", {"event": events[4].to_dict()}),
                            ("/rematch", {"swap": False, "host_secret": made(2)})):
            r = call(client, "POST", f"/api/tables/{host.code}{path}", mine,
                     {**as_screen, **extra, "idempotency_key": f"{when[:2]}{path[1:]}-01"})
            assert r.status_code == 401, (path, r.get_json())
        if when == "in play":
            enter(host, {"red": red, "blue": blue}, events[4:])
            assert host.refresh()["state"]["phase"] == "over"
    for key in (mine, red.secret, blue.secret):
        assert deleted(client, host.code, key) == 403
    assert host.code in [g["code"] for g in client.get("/api/history").get_json()["games"]]
    assert deleted(client, host.code, host.secret) == 200      # its own screen still can


def test_a_stranger_at_an_imported_finished_game_cannot_take_it_nor_delete_it(client):
    """The issue's second path: a finished game the group imported has free seats; a
    stranger sits down in one, took the host role with that seat and deleted the game.
    Now the seat is refused, and without it the stranger only asks: the table's screen
    sees the ask and refuses it, and the stranger's key deletes nothing."""
    _, rec = record(11)
    r = call(client, "POST", "/api/tables/import", body={"record": rec,
                                                          "idempotency_key": "import-0001"})
    assert r.status_code == 201, r.get_json()
    code, host_key = r.get_json()["code"], r.get_json()["host_secret"]
    assert r.get_json()["view"]["state"]["phase"] == "over"
    version = r.get_json()["view"]["version"]
    # the stranger sits down (if a finished game still takes seats) and tries with it
    r = call(client, "POST", f"/api/tables/{code}/seats", body={
        "version": version, "idempotency_key": "stranger-sits", "side": "red",
        "name": "Mallory"}, where=STRANGER)
    assert r.status_code in (201, 403, 409), r.get_json()
    seat_key = r.get_json().get("secret")
    mine = made(3)
    if seat_key:
        r = hand(client, code, sha(mine), seat_key, STRANGER)
        assert r.status_code == 403 and r.get_json()["code"] == "not_host", r.get_json()
    # without a key: an ask, nothing moves
    r = hand(client, code, sha(mine), None, STRANGER)
    assert r.status_code == 202, r.get_json()
    number = r.get_json()["asked"]["number"]
    assert role(client, code, mine) == {"role": "viewer", "asking": True}
    for key in (mine, seat_key):
        assert deleted(client, code, key) == 403
    # the group's screen sees it (nobody else does) and refuses it
    assert "screens" not in call(client, "GET", f"/api/tables/{code}/requests",
                                 mine, where=STRANGER).get_json()
    host = Player(client, code, host_key)
    asks = call(client, "GET", f"/api/tables/{code}/requests", host_key).get_json()["screens"]
    assert [a["number"] for a in asks] == [number]
    host.post(f"/seats/{asks[0]['id']}/decision", {"approve": False}, expect=200)
    assert role(client, code, mine) == 401
    assert deleted(client, code, mine) == 403
    assert deleted(client, code, host_key) == 200


@pytest.mark.parametrize("where", [STRANGER, PLAYER], ids=["stranger", "player"])
def test_the_table_s_screen_moves_with_its_key_the_keeper_s_or_its_consent(
        table, client, keeper_key, where, monkeypatch):
    """Each allowed path, asked from a stranger's address and from a device of the
    group's (a player's laptop that also sits at the table): the key decides, never the
    address, and never who is connected (a worker that has not heard of a stream, or
    one that has, decides the same: presence is not read at all here)."""
    seen = live.hub.connected

    def no_presence(code: str) -> list[str]:
        # (a look at the table says who is there; a decision never asks)
        assert request.method == "GET", f"{request.path} read who is connected"
        return seen(code)
    monkeypatch.setattr(live.hub, "connected", no_presence)
    host = table()
    me = sit(host, "red", "Ann")       # the player: a device of the group's, seated
    sit(host, "blue", "Bob")
    first = host.secret
    # 1. the table's screen's own key hands the table to a screen that made a key
    a = made(10)
    r = hand(client, host.code, sha(a), first, where)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["view"]["notice"] == (
        "The table's screen handed the table to another screen")
    assert role(client, host.code, a)["role"] == "host"
    assert role(client, host.code, first) == 401           # the old key: worth nothing
    r = hand(client, host.code, sha(a), a, where)
    assert r.status_code == 409 and r.get_json()["code"] == "host_already"
    # 2. the keeper's key: the screen with key ``a`` is gone for good (a flat battery)
    b = made(11)
    r = hand(client, host.code, sha(b), keeper_key, where)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["view"]["notice"] == "The keeper made another screen the table's screen"
    assert role(client, host.code, b)["role"] == "host" and role(client, host.code, a) == 401
    # 3. consent: a screen asks (202, the players' version unmoved), the table's screen
    # (key b) refuses one ask and allows another; the same screen asking twice is one ask
    c, d = made(12), made(13)
    before = version(client, host.code)
    asked = {}
    for key in (c, d, d):
        r = hand(client, host.code, sha(key), None, where)
        assert r.status_code == 202, r.get_json()
        asked[key] = r.get_json()["asked"]
    assert version(client, host.code) == before
    assert asked[c]["id"] != asked[d]["id"]
    assert role(client, host.code, c) == {"role": "viewer", "asking": True}
    screen = Player(client, host.code, b)
    asks = call(client, "GET", f"/api/tables/{host.code}/requests", b).get_json()["screens"]
    assert asks == [asked[c], asked[d]]
    assert all(len(a["number"]) == 4 for a in asks)
    # only the table's screen decides: a seat, the asking screen or the keeper are refused
    for key in (me.secret, c, keeper_key):
        r = call(client, "POST", f"/api/tables/{host.code}/seats/{asked[c]['id']}/decision",
                 key, {"version": before, "idempotency_key": "decide-by-" + key[:6],
                       "approve": True}, where)
        assert r.status_code in (401, 403), r.get_json()
    screen.post(f"/seats/{asked[c]['id']}/decision", {"approve": False}, expect=200)
    assert role(client, host.code, c) == 401 and version(client, host.code) == before
    r = screen.post(f"/seats/{asked[d]['id']}/decision", {"approve": True}, expect=200)
    assert r.get_json()["view"]["notice"] == (
        "The table's screen let another screen take its place")
    assert role(client, host.code, d)["role"] == "host" and role(client, host.code, b) == 401
    # the new screen does what only the table's screen does: lets a phone take a seat
    new = Player(client, host.code, d)
    eve = sit(host, "blue", "Eve")
    asks = call(client, "GET", f"/api/tables/{host.code}/requests", d).get_json()
    assert [x["name"] for x in asks["requests"]] == ["Eve"] and asks["screens"] == []
    new.post(f"/seats/{eve.seat['id']}/decision", {"approve": True}, expect=200)
    assert sorted(s["name"] for s in new.refresh()["seats"]) == ["Ann", "Eve"]


def test_an_ask_is_checked_and_bounded(table, client):
    """What an ask may carry, and how many may wait: a hash that is none, a seat's key's
    hash (of this table or another) or the table's screen's own are refused; a retried
    ask is answered once; eight asks wait at most, the oldest making room for a new one
    (asks from strangers can delay the group's screen, never lock it out); one device
    asks six times a minute at most."""
    host = table()
    red = sit(host, "red", "Ann")
    for bad in (None, "", "z" * 64, sha("x").upper(), sha("x")[:-1], 5):
        r = hand(client, host.code, bad, None, STRANGER)        # type: ignore[arg-type]
        assert r.status_code == 400 and r.get_json()["field"] == "host_hash", bad
    r = hand(client, host.code, sha(red.secret), None, STRANGER)
    assert r.status_code == 409 and r.get_json()["code"] == "secret_taken"
    r = hand(client, host.code, sha(host.secret), None, STRANGER)
    assert r.status_code == 409 and r.get_json()["code"] == "host_already"
    theirs = sit(table(), "red", "Zoe")                  # another table's seat
    r = hand(client, host.code, sha(theirs.secret), host.secret, PLAYER)
    assert r.status_code == 409 and r.get_json()["code"] == "secret_taken"
    body = {"version": version(client, host.code), "idempotency_key": "ask-once-01",
            "host_hash": sha(made(20))}
    first = call(client, "POST", f"/api/tables/{host.code}/host", None, body, STRANGER)
    again = call(client, "POST", f"/api/tables/{host.code}/host", None, body, STRANGER)
    assert first.status_code == again.status_code == 202
    assert first.get_json()["asked"] == again.get_json()["asked"]
    for n in range(21, 29):                 # eight more, each from a device of its own
        r = hand(client, host.code, sha(made(n)), None, {"REMOTE_ADDR": f"127.0.3.{n}"})
        assert r.status_code == 202, r.get_json()
    asks = call(client, "GET", f"/api/tables/{host.code}/requests", host.secret).get_json()
    assert len(asks["screens"]) == 8
    assert role(client, host.code, made(20)) == 401             # the oldest made room
    assert role(client, host.code, made(21)) == {"role": "viewer", "asking": True}
    statuses = [hand(client, host.code, sha(made(n)), None, {"REMOTE_ADDR": "127.0.3.99"})
                .status_code for n in range(30, 37)]
    assert statuses == [202] * 6 + [429]


def test_the_keeper_sees_every_table_s_asks(table, client, keeper_key):
    """The keeper's page lists the screens asking at every table (a group whose table's
    screen is gone for good lets its new one in from there); only for the keeper key."""
    one, two = table(), table()
    sit(one, "red", "Ann")
    for host, key in ((one, made(30)), (two, made(31))):
        assert hand(client, host.code, sha(key), None, STRANGER).status_code == 202
    for bearer in (None, one.secret, made(30)):
        r = call(client, "POST", "/api/keeper", bearer, {})
        assert r.status_code == 403 and r.get_json()["code"] == "not_keeper"
    r = call(client, "POST", "/api/keeper", keeper_key, {})
    seen = {a["code"]: a for a in r.get_json()["screens"]}
    assert set(seen) == {one.code, two.code}
    assert seen[one.code]["hash"] == sha(made(30))
    assert seen[one.code]["version"] == one.refresh()["version"]
    # the keeper lets the screen in with its hash: the asks of that table are done
    r = hand(client, one.code, seen[one.code]["hash"], keeper_key, STRANGER)
    assert r.status_code == 200 and role(client, one.code, made(30))["role"] == "host"
    r = call(client, "POST", "/api/keeper", keeper_key, {})
    assert [a["code"] for a in r.get_json()["screens"]] == [two.code]
