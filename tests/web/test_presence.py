"""Who is at the table cannot be forged (issue 20): a live stream counts a seat (or the
host screen) as connected only with the proof that seat's key earns, and watchers are
counted as devices, at most four per address, with a cap on one client's streams.

A real server on loopback; the stranger is 127.0.3.2."""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator

import pytest

from companion import live
from companion.run.server import Server

from .test_streams_and_threads import open_stream, post, read_until

STRANGER = "127.0.3.2"


@pytest.fixture
def served(app) -> Iterator[Server]:
    server = Server(app, threads=4).start()
    yield server
    server.stop()


def call(port: int, method: str, path: str, secret: str | None = None,
         body: dict | None = None, source: str = "127.0.0.1") -> tuple[int, dict]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    h = {"Origin": f"http://127.0.0.1:{port}", "Content-Type": "application/json"}
    if secret:
        h["Authorization"] = f"Bearer {secret}"
    c.request(method, path, json.dumps(body) if body is not None else None, h)
    r = c.getresponse()
    out = json.loads(r.read())
    c.close()
    return r.status, out


def presence(port: int, code: str) -> tuple[list[str], int]:
    """What the table's screens are told: the connected seats and the watchers."""
    _, d = call(port, "GET", f"/api/tables/{code}/state?since=100000")
    return d["connected"], d["watching"]


def settled(port: int, code: str, want) -> tuple[list[str], int]:
    """The presence once it is what ``want`` accepts (streams open on the loop)."""
    end = time.monotonic() + 5
    while True:
        got = presence(port, code)
        if want(got) or time.monotonic() > end:
            return got


def test_a_seat_counts_as_here_only_with_its_own_proof(served):
    port = served.port
    st, made, _ = post(port, "/api/tables", {})
    code, host_key = made["code"], made["host_secret"]
    keys = {}
    for i, (side, name) in enumerate((("red", "Ann"), ("blue", "Bob"))):
        st, d = call(port, "POST", f"/api/tables/{code}/seats",
                     body={"version": 1 + i, "idempotency_key": f"presence-{i:04d}", "side": side,
                           "name": name})
        assert st == 201
        keys[side] = (str(d["seat"]["id"]), d["secret"])
    red_id, red_key = keys["red"]
    blue_id, blue_key = keys["blue"]
    _, red_me = call(port, "GET", f"/api/tables/{code}/me", red_key)
    _, blue_me = call(port, "GET", f"/api/tables/{code}/me", blue_key)
    _, host_me = call(port, "GET", f"/api/tables/{code}/me", host_key)
    assert red_me["proof"] != blue_me["proof"] and red_key not in red_me["proof"]
    # a stranger's streams: no proof, a wrong one, another seat's, the host's without one
    forged = [open_stream(port, code, red_id, STRANGER, extra)
              for extra in ("", "&proof=" + "0" * 32, "&proof=" + blue_me["proof"])]
    forged.append(open_stream(port, code, "host", STRANGER))
    for s in forged:
        read_until(s, b"presence")
    connected, _ = presence(port, code)
    assert red_id not in connected and "host" not in connected
    # the seat's own phone, with its proof, from anywhere
    mine = open_stream(port, code, red_id, STRANGER, "&proof=" + red_me["proof"])
    host = open_stream(port, code, "host", "127.0.0.1", "&proof=" + host_me["proof"])
    connected, _ = settled(port, code, lambda g: red_id in g[0] and "host" in g[0])
    assert red_id in connected and "host" in connected and blue_id not in connected
    mine.close()
    # red's seat taken over (the host lets another phone in): the old proof is worth
    # nothing any more
    st, d = call(port, "POST", f"/api/tables/{code}/seats",
                 body={"version": 3, "idempotency_key": "presence-take", "side": "red",
                       "name": "Eve"})
    assert st == 201 and d["seat"]["status"] == "pending"
    _, v = call(port, "GET", f"/api/tables/{code}/state")
    st, _ = call(port, "POST", f"/api/tables/{code}/seats/{d['seat']['id']}/decision",
                 host_key, {"version": v["view"]["version"], "idempotency_key": "presence-yes1",
                            "approve": True})
    assert st == 200
    again = open_stream(port, code, red_id, STRANGER, "&proof=" + red_me["proof"])
    read_until(again, b"presence")
    connected, _ = settled(port, code, lambda g: red_id not in g[0])
    assert red_id not in connected
    for s in [*forged, host, again]:
        s.close()


def test_watchers_are_devices_and_one_client_holds_few_streams(served):
    port = served.port
    st, made, _ = post(port, "/api/tables", {})
    code = made["code"]
    # sixteen streams from one address, each a "device": it counts four
    many = [open_stream(port, code, "watch", STRANGER, f"&device=device{i:04d}")
            for i in range(live.STREAMS_PER_TABLE)]
    for s in many:
        read_until(s, b"presence")
    _, watching = settled(port, code, lambda g: g[1] >= 4)
    assert watching == live.DEVICES_PER_CLIENT
    # one more from that address is refused: too many streams
    extra = socket.create_connection(("127.0.0.1", port), timeout=10,
                                     source_address=(STRANGER, 0))
    extra.sendall(f"GET /api/tables/{code}/stream?seat=watch HTTP/1.1\r\nHost: 127.0.0.1"
                  f"\r\n\r\n".encode())
    answer = read_until(extra, b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 429") and b"Retry-After" in answer
    extra.close()
    for s in many:
        s.close()
    settled(port, code, lambda g: g[1] == 0)
    # two tabs of one phone count once; three phones count three
    tabs = [open_stream(port, code, "watch", "127.0.8.1", "&device=samephone1")
            for _ in range(2)]
    phones = [open_stream(port, code, "watch", f"127.0.8.{i}", f"&device=phone{i:05d}")
              for i in (2, 3)]
    _, watching = settled(port, code, lambda g: g[1] >= 3)
    assert watching == 3
    for s in tabs + phones:
        s.close()


def test_a_copy_of_a_game_sends_nobody_away_while_its_screen_is_there(served, keeper_key):
    """Issue 23's "go on here": a table says where its game went on (its phones offered
    the way there) only when that game is entered on its screen and that screen is gone.
    Another screen (the keeper's: issue 50, only a screen with a key names the table)
    going on with a game whose screen is connected, or a game its phones play, sends
    nobody away from it."""
    port = served.port
    both = [{"side": "red"}, {"side": "blue"}]

    def opened(screen: bool) -> tuple[str, str]:
        _, made, _ = post(port, "/api/tables", {"screen": both} if screen else {})
        return made["code"], made["host_secret"]

    def copied(code: str, n: int) -> tuple[str, str | None]:
        """The keeper's screen goes on with the game as it stands: the new table, and
        where the old one says its game goes on."""
        _, record = call(port, "GET", f"/api/tables/{code}/record")
        st, d = call(port, "POST", "/api/tables/import", keeper_key, body={
            "record": record, "from": code, "screen": both,
            "idempotency_key": f"copy-{n:05d}"}, source=STRANGER)
        assert st == 201, d
        _, v = call(port, "GET", f"/api/tables/{code}/state")
        return d["code"], v["view"]["went_on"]

    code, key = opened(screen=True)
    _, me = call(port, "GET", f"/api/tables/{code}/me", key)
    host = open_stream(port, code, "host", "127.0.0.1", "&proof=" + me["proof"])
    settled(port, code, lambda g: "host" in g[0])
    assert copied(code, 1)[1] is None            # its screen is there
    host.close()
    assert "host" not in settled(port, code, lambda g: "host" not in g[0])[0]
    new, said = copied(code, 2)                  # gone: the way to the new table
    assert said == new
    phones, _ = opened(screen=False)             # its phones play it, no screen gone
    assert copied(phones, 3)[1] is None


def test_who_is_connected_never_decides_who_the_table_s_screen_is(served):
    """A seated phone never makes another screen the table's screen (issue 50), while
    the table's screen is connected and after its stream closed alike; a screen with no
    key only asks, either way, and the table's screen's key hands it over either way
    (test_hand_over has every path; this one with real streams opening and closing)."""
    port = served.port
    _, made, _ = post(port, "/api/tables", {})
    code, host_key = made["code"], made["host_secret"]
    st, d = call(port, "POST", f"/api/tables/{code}/seats", body={
        "version": 1, "idempotency_key": "hand-seat-1", "side": "red", "name": "Ann"})
    red_key = d["secret"]
    _, me = call(port, "GET", f"/api/tables/{code}/me", host_key)
    host = open_stream(port, code, "host", "127.0.0.1", "&proof=" + me["proof"])
    settled(port, code, lambda g: "host" in g[0])
    n = 0

    def hand(bearer: str | None, key_hash: str, source: str = "127.0.0.1") -> tuple[int, dict]:
        nonlocal n
        n += 1
        return call(port, "POST", f"/api/tables/{code}/host", bearer, {
            "version": 2, "idempotency_key": f"hand-over-{n}", "host_hash": key_hash}, source)

    for connected in (True, False):
        st, d = hand(red_key, "ab" * 32)
        assert st == 403 and d["code"] == "not_host", (connected, d)
        st, d = hand(None, ("cd" if connected else "ef") * 32, STRANGER)
        assert st == 202, (connected, d)
        if connected:
            host.close()
            assert "host" not in settled(port, code, lambda g: "host" not in g[0])[0]
    st, d = hand(host_key, "12" * 32)
    assert st == 200, d
    st, _ = call(port, "GET", f"/api/tables/{code}/me", host_key)
    assert st == 401
