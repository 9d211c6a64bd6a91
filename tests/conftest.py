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
