"""``python -m benchmarks heads``: what strangers' request heads cost the server (issue 50).

Starts the production server (``python -m companion serve``, fresh SQLite) and, from
``--addresses`` loopback addresses (127.0.3.1 …), opens ``--connections`` connections
that send a big head and stop before its blank line, in two shapes:

- *old limits*: 99 header lines of 64 KB each (what the server took until issue 50);
- *largest taken*: header lines of 8 KB up to a byte under the 32 KB head (the most a
  head may hold now; under the old limits too).

For each, on a server of its own: its RSS (``/proc/<pid>/status`` VmRSS) idle, at its
highest while the heads come and are held (sampled every 20 ms), and after the
connections close (waited for up to 5 s); how many the server still holds once it has
read what they sent; how long a phone's request takes meanwhile.

Then *at the cap*: the server under an open-file limit of 512 (so at most 256
connections), one table with the big screen's live stream open, and the strangers'
connections in their heads filling the cap; then the phone: a post to sit down and its own
live stream. Before issue 50 a head being sent never made room: the phone was refused.

``--against PATH``: the same against the server of another checkout (e.g. a worktree of
an older commit), before this one's.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from harness.server import COMPANION, rss_mb, server_side

from .served import running_server

FILES = 512             # the open-file limit at the cap: 512 - 256 reserved = 256 connections
OLD_LINE, OLD_LINES = 64 * 1024, 99
LINE, HEAD = 8 * 1024, 32 * 1024


@contextmanager
def sampled(pid: int) -> Iterator[list[float]]:
    """The process's RSS every 20 ms while the block runs (``[0]``: the highest seen)."""
    peak = [rss_mb(pid)]
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.02):
            try:
                peak[0] = max(peak[0], rss_mb(pid))
            except OSError:
                return
    t = threading.Thread(target=watch, daemon=True)
    t.start()
    try:
        yield peak
    finally:
        done.set()
        t.join()
        peak[0] = max(peak[0], rss_mb(pid))


def until(check: Callable[[], bool], seconds: float) -> float | None:
    """Seconds until ``check()`` held (``None``: not within ``seconds``)."""
    t0 = time.monotonic()
    while not check():
        if time.monotonic() - t0 > seconds:
            return None
        time.sleep(0.02)
    return time.monotonic() - t0


def request(port: int, method: str, path: str, body: Any = None) -> tuple[str, float]:
    """One request from the phone (127.0.0.1) on a new connection: its status (or why it
    failed) and how long it took."""
    t0 = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {"Origin": f"http://127.0.0.1:{port}", "Content-Type": "application/json"}
        c.request(method, path, None if body is None else json.dumps(body), headers)
        r = c.getresponse()
        r.read()
        return str(r.status), time.monotonic() - t0
    except OSError as ex:
        return type(ex).__name__, time.monotonic() - t0
    finally:
        c.close()


def connect(port: int, n: int, sources: list[str]) -> list[socket.socket]:
    out = []
    for i in range(n):
        try:
            out.append(socket.create_connection(("127.0.0.1", port), timeout=10,
                                                source_address=(sources[i % len(sources)], 0)))
        except OSError:
            pass
    return out


def send_all(socks: list[socket.socket], parts: list[bytes]) -> int:
    """Each part to every connection in turn; how many connections the server closed."""
    dead: set[socket.socket] = set()
    for part in parts:
        for s in socks:
            if s in dead:
                continue
            try:
                s.sendall(part)
            except OSError:
                dead.add(s)
    return len(dead)


def flood(port: int, pid: int, n: int, sources: list[str], shape: str) -> dict[str, Any]:
    start = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode()
    if shape == "old limits":
        line = b"X-Flood: " + b"f" * (OLD_LINE - 11) + b"\r\n"
        parts = [start] + [line] * OLD_LINES
    else:
        parts, left = [start], HEAD - len(start) - 1          # a byte short of a whole head
        i = 0
        while left > 0:
            size = min(LINE, left)
            name = b"X-F%03d: " % i
            parts.append(name + b"f" * (size - len(name) - 2) + b"\r\n")
            left -= size
            i += 1
    sent_each = sum(map(len, parts))
    base = rss_mb(pid)
    with sampled(pid) as peak:
        socks = connect(port, n, sources)
        t0 = time.monotonic()
        cut = send_all(socks, parts)
        sent = time.monotonic() - t0
        # the server has read all it will: nothing left unread on its side
        read = until(lambda: server_side(port, sources)[1] == 0, 15)
        held = server_side(port, sources)[0]
        phone, took = request(port, "GET", "/api/openapi.json")
    for s in socks:
        s.close()
    back = until(lambda: rss_mb(pid) <= base + 2, 5)
    return {"shape": shape, "sent": sent_each, "base": base, "peak": peak[0],
            "after": rss_mb(pid), "back": back, "held": held, "cut": cut, "send_s": sent,
            "read_s": read, "phone": phone, "phone_ms": took * 1000, "opened": len(socks)}


def at_cap(port: int, pid: int, n: int, sources: list[str]) -> dict[str, Any]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("POST", "/api/tables", "{}", {"Origin": f"http://127.0.0.1:{port}",
                                           "Content-Type": "application/json"})
    code = json.loads(c.getresponse().read())["code"]
    c.close()
    screen = stream(port, code)
    slow = connect(port, n, sources)
    send_all(slow, [b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"s" * 1000 + b"\r\nX-"])
    until(lambda: server_side(port, sources)[1] == 0, 15)
    held = server_side(port, sources)[0]
    sat, took = request(port, "POST", f"/api/tables/{code}/seats",
                        {"version": 1, "idempotency_key": "heads-0001", "side": "red",
                         "name": "Ann"})
    t0 = time.monotonic()
    try:
        phone = stream(port, code)
        live = "served" if phone is not None else "refused"
    except OSError as ex:
        phone, live = None, type(ex).__name__
    live_ms = (time.monotonic() - t0) * 1000
    seen = screen is not None and _read(screen, b'"to": 2')
    for s in [*slow, screen, phone]:
        if s is not None:
            s.close()
    return {"held": held, "opened": len(slow), "post": sat, "post_ms": took * 1000,
            "stream": live, "stream_ms": live_ms, "screen_saw": seen}


def stream(port: int, code: str) -> socket.socket | None:
    """A live stream on the table (its first message read), or ``None`` if refused."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(f"GET /api/tables/{code}/stream?seat=viewer HTTP/1.1\r\n"
              f"Host: 127.0.0.1\r\n\r\n".encode())
    if not _read(s, b'"version"'):
        s.close()
        return None
    return s


def _read(s: socket.socket, marker: bytes) -> bool:
    got = b""
    try:
        while marker not in got:
            chunk = s.recv(65536)
            if not chunk:
                return False
            got += chunk
    except OSError:
        return False
    return True


def main(args: argparse.Namespace) -> int:
    n, k = args.connections, args.addresses
    sources = [f"127.0.3.{i}" for i in range(1, k + 1)]
    sides = [("before", args.against), ("this", None)] if args.against else [("this", None)]
    print(f"heads: {n} connections from {k} addresses send a head and stop before its blank "
          f"line; server RSS (VmRSS) idle, highest, and after they close")
    bad = 0
    for name, checkout in sides:
        for shape in ("old limits", "largest taken"):
            with running_server(args.threads or 32, None, COMPANION, checkout) as (srv, proc):
                f = flood(srv.port, proc.pid, n, sources, shape)
                back = "not within 5 s" if f["back"] is None else f"{f['back']:.1f} s"
                read = "not within 15 s" if f["read_s"] is None else f"{f['read_s']:.1f} s"
                print(f"  {name:6} {shape:13}: {f['sent'] / 1024:5.0f} KB each; RSS "
                      f"{f['base']:.0f} -> {f['peak']:.0f} MB at most -> {f['after']:.0f} MB "
                      f"after (back to idle + 2 MB: {back}); held {f['held']} of "
                      f"{f['opened']} once read (read in {read}, {f['cut']} cut off while "
                      f"sending, sent in {f['send_s']:.1f} s); a phone's GET meanwhile "
                      f"{f['phone']} in {f['phone_ms']:.0f} ms", flush=True)
                if name == "this" and f["peak"] > 200:
                    bad = 1
        files = ("prlimit", f"--nofile={FILES}:{FILES}", *COMPANION)
        with running_server(args.threads or 32, None, files, checkout) as (srv, proc):
            c = at_cap(srv.port, proc.pid, n, sources)
            print(f"  {name:6} at the cap ({FILES} open files, {n} slow heads, "
                  f"{c['held']} of them let in): the phone sits down {c['post']} in "
                  f"{c['post_ms']:.0f} ms, opens its live stream: {c['stream']} in "
                  f"{c['stream_ms']:.0f} ms; the big screen's stream saw it: "
                  f"{'yes' if c['screen_saw'] else 'no'}", flush=True)
            if name == "this" and not (c["post"] == "201" and c["stream"] == "served"):
                bad = 1
    print("targets: RSS <= 200 MB at most, back to idle after; at the cap the phone is "
          "served", file=sys.stderr if bad else sys.stdout)
    return bad
