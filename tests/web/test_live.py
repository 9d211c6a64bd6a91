"""Live push over a real socket: a stream sees a change as it happens."""

from __future__ import annotations

import http.client
import json

import pytest

from companion.live.channel import KEPT
from companion.live.delta import patch
from companion.run.server import Server


@pytest.fixture
def live(app):
    """The app behind the companion's own server: streams on its event loop."""
    server = Server(app, threads=4).start()
    yield server.port
    server.stop()


def request(port, method, path, body=None, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    h = {"Origin": f"http://127.0.0.1:{port}", "Content-Type": "application/json",
         **(headers or {})}
    c.request(method, path, json.dumps(body) if body is not None else None, h)
    r = c.getresponse()
    data = json.loads(r.read())
    c.close()
    return r.status, data


def open_stream(port, path):
    """A live stream opened as a screen opens it: (its connection, its response)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", path)
    return c, c.getresponse()


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
    # the host screen counts as connected with the proof its key earns (issue 20)
    _, me = request(port, "GET", f"/api/tables/{code}/me",
                    headers={"Authorization": f"Bearer {made['host_secret']}"})
    c, resp = open_stream(port, f"/api/tables/{code}/stream?since={v}&seat=host"
                                f"&proof={me['proof']}")
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
    assert name == "delta"                  # what changed, not the whole view (issue 15)
    d = json.loads(data)
    assert (d["from"], d["to"]) == (v, v + 1) and len(data) < 1500
    view = patch(made["view"], d["ops"])
    assert view == request(port, "GET", f"/api/tables/{code}/state")[1]["view"]
    assert view["version"] == v + 1 and view["seats"][0]["name"] == "Ann"
    assert joined["secret"] not in data

    status, _ = request(port, "POST", f"/api/tables/{code}/events",
                        {"version": v + 1, "idempotency_key": "live-0002",
                         "event": {"type": "exhaust", "side": "red", "ranks": [3]}},
                        {"Authorization": f"Bearer {joined['secret']}"})
    assert status == 201
    name, data = read_event(resp)
    assert name == "delta"
    view = patch(view, json.loads(data)["ops"])
    assert view == request(port, "GET", f"/api/tables/{code}/state")[1]["view"]
    assert view["state"]["drawn"]["red"] == [3]
    c.close()


def test_a_screen_that_missed_versions_catches_up_exactly(live):
    """Issue 15: a screen a few versions behind gets one delta from its own version that
    makes exactly the view a fresh load shows; one too far behind gets the whole view."""
    port = live
    _, made = request(port, "POST", "/api/tables", {"wall_distance": 3})
    code, v0 = made["code"], made["view"]["version"]
    watcher, first = open_stream(port, f"/api/tables/{code}/stream?since={v0}&seat=host")
    assert read_event(first)[0] is None and read_event(first)[0] == "presence"
    views, secrets, v = [made["view"]], {}, v0
    for i, (side, name) in enumerate((("red", "Ann"), ("blue", "Bob"))):
        _, joined = request(port, "POST", f"/api/tables/{code}/seats",
                            {"version": v, "idempotency_key": f"catch-up-{i}", "side": side,
                             "name": name})
        secrets[side], v = joined["secret"], joined["view"]["version"]
        views.append(joined["view"])
    for i, (side, rank) in enumerate((("red", 4), ("blue", 9))):
        _, done = request(port, "POST", f"/api/tables/{code}/events",
                          {"version": v, "idempotency_key": f"catch-up-e{i}",
                           "event": {"type": "exhaust", "side": side, "ranks": [rank]}},
                          {"Authorization": f"Bearer {secrets[side]}"})
        v = done["view"]["version"]
        views.append(done["view"])
    fresh = request(port, "GET", f"/api/tables/{code}/state")[1]["view"]
    assert fresh["version"] == v == v0 + 4
    for behind, old in enumerate(views[:-1]):
        c, resp = open_stream(port, f"/api/tables/{code}/stream?since={old['version']}")
        assert read_event(resp) == (None, "connected")
        name, data = read_event(resp)
        if v - old["version"] >= KEPT:       # older than the views the channel keeps
            assert name == "state" and json.loads(data) == fresh
            c.close()
            continue
        assert name == "delta", (behind, name)
        d = json.loads(data)
        assert (d["from"], d["to"]) == (old["version"], v)
        assert patch(old, d["ops"]) == fresh
        c.close()
    # a version this process no longer keeps (or never saw): the whole view
    c, resp = open_stream(port, f"/api/tables/{code}/stream?since={v0 - 1}")
    assert read_event(resp) == (None, "connected")
    name, data = read_event(resp)
    assert name == "state" and json.loads(data) == fresh
    c.close()
    # a page that asks for it gets a delta as the answer to its own post, not the view
    _, done = request(port, "POST", f"/api/tables/{code}/events",
                      {"version": v, "idempotency_key": "catch-up-intel", "answer": "delta",
                       "event": {"type": "intel", "ranks": [1, 2, 3, 4]}},
                      {"Authorization": f"Bearer {secrets['red']}"})
    assert "view" not in done and (done["delta"]["from"], done["delta"]["to"]) == (v, v + 1)
    assert patch(fresh, done["delta"]["ops"]) == request(
        port, "GET", f"/api/tables/{code}/state")[1]["view"]
    # ... in the poster's language, whatever the language of the streams open (issue 24:
    # the answer is the text the streams were sent, encoded once per language)
    german = {"Accept-Language": "de"}
    before = request(port, "GET", f"/api/tables/{code}/state", headers=german)[1]["view"]
    _, done = request(port, "POST", f"/api/tables/{code}/events",
                      {"version": v + 1, "idempotency_key": "catch-up-tokens",
                       "answer": "delta", "event": {"type": "tokens", "side": "red",
                                                    "missions": [2]}},
                      {"Authorization": f"Bearer {secrets['red']}", **german})
    after = request(port, "GET", f"/api/tables/{code}/state", headers=german)[1]["view"]
    assert "view" not in done and (done["delta"]["from"], done["delta"]["to"]) == (v + 1, v + 2)
    assert patch(before, done["delta"]["ops"]) == after
    assert after != request(port, "GET", f"/api/tables/{code}/state")[1]["view"]  # words
    v += 1
    # with its stream open a page asks for no view at all: only the new version
    _, done = request(port, "POST", f"/api/tables/{code}/undo",
                      {"version": v + 1, "idempotency_key": "catch-up-undo", "answer": "none"},
                      {"Authorization": f"Bearer {secrets['red']}"})
    assert set(done) == {"undone", "version"} and done["version"] == v + 2
    watcher.close()


def test_a_screen_that_slept_catches_up(live):
    port = live
    _, made = request(port, "POST", "/api/tables", {})
    code, v = made["code"], made["view"]["version"]
    request(port, "POST", f"/api/tables/{code}/seats",
            {"version": v, "idempotency_key": "live-0003", "side": "blue", "name": "Bob"})
    # reconnecting with an old version gets the current view at once
    c, resp = open_stream(port, f"/api/tables/{code}/stream?since={v}")
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

    from companion.store.models import Seat, db, now

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
