"""``spies-lies backup`` and ``spies-lies restore``: the group's games in one file and
back, consistent while the companion writes, never over a file, never under a server."""

from __future__ import annotations

import json
import pathlib
import sqlite3
import threading
from contextlib import closing

import pytest

from companion.cli import main
from companion.run import serve
from companion.web import create_app

from .conftest import ORIGIN

# backup and restore work on the SQLite file, whatever database the suite runs on
pytestmark = pytest.mark.anydb

RECORDS = pathlib.Path(__file__).resolve().parents[1] / "records"
FINISHED = ["random-flag-1.json", "random-draw-98.json", "random-ip-27.json"]


@pytest.fixture
def instance(tmp_path, monkeypatch):
    """An instance folder on SQLite (whatever DATABASE_URL the suite runs with)."""
    monkeypatch.delenv("DATABASE_URL", raising=False)
    folder = tmp_path / "instance"
    monkeypatch.setenv("SPIES_LIES_INSTANCE", str(folder))
    return folder


def _app():
    return create_app({"TESTING": True, "SECRET_KEY": "test",
                       "RATE_LIMITS": {"imports": "1000 per minute"}})


def _play(client, name: str) -> None:
    record = json.loads((RECORDS / name).read_text())
    r = client.post("/api/tables/import", json={"record": record}, headers={"Origin": ORIGIN})
    assert r.status_code == 201, r.get_json()


def _games(path: pathlib.Path) -> int:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT count(*) FROM game").fetchone()[0]


def _dispose(app) -> None:
    from companion import live
    from companion.store.models import db
    live.close(app)
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def test_a_backup_while_the_companion_writes_and_its_restore(instance, tmp_path, capsys):
    app = _app()
    client = app.test_client()
    for name in FINISHED[:2]:
        _play(client, name)
    # a backup taken while the server keeps writing (a third game imported meanwhile) is
    # a consistent database with the games it had: two, or three
    file = tmp_path / "games.sqlite"
    writer = threading.Thread(target=_play, args=(client, FINISHED[2]))
    writer.start()
    assert main(["backup", str(file)]) == 0
    writer.join()
    out = capsys.readouterr().out
    backed = _games(file)
    assert backed in (2, 3)
    assert out.startswith(f"Backed up {backed} finished games, 0 players to {file}.\n"), out
    assert "spies-lies restore" in out
    with sqlite3.connect(file) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)   # one file
    assert not list(tmp_path.glob(".games.sqlite.part*"))
    # never over a file
    assert main(["backup", str(file)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert _games(file) == backed

    # restore is refused while a companion serves the games…
    assert serve.hold_sqlite_file(8123) is None
    try:
        assert main(["restore", str(file)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: a companion serves the games in "
                              f"{instance / 'companion.sqlite'}"), err
        assert "stop it first" in err
    finally:
        for held in serve._HELD:
            held.close()
        serve._HELD.clear()
    # …and once it stopped, a game played since the backup is replaced, and kept aside
    _play(client, "random-territory-2.json")
    now = _games(instance / "companion.sqlite")
    assert now == 4
    _dispose(app)
    assert main(["restore", str(file)]) == 0
    out = capsys.readouterr().out
    kept = next(instance.glob("companion.sqlite.before-restore-*"))
    assert out == (f"Restored {backed} finished games, 0 players from {file} to "
                   f"{instance / 'companion.sqlite'}.\nThe games it replaced are kept in "
                   f"{kept}.\n"), out
    assert _games(kept) == now
    # a second restore (often within the same second) keeps what it replaced apart too
    assert main(["restore", str(file)]) == 0
    capsys.readouterr()
    assert len(list(instance.glob("companion.sqlite.before-restore-*"))) == 2
    # the companion started again serves the games of the backup
    app = _app()
    history = app.test_client().get("/api/history?apart=1").get_json()     # imported
    assert history["total"] == backed, history
    _dispose(app)


def test_a_backup_an_older_companion_made_is_brought_up_to_date(instance, tmp_path, capsys):
    """A copy kept months ago (before the last migration): restored, and the companion
    started again brings it up to date with its games."""
    from alembic.script import ScriptDirectory
    from flask_migrate import downgrade

    from companion.web import MIGRATIONS
    script = ScriptDirectory(str(MIGRATIONS))
    head = script.get_current_head()
    before = script.get_revision(head).down_revision          # the one before the last
    app = _app()
    _play(app.test_client(), "random-flag-1.json")
    with app.app_context():
        downgrade(directory=str(MIGRATIONS), revision=before)
    _dispose(app)
    old = tmp_path / "old.sqlite"
    assert main(["backup", str(old)]) == 0
    with sqlite3.connect(old) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (before,)
    (instance / "companion.sqlite").unlink()              # a new laptop: nothing kept yet
    assert main(["restore", str(old)]) == 0
    assert capsys.readouterr().out.startswith("Backed up 1 finished game, 0 players")
    app = _app()
    # (the imported game listed apart since migration 0014, which counted every game
    # finished before it: whichever list, the game is there)
    listed = app.test_client().get("/api/history").get_json()
    assert listed["total"] + listed["others"] == 1
    _dispose(app)
    with sqlite3.connect(instance / "companion.sqlite") as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (head,)
    # the companion kept the database as it was before it brought it up to date
    kept = instance / f"companion.sqlite.before-{head}"
    with sqlite3.connect(kept) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (before,)
    assert _games(kept) == 1
    _dispose(_app())                                   # up to date: nothing more kept
    assert [p.name for p in instance.glob("companion.sqlite.before-*")] == [kept.name]


def test_an_upgrade_that_cannot_keep_its_copy_changes_nothing(instance, capsys, monkeypatch):
    """A full disk when the copy before the migrations is made: one line, and the
    database stays as it was (not brought up to date without its copy)."""
    from alembic.script import ScriptDirectory
    from flask_migrate import downgrade

    from companion.store import database
    from companion.web import MIGRATIONS
    script = ScriptDirectory(str(MIGRATIONS))
    before = script.get_revision(script.get_current_head()).down_revision
    app = _app()
    with app.app_context():
        downgrade(directory=str(MIGRATIONS), revision=before)
    _dispose(app)

    def full(source, target):
        raise sqlite3.OperationalError("database or disk is full")
    monkeypatch.setattr(database, "copy", full)
    assert main(["ratings"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot use the instance folder ") and err.count("\n") == 1
    assert "no copy of the games could be kept before bringing them up to date" in err, err
    with sqlite3.connect(instance / "companion.sqlite") as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (before,)


def test_what_cannot_be_backed_up_or_restored_is_said_in_one_line(instance, tmp_path, capsys,
                                                                monkeypatch):
    assert main(["backup", str(tmp_path / "b.sqlite")]) == 2
    assert capsys.readouterr().err == (f"error: no games are kept here yet "
                                       f"({instance / 'companion.sqlite'} does not exist)\n")
    for bad, said in (("missing.sqlite", "does not exist"),
                      ("text.sqlite", "is not a database of the companion"),
                      ("other.sqlite", "is not a database of the companion"),
                      ("newer.sqlite", "was made by a newer version of the companion "
                                       "(revision 0099_later): update this copy first")):
        path = tmp_path / bad
        if bad == "text.sqlite":
            path.write_text("not a database")
        elif bad == "other.sqlite":
            sqlite3.connect(path).execute("CREATE TABLE notes (x)").connection.close()
        elif bad == "newer.sqlite":
            app = _app()
            _dispose(app)
            with sqlite3.connect(instance / "companion.sqlite") as conn:
                conn.execute("VACUUM INTO ?", (str(path),))
            with sqlite3.connect(path) as conn:
                conn.execute("UPDATE alembic_version SET version_num = '0099_later'")
        assert main(["restore", str(path)]) == 2, bad
        err = capsys.readouterr().err
        assert err.startswith("error: cannot restore: ") and said in err, err
        assert err.count("\n") == 1
    monkeypatch.setenv("DATABASE_URL", "postgresql://ann:secret@127.0.0.1:1/tables")
    for command in ("backup", "restore"):
        assert main([command, str(tmp_path / "x.sqlite")]) == 2
        err = capsys.readouterr().err
        assert "pg_dump" in err and "secret" not in err and err.count("\n") == 1


def test_the_keeper_downloads_a_copy_and_nobody_else_does(app, client, table, keeper_key,
                                                          tmp_path):
    """The keeper page's download: the keeper key only (a stranger, a host, a wrong key,
    another site: refused); on SQLite the file is the games' database, which restore
    takes; on PostgreSQL it says to use pg_dump."""
    host = table()
    _play(client, "random-flag-1.json")
    url, body = "/api/keeper/backup", "{}"
    json_ = {"Content-Type": "application/json", "Origin": ORIGIN}
    for who in (None, host.secret, "x" * 43):
        headers = {**json_, **({"Authorization": f"Bearer {who}"} if who else {})}
        r = client.post(url, data=body, headers=headers, environ_base={"REMOTE_ADDR": "127.0.3.2"})
        assert r.status_code == 403 and r.get_json()["code"] == "not_keeper", who
    keeper = {**json_, "Authorization": f"Bearer {keeper_key}"}
    r = client.post(url, data=body, headers={**keeper, "Origin": "http://evil.example"})
    assert r.status_code == 403
    sqlite = app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite")
    check = client.post("/api/keeper", data=body, headers=keeper).get_json()
    assert check == {"keeper": True, "backup": sqlite, "screens": []}
    r = client.post(url, data=body, headers=keeper)
    if not sqlite:
        assert r.status_code == 409 and "pg_dump" in r.get_json()["error"]
        return
    assert r.status_code == 200 and r.mimetype == "application/vnd.sqlite3"
    assert r.headers["Cache-Control"] == "no-store"
    assert r.headers["Content-Disposition"].startswith(
        'attachment; filename="spies-lies-games-20')
    file = tmp_path / "downloaded.sqlite"
    file.write_bytes(r.get_data())
    assert _games(file) == 1
    assert not [p for p in pathlib.Path(app.instance_path).iterdir() if p.is_dir()
                and p.name.startswith("tmp")]                   # nothing left behind


def _cut_short(target: pathlib.Path, source: pathlib.Path) -> pathlib.Path:
    """What a copy killed halfway leaves: ``.<name>.part`` with the first half of the
    database and a journal beside it."""
    part = target.with_name(f".{target.name}.part")
    data = source.read_bytes()
    part.write_bytes(data[:len(data) // 2])
    part.with_name(part.name + "-journal").write_bytes(b"\xd9\xd5\x05\xf9 cut short" * 64)
    return part


def test_a_copy_cut_short_leaves_nothing_that_stops_the_next(instance, tmp_path, capsys):
    """A ``.part`` file a killed backup (or a killed start's copy before migrating)
    left made the next backup fail once ("file is not a database") and the next start
    refuse to run; now the next one removes it and succeeds (issue 50)."""
    from alembic.script import ScriptDirectory
    from flask_migrate import downgrade

    from companion.web import MIGRATIONS
    app = _app()
    _play(app.test_client(), "random-flag-1.json")
    _dispose(app)
    db_file = instance / "companion.sqlite"
    target = tmp_path / "evening.sqlite"
    part = _cut_short(target, db_file)
    assert main(["backup", str(target)]) == 0, capsys.readouterr().err
    assert _games(target) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evening.sqlite", "instance"]
    # the copy kept before migrating, cut short by a kill at an earlier start
    script = ScriptDirectory(str(MIGRATIONS))
    head = script.get_current_head()
    app = _app()
    with app.app_context():
        downgrade(directory=str(MIGRATIONS), revision=script.get_revision(head).down_revision)
    _dispose(app)
    kept = instance / f"companion.sqlite.before-{head}"
    part = _cut_short(kept, db_file)
    _dispose(_app())
    assert _games(kept) == 1 and not part.exists()
    assert not part.with_name(part.name + "-journal").exists()
