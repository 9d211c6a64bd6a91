"""Who may do what, and what nobody else may see: guessing codes, expired tables,
secrets kept out of logs and other screens, retried creates, the API description."""

from __future__ import annotations

import json
import logging
import re
import time
from datetime import timedelta

import pytest
import sqlalchemy as sa
from limits.storage import memory as limits_memory

from companion.api import tables as api  # the routes that read a table
from companion.edge import limits
from companion.store.models import Event, Receipt, Seat, Table, db, now

from .conftest import ORIGIN, sit


class Clock:
    """A hand-moved clock for the rate limits (the ``limits`` package's memory and ours)."""

    def __init__(self) -> None:
        self.t = 1_000_000.0

    def time(self) -> float:
        return self.t

    def __getattr__(self, name):          # monotonic, sleep... as the real module
        return getattr(time, name)


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(limits, "time", c)
    monkeypatch.setattr(limits_memory, "time", c)
    return c


# --- guessing table codes ---------------------------------------------------------------

PER_MINUTE = 10             # limits.LIMITS["codes"]: 10 per minute; 60 per hour


def test_unknown_codes_are_rate_limited_per_client(table, client, clock):
    host = table()
    for i in range(PER_MINUTE):
        r = client.get(f"/api/tables/QQQ{i:02d}/state")
        assert r.status_code == 404 and "check the code" in r.get_json()["error"]
    r = client.get("/api/tables/QQQQQ/state")
    assert r.status_code == 429
    d = r.get_json()
    assert d["code"] == "rate_limited" and "wait" in d["error"]
    assert 1 <= int(r.headers["Retry-After"]) <= 60
    # while blocked, even the right code is refused: trying cannot tell a hit from a miss
    assert client.get(f"/api/tables/{host.code}/state").status_code == 429
    # ... but a page holds nothing of its table: it is drawn for any well-formed code, a
    # hit as a miss, so the table's own screens on this address reload (issue 50; the
    # page's look-up, refused, says why it waits)
    hit, miss = client.get(f"/j/{host.code}"), client.get("/j/QQQQQ")
    assert hit.status_code == miss.status_code == 200 and hit.mimetype == "text/html"
    assert hit.get_data(as_text=True).replace(host.code, "QQQQQ") == miss.get_data(as_text=True)
    # another device on the network is not affected
    other = client.get(f"/api/tables/{host.code}/state", environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert other.status_code == 200
    # once the minute is over it may look again; the hour's budget still counts its misses
    clock.t += 61
    assert client.get(f"/api/tables/{host.code}/state").status_code == 200
    for i in range(PER_MINUTE):
        assert client.get(f"/api/tables/QQR{i:02d}/state").status_code == 404
    assert client.get(f"/api/tables/{host.code}/state").status_code == 429
    clock.t += 3601
    assert client.get(f"/t/{host.code}").status_code == 200


def test_an_hour_holds_60_misses_per_client(table, client, clock):
    host = table()
    misses = 0
    for _ in range(12):                   # ten a minute until the hour's budget is spent
        for _i in range(PER_MINUTE):
            r = client.get(f"/api/tables/Q{misses:04d}/state")
            if r.status_code == 429:
                break
            misses += 1
        clock.t += 61
    assert misses == 60
    assert client.get(f"/api/tables/{host.code}/state").status_code == 429


def test_found_codes_cost_nothing(table, client, clock):
    host = table()
    for _ in range(3 * PER_MINUTE):
        assert client.get(f"/api/tables/{host.code}/state?since=0").status_code == 200


@pytest.mark.anydb
def test_the_memory_of_misses_stays_small():
    m = limits.Misses(max_keys=50)
    for i in range(500):
        m.add(f"10.0.{i // 250}.{i % 250}")
    assert len(m._last) <= 50 and m.recent("10.0.1.249")


# --- unknown and expired tables: a page, not a trace ---------------------------------------

@pytest.mark.parametrize("path", ["/t/ZZZZZ", "/j/ZZZZZ", "/j?code=zzzzz", "/qr/ZZZZZ.svg",
                                  "/t/%3Cscript%3E", "/j/" + "A" * 200])
def test_unknown_code_pages_are_clear(client, path):
    r = client.get(path)
    assert r.status_code == 404 and r.mimetype == "text/html"
    text = r.get_data(as_text=True)
    assert "No table with this code" in text and "Traceback" not in text
    assert "<script>" not in text and 'href="/j"' in text
    # the refusal's words as a sentence of the page: a capital first, a full stop last
    assert re.search(r"<p>There is no table with the code .*; check the code on the big "
                     r"screen\.</p>", text), text


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_page_that_is_not_a_tables_does_not_say_no_table(client, lang):
    """A player's page of someone forgotten (or a mistyped number) says that the player is
    not known, and leads to the statistics and the games, not to "type another code"; a
    page refused for a stranger's Host name is not called a table either."""
    r = client.get("/stats/players/9999", headers={"Accept-Language": lang})
    text = r.get_data(as_text=True)
    assert r.status_code == 404 and r.mimetype == "text/html" and "Traceback" not in text
    heading = re.search(r"<h1>(.*?)</h1>", text).group(1)
    assert heading == {"en": "No such player", "fr": "Joueur inconnu"}[lang], heading
    assert 'href="/stats"' in text and 'href="/history"' in text and 'href="/j"' not in text
    assert re.search(r"<title>" + re.escape(heading) + " ·", text)
    r = client.get("/history", headers={"Host": "rebind.evil.example:8000"})
    text = r.get_data(as_text=True)
    assert r.status_code == 421 and "table" not in re.search(r"<h1>(.*?)</h1>", text).group(1)


def untouched_for(app, code: str, days: int) -> None:
    """Make the table look as if nobody had changed it for ``days`` days."""
    with app.app_context():
        db.session.execute(sa.update(Table).where(Table.code == code)
                           .values(updated=now() - timedelta(days=days)))
        db.session.commit()


def test_expired_tables(table, client, app):
    host = table()
    untouched_for(app, host.code, days=31)
    r = client.get(f"/api/tables/{host.code}/state")
    assert r.status_code == 410 and r.get_json()["code"] == "expired"
    assert "30 days" in r.get_json()["error"]
    r = host.post("/undo", {}, fresh=False)
    assert r.status_code == 410
    r = client.get(f"/t/{host.code}")
    assert r.status_code == 410 and "This table has expired" in r.get_data(as_text=True)
    r = client.get(f"/api/tables/{host.code}/record")        # the game can still be saved
    assert r.status_code == 200 and r.get_json()["format"] == "spies-and-lies-record/1"


def test_a_table_in_use_does_not_expire(table, client, app):
    host = table()
    untouched_for(app, host.code, days=29)
    red = sit(host, "red", "Ann")
    with app.app_context():
        t = db.session.scalar(sa.select(Table).where(Table.code == host.code))
        assert now() - t.updated < timedelta(minutes=1)
    assert red.refresh()["code"] == host.code


# --- secrets ------------------------------------------------------------------------------

def test_secrets_are_long_and_only_their_hash_is_stored(table, app):
    host = table()
    red = sit(host, "red", "Ann")
    for s in (host.secret, red.secret):
        assert len(s) >= 43 and re.fullmatch(r"[A-Za-z0-9_-]+", s)   # 256 bits, url-safe
    with app.app_context():
        dump = json.dumps([[str(v) for v in row] for model in (Table, Seat, Event, Receipt)
                           for row in db.session.execute(sa.select(model.__table__))])
    assert host.secret not in dump and red.secret not in dump


def test_no_other_screen_ever_sees_a_seat_secret(table, client, app):
    host = table()
    red = sit(host, "red", "Ann")
    blue = sit(host, "blue", "Bob")
    pending = sit(host, "red", "Cat")                     # asks to take over red
    red.event({"type": "exhaust", "side": "red", "ranks": [2]})
    blue.event({"type": "exhaust", "side": "blue", "ranks": [3]})
    host.post(f"/seats/{pending.seat['id']}/decision", {"approve": True}, 200)
    seen = []
    for screen in (host, blue, pending, red):
        for path in ("/state", "/me", "/record", "/preview?side=red&rank=4"):
            r = client.get(f"/api/tables/{host.code}{path}", headers=screen.headers())
            seen.append((screen.name, r.get_data(as_text=True)))
    seen.append(("viewer", client.get(f"/api/tables/{host.code}/state").get_data(as_text=True)))
    seen.append(("host page", client.get(f"/t/{host.code}").get_data(as_text=True)))
    seen.append(("phone page", client.get(f"/j/{host.code}").get_data(as_text=True)))
    secrets = {"host": host.secret, "Ann": red.secret, "Bob": blue.secret, "Cat": pending.secret}
    for viewer, text in seen:
        for owner, secret in secrets.items():
            assert secret not in text, f"{owner}'s secret reached {viewer}"
        assert "secret_hash" not in text and "host_hash" not in text
    # Ann was taken over: her old key no longer acts
    r = red.post("/undo", {}, fresh=False)
    assert r.status_code == 401 and "taken over" in r.get_json()["error"]
    # a seat's own answers hold no one else's secret either
    assert blue.secret not in json.dumps(pending.view) and host.secret not in json.dumps(red.view)


def test_secrets_never_reach_the_logs(table, client, app, caplog, monkeypatch):
    caplog.set_level(logging.DEBUG)
    host = table()
    red = sit(host, "red", "Ann")
    red.event({"type": "exhaust", "side": "red", "ranks": [1]})
    client.get(f"/api/tables/{host.code}/state", headers={"Authorization": "Bearer wrong-one"})

    def boom(*a, **k):
        raise RuntimeError("the disk is on fire")
    monkeypatch.setattr(api, "public_view", boom)
    r = client.get(f"/api/tables/{host.code}/state", headers=red.headers())
    assert r.status_code == 500 and r.get_json()["code"] == "server_error"
    assert "Traceback" not in r.get_data(as_text=True)
    assert "unexpected error" in caplog.text            # the error itself is logged
    for s in (host.secret, red.secret):
        assert s not in caplog.text


def test_the_phone_keeps_its_secret_out_of_urls(table, client):
    """After joining, the secret lives in the phone's storage and an Authorization
    header; no page, redirect or live stream address carries it."""
    host = table()
    red = sit(host, "red", "Ann")
    for url in (f"/j/{host.code}", f"/t/{host.code}", "/"):
        assert red.secret not in client.get(url).get_data(as_text=True)
    for rule in client.application.url_map.iter_rules():
        assert "secret" not in rule.rule and "key" not in rule.arguments


# --- a retried create or import -----------------------------------------------------------

def test_a_retried_create_opens_one_table_and_never_mints_a_new_host_secret(client, app):
    """Issue 10: a retried create gets the same table and no new host secret (whoever
    learns the key gains nothing); the host screen's own key, sent once, is the host's."""
    body = {"wall_distance": 3, "idempotency_key": "create-abc-123"}
    r1 = client.post("/api/tables", json=body, headers={"Origin": ORIGIN}).get_json()
    r2 = client.post("/api/tables", json=body, headers={"Origin": ORIGIN}).get_json()
    assert r1["code"] == r2["code"] and "host_secret" not in r2
    me = client.get(f"/api/tables/{r1['code']}/me",
                    headers={"Authorization": "Bearer " + r1["host_secret"]})
    assert me.get_json()["role"] == "host"                      # the first key still holds
    own = "host-made-key-" + "y" * 30
    r3 = client.post("/api/tables", json={"idempotency_key": "create-own-1", "host_secret": own},
                     headers={"Origin": ORIGIN}).get_json()
    assert "host_secret" not in r3
    me = client.get(f"/api/tables/{r3['code']}/me", headers={"Authorization": "Bearer " + own})
    assert me.get_json()["role"] == "host"
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Table.id))) == 2
    r = client.post("/api/tables", json={"idempotency_key": "no"}, headers={"Origin": ORIGIN})
    assert r.status_code == 400 and r.get_json()["field"] == "idempotency_key"


def test_cross_site_and_oversized_creates_and_imports_are_refused(client):
    for path in ("/api/tables", "/api/tables/import"):
        r = client.post(path, json={}, headers={"Origin": "http://evil.example"})
        assert r.status_code == 403
        r = client.post(path, data="[" * 40000, headers={"Origin": ORIGIN,
                                                         "Content-Type": "application/json"})
        assert r.status_code == 413
    r = client.post("/api/tables", data="[" * 15000, headers={"Origin": ORIGIN,
                                                              "Content-Type": "application/json"})
    assert r.status_code == 400 and "JSON" in r.get_json()["error"]


# --- the API description ------------------------------------------------------------------

def test_openapi_describes_every_api_route(client, app):
    doc = client.get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.1")
    documented = {(m.upper(), p) for p, ops in doc["paths"].items() for m in ops}
    served = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api"):
            path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
            served |= {(m, path) for m in rule.methods - {"HEAD", "OPTIONS"}}
    assert documented == served
    for path, ops in doc["paths"].items():
        names = set(re.findall(r"{(\w+)}", path))
        for op in ops.values():
            params = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
            assert params == names, path
            assert any(c.startswith("2") for c in op["responses"]), path
