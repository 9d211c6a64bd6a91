"""A crash during an upgrade never strands the database (issue 50): the process is killed
at points of the start's upgrade, from an empty database and from an earlier release's
filled one; after each, the database is at a revision it was stamped with, exactly as that
revision's migrations make it, with every row intact, and the next start brings it up to
date (run once from each revision the kills left: the others leave the very same database,
as checked).

The points (issue 51: every statement was one, 101 and 81 of them, four minutes of the
suite): a first start that is not killed lists the upgrade's statements; each migration's
are those up to its stamp (``UPDATE alembic_version`` / ``INSERT INTO alembic_version``).
In each migration the kill comes before its first statement, before the last one ahead
of its stamp (everything changed, nothing stamped: where SQLite's driver used to commit
the change alone) and before the stamp itself, and before the first and last statements
after the last stamp; so every migration is killed in three places on each database.

A kill is ``os._exit`` in a forked child (no rollback, no clean-up, as ``kill -9``) from
a ``before_cursor_execute`` hook counting the statements of the start's upgrade; the
child has everything imported already. Each point starts again from a template of the
database: on SQLite a copy of the file; on PostgreSQL a database made once with ``CREATE
DATABASE ... TEMPLATE`` and brought back to it by the migrations' own downgrades
(checked to be the template again, schema and rows). Before issue 50 the migrations ran
in one transaction that SQLite's driver committed before every CREATE, ALTER and DROP:
a kill between a migration's change and its stamp left "duplicate column name:
imported" or "table game already exists" at every start after.
"""

from __future__ import annotations

import gc
import json
import os
import re
import shutil
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_alembic
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url

from companion.web import create_app

from .test_upgrades import HEAD, PG, alembic_settings, build, empty

FINISHED, CRASHED, FAILED = 70, 71, 72
FILLED = "0006"      # an earlier release's games: 0007-0013 move and copy their rows


def start(url: str, instance: Path, crash_at: int | None = None,
          listed: Path | None = None) -> int:
    """Start the companion on ``url`` in a forked child, as ``spies-lies serve`` does;
    ``crash_at``: killed before the upgrade's statement of that number; ``listed``: the
    upgrade's statements written there, one JSON string a line. FINISHED (it started),
    CRASHED, or FAILED (it refused to start: its error on stderr)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:                                              # the child
        code = FAILED
        try:
            if crash_at is not None or listed is not None:
                _watch(crash_at, listed)
            create_app({"SECRET_KEY": "crash", "SQLALCHEMY_DATABASE_URI": url},
                       instance_path=str(instance))
            code = FINISHED
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _watch(k: int | None, listed: Path | None) -> None:
    """In the child: exit at once before the ``k``-th statement of the upgrade, or write
    each statement to ``listed``."""
    import companion.web as web
    upgrading, sent = [False], [0]
    real = web.upgrade
    out = listed.open("w") if listed is not None else None

    def upgrade(*args: Any, **kw: Any) -> None:
        upgrading[0] = True
        real(*args, **kw)
        upgrading[0] = False
        if out is not None:
            out.close()

    web.upgrade = upgrade

    @event.listens_for(Engine, "before_cursor_execute")
    def _before(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        if upgrading[0]:
            sent[0] += 1
            if out is not None:
                out.write(json.dumps(statement) + "\n")
            if sent[0] == k:
                os._exit(CRASHED)


STAMP = re.compile(r"\s*(UPDATE|INSERT INTO)\s+alembic_version\b", re.IGNORECASE)


def points(statements: list[str]) -> tuple[list[int], int]:
    """Where to kill the upgrade (statement numbers, from 1), and how many migrations it
    ran: in each migration (its statements up to its stamp) before the first, before the
    last ahead of the stamp, and before the stamp; after the last stamp, before the first
    and the last statement."""
    stamps = [i for i, s in enumerate(statements, 1) if STAMP.match(s)]
    chosen, begin = set(), 1
    for stamp in stamps:
        chosen |= {begin, max(begin, stamp - 1), stamp}
        begin = stamp + 1
    if begin <= len(statements):
        chosen |= {begin, len(statements)}
    return sorted(chosen), len(stamps)


SHAPE = {   # each table's columns, and its indexes, in one query each (not ~30 of the inspector's)
    "sqlite": ("SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p "
               "WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite%'",
               "SELECT tbl_name, name FROM sqlite_master WHERE type = 'index'"),
    "postgresql": ("SELECT table_name, column_name FROM information_schema.columns "
                   "WHERE table_schema = current_schema()",
                   "SELECT tablename, indexname FROM pg_indexes "
                   "WHERE schemaname = current_schema()"),
}


def shape(engine: sa.Engine) -> tuple[str | None, dict[str, Any]]:
    """The stamped revision and the schema: each table's columns and indexes."""
    columns_sql, indexes_sql = SHAPE[engine.dialect.name]
    tables: dict[str, tuple[list[str], list[str]]] = {}
    with engine.connect() as c:
        for table, column in c.execute(sa.text(columns_sql)):
            tables.setdefault(table, ([], []))[0].append(column)
        for table, index in c.execute(sa.text(indexes_sql)):
            tables.setdefault(table, ([], []))[1].append(index)
        revision = (c.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
                    if tables.pop("alembic_version", None) else None)
    return revision, {t: (sorted(cols), sorted(ixs)) for t, (cols, ixs) in sorted(tables.items())}


def rows(engine: sa.Engine, columns: dict[str, list[str]]) -> dict[str, list[Any]]:
    """Every row of these tables, these columns (as the template had them)."""
    out = {}
    with engine.connect() as c:
        for table, cols in columns.items():
            listed = ", ".join(f'"{x}"' for x in cols)
            out[table] = [tuple(r) for r in c.execute(sa.text(
                f'SELECT {listed} FROM "{table}" ORDER BY {listed}'))]
    return out


class Databases:
    """The template and the working database of one backend."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        if PG:
            base = make_url(os.environ["DATABASE_URL"])
            self.names = (f"{base.database}_tpl_{os.getpid()}",
                          f"{base.database}_crash_{os.getpid()}")
            self.admin = sa.create_engine(base.set(database="postgres"),
                                          isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
            self.template = base.set(database=self.names[0]).render_as_string(False)
            self.work = base.set(database=self.names[1]).render_as_string(False)
        else:
            self.template = f"sqlite:///{folder / 'template.sqlite'}"
            self.work = f"sqlite:///{folder / 'instance' / 'companion.sqlite'}"

    def fresh_template(self) -> None:
        if PG:
            with self.admin.connect() as c:
                c.execute(sa.text(f'DROP DATABASE IF EXISTS "{self.names[0]}"'))
                c.execute(sa.text(f'CREATE DATABASE "{self.names[0]}"'))
        else:
            (self.folder / "template.sqlite").unlink(missing_ok=True)

    def reset(self, at: str | None, to: str | None) -> None:
        """The working database as the template is (and no copy kept before); ``at``:
        the revision it is at now, ``to``: the template's.

        On SQLite the template's file is copied. On PostgreSQL a database is made from
        the template once (``CREATE DATABASE ... TEMPLATE``: ~1.5 s each on this busy
        machine, the whole test's time when made for every point); after that a killed
        connection left only whole migrations (the server rolled the last one back,
        checked after each point), which the migrations' own downgrades take back to the
        template's revision, and the caller checks it is the template again."""
        if not PG:
            instance = self.folder / "instance"
            shutil.rmtree(instance, ignore_errors=True)
            instance.mkdir()
            shutil.copy(self.folder / "template.sqlite", instance / "companion.sqlite")
        elif at == "new":
            with self.admin.connect() as c:
                c.execute(sa.text(f'DROP DATABASE IF EXISTS "{self.names[1]}"'))
                c.execute(sa.text(f'CREATE DATABASE "{self.names[1]}" '
                                  f'TEMPLATE "{self.names[0]}"'))
        elif at != to:
            engine = sa.create_engine(self.work, poolclass=sa.NullPool)
            try:
                with pytest_alembic.runner(alembic_settings(), engine) as runner:
                    runner.migrate_down_to(to or "base")
                if to is None:
                    with engine.begin() as c:
                        c.execute(sa.text("DROP TABLE alembic_version"))
            finally:
                engine.dispose()

    def crashed(self) -> str:
        """Where the database a crash left is looked at: on SQLite a copy of its files
        (the next start meets the files as the crash left them), on PostgreSQL itself
        (the server rolled back what the killed connection had begun)."""
        return self.work if PG else f"sqlite:///{self.folder / 'crashed.sqlite'}"

    def keep_crashed(self) -> None:
        if PG:
            return
        for end in ("", "-wal", "-journal"):
            copy = self.folder / f"crashed.sqlite{end}"
            copy.unlink(missing_ok=True)
            made = self.folder / "instance" / f"companion.sqlite{end}"
            if made.exists():
                shutil.copy(made, copy)

    def close(self) -> None:
        if PG:
            with self.admin.connect() as c:
                for name in self.names:
                    c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            self.admin.dispose()


@pytest.fixture
def databases() -> Iterator[Databases]:
    folder = Path(tempfile_dir())
    dbs = Databases(folder)
    try:
        yield dbs
    finally:
        dbs.close()
        shutil.rmtree(folder, ignore_errors=True)


def tempfile_dir() -> str:
    """A folder for the SQLite files: in memory where the machine has one (/dev/shm:
    each point writes and syncs a few dozen times), else the usual temporary one."""
    import tempfile
    shm = Path("/dev/shm")
    return tempfile.mkdtemp(prefix="crashes-", dir=shm if shm.is_dir() else None)


def schemas(dbs: Databases) -> dict[str | None, dict[str, Any]]:
    """The schema each revision's migrations make, one migration at a time."""
    dbs.fresh_template()
    engine = sa.create_engine(dbs.template, poolclass=sa.NullPool)
    out = {None: shape(engine)[1]}
    try:
        with pytest_alembic.runner(alembic_settings(), engine) as runner:
            while runner.current != HEAD:
                runner.migrate_up_one()
                revision, tables = shape(engine)
                out[revision] = tables
    finally:
        empty(engine)
        engine.dispose()
    return out


@pytest.mark.parametrize("start_from", ["empty", FILLED])
def test_a_kill_before_any_statement_of_any_migration_leaves_a_database_that_starts(
        start_from, databases, capfd):
    """From an empty database (every migration) and from an earlier release's filled
    one (two tests: the suite's two processes take one each)."""
    dbs = databases
    expected = schemas(dbs)
    warm = dbs.folder / "warm"           # each child forks from an app made once: ~0.1 s
    create_app({"SECRET_KEY": "crash", "SQLALCHEMY_DATABASE_URI":
                f"sqlite:///{warm / 'companion.sqlite'}"}, instance_path=str(warm))
    gc.freeze()                          # (and the children copy fewer of its pages)
    restarted: set[str | None] = set()
    began = time.monotonic()
    dbs.fresh_template()
    template = sa.create_engine(dbs.template, poolclass=sa.NullPool)
    if start_from != "empty":
        build(template, start_from)
    revision0, tables0 = shape(template)
    columns = {t: cols for t, (cols, _) in tables0.items()}
    kept = rows(template, columns)
    template.dispose()
    work = sa.create_engine(dbs.work, poolclass=sa.NullPool)
    seen = sa.create_engine(dbs.crashed(), poolclass=sa.NullPool)
    # the upgrade's statements, from a start that is not killed
    dbs.reset("new", revision0)
    listed = dbs.folder / "statements.jsonl"
    said = start(dbs.work, dbs.folder / "instance", listed=listed)
    assert said == FINISHED, capfd.readouterr().err[-3000:]
    statements = [json.loads(line) for line in listed.read_text().splitlines()]
    kills, migrations = points(statements)
    order = list(expected)                    # None (nothing), the revisions, the head
    before = set(order[order.index(revision0):-1])     # where each migration begins
    assert migrations == len(before), (migrations, revision0)      # each stamped once
    at = "new"
    for k in kills:
        dbs.reset(at, revision0)
        if PG:                                # the template again, exactly
            assert shape(work) == (revision0, tables0), k
            assert rows(work, columns) == kept, k
        said = start(dbs.work, dbs.folder / "instance", crash_at=k)
        assert said == CRASHED, (k, capfd.readouterr().err[-3000:])
        dbs.keep_crashed()                    # looked at in a copy: this one stays raw
        revision, tables = shape(seen)        # a stamped revision, exactly
        assert tables == expected[revision], (k, revision)
        assert rows(seen, {t: c for t, c in columns.items() if t in tables}) == kept, k
        at = revision
        if revision in restarted:             # the same database as a point before
            continue
        at = HEAD
        restarted.add(revision)
        said = start(dbs.work, dbs.folder / "instance")       # the next start
        assert said == FINISHED, (k, capfd.readouterr().err[-3000:])
        revision, tables = shape(work)
        assert revision == HEAD and tables == expected[HEAD], k
        assert rows(work, columns) == kept, k
    work.dispose()
    seen.dispose()
    gc.unfreeze()
    # every migration killed before it was stamped: its revision before it left, at least once
    assert before <= restarted, (sorted(map(str, before - restarted)))
    print(f"\ncrash points tried from {start_from}: {len(kills)} of {len(statements)} "
          f"statements, {migrations} migrations, the next start from each revision they "
          f"left ({len(restarted)}), in {time.monotonic() - began:.1f} s")
