"""Open screens hold no server thread (issue 15): the companion's server keeps every
live stream on its event loop, so many more screens than threads stay open while posts
are answered, every one of them sees each change, and a screen that leaves gives
everything back. Idle sockets that never send a request stop nothing either."""

from __future__ import annotations

import gc
import http.client
import json
import os
import socket
import threading
import time
import weakref
import zlib

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


def _chunks(raw: bytes) -> tuple[bytes, bytes]:
    """The body carried by HTTP/1.1 chunks in ``raw`` (after the head), and what is left
    of an unfinished chunk."""
    body, rest = b"", raw
    while b"\r\n" in rest:
        size, _, after = rest.partition(b"\r\n")
        n = int(size, 16)
        if len(after) < n + 2:
            break
        assert after[n:n + 2] == b"\r\n", "a chunk's framing is broken"
        body, rest = body + after[:n], after[n + 2:]
    return body, rest


def test_a_push_is_written_by_the_tap_that_made_it_gzipped_or_not(served, monkeypatch):
    """Issue 54: the thread that made a change writes it to the table's streams itself
    (:class:`companion.run.streams.Writer`), as HTTP/1.1 chunks, gzipped for a screen
    that accepts it, one message after the other; the loop writes only what it could
    not."""
    from companion.run.streams import Writer
    written: list[bool] = []
    now = Writer.now
    monkeypatch.setattr(Writer, "now", lambda self: written.append(now(self)) or written[-1])
    port = served.port
    st, made, _ = post(port, "/api/tables", {})
    code, v = made["code"], made["view"]["version"]
    plain = open_stream(port, code)
    packed = socket.create_connection(("127.0.0.1", port), timeout=10)
    packed.sendall(f"GET /api/tables/{code}/stream?seat=viewer HTTP/1.1\r\nHost: 127.0.0.1"
                   f"\r\nAccept-Encoding: gzip\r\n\r\n".encode())
    try:
        got = read_until(plain, b'"version": 1')
        head, _, raw = read_until(packed, b"\r\n\r\n").partition(b"\r\n\r\n")
        assert b"Content-Encoding: gzip" in head and b"Transfer-Encoding: chunked" in head
        unzip = zlib.decompressobj(31)
        text = b""
        for i, name in enumerate(["Ann", "Bob"]):
            written.clear()
            st, _, _ = post(port, f"/api/tables/{code}/seats",
                            {"version": v + i, "idempotency_key": f"push-{i:04d}",
                             "side": ["red", "blue"][i], "name": name})
            assert st == 201
            # both screens had it from the tap's own thread, whole
            assert written and all(written), written
            got = read_until(plain, f'"to": {v + i + 1}'.encode(), got)
            while f'"to": {v + i + 1}'.encode() not in text:
                raw += packed.recv(65536)
                body, raw = _chunks(raw)
                text += unzip.decompress(body)
        plain_text, rest = _chunks(got.partition(b"\r\n\r\n")[2])
        assert rest == b""
        # the same messages both ways, in order: connected, the view, then each change
        assert text.index(b"Ann sits") < text.index(b"Bob sits")
        assert plain_text.count(b"\n\n") == text.count(b"\n\n") >= 4
        assert plain_text.split(b"\n\n")[-3:] == text.split(b"\n\n")[-3:]
    finally:
        plain.close()
        packed.close()


@pytest.mark.anydb
def test_what_a_full_socket_did_not_take_the_loop_sends_first_in_order():
    """A screen that reads slowly: the tap's thread sends what its socket takes and
    leaves the rest (and anything newer) to the loop, which sends it in order when there
    is room; gzip's stream stays whole. A stream being written takes nothing from the
    others; a closed one is never written again."""
    import gevent
    from gevent import socket as gsocket

    from companion.run.streams import Writer

    class Sub:
        def __init__(self) -> None:
            self.news: list[bytes] = []

        def take(self) -> list[bytes]:
            out, self.news = self.news, []
            return out

    a, b = socket.socketpair()
    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    sub, sock = Sub(), gsocket.socket(fileno=a.detach())
    w = Writer(sub, sock, chunked=True, gz=True)
    first = w.head(b": connected\n\n")
    with w.lock:
        w.ready = True
    big = b"data: " + os.urandom(300_000).hex().encode() + b"\n\n"   # (gzip keeps it big)
    sub.news = [big]
    done: list[bool] = []
    t = threading.Thread(target=lambda: done.append(w.now()))
    t.start()
    t.join(10)
    assert done == [False] and w.rest          # only a part went: the rest waits
    sub.news = [b"data: after\n\n"]
    assert w.now() is False and sub.news       # nothing newer jumps ahead of it
    got = bytearray()
    reader = threading.Thread(target=lambda: [got.extend(c) for c in iter(
        lambda: b.recv(65536), b"")])
    reader.start()
    gevent.spawn(w.write).join(10)             # the loop: the rest, then what came since
    assert w.rest == b"" and sub.news == []
    with w.lock:
        w.closed = True
    sub.news = [b"data: never\n\n"]
    assert w.now() is False and sub.news       # a stream that ended is left alone
    sock.close()
    reader.join(10)
    body, rest = _chunks(bytes(got))
    text = zlib.decompressobj(31).decompress(first + body)
    assert rest == b"" and text == b": connected\n\n" + big + b"data: after\n\n"
    b.close()
