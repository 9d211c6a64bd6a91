"""``spies-lies backup FILE`` and ``spies-lies restore FILE``: the group's games in one file.

The games, players, ratings and learned intel cards live in the SQLite file of the
instance folder (``companion.sqlite``). A plain copy of it while the companion serves
may miss what is still in its write-ahead log (``companion.sqlite-wal``), and a copy put
back beside an old log is read with that log; so both go through SQLite's own online
backup, which copies a consistent database whatever is being written meanwhile:

- ``backup`` works while the companion serves, and never writes over a file;
- ``restore`` is refused while a companion serves the database (its lock file says),
  keeps the database it replaces beside it (``companion.sqlite.before-restore-…``), and
  refuses a file that is not a companion's database or that a newer companion made. A
  file any earlier release made is taken as it is: the next start brings it up to date
  (``tests/web/test_upgrades.py`` restores one of each).

On PostgreSQL the games are in its database: ``pg_dump`` and ``pg_restore`` keep them.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path

from ..store import database

ON_POSTGRESQL = ("error: the games are in the PostgreSQL database of DATABASE_URL: back it up "
                 "with pg_dump (pg_dump -Fc NAME > FILE) and bring it back with pg_restore\n")


def _source() -> Path | None:
    """The SQLite file of the games, or ``None`` after one line saying why there is none
    to work on (PostgreSQL, an unusable DATABASE_URL, a database in memory)."""
    said = database.problem()
    if said:
        sys.stderr.write(said)
        return None
    if database.on_postgresql():
        sys.stderr.write(ON_POSTGRESQL)
        return None
    from .serve import sqlite_file
    path = sqlite_file()
    if path is None:
        sys.stderr.write("error: the database is kept in memory: there is nothing to back up\n")
    return path


def backup(args: argparse.Namespace) -> int:
    """Copy the games into ``args.file`` (a new file), consistent while the companion serves."""
    source = _source()
    if source is None:
        return 2
    target = Path(args.file)
    if not source.is_file():
        sys.stderr.write(f"error: no games are kept here yet ({source} does not exist)\n")
        return 2
    if target.exists():
        sys.stderr.write(f"error: {target} already exists: name a new file (a backup never "
                         "writes over one)\n")
        return 2
    try:
        said = database.copy(source, target)
    except (sqlite3.Error, OSError) as err:
        sys.stderr.write(f"error: cannot back up {source} to {target}: {err}\n")
        return 2
    sys.stdout.write(f"Backed up {said} to {target}.\n"
                     f"To bring them back: stop the companion, then spies-lies restore "
                     f"{target}\n")
    return 0


def _checked(path: Path) -> str | None:
    """Why ``path`` cannot be restored (``None``: it can): not a companion database, or
    one a newer companion brought up to date. An older one can: its schema is whatever
    its release's migrations made (``database.counts`` reads any of them)."""
    from alembic.script import ScriptDirectory

    from ..web import MIGRATIONS
    if not path.is_file():
        return f"{path} does not exist"
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            revisions = [r for (r,) in conn.execute("SELECT version_num FROM alembic_version")]
            database.counts(conn)
        finally:
            conn.close()
    except sqlite3.Error:
        return f"{path} is not a database of the companion"
    known = {s.revision for s in ScriptDirectory(str(MIGRATIONS)).walk_revisions()}
    newer = sorted(set(revisions) - known)
    if newer:
        return (f"{path} was made by a newer version of the companion (revision "
                f"{', '.join(newer)}): update this copy first")
    return None


def restore(args: argparse.Namespace) -> int:
    """Put the games of ``args.file`` back as this instance's database (the companion
    stopped), keeping the database it replaces beside it."""
    import fcntl
    target = _source()
    if target is None:
        return 2
    backup_file = Path(args.file)
    why = _checked(backup_file)
    if why:
        sys.stderr.write(f"error: cannot restore: {why}\n")
        return 2
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{target}.serving", "a+", encoding="utf-8") as lock:
        try:                  # held while restoring: no companion starts on it meanwhile
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            other = lock.read().strip() or "another process"
            sys.stderr.write(f"error: a companion serves the games in {target} ({other}): "
                             "stop it first, then restore\n")
            return 2
        kept = None
        try:
            if target.exists():
                stamp = time.strftime("%Y%m%d-%H%M%S")
                kept = target.with_name(f"{target.name}.before-restore-{stamp}")
                n = 1
                while kept.exists():               # two restores in one second
                    n += 1
                    kept = target.with_name(f"{target.name}.before-restore-{stamp}-{n}")
                database.copy(target, kept)
            src = sqlite3.connect(f"file:{backup_file}?mode=ro", uri=True)
            try:
                dst = sqlite3.connect(target)
                try:
                    src.backup(dst)                # through SQLite: its write-ahead log too
                    said = database.counts(dst)
                finally:
                    dst.close()
            finally:
                src.close()
        except (sqlite3.Error, OSError) as err:
            sys.stderr.write(f"error: cannot restore {backup_file} to {target}: {err}\n")
            return 2
    sys.stdout.write(f"Restored {said} from {backup_file} to {target}.\n"
                     + (f"The games it replaced are kept in {kept}.\n" if kept else ""))
    return 0
