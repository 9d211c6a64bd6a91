"""Every kind of bad input is refused with a clear message, and never applied."""

from __future__ import annotations

import json

import sqlalchemy as sa

from .conftest import ORIGIN, sit


def seated(table):
    host = table()
    return host, sit(host, "red", "Ann"), sit(host, "blue", "Bob")


def test_wrong_seat(table):
    host, red, blue = seated(table)
    r = blue.event({"type": "exhaust", "side": "red", "ranks": [1]}, expect=403)
    assert r.get_json()["code"] == "wrong_seat"
    assert "red" in r.get_json()["error"]
    r = host.event({"type": "exhaust", "side": "red", "ranks": [1]}, expect=403)
    assert "red's phone" in r.get_json()["error"]


def test_stale_version_gets_409_and_the_fresh_state(table):
    host, red, blue = seated(table)
    old = blue.version
    red.event({"type": "exhaust", "side": "red", "ranks": [1]})
    r = blue.client.post(f"/api/tables/{blue.code}/events", headers=blue.headers(), json={
        "version": old, "idempotency_key": "stale-0001",
        "event": {"type": "exhaust", "side": "blue", "ranks": [2]}})
    assert r.status_code == 409
    d = r.get_json()
    assert d["code"] == "stale" and d["field"] == "version"
    assert "changed" in d["error"]
    assert d["view"]["version"] == red.version
    assert d["view"]["state"]["drawn"] == {"red": [1], "blue": None}


def test_two_phones_cannot_both_apply_the_same_stale_action(table):
    host, red, blue = seated(table)
    red.refresh()
    blue.refresh()
    assert red.version == blue.version
    host.refresh()
    r = host.event({"type": "intel", "ranks": [1, 2, 3, 4]}, expect=409)   # not due yet
    assert "no intel card is due" in r.get_json()["error"] and "view" in r.get_json()
    r1 = red.post("/events", {"event": {"type": "exhaust", "side": "red", "ranks": [3]}},
                  fresh=False)
    r2 = blue.post("/events", {"event": {"type": "exhaust", "side": "blue", "ranks": [3]}},
                   fresh=False)
    assert r1.status_code == 201 and r2.status_code == 409


def test_malformed_bodies(table, client):
    host, red, blue = seated(table)
    url = f"/api/tables/{red.code}/events"
    r = client.post(url, data="{not json", headers={**red.headers(),
                                                     "Content-Type": "application/json"})
    assert r.status_code == 400 and "JSON" in r.get_json()["error"]
    r = client.post(url, data="x=1", headers={**red.headers(),
                                             "Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 400 and "JSON" in r.get_json()["error"]
    r = client.post(url, json=[1, 2], headers=red.headers())
    assert r.status_code == 400 and "object" in r.get_json()["error"]
    r = red.event({"type": "exhaust", "side": "red", "ranks": [11]}, expect=400)
    assert "'ranks'" in r.get_json()["error"]
    r = red.event({"type": "teleport"}, expect=400)
    assert "unknown event type" in r.get_json()["error"]
    r = red.post("/events", {"event": "exhaust"}, expect=400)
    assert r.get_json()["field"] == "event"
    r = client.post(url, data="x" * 20000, headers={**red.headers(),
                                                   "Content-Type": "application/json"})
    assert r.status_code == 413 and "too large" in r.get_json()["error"]


def test_missing_fields_are_named(table, client):
    host, red, blue = seated(table)
    url = f"/api/tables/{red.code}/events"
    r = client.post(url, json={"version": red.version, "event": {}}, headers=red.headers())
    assert r.status_code == 400 and r.get_json()["field"] == "idempotency_key"
    r = client.post(url, json={"idempotency_key": "abcdefgh-1", "event": {}},
                    headers=red.headers())
    assert r.status_code == 400 and r.get_json()["field"] == "version"
    assert "missing" in r.get_json()["error"]
    r = red.post("/seats", {"side": "green", "name": "X"}, expect=400)
    assert r.get_json()["field"] == "side"
    r = red.post("/seats", {"side": "red"}, expect=400)
    assert r.get_json()["field"] == "name"
    r = client.post("/api/tables", json={"wall_distance": 12}, headers={"Origin": ORIGIN})
    assert r.status_code == 400 and r.get_json()["field"] == "wall_distance"


def test_bad_secret_and_no_secret(table, client):
    host, red, blue = seated(table)
    red.refresh()
    good = red.secret
    red.secret = "not-a-real-secret"
    r = red.post("/undo", {}, expect=401, fresh=False)
    assert "join again" in r.get_json()["error"]
    red.secret = None
    r = red.post("/undo", {}, expect=401, fresh=False)
    assert "join the table first" in r.get_json()["error"]
    r = client.get(f"/api/tables/{red.code}/state",
                   headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401
    red.secret = good
    r = client.get("/api/tables/ZZZZZ/state")
    assert r.status_code == 404 and "ZZZZZ" in r.get_json()["error"]


def test_cross_origin_is_refused(table, client):
    host, red, blue = seated(table)
    red.refresh()
    body = {"version": red.version, "idempotency_key": "cross-0001",
            "event": {"type": "exhaust", "side": "red", "ranks": [1]}}
    url = f"/api/tables/{red.code}/events"
    auth = {"Authorization": f"Bearer {red.secret}"}
    r = client.post(url, json=body, headers={**auth, "Origin": "http://evil.example"})
    assert r.status_code == 403 and "another site" in r.get_json()["error"]
    r = client.post(url, json=body, headers=auth)
    assert r.status_code == 403 and "Origin" in r.get_json()["error"]
    r = client.post(url, json=body, headers={**auth, "Referer": f"{ORIGIN}/j/{red.code}"})
    assert r.status_code == 201


def test_a_retry_returns_the_first_answer_and_applies_once(table):
    host, red, blue = seated(table)
    red.refresh()
    body = {"event": {"type": "exhaust", "side": "red", "ranks": [4]}}
    v = red.version
    r1 = red.post("/events", body, key="retry-key-1", fresh=False)
    red.version = v
    r2 = red.post("/events", body, key="retry-key-1", fresh=False)
    assert r1.status_code == r2.status_code == 201
    assert r1.get_json() == r2.get_json()
    rec = red.client.get(f"/api/tables/{red.code}/record").get_json()
    assert len(rec["events"]) == 1


def test_a_receipt_keeps_the_answer_not_the_view_and_a_retry_gets_the_view_of_now(table, app):
    """Issue 15: the receipt is small (no ~19 KB view in it); a retry after the table moved
    on gets its first answer and the view as it is now, so the phone carries on from there."""
    from companion.store.models import Receipt, db
    host, red, blue = seated(table)
    red.refresh()
    v = red.version
    body = {"event": {"type": "exhaust", "side": "red", "ranks": [4]}}
    first = red.post("/events", body, key="small-receipt-1", fresh=False).get_json()
    blue.event({"type": "exhaust", "side": "blue", "ranks": [7]})     # the table moves on
    red.version = v
    again = red.post("/events", body, key="small-receipt-1", fresh=False)
    assert again.status_code == 201
    d = again.get_json()
    assert d["event"] == first["event"] and d["text"] == first["text"]
    assert d["view"]["version"] == first["view"]["version"] + 1        # the view of now
    assert d["view"]["state"]["exhausted"] == {"red": [4], "blue": [7]}
    with app.app_context():
        stored = db.session.scalar(sa.select(Receipt.body).where(Receipt.key == "small-receipt-1"))
    assert "view" not in json.loads(stored) and len(stored) < 2000


def test_reveal_steps_out_of_order_and_impossible_cards(table):
    host, red, blue = seated(table)
    red.event({"type": "exhaust", "side": "red", "ranks": [1]})
    blue.event({"type": "exhaust", "side": "blue", "ranks": [10]})
    host.event({"type": "intel", "ranks": [3, 5, 8, 9]})
    red.event({"type": "tokens", "side": "red", "missions": []})
    blue.event({"type": "tokens", "side": "blue", "missions": []})
    host.event({"type": "start", "side": "red"})
    r = red.draft("actual", 3, expect=409)
    assert "waits for the guess from red" in r.get_json()["error"]
    r = blue.draft("guess", 3, expect=403)
    assert "red's phone" in r.get_json()["error"]
    r = red.event({"type": "reveal", "guesser": "red", "mission": 1, "guess": 1, "actual": 2,
                   "deception": False}, expect=400)
    assert "step by step" in r.get_json()["error"]
    red.draft("guess", 3)
    r = blue.draft("actual", 10, expect=400)
    assert "Marshal" in r.get_json()["error"]
    r = blue.draft("actual", "ten", expect=400)
    assert r.get_json()["field"] == "value"
    r = red.draft("bribe", 1, expect=400)
    assert r.get_json()["field"] == "step"


def test_undo_with_nothing_to_undo(table):
    host, red, blue = seated(table)
    r = red.undo(expect=409)
    assert "nothing to undo" in r.get_json()["error"]


def test_errors_are_json_never_a_stack_trace(table, client):
    r = client.get("/api/nothing-here")
    assert r.status_code == 404 and r.is_json
    r = client.delete("/api/tables")
    assert r.status_code == 405 and r.is_json


def test_a_retried_join_never_mints_a_new_secret_and_no_secret_is_stored(table, app):
    """Issue 10: whoever learns a join's idempotency key learns nothing by retrying it:
    the retry gets the first answer without any secret, and the first secret still holds.
    A phone that makes its own key sends it once; the server keeps only its hash."""
    from companion.store.models import Receipt, db
    host = table()
    host.refresh()
    v = host.version

    def join(key: str, **more):
        return host.client.post(f"/api/tables/{host.code}/seats", headers={"Origin": ORIGIN},
                                json={"version": v, "idempotency_key": key, "side": "red",
                                      "name": "Ann", **more}).get_json()
    p1, p2 = join("join-key-1"), join("join-key-1")
    assert p1["seat"] == p2["seat"] and "secret" in p1 and "secret" not in p2
    assert len(p2["view"]["seats"]) == 1

    def me(secret: str):
        return host.client.get(f"/api/tables/{host.code}/me",
                               headers={"Authorization": "Bearer " + secret})
    assert me(p1["secret"]).get_json()["name"] == "Ann"          # still the seat's key
    own = "phone-made-key-" + "x" * 30
    blue = host.client.post(f"/api/tables/{host.code}/seats", headers={"Origin": ORIGIN},
                            json={"version": p1["view"]["version"], "idempotency_key": "join-key-2",
                                  "side": "blue", "name": "Bob", "secret": own}).get_json()
    assert "secret" not in blue and me(own).get_json()["name"] == "Bob"
    with app.app_context():
        for r in db.session.query(Receipt):
            assert p1["secret"] not in r.body and own not in r.body
