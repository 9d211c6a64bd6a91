"""The table's screen handed to another screen by a seated phone, over HTTP: the screen
that opened a table played on phones is gone (a laptop that died, a browser that forgot
its key), and nothing could let a phone take over a seat or start the rematch. A screen
without the key makes one and shows its SHA-256 in a QR code; a phone seated at the
table sends it (``POST /api/tables/<code>/host``), and that screen is the table's
screen. A stranger, a viewer or a phone waiting for a seat cannot; the old key is worth
nothing after. (With the old screen still connected it is refused: test_presence.)"""

from __future__ import annotations

import hashlib

from .conftest import ORIGIN, Player, sit

STRANGER = {"REMOTE_ADDR": "127.0.3.2"}       # another device on the network
NEW = "s" * 43                                 # the key the other screen made


def sha(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def test_a_seated_phone_makes_another_screen_the_table_s_screen(table, client):
    host = table()
    red, blue = sit(host, "red", "Ann"), sit(host, "blue", "Bob")
    old_key = host.secret
    # nobody but a seated phone: a stranger with the code, a viewer, a phone waiting for
    # a seat that is taken
    before = host.refresh()["version"]
    r = client.post(f"/api/tables/{host.code}/host", json={
        "version": before, "idempotency_key": "hand-over-01", "host_hash": sha(NEW)},
        headers={"Origin": ORIGIN}, environ_base=STRANGER)
    assert r.status_code == 403 and r.get_json()["code"] == "not_seated"
    viewer = Player(client, host.code)
    viewer.refresh()
    viewer.post("/host", {"host_hash": sha(NEW)}, expect=403)
    eve = sit(host, "red", "Eve")               # asks to take over Ann's seat
    assert eve.seat["status"] == "pending"
    eve.post("/host", {"host_hash": sha(NEW)}, expect=403)
    # a hash that is none, or a seat's own key's
    for bad in (None, "", "z" * 64, sha(NEW).upper(), sha(NEW)[:-1], 5):
        r = red.post("/host", {"host_hash": bad}, expect=400)
        assert r.get_json()["field"] == "host_hash"
    r = red.post("/host", {"host_hash": sha(blue.secret)}, expect=409)
    assert r.get_json()["code"] == "secret_taken"
    assert host.refresh()["version"] == before
    # Ann's phone hands the table to the screen that made NEW: once, however often sent
    for _ in range(2):
        r = red.post("/host", {"host_hash": sha(NEW)}, key="hand-over-ann", fresh=False)
        assert r.status_code == 200, r.get_json()
        view = r.get_json()["view"]
        assert view["version"] == before + 1
        assert view["notice"] == "Ann's phone made another screen the table's screen"
    me = client.get(f"/api/tables/{host.code}/me", headers={"Authorization": f"Bearer {NEW}"})
    assert me.get_json()["role"] == "host"
    r = client.get(f"/api/tables/{host.code}/me", headers={"Authorization": f"Bearer {old_key}"})
    assert r.status_code == 401
    # the new screen does what only the table's screen does: lets Eve take over
    screen = Player(client, host.code, NEW)
    asks = client.get(f"/api/tables/{host.code}/requests",
                      headers=screen.headers()).get_json()["requests"]
    assert [a["name"] for a in asks] == ["Eve"]
    screen.post(f"/seats/{eve.seat['id']}/decision", {"approve": True}, expect=200)
    assert [s["name"] for s in screen.refresh()["seats"]] == ["Bob", "Eve"]
    # the old screen's key decides nothing any more
    host.secret = old_key
    r = client.post(f"/api/tables/{host.code}/undo", json={
        "version": screen.version, "idempotency_key": "old-host-undo"},
        headers=host.headers())
    assert r.status_code == 401


def test_the_screen_s_qr_code_carries_only_a_hash(table, client):
    """The QR code a screen shows for the hand-over: the table's join address with the
    hash (never a key); anything but a hash, or an unknown table, is not found."""
    host = table()
    r = client.get(f"/qr/{host.code}/screen/{sha(NEW)}.svg")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    for bad in (NEW, sha(NEW).upper(), sha(NEW)[:-1], "../" + sha(NEW)):
        assert client.get(f"/qr/{host.code}/screen/{bad}.svg").status_code == 404
    assert client.get(f"/qr/NOSUCH/screen/{sha(NEW)}.svg").status_code == 404
