"""Open live streams must not starve ordinary requests, and closed ones give back
their server thread at once (waitress, as ``spies-lies serve`` configures it)."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest
from waitress import create_server

from companion.serve import server_options

THREADS = 12


@pytest.fixture
def served(app):
    server = create_server(app, host="127.0.0.1", port=0, **server_options(THREADS))
    port = server.socket.getsockname()[1]
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    yield port
    server.task_dispatcher.shutdown(timeout=5)   # its threads first: none writes to a
    server.close()                               # trigger already closed
    t.join(5)


def post(port: int, path: str, body: dict, timeout: float = 5.0) -> tuple[int, dict, float]:
    t0 = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    c.request("POST", path, json.dumps(body), {"Origin": f"http://127.0.0.1:{port}",
                                               "Content-Type": "application/json"})
    r = c.getresponse()
    data = json.loads(r.read())
    c.close()
    return r.status, data, time.monotonic() - t0


def open_streams(port: int, code: str, n: int) -> list[socket.socket]:
    out = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(f"GET /api/tables/{code}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        assert b": connected" in s.recv(4096) or b": connected" in s.recv(4096)
        out.append(s)
    return out


def test_a_post_is_served_promptly_with_streams_on_all_but_a_few_threads(served):
    port = served
    st, made, _ = post(port, "/api/tables", {})
    assert st == 201
    code, v = made["code"], made["view"]["version"]
    streams = open_streams(port, code, THREADS - 2)
    try:
        st, _, took = post(port, f"/api/tables/{code}/seats",
                           {"version": v, "idempotency_key": "starve-0001", "side": "red",
                            "name": "Ann"})
        assert st == 201 and took < 2.0
    finally:
        for s in streams:
            s.close()


def test_closed_streams_give_their_threads_back(served):
    port = served
    _, made, _ = post(port, "/api/tables", {})
    code = made["code"]
    for _ in range(3):          # 3 x (threads - 2) streams: more than there are threads
        streams = open_streams(port, code, THREADS - 2)
        for s in streams:
            s.close()
        time.sleep(1.2)              # the reaper looks every 0.5 s
    st, _, took = post(port, "/api/tables", {})
    assert st == 201 and took < 2.0
    from companion.web import live
    assert live.hub.get(code) is None        # no channel left behind
