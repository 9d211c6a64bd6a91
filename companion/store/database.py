"""Which database the companion keeps its games in: ``$DATABASE_URL``, else SQLite in the
instance folder.

``postgres://`` and ``postgresql://`` (what hosting services and ``psql`` write) mean
psycopg 3, the driver the companion installs (``spies-lies-companion[postgres]``);
anything but PostgreSQL and SQLite is refused before the server starts, with what to
write instead.

>>> url({"DATABASE_URL": "postgres://ann:pw@db.example.org/tables"})
'postgresql+psycopg://ann:pw@db.example.org/tables'
>>> url({"DATABASE_URL": ""}) is None
True
>>> shown("postgresql+psycopg://ann:secret@db.example.org/tables")
'postgresql+psycopg://ann:***@db.example.org/tables'
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

EXAMPLE = "postgresql://user@localhost/spies_lies"


def url(environ: Mapping[str, str] | None = None) -> str | None:
    """``DATABASE_URL`` as SQLAlchemy takes it, or ``None`` (SQLite in the instance
    folder)."""
    text = (os.environ if environ is None else environ).get("DATABASE_URL") or None
    if text:
        for bare in ("postgres://", "postgresql://"):
            if text.startswith(bare):
                return "postgresql+psycopg://" + text[len(bare):]
    return text


def on_postgresql(environ: Mapping[str, str] | None = None) -> bool:
    return (url(environ) or "").startswith("postgresql")


def shown(text: str) -> str:
    """The address with its password hidden, for messages."""
    from sqlalchemy.engine import make_url
    try:
        return make_url(text).render_as_string(hide_password=True)
    except Exception:              # not an address at all: nothing of it is shown
        return "…"


def problem(environ: Mapping[str, str] | None = None) -> str | None:
    """Why the companion cannot use ``DATABASE_URL`` (a line to print), or ``None``.

    >>> problem({"DATABASE_URL": "mysql://u@h/db"}).startswith("error: DATABASE_URL is mysql")
    True
    >>> problem({}) is None
    True
    """
    text = url(environ)
    if text is None:
        return None
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError
    try:
        parsed = make_url(text)
    except ArgumentError:
        return (f"error: DATABASE_URL is not a database address: write {EXAMPLE}, or "
                f"leave it unset to keep the games in SQLite in the instance folder\n")
    if parsed.get_backend_name() == "sqlite":
        return None
    if parsed.drivername != "postgresql+psycopg":
        return (f"error: DATABASE_URL is {parsed.drivername}: the companion keeps its games "
                f"in PostgreSQL ({EXAMPLE}) or, with DATABASE_URL unset, in SQLite in the "
                f"instance folder\n")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return ("error: DATABASE_URL names PostgreSQL, but its driver is not installed: "
                "./scripts/serve installs it when DATABASE_URL is set; with pip, install "
                "'spies-lies-companion[postgres]'\n")
    return None


# --- the SQLite file as one copy (spies-lies backup, the keeper's download) ---------------

def sqlite_path(engine_url: Any) -> Path | None:
    """The SQLite file an engine's URL names (``None``: PostgreSQL, or in memory)."""
    name = engine_url.database
    if engine_url.get_backend_name() != "sqlite" or not name or name == ":memory:":
        return None
    return Path(name)


def counts(conn: sqlite3.Connection) -> str:
    """"N finished games, M players" of a companion database of any release: a table a
    later migration makes is not there in an older file (``game`` came with migration
    0010, ``player`` and ``table.finished`` with 0007), so each figure comes from what
    the file has (issue 50: "no such table: game" stopped every upgrade from 0009 down).

    >>> old = sqlite3.connect(":memory:")
    >>> _ = old.execute('CREATE TABLE "table" (id INTEGER PRIMARY KEY)')
    >>> _ = old.executemany('INSERT INTO "table" VALUES (?)', [(1,), (2,)])
    >>> counts(old)
    '2 tables'
    >>> _ = old.execute('ALTER TABLE "table" ADD COLUMN finished DATETIME')
    >>> _ = old.execute('UPDATE "table" SET finished = 1 WHERE id = 1')
    >>> _ = old.execute("CREATE TABLE player (id INTEGER PRIMARY KEY)")
    >>> counts(old)
    '1 finished game, 0 players'
    """
    tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "table" not in tables:
        raise sqlite3.DatabaseError("no companion tables in it")

    def count(sql: str) -> int:
        n: int = conn.execute(sql).fetchone()[0]
        return n

    if "game" in tables:
        games = count("SELECT count(*) FROM game")
    elif any(c[1] == "finished" for c in conn.execute('PRAGMA table_info("table")')):
        games = count('SELECT count(*) FROM "table" WHERE finished IS NOT NULL')
    else:                    # before 0007 no game was marked finished: its tables, then
        n = count('SELECT count(*) FROM "table"')
        return f"{n} table{'' if n == 1 else 's'}"
    players = count("SELECT count(*) FROM player") if "player" in tables else 0
    return (f"{games} finished game{'' if games == 1 else 's'}, "
            f"{players} player{'' if players == 1 else 's'}")


def _remove_part(part: Path) -> None:
    """A copy's ``.part`` file, with SQLite's own files beside it: an earlier copy cut
    short (a killed process, a full disk) may have left them, and SQLite would read the
    old file (``file is not a database``) or its journal into the new copy."""
    for leftover in (part, *(part.with_name(part.name + s) for s in ("-journal", "-wal",
                                                                    "-shm"))):
        leftover.unlink(missing_ok=True)


def copy(source: Path, target: Path) -> str:
    """Copy the database ``source`` into the new file ``target`` through SQLite's online
    backup (consistent while the companion writes; one file, no log beside it); what it
    holds ("N finished games, M players"). Nothing is left at ``target`` if it fails; a
    ``.part`` file an earlier copy left is removed first."""
    part = target.with_name(f".{target.name}.part")
    _remove_part(part)
    try:
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=15)
        try:
            dst = sqlite3.connect(part)
            try:
                src.backup(dst)
                dst.execute("PRAGMA journal_mode=DELETE")
                said = counts(dst)
            finally:
                dst.close()
        finally:
            src.close()
        os.replace(part, target)
    finally:
        _remove_part(part)
    return said
