"""Two server processes on one PostgreSQL database show each other's changes live.

Each process fans out its changes with NOTIFY and republishes the others'
(``companion/live/fanout.py``). Skipped unless ``DATABASE_URL`` names PostgreSQL
(``./scripts/test`` runs the suite a second time on PostgreSQL).
"""

from __future__ import annotations

import http.client
import json
import os
import time

import pytest

from companion.live.delta import patch
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


def test_a_change_made_while_a_listener_was_away_still_reaches_its_screens(two, app):
    """PostgreSQL restarts: every connection drops, the one a process listens on and
    those in its pool. A change the other process commits before the listener is back
    was announced to no one there. Once back, the process reads again every table it
    shows (its first read meets a dead pooled connection and is made again), so its
    screens get the change without waiting for the next one."""
    import psycopg
    a, b = two
    st, made = a.call("POST", "/api/tables", {"wall_distance": 4})
    code, v = made["code"], made["view"]["version"]
    on_b = stream(b, code, v)
    time.sleep(0.3)
    with psycopg.connect(URL.replace("postgresql+psycopg://", "postgresql://"),
                         autocommit=True) as admin:
        cut = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                            "datname = current_database() AND pid <> pg_backend_pid()"
                            ).fetchall()
    assert len(cut) >= 3              # b's listener and pooled connection, a's pool at least
    from companion.store.models import db
    with app.app_context():           # (and this test's own, which drops the schema after)
        db.engine.dispose()
    for _ in range(3):                # at once, before they are back (503: a's pool too)
        st, _ = a.call("POST", f"/api/tables/{code}/seats",
                       {"version": v, "idempotency_key": "mp-away-1", "side": "red",
                        "name": "Ann"})
        if st != 503:
            break
    assert st == 201
    view = next_state(on_b, made["view"], timeout=8.0)
    assert view["version"] == v + 1 and view["seats"][0]["name"] == "Ann"


def test_a_tap_when_the_database_connection_was_lost_is_asked_again_not_lost(app, table):
    """PostgreSQL restarted under the server: the tap that meets the dead connection is
    answered 503 ``database_unavailable`` with Retry-After (the screens' script sends the
    same key again, ``static/live.js``), not 500 "something went wrong"; the same tap
    again is recorded once."""
    import psycopg

    from .conftest import sit
    host = table()
    red = sit(host, "red", "Ann")
    red.refresh()
    with psycopg.connect(URL.replace("postgresql+psycopg://", "postgresql://"),
                         autocommit=True) as admin:       # every other connection dropped
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                      "datname = current_database() AND pid <> pg_backend_pid()")
    tap = {"event": {"type": "exhaust", "side": "red", "ranks": [10]}}
    r = red.post("/events", tap, key="lost-tap-0001", fresh=False)
    assert r.status_code == 503, r.get_json()
    assert r.get_json()["code"] == "database_unavailable" and r.headers["Retry-After"] == "1"
    r = red.post("/events", tap, key="lost-tap-0001", fresh=False)
    assert r.status_code == 201, r.get_json()
    again = red.post("/events", tap, key="lost-tap-0001", fresh=False)       # a replay
    assert again.status_code == 201
    assert host.refresh()["state"]["drawn"]["red"] == [10]
    assert len(host.client.get(f"/api/tables/{host.code}/record").get_json()["events"]) == 1


def test_a_tap_tells_the_others_what_changed_in_its_own_transaction(app, table, monkeypatch):
    """Issue 24: a tap (an event, a step of a reveal) on a table whose view this process
    shows sends its NOTIFY with the operations from that view inside its own transaction
    (delivered when, and only when, it commits), not in a second one after it; a change
    of the seats still tells them after its commit. Either way the operations make the
    next view exactly, in any language. Issue 54: the operations go only when another
    process has said it shows the table; else the NOTIFY names the version alone (a
    process that shows the table and has not said so yet reads it)."""
    import psycopg

    from companion import live
    from companion.edge import lang
    from companion.live.channel import remote_streams
    from companion.live.delta import patched
    from companion.live.fanout import LISTENER
    from companion.play.tables import load
    from companion.table import views

    from .conftest import sit

    after_commit: list[int] = []
    tell = live.PgFanout.tell
    monkeypatch.setattr(live.PgFanout, "tell", lambda self, view, since: (
        after_commit.append(view["version"]), tell(self, view, since))[1])
    host = table(wall_distance=3)
    red = sit(host, "red", "Ann")
    listen = psycopg.connect(URL.replace("postgresql+psycopg://", "postgresql://"),
                             autocommit=True, application_name=LISTENER)   # another process
    listen.execute(f"LISTEN {live.NOTIFY_CHANNEL}")
    ch = live.hub.subscribe(host.code)          # a screen of the table is open here
    # ... and on another process, which said so
    remote_streams[host.code] = {"elsewhere": (time.monotonic(), {"host": 1})}
    try:
        def shown() -> dict:
            with app.test_request_context():
                view = views.public_view(load(host.code))
            ch.publish(view["version"], view)
            return view

        def told(change) -> tuple[int, list]:
            before = shown()
            change()
            notes = list(listen.notifies(timeout=3, stop_after=1))
            assert len(notes) == 1
            head, _, ops = notes[0].payload.partition("|")
            with app.test_request_context():
                after = views.public_view(load(host.code))
            assert head == f"{host.code}:{after['version']}:{live.WORKER}:{before['version']}"
            made = patched(before, lang.revive(ops))
            for locale in ("en", "de"):
                assert (json.loads(lang.dumps(made, locale))
                        == json.loads(lang.dumps(after, locale)))
            assert ch.data == after
            return before["version"], lang.revive(ops)

        blue = []
        told(lambda: blue.append(sit(host, "blue", "Bob")))   # seats: told after the commit
        assert len(after_commit) == 1
        since, ops = told(lambda: red.event({"type": "exhaust", "side": "red", "ranks": [4]}))
        assert len(after_commit) == 1                    # in its transaction, not after
        assert ch.ops[since] == ops          # diffed once: the streams send the same
        # a change refused (sent from a version the table has left): no NOTIFY at all
        shown()
        blue[0].version -= 1
        blue[0].post("/events", {"event": {"type": "exhaust", "side": "blue", "ranks": [9]}},
                     409, fresh=False)
        assert not list(listen.notifies(timeout=0.5, stop_after=1))
        # nobody else shows the table: a tap's NOTIFY, and one told after a commit, name
        # the version alone
        del remote_streams[host.code]
        v = shown()["version"]
        blue[0].refresh()
        blue[0].event({"type": "exhaust", "side": "blue", "ranks": [9]})
        note, = list(listen.notifies(timeout=3, stop_after=1))
        assert note.payload == f"{host.code}:{v + 1}:{live.WORKER}"
        assert ch.version == v + 1              # this process's streams have it all the same
        with app.test_request_context():
            app.extensions["live_fanout"].tell(views.public_view(load(host.code)), v)
        note, = list(listen.notifies(timeout=3, stop_after=1))
        assert note.payload == f"{host.code}:{v + 1}:{live.WORKER}"
        # ... and a change whose view is made after its commit (an undo asked) tells it in
        # its own transaction: nothing to say after it
        told_after = len(after_commit)
        red.refresh()
        red.post("/undo", {}, 200)
        note, = list(listen.notifies(timeout=3, stop_after=1))
        assert note.payload == f"{host.code}:{v + 2}:{live.WORKER}"
        assert len(after_commit) == told_after and ch.version == v + 2
    finally:
        remote_streams.pop(host.code, None)
        live.hub.unsubscribe(ch)
        listen.close()


def test_a_tap_notifies_only_when_another_process_listens(app, table):
    """Issue 54: a tap's statement sends its NOTIFY only when another process listens on
    the database (a session named as a process's listener, not this process's own): one
    server alone pays no NOTIFY. A session that listens under any other name is no
    process of the companion's; once one that is listens, every tap is told to both."""
    import psycopg

    from companion import live
    from companion.live.fanout import LISTENER

    from .conftest import sit

    host = table(wall_distance=3)
    red, blue = sit(host, "red", "Ann"), sit(host, "blue", "Bob")
    raw = URL.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(raw, autocommit=True, application_name="a stranger") as stranger:
        stranger.execute(f"LISTEN {live.NOTIFY_CHANNEL}")
        red.event({"type": "exhaust", "side": "red", "ranks": [4]})
        assert list(stranger.notifies(timeout=1, stop_after=1)) == []
        with psycopg.connect(raw, autocommit=True, application_name=LISTENER) as other:
            other.execute(f"LISTEN {live.NOTIFY_CHANNEL}")
            v = blue.event({"type": "exhaust", "side": "blue", "ranks": [9]}).get_json()[
                "view"]["version"]
            for conn in (other, stranger):
                notes = list(conn.notifies(timeout=3, stop_after=1))
                assert [n.payload.split(":")[:2] for n in notes] == [[host.code, str(v)]]


def test_a_change_whose_commit_failed_lends_nothing_to_the_next(app, table, monkeypatch):
    """Issue 24: a tap whose view and operations were made in its transaction, and whose
    commit then failed, leaves nothing behind: the next change from the same version (one
    whose view is made after its commit, as a seat change's or another process's) goes
    to the streams with its own operations, not the failed one's. (Since issue 54 a tap's
    rows, its NOTIFY and its commit are one statement, and its view is made while the
    database writes it: the database refuses that statement, a value out of range.)"""
    from sqlalchemy import event

    from companion import live
    from companion.edge import lang
    from companion.play.tables import load
    from companion.store.models import db
    from companion.table import views

    from .conftest import sit

    host = table(wall_distance=3)
    red, blue = sit(host, "red", "Ann"), sit(host, "blue", "Bob")
    failed: list[int] = []

    def fail_once(conn, cursor, statement, *args) -> None:
        if statement.startswith("WITH u AS") and not failed:
            failed.append(1)
            return statement, {**args[0], "r_status": 1 << 40}    # no INTEGER holds it
        return statement, args[0]

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", fail_once, retval=True)
    ch = live.hub.subscribe(host.code)          # a screen of the table is open here
    try:
        with app.test_request_context():
            before = views.public_view(load(host.code))
        ch.publish(before["version"], before)
        red.event({"type": "exhaust", "side": "red", "ranks": [4]}, expect=500)
        assert failed and ch.told is not None and ch.version == before["version"]
        notify = live.PgFanout.notify         # the next change: its view made after it
        monkeypatch.setattr(live.PgFanout, "notify", lambda self, conn, code, version,
                            since, view=None: notify(self, conn, code, version, since))
        blue.event({"type": "exhaust", "side": "blue", "ranks": [9]})
        with app.test_request_context():
            after = views.public_view(load(host.code))
        assert after["version"] == before["version"] + 1 == ch.version
        assert after["state"]["drawn"] == {"red": None, "blue": [9]}
        with ch.cond:                                # what a stream showing it is sent
            sent = json.loads(ch.delta_body(before["version"], "en") or "null")
        assert (sent["from"], sent["to"]) == (before["version"], after["version"])
        shown = patch(json.loads(lang.dumps(before, "en")), sent["ops"])
        assert shown == json.loads(lang.dumps(after, "en"))
    finally:
        event.remove(engine, "before_cursor_execute", fail_once)
        live.hub.unsubscribe(ch)
