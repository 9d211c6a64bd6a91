"""Trust in what every table shares (issue 20): no stranger on the network can forge,
flood or delete the group's memory.

A real server on loopback; a *stranger* is another loopback address (127.0.3.2: a
client socket bound to it), the *laptop* is 127.0.0.1, and a *tunnel* is a local TCP
forwarder (every visitor through it arrives from 127.0.0.1, as behind ngrok, ssh -R
or a reverse proxy). Each attack of the issue is sent and its answer checked.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from companion import live
from companion.engine.simulate import random_record
from companion.run.server import Server
from companion.web import create_app

from .conftest import ORIGIN, enter, sit

LAPTOP, STRANGER = "127.0.0.1", "127.0.3.2"


class Peer:
    """One client of the real server, from ``source`` (its own loopback address)."""

    def __init__(self, port: int, source: str = LAPTOP, host: str | None = None) -> None:
        self.port, self.source = port, source
        self.host = host or f"127.0.0.1:{port}"

    def call(self, method: str, path: str, body: Any = None, key: str | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10,
                                       source_address=(self.source, 0))
        h = {"Host": self.host, "Origin": f"http://{self.host}", **(headers or {})}
        if key:
            h["Authorization"] = f"Bearer {key}"
        data = None
        if body is not None:
            data, h["Content-Type"] = json.dumps(body), "application/json"
        c.request(method, path, data, h)
        r = c.getresponse()
        raw = r.read()
        c.close()
        try:
            out = json.loads(raw)
        except ValueError:
            out = raw.decode("utf-8", "replace")
        return r.status, out, dict(r.getheaders())


class Tunnel:
    """A local TCP forwarder: what a tunnel or a reverse proxy looks like to the server
    (every connection from 127.0.0.1, whoever is behind it)."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.stopped = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stopped:
            try:
                near, _ = self.listener.accept()
            except OSError:
                return
            far = socket.create_connection(("127.0.0.1", self.target))
            for a, b in ((near, far), (far, near)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while chunk := a.recv(65536):
                b.sendall(chunk)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()

    def close(self) -> None:
        self.stopped = True
        self.listener.close()


@pytest.fixture
def served(app) -> Iterator[Server]:
    server = Server(app, threads=4).start()
    yield server
    server.stop()


def finished_record(seed: int) -> dict[str, Any]:
    return random_record(random.Random(seed), wall_distance=3).to_dict()


def import_game(peer: Peer, seed: int) -> tuple[int, Any]:
    status, body, _ = peer.call("POST", "/api/tables/import",
                                {"record": finished_record(seed)})
    return status, body


# --- host names: exact matches, never prefixes ---------------------------------------------

HOSTILE = ["127.rebind.example:8000", "127.attacker.example", "127.0.0.1.nip.io",
           "localhost.attacker.example", "127.1", "attacker.example", "[::2]:8000"]


def test_names_that_only_look_like_this_server_are_refused_everywhere(served, keeper_key):
    laptop = Peer(served.port)
    _, made = import_game(laptop, 1)
    code = made["code"]
    for host in HOSTILE:
        page = Peer(served.port, host=host)
        for method, path in (("GET", "/"), ("GET", "/history"), ("GET", "/api/history"),
                             ("GET", f"/api/tables/{code}/state"), ("GET", f"/t/{code}"),
                             ("GET", "/api/stats"), ("GET", "/keeper")):
            assert page.call(method, path)[0] == 421, (host, path)
        # a rebinding page in the laptop's own browser, even holding the keeper key
        status, _, _ = page.call("POST", f"/api/history/{code}/delete", {}, key=keeper_key)
        assert status == 421, host
    assert laptop.call("GET", f"/api/tables/{code}/state")[0] == 200      # still there
    # IP literals of this machine and its names are answered
    for host in (f"127.0.0.1:{served.port}", "127.3.2.1", "localhost:8000", "[::1]:8000"):
        assert Peer(served.port, host=host).call("GET", "/api/openapi.json")[0] == 200, host


# --- the keeper: a key, never an address ---------------------------------------------------

def test_no_key_deletes_nothing_from_any_address_and_the_keeper_key_does(served, keeper_key):
    laptop, stranger = Peer(served.port), Peer(served.port, STRANGER)
    codes = [import_game(laptop, seed)[1]["code"] for seed in (2, 3, 4)]
    tunnel = Tunnel(served.port)
    try:
        visitor = Peer(tunnel.port)           # arrives from 127.0.0.1 through the tunnel
        visitor.host = f"127.0.0.1:{served.port}"
        for peer in (stranger, laptop, visitor):
            status, body, _ = peer.call("POST", f"/api/history/{codes[0]}/delete", {})
            assert status == 403 and body["code"] == "not_host", body
            assert peer.call("POST", "/api/keeper", {})[0] == 403
            assert peer.call("POST", "/api/keeper", {}, key="not-the-key")[0] == 403
            assert peer.call("POST", "/api/history/imported/delete", {})[0] == 403
            assert peer.call("POST", "/api/keeper/backup", {})[0] == 403   # nor a copy
        assert len(laptop.call("GET", "/api/history?apart=1")[1]["games"]) == 3
        # the keeper key works from any address: here through the tunnel
        sqlite = not os.environ.get("DATABASE_URL", "").startswith("postgresql")
        assert visitor.call("POST", "/api/keeper", {}, key=keeper_key)[:2] == \
            (200, {"keeper": True, "backup": sqlite, "screens": []})   # (no screen asks)
        status, body, _ = visitor.call("POST", f"/api/history/{codes[0]}/delete", {},
                                       key=keeper_key)
        assert (status, body) == (200, {"deleted": codes[0]})
        # every imported game in one action
        status, body, _ = stranger.call("POST", "/api/history/imported/delete", {},
                                        key=keeper_key)
        assert (status, body) == (200, {"deleted": 2})
        assert laptop.call("GET", "/api/history?apart=1")[1]["games"] == []
    finally:
        tunnel.close()


def test_players_are_forgotten_by_their_own_key_or_the_keepers_only(table, client, keeper_key):
    host = table()
    sit(host, "red", "Ann", player="ann-player-key-0001-" + "a" * 20)
    who = [s for s in host.refresh()["seats"] if s["name"] == "Ann"][0]["player"]
    for env in ({}, {"REMOTE_ADDR": STRANGER}, {"REMOTE_ADDR": "::1"}):
        r = client.post(f"/api/players/{who}/delete", json={}, headers={"Origin": ORIGIN},
                        environ_base=env)
        assert r.status_code == 403, env
    r = client.post(f"/api/players/{who}/delete", json={}, environ_base={"REMOTE_ADDR": STRANGER},
                    headers={"Origin": ORIGIN, "Authorization": f"Bearer {keeper_key}"})
    assert r.status_code == 200


def test_the_keeper_page_keeps_nothing_by_itself(client):
    r = client.get("/keeper")
    assert r.status_code == 200 and "keeper.js" in r.get_data(as_text=True)
    # the page holds no key: the key lives in the link's fragment and the instance folder
    assert "sl-keeper" not in r.get_data(as_text=True)


@pytest.mark.anydb
def test_the_serve_command_prints_the_keeper_link(tmp_path, capsys):
    import os

    from companion.cli import main
    old = os.environ.get("SPIES_LIES_INSTANCE")
    os.environ["SPIES_LIES_INSTANCE"] = str(tmp_path)
    try:
        assert main(["keeper", "--port", "8123"]) == 0
    finally:
        if old is None:
            del os.environ["SPIES_LIES_INSTANCE"]
        else:
            os.environ["SPIES_LIES_INSTANCE"] = old
    key = (tmp_path / "keeper_key").read_text().strip()
    out = capsys.readouterr().out.strip()
    assert out.startswith("http://127.0.0.1:8123/keeper#once=") and key not in out
    assert (tmp_path / "keeper_key").stat().st_mode & 0o077 == 0      # the owner's only
    assert (tmp_path / "keeper_links").stat().st_mode & 0o077 == 0


# --- behind a proxy: --trust-proxy --------------------------------------------------------

@pytest.fixture
def proxied(tmp_path) -> Iterator[Server]:
    """The companion behind one trusted proxy hop (``--trust-proxy 1``)."""
    import os
    url = os.environ.get("DATABASE_URL", "")
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "TRUST_PROXY": 1,
                      "SQLALCHEMY_DATABASE_URI": url if url.startswith("postgresql") else
                      f"sqlite:///{tmp_path / 'p.sqlite'}"}, instance_path=str(tmp_path))
    server = Server(app, threads=4).start()
    yield server
    server.stop()
    live.close(app)
    from companion.store.models import db
    with app.app_context():
        db.session.remove()
        if url.startswith("postgresql"):
            import sqlalchemy as sa
            db.drop_all()
            with db.engine.begin() as c:
                c.execute(sa.text("DROP TABLE IF EXISTS alembic_version"))
        db.engine.dispose()


@pytest.mark.anydb
def test_behind_a_trusted_proxy_each_visitor_has_its_own_limits(proxied):
    tunnel = Tunnel(proxied.port)
    try:
        def visitor(addr: str) -> Peer:
            p = Peer(tunnel.port, host=f"127.0.0.1:{proxied.port}")
            p.call = _with_forwarded(p.call, addr)          # type: ignore[method-assign]
            return p
        eve, ann = visitor("203.0.113.66"), visitor("198.51.100.7")
        _, made, _ = ann.call("POST", "/api/tables", {})
        code = made["code"]
        statuses = [eve.call("GET", f"/api/tables/Z{i:04d}/state")[0] for i in range(21)]
        assert statuses[:10] == [404] * 10 and set(statuses[10:]) == {429}
        assert eve.call("GET", f"/api/tables/{code}/state")[0] == 429      # eve herself
        assert ann.call("GET", f"/api/tables/{code}/state")[0] == 200      # not ann
        assert ann.call("GET", f"/j/{code}")[0] == 200
    finally:
        tunnel.close()


def _with_forwarded(call, addr):
    def wrapped(method, path, body=None, key=None, headers=None):
        return call(method, path, body, key, {**(headers or {}), "X-Forwarded-For": addr})
    return wrapped


def test_without_trust_forwarded_headers_are_ignored(served):
    stranger = Peer(served.port, STRANGER)
    _, made, _ = Peer(served.port).call("POST", "/api/tables", {})
    for i in range(10):
        status, _, _ = stranger.call("GET", f"/api/tables/Y{i:04d}/state",
                                     headers={"X-Forwarded-For": f"10.1.1.{i}"})
        assert status == 404
    # ten misses from one address, whatever it claims: it is refused, the laptop is not
    status, _, headers = stranger.call("GET", f"/api/tables/{made['code']}/state",
                                       headers={"X-Forwarded-For": "10.1.1.99"})
    assert status == 429 and int(headers["Retry-After"]) >= 1
    assert Peer(served.port).call("GET", f"/api/tables/{made['code']}/state")[0] == 200


# --- imports and what they may change -------------------------------------------------------

def test_the_same_record_imported_again_is_the_same_game(served):
    stranger = Peer(served.port, STRANGER)
    first = import_game(stranger, 5)
    again = [import_game(stranger, 5) for _ in range(2)]
    assert first[0] == 201 and "host_secret" in first[1]
    for status, body in again:
        assert status == 200 and body["existing"] is True and body["code"] == first[1]["code"]
        assert "host_secret" not in body
    games = Peer(served.port).call("GET", "/api/history?apart=1")[1]["games"]
    assert [g["code"] for g in games] == [first[1]["code"]] and games[0]["imported"] is True
    status, page, _ = Peer(served.port).call("GET", "/history?apart=1")
    assert status == 200 and page.count('data-testid="imported"') == 1


def test_a_game_played_here_and_imported_again_counts_once(table, client):
    rec = random_record(random.Random(6), wall_distance=2)
    host = table(wall_distance=2)
    enter(host, {"red": sit(host, "red", "Ann"), "blue": sit(host, "blue", "Bob")},
          rec.events)
    assert host.refresh()["state"]["phase"] == "over"
    saved = client.get(f"/api/tables/{host.code}/record").get_json()
    r = client.post("/api/tables/import", json={"record": saved}, headers={"Origin": ORIGIN})
    assert r.status_code == 200 and r.get_json()["code"] == host.code
    assert len(client.get("/api/history").get_json()["games"]) == 1


def test_imports_tables_and_players_are_limited_per_client_and_in_total(served, app):
    stranger, laptop = Peer(served.port, STRANGER), Peer(served.port)
    # a group that reopens its saved games one by one is never refused ...
    assert [import_game(laptop, 100 + i)[0] for i in range(12)] == [201] * 12
    # ... a flood is told to wait, with Retry-After, and does not reach the history
    flood = [stranger.call("POST", "/api/tables/import", {"record": finished_record(200 + i)})
             for i in range(25)]
    assert [s for s, _, _ in flood[:20]] == [201] * 20
    refused = flood[20]
    assert refused[0] == 429 and refused[1]["code"] == "rate_limited"
    assert 1 <= int(refused[2]["Retry-After"]) <= 61
    assert laptop.call("GET", "/api/history?apart=1")[1]["total"] == 32
    # new tables: ten a minute per client; the laptop still opens its own
    made = [stranger.call("POST", "/api/tables", {})[0] for _ in range(12)]
    assert made[:10] == [201] * 10 and made[10:] == [429, 429]
    assert laptop.call("POST", "/api/tables", {})[0] == 201
    # all clients together: a budget of their own, which stops the clients that spent
    # some of it lately (issue 50: never the next one to open its first table)
    app.config["RATE_LIMITS"] = {"tables_all": "3 per hour", "tables_clean": "1 per 10 minutes"}
    others = [Peer(served.port, f"127.0.4.{i}").call("POST", "/api/tables", {})[0]
              for i in range(1, 6) for _ in range(2)]
    assert others == [201, 201] + [201, 429] * 4      # (the first two fit in the three)


def test_new_players_are_limited_per_client(table, client, app):
    app.config["RATE_LIMITS"] = {"players": "3 per hour"}
    statuses = []
    for i in range(5):
        host = table()
        r = client.post(f"/api/tables/{host.code}/seats",
                        json={"version": host.version, "idempotency_key": f"pl-{i:06d}",
                              "side": "red", "name": f"P{i}",
                              "player": f"player-key-{i:06d}-" + "b" * 24},
                        headers={"Origin": ORIGIN}, environ_base={"REMOTE_ADDR": STRANGER})
        statuses.append(r.status_code)
        if r.status_code == 429:
            assert r.headers["Retry-After"] and r.get_json()["code"] == "rate_limited"
    assert statuses == [201, 201, 201, 429, 429]
    # a phone whose player is already known joins as ever
    host = table()
    r = client.post(f"/api/tables/{host.code}/seats",
                    json={"version": host.version, "idempotency_key": "pl-again-01",
                          "side": "red", "name": "P0", "player": "player-key-000000-" + "b" * 24},
                    headers={"Origin": ORIGIN}, environ_base={"REMOTE_ADDR": STRANGER})
    assert r.status_code == 201


# --- the language switch goes only to a page of this server ---------------------------------

@pytest.mark.parametrize("asked", ["/%09/evil.example", "/%0a/evil.example", "//evil.example",
                                   "/%5cevil.example", "https://evil.example", "/%0d%0aX: y",
                                   "%2F%2Fevil.example", "/ /evil.example"])
def test_the_language_switch_never_leaves_the_server(client, asked):
    r = client.get(f"/lang/fr?next={asked}")
    assert r.status_code == 303 and r.headers["Location"] == "/"


def test_the_language_switch_goes_back_to_the_page(client):
    r = client.get("/lang/de?next=/t/ABCDE%3Fx%3D1")
    assert r.status_code == 303 and r.headers["Location"] == "/t/ABCDE?x=1"
