"""Settings for the whole suite."""

import os

import pytest
from hypothesis import settings

from .report import TAPS, WEIGHTS

# server_db: a database for real server processes (tests/web, benchmarks share it)
pytest_plugins = ["harness.fixtures"]

# CI replays the same examples every run (a red CI must mean a real change);
# local runs explore new random games each time.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# the chances' helper process at the tests' own priority: niced (as in a server), it gets a
# few percent of a core beside a dozen busy browser processes, and a test waiting for a
# figure waits minutes (tests/web/test_offload.py checks the server's default)
os.environ.setdefault("SPIES_LIES_HELPER_NICE", "0")

# the tests play whole games in seconds, as a script does: a game counts in the group's
# memory here whatever its pace (a server counts only games entered at a table's pace,
# issue 50; tests/web/test_real_play.py checks that rule with the server's own figure)
os.environ.setdefault("SPIES_LIES_TABLE_PACE", "0")


# The fixtures that give a test the database the suite runs on (a fresh SQLite file, or
# $DATABASE_URL's PostgreSQL): the app and its client, a server process's database, the
# migrations' engine, the crash test's databases. Outside tests/browser a test using one
# is marked ``db`` by itself: ``./scripts/test`` runs those again on PostgreSQL.
DATABASE_FIXTURES = frozenset({"app", "server_db", "alembic_engine", "databases"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark ``db`` the tests whose outcome the database can change (see pyproject.toml's
    markers). In tests/web every test says which it is: ``db`` (by its fixtures, or
    marked), or ``anydb`` (marked, the module saying why), so that a new test of the server
    is never left out of the PostgreSQL pass unnoticed. The browser tests check what a
    person sees, the same on any database, and run once; the one marked ``db`` plays a
    whole game on PostgreSQL too (tests/browser/test_game.py says why)."""
    unsorted, both = [], []
    for item in items:
        marked, anydb = item.get_closest_marker("db"), item.get_closest_marker("anydb")
        if marked and anydb:
            both.append(item.nodeid)
        if marked or anydb or item.nodeid.startswith("tests/browser/"):
            continue
        if DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.db)
        elif item.nodeid.startswith("tests/web/"):
            unsorted.append(item.nodeid)
    if unsorted or both:
        raise pytest.UsageError(
            "each test of tests/web is marked db (it uses the database: by its fixtures, or "
            "marked) or anydb (what it checks is the same on any database), not both:\n  "
            + "\n  ".join(unsorted + [f"{n} (both)" for n in both]))


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (``./scripts/test`` runs two worker processes), each worker on
    PostgreSQL gets a database of its own beside the one $DATABASE_URL names, made
    afresh: the tests drop every table after themselves, and two workers must not drop
    each other's."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    url = os.environ.get("DATABASE_URL", "")
    if not (worker and url.startswith("postgresql")):
        return
    import sqlalchemy as sa
    base = sa.engine.make_url(url)
    name = f"{base.database}_{worker}"
    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:
            c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            c.execute(sa.text(f'CREATE DATABASE "{name}"'))
    finally:
        admin.dispose()
    os.environ["DATABASE_URL"] = base.set(database=name).render_as_string(hide_password=False)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A worker's measurements go to the process that prints the summary."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["taps"], output["weights"] = dict(TAPS), dict(WEIGHTS)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """(pytest-xdist) a worker is done: keep what it measured."""
    output = getattr(node, "workeroutput", {})
    TAPS.update(output.get("taps", {}))
    WEIGHTS.update(output.get("weights", {}))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if TAPS:
        terminalreporter.section("taps at the table")
        for name, text in TAPS.items():
            terminalreporter.write_line(f"{name:<48} {text}")
    if WEIGHTS:
        terminalreporter.section("page weights (bytes over the wire)")
        for name, n in WEIGHTS.items():
            terminalreporter.write_line(f"{name:<48} {n:>9,}")
