"""Issue 54: what one accepted tap costs the database, counted on the database in use.

A tap's time on a server is mostly its round trips to the database and their statements:
each is a wait on the network and a parse, and on PostgreSQL each transaction costs a
``BEGIN`` and a ``COMMIT`` of its own. A tap or an event reads its table (with its seats)
and writes its rows; on PostgreSQL the read runs alone and the rows (the table's
compare-and-swap, the events, the receipt, the NOTIFY) are one statement that is its own
transaction: two round trips in all, one commit (the durable floor's insert alone takes
three: ``BEGIN``, the insert, ``COMMIT``). On SQLite there is no server to reach: the rows
are written one statement each.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from sqlalchemy import event

from companion.engine.simulate import random_record
from companion.store.models import db
from harness.steps import steps

from .conftest import Player

# what a tap may also touch: the group's memory (a finished game); on SQLite also its
# intel cards (a round's card learnt, those offered at the intel step), which PostgreSQL
# counts in the change's one statement and reads alone
EXTRAS = re.compile(r'(FROM|INTO|UPDATE|JOIN) "?(game|game_side|memory|rating|player)\b')
CARDS = re.compile(r'(FROM|INTO) "?intel_card\b')


def test_an_accepted_tap_takes_two_round_trips_and_one_commit(table, app):
    """Every event and reveal tap of a random game, posted from the phones: on PostgreSQL
    two statements, no ``BEGIN``/``COMMIT`` of their own, one commit, and the write's
    ``NOTIFY`` inside it; on SQLite the table read, its update, one insert per event and
    the receipt, one commit. A round's last reveal counts its intel card in that same
    statement on PostgreSQL, and a tap whose view offers the group's cards reads them
    alone, a third statement and still no transaction. A tap that ends the game writes
    the group's memory too (counted apart, never more than one commit)."""
    with app.app_context():
        engine = db.engine
    pg = engine.dialect.name == "postgresql"
    said: list[tuple[str, bool]] = []          # (statement, in a transaction of its own)
    commits = [0]

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        raw = conn.connection.driver_connection
        said.append((statement, bool(pg and not raw.autocommit)))

    def committed(conn: Any) -> None:
        commits[0] += 1

    rec = random_record(random.Random(54), wall_distance=2)
    host = table()
    screens: dict[str, Player] = {"host": host}
    for side, name in (("red", "Ann"), ("blue", "Bob")):
        phone = Player(host.client, host.code, None, name)
        phone.refresh()
        d = phone.post("/seats", {"side": side, "name": name}, 201).get_json()
        phone.secret = d["secret"]
        screens[side] = phone
    event.listen(engine, "before_cursor_execute", seen)
    event.listen(engine, "commit", committed)
    plain = learnt = offered = 0
    try:
        for e in rec.events:
            todo, status = steps(e, host.refresh()), None
            try:
                while True:
                    who, path, body = todo.send(status)
                    screens[who].refresh()            # caught up, as the live push would
                    said.clear()
                    commits[0] = 0
                    r = screens[who].post(path, body, fresh=False)
                    assert r.status_code in (200, 201), r.get_json()
                    status = r.status_code
                    events = 1 + len(r.get_json().get("followed", [])) \
                        if status == 201 else 0
                    assert commits[0] == 1, (path, body, said)
                    if any(EXTRAS.search(s) for s, _ in said) or \
                            (not pg and any(CARDS.search(s) for s, _ in said)):
                        continue
                    plain += 1
                    kinds = [s.split()[0] for s, _ in said]
                    if pg:
                        # the table read alone, then the change in one statement: no
                        # BEGIN and no COMMIT sent for either (nor for the cards offered,
                        # read before it or while it is written)
                        cards = [s for s, _ in said if s.startswith("SELECT") and CARDS.search(s)]
                        offered += len(cards)
                        change = [s for s, _ in said if s.startswith("WITH")]
                        assert kinds[0] == "SELECT" and len(change) == 1, (path, body, said)
                        assert sorted(kinds) == ["SELECT", *["SELECT"] * len(cards), "WITH"], \
                            (path, body, said)
                        learnt += "INSERT INTO intel_card" in change[0]
                        assert not any(tx for _, tx in said), (path, body, said)
                        assert "pg_notify" in change[0]
                    else:
                        assert kinds == ["SELECT", "UPDATE", *["INSERT"] * events,
                                         "INSERT"], (path, body, said)
            except StopIteration:
                pass
    finally:
        event.remove(engine, "before_cursor_execute", seen)
        event.remove(engine, "commit", committed)
    assert plain >= 0.8 * len(rec.events), plain
    if pg:           # the game's rounds ended and began in the one statement and alone
        assert learnt >= 2 and offered >= 2, (learnt, offered)


def test_a_change_tells_the_other_processes_once(table, app):
    """A seat sitting down (a change whose view is made after its commit) tells the other
    processes of it with one NOTIFY on PostgreSQL: the one statement that writes it carried
    it, and a second was sent after it (a change told twice)."""
    with app.app_context():
        engine = db.engine
    notified: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if "pg_notify" in statement:
            notified.append(statement.split()[0])

    host = table()
    event.listen(engine, "before_cursor_execute", seen)
    try:
        for side, name in (("red", "Ann"), ("blue", "Bob")):
            notified.clear()
            phone = Player(host.client, host.code, None, name)
            phone.refresh()
            phone.post("/seats", {"side": side, "name": name}, 201)
            assert len(notified) == (1 if engine.dialect.name == "postgresql" else 0), notified
    finally:
        event.remove(engine, "before_cursor_execute", seen)


def test_the_table_read_without_the_orm_gives_the_objects_the_orm_would(table, app):
    """Issue 54: a request's table and seats are read with one plain statement and made
    into the ORM's objects (:mod:`companion.store.loaded`). They hold what the ORM's own
    query loads, the seats in order and each pointing at its table, nothing waiting to be
    written; a change to one is written as to any loaded object, and a second read in the
    same request gives the object the session holds."""
    from sqlalchemy.orm import joinedload

    from companion.store.loaded import table_by_code
    from companion.store.models import Seat, Table

    from .conftest import sit

    host = table(wall_distance=3)
    sit(host, "red", "Ann")
    sit(host, "blue", "Bob")
    columns = [c.key for c in Table.__mapper__.column_attrs]
    seat_columns = [c.key for c in Seat.__mapper__.column_attrs]
    with app.app_context():
        orm = db.session.scalar(db.select(Table).options(joinedload(Table.seats))
                                .where(Table.code == host.code))
        expected = ({k: getattr(orm, k) for k in columns},
                    [{k: getattr(s, k) for k in seat_columns} for s in orm.seats])
        db.session.remove()

        got = table_by_code(host.code)
        assert got is not None
        assert ({k: getattr(got, k) for k in columns},
                [{k: getattr(s, k) for k in seat_columns} for s in got.seats]) == expected
        assert [s.name for s in got.seats] == ["Ann", "Bob"]
        assert all(s.table is got for s in got.seats)
        assert not (db.session.new or db.session.dirty or db.session.deleted)
        assert table_by_code(host.code) is got           # the object the session holds
        assert table_by_code("NOSUCH") is None

        got.seats[0].name = "Anna"                       # written as any loaded object
        db.session.commit()
        db.session.remove()
        again = table_by_code(host.code)
        assert again is not None and [s.name for s in again.seats] == ["Anna", "Bob"]
        bob = again.seats[1].id
        db.session.refresh(again)
        assert again.version == expected[0]["version"]
        db.session.remove()

        # a seat the session already holds: the same object in the table's seats
        held = db.session.get(Seat, bob)
        read = table_by_code(host.code)
        assert read is not None and read.seats[1] is held and held.table is read
        assert not (db.session.new or db.session.dirty or db.session.deleted)
        db.session.remove()


def test_a_statement_run_plainly_fails_as_sqlalchemy_says(table, app):
    """The post path's statements go to the driver's cursor (:mod:`companion.store
    .prepared`), and their failures are SQLAlchemy's own exceptions: a second receipt with
    the same key is an ``IntegrityError`` (how a retry that raced its first attempt is
    recognised), and nothing of the failed statement is kept."""
    from sqlalchemy import bindparam, insert, select
    from sqlalchemy.exc import IntegrityError

    from companion.store.models import Receipt, Table, now
    from companion.store.prepared import Prepared

    host = table()
    add = Prepared(lambda: insert(Receipt.__table__).values(
        table_id=bindparam("t"), key=bindparam("k"), status=bindparam("s"),
        body=bindparam("b"), created=bindparam("at")))
    with app.app_context():
        tid = db.session.scalar(select(Table.id).where(Table.code == host.code))
        conn = db.session.connection()
        assert add.run(conn, t=tid, k="same-key", s=200, b="{}", at=now()).rowcount == 1
        db.session.commit()
        conn = db.session.connection()
        with pytest.raises(IntegrityError):
            add.run(conn, t=tid, k="same-key", s=200, b="{}", at=now())
        db.session.rollback()
        kept = db.session.scalars(select(Receipt.key).where(Receipt.table_id == tid)).all()
        assert kept.count("same-key") == 1


def test_a_statement_sent_before_its_answer_is_read(table, app):
    """Issue 54: on PostgreSQL a change's one statement is sent, the change's view is made
    while the database writes it, and then its answer is read (:mod:`companion.store
    .sent`). Its answer is the one :meth:`Prepared.run` gives; a statement on that
    connection in between (a view that reads the group's cards) first takes that answer;
    a failure is SQLAlchemy's own exception, raised again if asked again; prepared
    statements the driver dropped (psycopg deallocates them all at a rollback) are
    prepared again, under names never used before. On SQLite it runs when sent."""
    from sqlalchemy import bindparam, insert, select
    from sqlalchemy.exc import IntegrityError

    from companion.store.models import Receipt, Table, now
    from companion.store.prepared import Prepared, alone

    host = table()
    add = Prepared(lambda: insert(Receipt.__table__).values(
        table_id=bindparam("t"), key=bindparam("k"), status=bindparam("s"),
        body=bindparam("b"), created=bindparam("at")))
    count = Prepared(lambda: select(db.func.count()).select_from(Receipt.__table__)
                     .where(Receipt.__table__.c.key.like(bindparam("like"))))
    with app.app_context():
        tid = db.session.scalar(select(Table.id).where(Table.code == host.code))
        db.session.commit()
        conn = db.session.connection()
        with alone(conn):
            sent = add.send(conn, t=tid, k="sent-1", s=201, b="{}", at=now())
            # read in between: the sent statement's answer is taken first
            assert db.session.scalar(select(Table.code).where(Table.id == tid)) == host.code
            assert sent.result().rowcount == 1
            again = add.send(conn, t=tid, k="sent-1", s=201, b="{}", at=now())
            with pytest.raises(IntegrityError):
                again.result()
            with pytest.raises(IntegrityError):         # the same failure, asked again
                again.result()
            if conn.dialect.name == "postgresql":
                conn.connection.driver_connection.execute("DEALLOCATE ALL")
            # one prepared anew, then one whose name is gone, then the first again
            assert count.send(conn, like="sent-%").result().fetchone() == (1,)
            assert add.send(conn, t=tid, k="sent-2", s=200, b="{}",
                            at=now()).result().rowcount == 1
            assert count.send(conn, like="sent-%").result().fetchone() == (2,)
        db.session.commit()
        kept = db.session.scalars(select(Receipt.key).where(Receipt.table_id == tid)
                                  .order_by(Receipt.key)).all()
        assert [k for k in kept if k.startswith("sent-")] == ["sent-1", "sent-2"]
        if conn.dialect.name == "postgresql":     # the connection lost while it is out
            from sqlalchemy.exc import DBAPIError
            nap = Prepared(lambda: select(db.func.pg_sleep(bindparam("s"))))
            db.session.commit()                   # (the read above opened a transaction)
            conn = db.session.connection()
            pid = conn.connection.driver_connection.info.backend_pid
            with alone(conn):
                slow = nap.send(conn, s=2.0)
                with db.engine.connect() as other:
                    other.execute(db.text(f"SELECT pg_terminate_backend({pid})"))
                with pytest.raises(DBAPIError) as lost:
                    slow.result()
            assert lost.value.connection_invalidated
            db.session.rollback()
            assert db.session.scalar(select(Table.code).where(Table.id == tid)) == host.code


def test_a_tap_reaches_the_screens_only_once_committed(table, app, monkeypatch):
    """Issue 54: a tap whose one statement is its own transaction is pushed to the screens
    as soon as that statement answers (it is durable then), before the request's own
    bookkeeping; one written inside a transaction opened before it (something was read
    first) is pushed only after its commit. Either way no screen is sent a change that
    is not yet committed."""
    from sqlalchemy import select

    from companion import live
    from companion.play import opening
    from companion.store.models import Table

    from .conftest import sit

    host = table(wall_distance=3)
    red, blue = sit(host, "red", "Ann"), sit(host, "blue", "Bob")
    ch = live.hub.subscribe(host.code)          # a screen of the table is open here
    seen: list[tuple[int, bool]] = []           # (version, a transaction still open)
    publish = live.Channel.publish

    def watched(self: Any, version: int, data: Any) -> None:
        if self is ch:
            raw = db.session.connection().connection.driver_connection
            busy = (raw.info.transaction_status != 0 if app_pg else
                    raw.in_transaction)
            seen.append((version, busy))
        publish(self, version, data)

    with app.app_context():
        app_pg = db.engine.dialect.name == "postgresql"
    monkeypatch.setattr(live.Channel, "publish", watched)
    try:
        red.refresh()
        red.event({"type": "exhaust", "side": "red", "ranks": [4]})
        closed = opening.closed
        monkeypatch.setattr(opening, "closed", lambda t: (
            db.session.scalar(select(Table.id).where(Table.id == t.id)), closed(t)))
        blue.refresh()
        blue.event({"type": "exhaust", "side": "blue", "ranks": [9]})
    finally:
        live.hub.unsubscribe(ch)
    now = red.refresh()["version"]
    assert [v for v, _ in seen] == [now - 1, now], seen
    assert not any(busy for _, busy in seen), seen
