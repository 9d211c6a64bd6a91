"""One client cannot lock out every table (issue 20): a cap on one address's
connections, a cap on all of them below the open-file limit that always leaves room for
the phones, deadlines for a request to arrive, and a quiet log when clients vanish.

A stranger is another loopback address (a client socket bound to 127.0.3.2); the
seated phone is 127.0.0.1. The server runs in this process, on a thread."""

from __future__ import annotations

import http.client
import json
import logging
import resource
import socket
import struct
import time

import pytest

from companion.run.guard import PER_CLIENT
from companion.run.server import Server

from .test_streams_and_threads import open_stream, post, read_until

# sockets and their caps: the server's edge, the same on any database
pytestmark = pytest.mark.anydb

STRANGER = "127.0.3.2"


def get(port: int, path: str) -> tuple[int, float]:
    t0 = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", path)
    status = c.getresponse().status
    c.close()
    return status, time.monotonic() - t0


def table(port: int) -> str:
    st, made, _ = post(port, "/api/tables", {})
    assert st == 201
    return str(made["code"])


def test_ten_thousand_idle_sockets_from_one_client_delay_no_phone(app):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    flood = min(10_000, hard - 2_000)      # this process holds both ends
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    server = Server(app, threads=4).start()
    socks: list[socket.socket] = []
    try:
        code = table(server.port)
        for _ in range(flood):
            try:
                socks.append(socket.create_connection(("127.0.0.1", server.port), timeout=10,
                                                      source_address=(STRANGER, 0)))
            except OSError:                 # the backlog: a connect that waits is refused
                pass
        assert len(socks) >= 0.9 * flood
        guard = server.guard
        # the loop accepts (and refuses) the backlog at its own pace: a busy machine may
        # need minutes for 10,000 (the figures are read once it is done). Over the cap each
        # one closes the client's own oldest silent one (issue 50), or is refused at once;
        # under it, it is closed at the 5 s request-line deadline (on a slow run, the more
        # the longer the flood takes)
        closed = lambda: guard.refused + guard.expired + guard.evicted        # noqa: E731
        deadline = time.monotonic() + 120
        while closed() < 0.9 * len(socks) - PER_CLIENT and time.monotonic() < deadline:
            time.sleep(0.5)
        assert closed() >= 0.9 * len(socks) - PER_CLIENT, (guard.refused, guard.expired,
                                                           guard.evicted)
        # the server keeps at most its per-client cap of them (once the ones that made
        # room are closed, by their own greenlets, a moment after the newcomers came)
        while ((guard.peers.get(STRANGER, 0) > PER_CLIENT or guard.open > PER_CLIENT + 5)
               and time.monotonic() < deadline):
            time.sleep(0.1)
        assert guard.peers.get(STRANGER, 0) <= PER_CLIENT
        assert guard.open <= PER_CLIENT + 5
        st, took = get(server.port, f"/api/tables/{code}/state")      # the seated phone
        assert st == 200 and took < 2.0, took
        st, took = get(server.port, "/")                             # a new screen
        assert st == 200 and took < 2.0, took
    finally:
        for s in socks:
            s.close()
        server.stop()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_at_the_global_cap_a_waiting_connection_makes_room_never_a_stream(app):
    server = Server(app, threads=4, connections=50).start()
    idle: list[socket.socket] = []
    stream = None
    try:
        code = table(server.port)
        stream = open_stream(server.port, code)
        got = read_until(stream, b'"version": 1')
        for i in range(1, 61):               # 60 idle sockets from 60 addresses
            idle.append(socket.create_connection(("127.0.0.1", server.port), timeout=10,
                                                 source_address=(f"127.0.4.{i}", 0)))
        # the loop accepts the backlog at its own pace (a busy CI machine: over 0.5 s), and
        # an evicted connection is closed by its own greenlet a moment after the newcomer is
        # counted (CI saw 51 open then): the cap is checked once that has happened
        deadline = time.monotonic() + 30
        while ((server.guard.evicted < 10 or server.guard.open > 50)
               and time.monotonic() < deadline):
            time.sleep(0.1)
        assert server.guard.open <= 50 and server.guard.evicted >= 10
        # a phone still gets in (an idle connection made room) ...
        st, _, _ = post(server.port, f"/api/tables/{code}/seats",
                        {"version": 1, "idempotency_key": "cap-0001", "side": "red",
                         "name": "Ann"})
        assert st == 201
        # ... and the open stream was never the one closed: it sees the change
        assert b"Ann sits down" in read_until(stream, b'"to": 2', got)
    finally:
        if stream is not None:               # closed even when a check fails: a socket
            stream.close()                   # left to the collector warns in a later test
        for s in idle:
            s.close()
        server.stop()


def test_a_request_must_arrive_in_time(app):
    server = Server(app, threads=2, request_line=0.5, request_head=1.0).start()
    try:
        silent = socket.create_connection(("127.0.0.1", server.port), timeout=10,
                                          source_address=(STRANGER, 0))
        t0 = time.monotonic()
        assert silent.recv(1) == b"" and time.monotonic() - t0 < 3     # closed, no answer
        silent.close()
        # headers one byte at a time, 5 a second: closed once the head's time is up
        drip = socket.create_connection(("127.0.0.1", server.port), timeout=10,
                                        source_address=(STRANGER, 0))
        drip.sendall(b"GET / HTTP/1.1\r\n")
        t0 = time.monotonic()
        closed = False
        for ch in b"X-Slow: " + b"a" * 60:
            try:
                drip.sendall(bytes([ch]))
            except OSError:
                closed = True
                break
            time.sleep(0.2)
            drip.setblocking(False)
            try:
                if drip.recv(1) == b"":
                    closed = True
                    break
            except BlockingIOError:
                pass
            finally:
                drip.setblocking(True)
        assert closed and time.monotonic() - t0 < 4
        drip.close()
        # a connection between two requests waits no longer than a new one
        c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        c.request("GET", "/api/openapi.json")
        assert c.getresponse().read()
        time.sleep(1.0)
        with pytest.raises((http.client.HTTPException, OSError)):
            c.request("GET", "/api/openapi.json")
            c.getresponse()
        c.close()
    finally:
        server.stop()


def test_clients_that_vanish_mid_request_leave_no_trace(app, caplog, capfd):
    server = Server(app, threads=2).start()
    caplog.set_level(logging.DEBUG)
    parts = [b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
             b"\r\nContent-Length: 100\r\n\r\n{\"wall", b"GET /api/openapi.json HTTP/1.1\r\nHo",
             b"GET /hist", b"GET /api/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"]
    try:
        for i in range(200):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=10,
                                         source_address=(f"127.0.6.{1 + i % 50}", 0))
            s.sendall(parts[i % len(parts)])
            time.sleep(0.002)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()                        # a reset, mid-request or mid-answer
        time.sleep(0.5)
        st, _, _ = post(server.port, "/api/tables", {})
        assert st == 201                     # the server carries on
    finally:
        server.stop()
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "Error" not in err, err[-2000:]
    records = [r for r in caplog.records if r.name.startswith(("companion", "gevent"))
               and "alembic" not in r.name]
    assert not [r for r in records if r.exc_info], "a traceback was logged"
    assert len(records) <= 200 and all("\n" not in r.getMessage() for r in records)
    assert all(r.levelno <= logging.DEBUG for r in records
               if r.name.startswith("companion.run."))
    assert json.dumps([r.getMessage() for r in records])        # short lines, plain text


def test_a_write_is_sent_whole_holding_the_lock_and_waits_only_through_gevent():
    """Issue 54: the loop's writes are sent with the GIL held (no request thread takes it
    mid-push); what the socket cannot take at once is left to gevent's send, which
    waits for room (here until its timeout) instead of failing; a peer gone is an
    error as from any send."""
    from gevent import socket as gsocket

    from companion.run.connection import send_holding

    a, b = gsocket.socketpair()
    try:
        assert send_holding(a, b"id: 1\ndata: {}\n\n") == 16
        assert b.recv(100) == b"id: 1\ndata: {}\n\n"
        assert send_holding(a, memoryview(b"rest")) == 4         # (not bytes: gevent's)
        assert b.recv(100) == b"rest"
        a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        big = b"x" * (1 << 20)
        n = send_holding(a, big)
        assert 0 < n < len(big)                  # what fitted; the rest is the caller's
        a.settimeout(0.3)
        with pytest.raises(TimeoutError):        # full: gevent waits for room
            send_holding(a, big)
        b.close()
        with pytest.raises(OSError):
            for _ in range(100):                 # (the reset shows at a later send)
                send_holding(a, b"x")
                time.sleep(0.01)
    finally:
        a.close()
        b.close()
