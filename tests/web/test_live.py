"""Live push over a real socket: a stream sees a change as it happens."""

from __future__ import annotations

import http.client
import json
import threading

import pytest
from werkzeug.serving import make_server


@pytest.fixture
def live(app):
    server = make_server("127.0.0.1", 0, app, threaded=True)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    yield server.server_port
    server.shutdown()
    t.join(5)


def request(port, method, path, body=None, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    h = {"Origin": f"http://127.0.0.1:{port}", "Content-Type": "application/json",
         **(headers or {})}
    c.request(method, path, json.dumps(body) if body is not None else None, h)
    r = c.getresponse()
    data = json.loads(r.read())
    c.close()
    return r.status, data


def read_event(resp):
    """Read one SSE message: (event name, data) or (None, comment)."""
    name, data = None, []
    while True:
        line = resp.fp.readline().decode()
        if line in ("\n", ""):
            if name or data:
                return name, "\n".join(data)
            continue
        if line.startswith(":"):
            return None, line[1:].strip()
        field, _, value = line.rstrip("\n").partition(": ")
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)


def test_a_stream_delivers_a_seat_joining_and_an_event(live):
    port = live
    status, made = request(port, "POST", "/api/tables", {"wall_distance": 4})
    code, v = made["code"], made["view"]["version"]
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", f"/api/tables/{code}/stream?since={v}&seat=host")
    resp = c.getresponse()
    assert resp.status == 200
    assert resp.headers["Content-Type"].startswith("text/event-stream")
    assert resp.headers["Cache-Control"] == "no-cache"
    assert resp.headers["X-Accel-Buffering"] == "no"
    assert read_event(resp) == (None, "connected")
    name, data = read_event(resp)
    assert name == "presence" and json.loads(data) == {"connected": ["host"], "watching": 0}

    status, joined = request(port, "POST", f"/api/tables/{code}/seats",
                             {"version": v, "idempotency_key": "live-0001", "side": "red",
                              "name": "Ann"})
    assert status == 201
    name, data = read_event(resp)
    assert name == "state"
    view = json.loads(data)
    assert view["version"] == v + 1 and view["seats"][0]["name"] == "Ann"
    assert joined["secret"] not in data

    status, _ = request(port, "POST", f"/api/tables/{code}/events",
                        {"version": v + 1, "idempotency_key": "live-0002",
                         "event": {"type": "exhaust", "side": "red", "ranks": [3]}},
                        {"Authorization": f"Bearer {joined['secret']}"})
    assert status == 201
    name, data = read_event(resp)
    assert name == "state" and json.loads(data)["state"]["drawn"]["red"] == [3]
    c.close()


def test_a_screen_that_slept_catches_up(live):
    port = live
    _, made = request(port, "POST", "/api/tables", {})
    code, v = made["code"], made["view"]["version"]
    request(port, "POST", f"/api/tables/{code}/seats",
            {"version": v, "idempotency_key": "live-0003", "side": "blue", "name": "Bob"})
    # reconnecting with an old version gets the current view at once
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", f"/api/tables/{code}/stream?since={v}")
    resp = c.getresponse()
    assert read_event(resp) == (None, "connected")
    name, data = read_event(resp)
    assert name == "state" and json.loads(data)["version"] == v + 1
    c.close()
    # polling: unchanged since the current version, the full view since an older one
    _, d = request(port, "GET", f"/api/tables/{code}/state?since={v + 1}")
    assert d["changed"] is False and d["version"] == v + 1
    _, d = request(port, "GET", f"/api/tables/{code}/state?since={v}")
    assert d["changed"] is True and d["view"]["seats"][0]["name"] == "Bob"


def test_the_heartbeat_says_how_long_ago_each_phone_was_heard_from(table, app):
    """Issue 11: a phone asleep or off the network stops its heartbeat, and the big
    screen shows it away once 10 s have passed (the host reads the ages every 3 s)."""
    from datetime import timedelta

    import sqlalchemy as sa

    from companion.web.models import Seat, db, now

    from .conftest import sit
    host = table()
    red = sit(host, "red", "Ann")
    seen = host.client.get(f"/api/tables/{host.code}/requests").get_json()["seen"]
    assert 0 <= seen[str(red.seat["id"])] < 10
    with app.app_context():
        db.session.execute(sa.update(Seat).values(last_seen=now() - timedelta(seconds=20)))
        db.session.commit()
    seen = host.client.get(f"/api/tables/{host.code}/requests").get_json()["seen"]
    assert seen[str(red.seat["id"])] >= 20                      # away
    red.client.get(f"/api/tables/{host.code}/me", headers=red.headers())   # a heartbeat
    seen = host.client.get(f"/api/tables/{host.code}/requests").get_json()["seen"]
    assert seen[str(red.seat["id"])] < 10                       # back
