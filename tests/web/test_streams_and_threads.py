"""Open screens hold no server thread (issue 15): the companion's server keeps every
live stream on its event loop, so many more screens than threads stay open while posts
are answered, every one of them sees each change, and a screen that leaves gives
everything back. Idle sockets that never send a request stop nothing either."""

from __future__ import annotations

import gc
import http.client
import json
import socket
import threading
import time
import weakref

import pytest

from companion import live
from companion.run.gcfreeze import Between
from companion.run.server import Server

THREADS = 4
SCREENS = 3 * THREADS * 5          # 60 open streams: 15 x the threads (issue: 3 x)


@pytest.fixture
def served(app):
    server = Server(app, threads=THREADS).start()
    yield server
    server.stop()


def post(port: int, path: str, body: dict, timeout: float = 10.0) -> tuple[int, dict, float]:
    t0 = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    c.request("POST", path, json.dumps(body), {"Origin": f"http://127.0.0.1:{port}",
                                               "Content-Type": "application/json"})
    r = c.getresponse()
    data = json.loads(r.read())
    c.close()
    return r.status, data, time.monotonic() - t0


def open_stream(port: int, code: str, seat: str = "viewer", source: str = "127.0.0.1",
                extra: str = "") -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    s.sendall(f"GET /api/tables/{code}/stream?seat={seat}{extra} HTTP/1.1\r\n"
              f"Host: 127.0.0.1\r\n\r\n".encode())
    return s


def read_until(s: socket.socket, marker: bytes, got: bytes = b"") -> bytes:
    """Read from ``s`` until ``marker`` has arrived (the stream's bytes so far)."""
    while marker not in got:
        chunk = s.recv(65536)
        assert chunk, f"the stream ended before {marker!r}"
        got += chunk
    return got


def test_many_more_screens_than_threads_are_served_while_posts_are_answered(served):
    port = served.port
    st, made, _ = post(port, "/api/tables", {})
    assert st == 201
    code, v = made["code"], made["view"]["version"]
    # the host screen, and watchers on 15 devices' addresses (4 each: a device counts
    # once, and one address counts for at most 4 watching devices)
    streams = [open_stream(port, code) if i == 0 else
               open_stream(port, code, "watch", f"127.0.7.{1 + i % 15}", f"&device=dev{i:06d}")
               for i in range(SCREENS)]
    try:
        seen = [read_until(s, b'"version": 1') for s in streams]     # each has the view
        assert served.streams == SCREENS and SCREENS >= 3 * THREADS
        # with 15 x more streams open than threads, a post is answered at once ...
        st, _, took = post(port, f"/api/tables/{code}/seats",
                           {"version": v, "idempotency_key": "many-0001", "side": "red",
                            "name": "Ann"})
        assert st == 201 and took < 5.0
        # ... and every open screen sees the change (a delta to version 2)
        for i, s in enumerate(streams):
            got = read_until(s, b'"to": 2', seen[i])
            assert b"Ann sits down" in got
        # ordinary requests too, several at once on the few threads
        for _ in range(THREADS * 2):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            c.request("GET", f"/api/tables/{code}/state")
            assert c.getresponse().status == 200
            c.close()
        # the TV counts its watchers: every stream is one connected screen
        assert live.hub.watching(code) == SCREENS - 1
    finally:
        for s in streams:
            s.close()
    # each closed stream is noticed when its socket closes, not at the next keep-alive
    end = time.monotonic() + 5
    while live.hub.get(code) is not None and time.monotonic() < end:
        time.sleep(0.05)
    assert live.hub.get(code) is None and served.streams == 0    # no channel left behind


def test_idle_sockets_stop_nothing(served):
    """Idle and half-sent connections from other devices (four addresses, 250 sockets)
    hold no thread and keep no phone waiting."""
    port = served.port
    idle = [socket.create_connection(("127.0.0.1", port), timeout=10,
                                     source_address=(f"127.0.5.{1 + i % 2}", 0))
            for i in range(200)]
    slow = []
    for i in range(50):            # a request that never finishes its headers
        s = socket.create_connection(("127.0.0.1", port), timeout=10,
                                     source_address=(f"127.0.5.{3 + i % 2}", 0))
        s.sendall(b"GET /api/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        slow.append(s)
    try:
        st, made, took = post(port, "/api/tables", {})
        assert st == 201 and took < 5.0
    finally:
        for s in idle + slow:
            s.close()


def test_a_silent_connection_is_closed_but_a_quiet_stream_stays(app):
    server = Server(app, threads=2, idle=0.5, request_line=0.5).start()
    try:
        port = server.port
        _, made, _ = post(port, "/api/tables", {})
        code, v = made["code"], made["view"]["version"]
        silent = socket.create_connection(("127.0.0.1", port), timeout=10)
        stream = open_stream(port, code)
        got = read_until(stream, b'"version": 1')
        t0 = time.monotonic()
        assert silent.recv(1) == b"" and time.monotonic() - t0 < 5    # closed by the server
        silent.close()
        time.sleep(1.0)              # the stream was quiet twice as long as ``idle``
        st, _, _ = post(port, f"/api/tables/{code}/seats",
                        {"version": v, "idempotency_key": "quiet-0001", "side": "red",
                         "name": "Ann"})
        assert st == 201
        assert b"Ann sits down" in read_until(stream, b'"to": 2', got)
        stream.close()
    finally:
        server.stop()


class _Knot:
    """Garbage only the cyclic collector takes back: an object that refers to itself."""


def test_young_garbage_is_collected_between_requests_while_the_server_waits(app):
    """Issue 54: a collection stops every thread, so one in the middle of a tap delayed
    it. ``spies-lies serve`` collects the young generations when nothing is in flight;
    CPython collects by itself only when requests never stop (Between.BUSY)."""
    before = gc.get_threshold()
    server = Server(app, threads=2, between=True).start()
    during: list[int] = []          # requests in flight at each collection on the loop

    def noted(phase: str, info: dict) -> None:
        if phase == "start" and threading.current_thread() is server._thread:
            during.append(server.between.in_flight)
    gc.callbacks.append(noted)
    try:
        assert gc.get_threshold() == (Between.BUSY, *before[1:])
        knots = []
        for _ in range(3):
            gc.collect()        # (what the test run made so far: not this test's garbage)
            for _ in range(before[0] + 100):     # past CPython's threshold0 of new ones
                k = _Knot()
                k.me = k
                knots.append(weakref.ref(k))
            del k
            st, made, _ = post(server.port, "/api/tables", {})
            assert st == 201 and made["view"]["version"] == 1
            deadline = time.monotonic() + 10
            while any(r() is not None for r in knots) and time.monotonic() < deadline:
                time.sleep(0.01)
            assert all(r() is None for r in knots)     # nobody called gc.collect here
            knots.clear()
        assert sum(server.between.collected) >= 3 and during and not any(during)
    finally:
        gc.callbacks.remove(noted)
        server.stop()
    assert gc.get_threshold() == before          # the process's own, once it stops
