"""Fixtures for the web tests: an app on a fresh database, a client, players as seats."""

from __future__ import annotations

import itertools
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from companion.web import create_app
from harness.steps import steps

ORIGIN = "http://localhost"
_keys = itertools.count(1)


class Migrated:
    """A database the migrations brought up to date once per test process, and each
    test's app given one as it was then. The migrations ran again for every test: about
    half of making an app (a fresh database's upgrade is checked where it is the point:
    test_serve.py, test_migrations.py, test_upgrades.py, test_migration_crashes.py).

    On SQLite each test's app starts on a copy of the file. On PostgreSQL the tables are
    kept between tests and emptied after each (TRUNCATE, ids from 1 again), the rows the
    migrations themselves put there (the memory's version) written back; a test that left
    the schema elsewhere (a migration taken down, every table dropped) meets the next
    start's own upgrade."""

    def __init__(self, folder: Path) -> None:
        url = os.environ.get("DATABASE_URL", "")
        self.pg = url.startswith("postgresql")
        self.url = url if self.pg else f"sqlite:///{folder / 'test.sqlite'}"
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self.tables: list[str] = []       # PostgreSQL: the migrated tables, by name
        self.emptying = ""                # …and the statements that empty them
        if self.pg:                       # whatever an earlier run left, from nothing
            engine = sa.create_engine(url, poolclass=sa.NullPool)
            meta = sa.MetaData()
            meta.reflect(engine)
            meta.drop_all(engine)
            engine.dispose()
        made = create_app({"TESTING": True, "SECRET_KEY": "test",
                           "SQLALCHEMY_DATABASE_URI": self.url}, instance_path=str(folder))
        if self.pg:
            with made.app_context():
                from companion.store.models import db
                with db.engine.connect() as c:
                    self.tables = self._tables(c)
                    self.rows = {t: [dict(r) for r in c.execute(
                        sa.text(f'SELECT * FROM "{t}"')).mappings()] for t in self.tables}
                    self.emptying = self._emptying(c)
        self.close(made, empty=False)     # (SQLite: the last connection closed, no -wal)

    @staticmethod
    def _tables(c: sa.Connection) -> list[str]:
        return sorted(c.execute(sa.text(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
            "AND tablename <> 'alembic_version'")).scalars())

    def _emptying(self, c: sa.Connection) -> str:
        """One batch that empties the migrated tables, the rows the migrations put there
        written back, and starts each id where it started (TRUNCATE ... RESTART IDENTITY
        does the same, but makes each table's files anew: 12-60 ms a test, DELETE on a
        test's few rows 3-4 ms)."""
        meta = sa.MetaData()
        meta.reflect(c, only=self.tables)
        out = [f'DELETE FROM "{t.name}"' for t in reversed(meta.sorted_tables)]
        for t in meta.sorted_tables:
            for row in self.rows[t.name]:
                out.append(str(t.insert().values(row).compile(
                    c, compile_kwargs={"literal_binds": True})))
            if "id" in t.c:              # (the next row's id after them, as made)
                out.append(f"SELECT setval(pg_get_serial_sequence('\"{t.name}\"', 'id'), "
                           f"{max([r['id'] for r in self.rows[t.name]], default=1)}, "
                           f"{'true' if self.rows[t.name] else 'false'})")
        return ";\n".join(out)

    def _truncate(self, c: sa.Connection, tables: list[str]) -> None:
        """Empty whatever tables there are, the migrations' rows written back where their
        table is."""
        listed = ", ".join(f'"{t}"' for t in tables)
        c.execute(sa.text(f"TRUNCATE {listed} RESTART IDENTITY CASCADE"))
        meta = sa.MetaData()
        meta.reflect(c, only=[t for t in self.rows if self.rows[t] and t in tables])
        for table in meta.sorted_tables:
            c.execute(table.insert(), self.rows[table.name])
            if "id" in table.c:
                c.execute(sa.text(
                    f"SELECT setval(pg_get_serial_sequence('\"{table.name}\"', "
                    f"'id'), (SELECT max(id) FROM \"{table.name}\"))"))

    def url_for(self, tmp_path: Path) -> str:
        """The database of one test's app, as the migrations left it."""
        if self.pg:
            return self.url
        shutil.copy(self.url.removeprefix("sqlite:///"), tmp_path / "test.sqlite")
        return f"sqlite:///{tmp_path / 'test.sqlite'}"

    def close(self, app: Any, empty: bool = True) -> None:
        """Close what ``app`` opened on its database (on PostgreSQL, emptied)."""
        from companion import live
        from companion.store.models import db
        live.close(app)             # its PostgreSQL listener reads this database no more
        with app.app_context():
            db.session.remove()
            if self.pg and empty:
                with db.engine.begin() as c:
                    tables = self._tables(c)
                    if tables == self.tables:
                        c.exec_driver_sql(self.emptying)
                    elif tables:     # the schema left elsewhere: the next start upgrades it
                        self._truncate(c, tables)
            db.engine.dispose()


@pytest.fixture(scope="session")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Migrated:
    return Migrated(tmp_path_factory.mktemp("migrated"))


@pytest.fixture
def app(tmp_path, migrated):
    """The app on a fresh SQLite file, or on $DATABASE_URL when it names PostgreSQL;
    either as the migrations make it (see ``Migrated``)."""
    app = create_app({"TESTING": True, "SECRET_KEY": "test",
                      "SQLALCHEMY_DATABASE_URI": migrated.url_for(tmp_path)},
                     instance_path=str(tmp_path))
    yield app
    migrated.close(app)


@pytest.fixture
def keeper_key(app):
    """The keeper key of the app's instance folder (issue 20), as the serve command
    prints it in the keeper link."""
    from pathlib import Path
    return (Path(app.instance_path) / "keeper_key").read_text().strip()


@pytest.fixture
def client(app):
    return app.test_client()


class Player:
    """One screen at the table (a seat's phone, or the host screen) talking over HTTP."""

    def __init__(self, client, code: str, secret: str | None = None, name: str = "host") -> None:
        self.client = client
        self.code = code
        self.secret = secret
        self.name = name
        self.version = 0
        self.view: dict[str, Any] = {}
        self.seat: dict[str, Any] | None = None

    def headers(self) -> dict[str, str]:
        h = {"Origin": ORIGIN}
        if self.secret:
            h["Authorization"] = f"Bearer {self.secret}"
        return h

    def refresh(self) -> dict[str, Any]:
        r = self.client.get(f"/api/tables/{self.code}/state", headers=self.headers())
        assert r.status_code == 200, r.get_json()
        self.view = r.get_json()["view"]
        self.version = self.view["version"]
        return self.view

    @property
    def state(self) -> dict[str, Any]:
        return self.view["state"]

    def post(self, path: str, body: dict[str, Any], expect: int | None = None,
             key: str | None = None, fresh: bool = True) -> Any:
        """POST as this screen; ``fresh`` first catches up, as the live push would have."""
        if fresh and self.secret is not None:
            self.refresh()
        body = {"version": self.version, "idempotency_key": key or f"key-{next(_keys):06d}",
                **body}
        r = self.client.post(f"/api/tables/{self.code}{path}", json=body, headers=self.headers())
        data = r.get_json()
        if expect is not None:
            assert r.status_code == expect, (r.status_code, data)
        if "view" in data:
            self.view = data["view"]
            self.version = self.view["version"]
        return r

    def event(self, event: dict[str, Any], expect: int = 201) -> Any:
        return self.post("/events", {"event": event}, expect)

    def draft(self, step: str, value: Any, expect: int = 200) -> Any:
        return self.post("/draft", {"step": step, "value": value}, expect)

    def undo(self, expect: int = 200) -> Any:
        return self.post("/undo", {}, expect)


@pytest.fixture
def table(client):
    """A fresh table (wall distance 2, no teams; ``first_game``: a learning game) and its
    host screen."""
    def make(wall_distance: int = 2, teams: bool = False, first_game: bool = False) -> Player:
        r = client.post("/api/tables", json={"wall_distance": wall_distance, "teams": teams,
                                             **({"first_game": True} if first_game else {})},
                        headers={"Origin": ORIGIN})
        assert r.status_code == 201, r.get_json()
        d = r.get_json()
        host = Player(client, d["code"], d["host_secret"])
        host.refresh()
        return host
    return make


def sit(host: Player, side: str, name: str, part: int | None = None,
        expect: int = 201, player: str | None = None) -> Player:
    """A phone joins the table as ``side`` (and ``part`` in team play); ``player``: the
    key the phone keeps for its player (issue 14)."""
    p = Player(host.client, host.code, None, name)
    p.refresh()
    body: dict[str, Any] = {"side": side, "name": name}
    if part is not None:
        body["part"] = part
    if player is not None:
        body["player"] = player
    r = p.post("/seats", body, expect)
    d = r.get_json()
    p.secret = d["secret"]
    p.seat = d["seat"]
    return p


def enter(host: Player, seats: dict[str, Player], events: Any,
          seen: Callable[[Any, dict[str, Any]], None] | None = None,
          tapped: Callable[[], None] | None = None) -> None:
    """Enter recorded ``events`` from the seats' phones, as ``harness.steps`` says the
    table does; ``seen(event, view)`` looks at the view each event is entered on,
    ``tapped()`` runs after each tap."""
    screens = {**seats, "host": host}
    for e in events:
        view = host.refresh()
        if seen is not None:
            seen(e, view)
        todo, status = steps(e, view), None
        try:
            while True:
                who, path, body = todo.send(status)
                r = screens[who].post(path, body)
                assert r.status_code in (200, 201), r.get_json()
                status = r.status_code
                if tapped is not None:
                    tapped()
        except StopIteration:
            pass


def read_qr(svg: bytes) -> str:
    """The text of a QR code drawn as ``M x y.5hN`` runs, decoded by zxing-cpp from the
    picture those runs make (8 px a module)."""
    import zxingcpp
    from PIL import Image, ImageDraw

    size = int(re.search(rb'viewBox="0 0 (\d+) ', svg).group(1))
    img = Image.new("L", (size * 8, size * 8), 255)
    draw = ImageDraw.Draw(img)
    for x, y, n in re.findall(rb"M(\d+) (\d+)\.5h(\d+)", svg):
        draw.rectangle((int(x) * 8, int(y) * 8, (int(x) + int(n)) * 8 - 1, int(y) * 8 + 7), 0)
    found = zxingcpp.read_barcodes(img)
    return found[0].text if found else ""
