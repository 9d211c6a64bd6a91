"""Every earlier release's database upgrades (issue 50): the games, players, statistics,
ratings and open seats a group had are all there after the current companion starts on
it, on SQLite and on PostgreSQL, and after ``spies-lies restore`` of an older file.

The databases are the ones each earlier release made itself: ``tests/upgrades/NNNN.json``
holds the rows the code of the last commit whose schema head was NNNN left after a few
games played through its own API, and what that API said about them
(``tests/upgrades/make.py`` made them). Here the schema is built with the migrations up
to NNNN (pytest-alembic's runner, on the suite's database), the rows put back, and the
current app started the way ``spies-lies serve`` starts it (``serve.app_or_said`` ->
``create_app``: the copy kept before migrating, the upgrade, the summaries backfilled);
then what the current API says is compared with what the old one said: the same games
in the same states, the same seats, the same players with the same games and wins, and
every player who played rated. The revisions come from the migrations' folder, not from
a list here: a new migration needs only its predecessor's file made.

pytest-alembic's standard checks run here too (one head, every migration upgrades,
the models match the migrations' DDL, each migration goes down and up again).
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import redirect_stderr
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import pytest_alembic
import sqlalchemy as sa
from alembic.script import ScriptDirectory
from pytest_alembic.config import Config
from pytest_alembic.plugin.fixtures import alembic_runner  # noqa: F401
from pytest_alembic.tests import (
    test_model_definitions_match_ddl,  # noqa: F401
    test_single_head_revision,  # noqa: F401
    test_up_down_consistency,  # noqa: F401
    test_upgrade,  # noqa: F401
)

from companion.run import serve
from companion.store.models import now
from companion.web import MIGRATIONS, create_app

from .conftest import ORIGIN

UPGRADES = Path(__file__).resolve().parents[1] / "upgrades"
SCRIPT = ScriptDirectory(str(MIGRATIONS))
HEAD = SCRIPT.get_current_head()
FIXTURES = {p.stem: p for p in sorted(UPGRADES.glob("[0-9][0-9][0-9][0-9].json"))}
PG = os.environ.get("DATABASE_URL", "").startswith("postgresql")


def alembic_settings() -> Config:
    return Config.from_raw_config({"file": str(MIGRATIONS / "alembic.ini"),
                                   "script_location": str(MIGRATIONS)})


@pytest.fixture
def alembic_config() -> Config:
    """pytest-alembic's runner on the companion's own migrations."""
    return alembic_settings()


@pytest.fixture
def alembic_engine(tmp_path: Path) -> Iterator[sa.Engine]:
    """The suite's database (PostgreSQL when DATABASE_URL names it), empty, and empty
    again afterwards."""
    engine = sa.create_engine(os.environ["DATABASE_URL"] if PG else
                              f"sqlite:///{tmp_path / 'alembic.sqlite'}")
    # (PostgreSQL: the tests before it in this process may have left the app's tables,
    # kept between tests at the latest revision: a release's database starts from none)
    empty(engine)
    yield engine
    empty(engine)
    engine.dispose()


def empty(engine: sa.Engine) -> None:
    """Drop every table (whatever revision the schema is at)."""
    meta = sa.MetaData()
    meta.reflect(engine)
    meta.drop_all(engine)


def fixture(revision: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURES[revision].read_text())
    return data


def build(engine: sa.Engine, revision: str) -> dict[str, Any]:
    """The schema at ``revision`` (its migrations, through pytest-alembic's runner) with
    the rows that release left; its file's data. Times are moved on together so that the
    latest is now: nothing expires for being made when the file was."""
    data = fixture(revision)
    with pytest_alembic.runner(alembic_settings(), engine) as runner:
        runner.migrate_up_to(revision)
    meta = sa.MetaData()
    meta.reflect(engine)
    shift = now() - datetime.fromisoformat(data["made"])
    with engine.begin() as c:
        for table in meta.sorted_tables:
            rows = data["rows"].get(table.name)
            if table.name == "alembic_version" or rows is None:
                continue
            c.execute(table.delete())            # what a migration put there (memory)
            if rows:
                c.execute(table.insert(), [_typed(table, r, shift) for r in rows])
        if engine.dialect.name == "postgresql":  # ids given: the sequences move past them
            for table in meta.sorted_tables:
                if "id" in table.c and isinstance(table.c.id.type, sa.Integer):
                    c.execute(sa.text(
                        f"SELECT setval(pg_get_serial_sequence('\"{table.name}\"', 'id'), "
                        f"coalesce((SELECT max(id) FROM \"{table.name}\"), 0) + 1, false)"))
    return data


def _typed(table: sa.Table, row: dict[str, Any], shift: Any) -> dict[str, Any]:
    """A row as SQLite gave it (times as text, flags as 0/1) in the column's own type."""
    out = {}
    for name, value in row.items():
        kind = table.c[name].type
        if value is not None and isinstance(kind, sa.DateTime):
            value = datetime.fromisoformat(value) + shift
        elif value is not None and isinstance(kind, sa.Boolean):
            value = bool(value)
        out[name] = value
    return out


def start(url: str, instance: Path) -> Any:
    """The current app as ``spies-lies serve`` makes it; what it said if it would not
    start fails the test."""
    said = io.StringIO()
    with redirect_stderr(said):
        app = serve.app_or_said(lambda: create_app(
            {"SECRET_KEY": "upgrades", "SQLALCHEMY_DATABASE_URI": url,
             **serve.engine_config(8)}, instance_path=str(instance)))
    assert app is not None, said.getvalue()
    return app


def stop(app: Any) -> None:
    from companion import live
    from companion.store.models import db
    live.close(app)
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def finds_everything(app: Any, data: dict[str, Any]) -> None:
    """What the current API says of the upgraded database is what the release said."""
    client = app.test_client()
    said = data["said"]
    rev = data["revision"]
    for code, old in said["tables"].items():
        r = client.get(f"/api/tables/{code}/state",
                       headers={"Origin": ORIGIN, "Authorization": f"Bearer {old['host_secret']}"})
        assert r.status_code == 200, (rev, code, old["role"], r.get_json())
        view = r.get_json()["view"]
        state = view["state"]
        for k in ("phase", "day", "ip", "winner", "reason", "events"):
            assert state[k] == old[k], (rev, code, old["role"], k, state[k], old[k])
        seats = sorted([s["side"], s["part"], s["name"], bool(s.get("screen"))]
                       for s in view["seats"] if s["status"] == "active")
        assert seats == old["seats"], (rev, code, old["role"])
        for k in ("rematch", "went_on"):          # where the game went on: the same table
            if old[k]:
                named = view[k].get("code") if isinstance(view[k], dict) else view[k]
                assert named == old[k], (rev, code, k, view[k])
        assert sorted(json.dumps(c, sort_keys=True) for c in view["seen_intel"]) == \
            old["seen_intel"], (rev, code)
        if old["role"] in ("open seat", "open team seat"):   # still free: a phone sits
            r = client.post(f"/api/tables/{code}/seats", headers={"Origin": ORIGIN},
                            json={"side": "blue", "name": "Newcomer",
                                  **({"part": 2} if view["teams"] else {}),
                                  "version": view["version"], "idempotency_key": "upgraded-" + rev})
            assert r.status_code == 201, (rev, old["role"], r.get_json())
    history: dict[str, str] = {}
    page, pages = 1, 1
    while page <= pages:
        d = client.get(f"/api/history?page={page}").get_json()
        history.update({g["code"]: g["winner"] for g in d["games"]})
        page, pages = page + 1, d["pages"]
    if "history" not in said:   # before 0007 nothing marked a game finished: every game
        over = {code: old["winner"] for code, old in said["tables"].items()  # played to
                if old["phase"] == "over"}                                  # its end
        assert over and history == over, (rev, history, over)
    if "history" in said:                   # the release had one (0007): the same games
        assert history == {g["code"]: g["winner"] for g in said["history"]}, rev
        stats = client.get("/api/stats").get_json()
        assert sorted([p["name"], p["games"], p["wins"]] for p in stats["players"]) == \
            said["stats"]["players"], rev
        assert stats["games"] == said["stats"]["games"], rev
        played = {name for name, games, _ in said["stats"]["players"] if games}
        ladder = {p["name"] for p in stats["ladder"]}
        assert played <= ladder, (rev, played, ladder)       # rated, from the backfill
        for p in stats["ladder"]:
            assert p["rated"] == next(g for n, g, _ in said["stats"]["players"]
                                      if n == p["name"]), (rev, p)


@pytest.mark.parametrize("revision", sorted(FIXTURES))
def test_a_database_of_each_earlier_release_upgrades_keeping_every_game(revision, tmp_path,
                                                                          alembic_engine):
    """Start path: the current companion started on the release's own database."""
    url = os.environ["DATABASE_URL"] if PG else \
        f"sqlite:///{tmp_path / 'instance' / 'companion.sqlite'}"
    (tmp_path / "instance").mkdir()
    engine = sa.create_engine(url)
    try:
        data = build(engine, revision)
    finally:
        engine.dispose()
    app = start(url, tmp_path / "instance")
    try:
        with app.app_context():
            from companion.store.models import db
            with db.engine.connect() as c:
                assert c.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() \
                    == HEAD
        finds_everything(app, data)
    finally:
        stop(app)
    if not PG and revision != HEAD:         # the copy kept before, as the release left it
        kept = tmp_path / "instance" / f"companion.sqlite.before-{HEAD}"
        with sqlite3.connect(kept) as c:
            assert c.execute("SELECT version_num FROM alembic_version").fetchone()[0] == \
                revision


@pytest.mark.anydb
def test_every_earlier_head_has_its_database():
    """A migration added makes the one before it an earlier release's head: its file
    must be made (tests/upgrades/make.py) for the test above to try it."""
    earlier = {s.revision for s in SCRIPT.walk_revisions()} - {HEAD}
    assert earlier <= set(FIXTURES), sorted(earlier - set(FIXTURES))


@pytest.mark.anydb
@pytest.mark.skipif(PG, reason="spies-lies restore works on the SQLite file")
@pytest.mark.parametrize("revision", sorted(FIXTURES))
def test_restore_takes_each_earlier_releases_file_and_the_next_start_upgrades_it(
        revision, tmp_path, monkeypatch, capsys):
    """``spies-lies restore`` of a backup an earlier release made (refused before issue
    50 for every file from before migration 0010: "not a database of the companion"),
    then the start brings it up to date with every game."""
    from companion.cli import main
    old = tmp_path / f"backup-{revision}.sqlite"
    engine = sa.create_engine(f"sqlite:///{old}")
    try:
        data = build(engine, revision)
    finally:
        engine.dispose()
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("SPIES_LIES_INSTANCE", str(tmp_path / "instance"))
    assert main(["restore", str(old)]) == 0, capsys.readouterr().err
    assert f"from {old}" in capsys.readouterr().out
    app = start(f"sqlite:///{tmp_path / 'instance' / 'companion.sqlite'}",
                tmp_path / "instance")
    try:
        finds_everything(app, data)
    finally:
        stop(app)


@pytest.mark.anydb
@pytest.mark.skipif(PG, reason="the issue's SQLite file (PostgreSQL: the start path above)")
def test_spies_lies_serve_starts_on_the_0008_file_and_serves_its_history(tmp_path):
    """The issue's reproduction: a group's SQLite file at migration 0008 (commit e45a033)
    with games, players and an import; ``spies-lies serve`` exited with "no copy of the
    games could be kept (no such table: game)". Now it starts and lists the games."""
    from harness.server import Server
    (tmp_path / "instance").mkdir()
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'instance' / 'companion.sqlite'}")
    try:
        data = build(engine, "0008")
    finally:
        engine.dispose()
    server = Server("", tmp_path / "serve.log").start()
    try:
        status, listed = server.call("GET", "/api/history")
        assert status == 200, listed
        assert {g["code"]: g["winner"] for g in listed["games"]} == \
            {g["code"]: g["winner"] for g in data["said"]["history"]}
    finally:
        server.stop()
    assert (tmp_path / "instance" / f"companion.sqlite.before-{HEAD}").is_file()
