"""Two server processes on one PostgreSQL database show each other's changes live.

Each process fans out its changes with NOTIFY and republishes the others'
(``companion/web/live.py``). Skipped unless ``DATABASE_URL`` names PostgreSQL
(``./scripts/test`` runs the suite a second time on PostgreSQL).
"""

from __future__ import annotations

import http.client
import json
import os
import time

import pytest

from companion.web.delta import patch
from harness.server import Server

URL = os.environ.get("DATABASE_URL", "")
pytestmark = pytest.mark.skipif(not URL.startswith("postgresql"),
                                reason="needs DATABASE_URL on PostgreSQL")


_streams: list[http.client.HTTPConnection] = []


@pytest.fixture(autouse=True)
def _close_streams():
    yield
    while _streams:
        _streams.pop().close()


def stream(server: Server, code: str, since: int) -> http.client.HTTPResponse:
    """An open live stream of ``code`` on ``server``, as the host screen would hold it
    (closed after the test)."""
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    _streams.append(c)
    c.request("GET", f"/api/tables/{code}/stream?since={since}&seat=host")
    r = c.getresponse()
    assert r.status == 200
    return r


def next_state(resp: http.client.HTTPResponse, view: dict, timeout: float = 3.0) -> dict:
    """The view after the next change on a stream showing ``view``: a whole ``state``
    message, or a ``delta`` from ``view``'s version applied to it (presence skipped)."""
    end = time.monotonic() + timeout
    name = None
    while time.monotonic() < end:
        line = resp.fp.readline().decode()
        if line.startswith("event: "):
            name = line[7:].strip()
        elif line.startswith("data: ") and name == "state":
            return json.loads(line[6:])
        elif line.startswith("data: ") and name == "delta":
            d = json.loads(line[6:])
            assert d["from"] == view["version"], (d["from"], view["version"])
            return patch(view, d["ops"])
        elif line == "\n":
            name = None
    raise AssertionError("no state message in time")


@pytest.fixture
def two(app, tmp_path):
    """Two processes (the app fixture made the schema and drops it afterwards)."""
    a = Server(URL, tmp_path / "a.log", threads=16).start()
    b = Server(URL, tmp_path / "b.log", threads=16).start()
    yield a, b
    a.stop()
    b.stop()


def test_a_change_made_on_one_process_reaches_the_screens_of_the_other(two):
    a, b = two
    st, made = a.call("POST", "/api/tables", {"wall_distance": 4})
    assert st == 201
    code, v = made["code"], made["view"]["version"]
    on_b = stream(b, code, v)
    on_a = stream(a, code, v)
    time.sleep(0.3)          # both listeners are up once their first stream opened

    t0 = time.monotonic()
    st, joined = a.call("POST", f"/api/tables/{code}/seats",
                        {"version": v, "idempotency_key": "mp-000001", "side": "red",
                         "name": "Ann"})
    assert st == 201
    view = next_state(on_b, made["view"])
    assert view["version"] == v + 1 and view["seats"][0]["name"] == "Ann"
    assert time.monotonic() - t0 < 2.0
    assert joined["secret"] not in json.dumps(view)

    # and back: a post on B shows on A's screen
    st, _ = b.call("POST", f"/api/tables/{code}/events",
                   {"version": v + 1, "idempotency_key": "mp-000002",
                    "event": {"type": "exhaust", "side": "red", "ranks": [3]}},
                   joined["secret"])
    assert st == 201
    seen = next_state(on_a, made["view"])
    while seen["version"] < v + 2:
        seen = next_state(on_a, seen)
    assert seen["state"]["drawn"]["red"] == [3]
    assert next_state(on_b, view) == seen           # both processes' screens agree
