"""Which tests the PostgreSQL pass runs (issue 51): those marked ``db``.

A test of the server that uses the database's fixtures is marked by itself; in tests/web
every other test must say ``anydb`` (what it checks is the same on any database), so a new
test is never left out of the PostgreSQL pass unnoticed; the browser tests run once, but
for one whole game; ``./scripts/test`` asks for ``-m db`` on PostgreSQL.
"""

from __future__ import annotations

import ast
import pathlib
from typing import Any

import pytest

from .conftest import pytest_collection_modifyitems

ROOT = pathlib.Path(__file__).resolve().parents[1]


class Item:
    """As much of a collected test as the marking reads."""

    def __init__(self, nodeid: str, fixtures: tuple[str, ...] = (), *marks: str) -> None:
        self.nodeid, self.fixturenames, self.marks = nodeid, list(fixtures), set(marks)

    def get_closest_marker(self, name: str) -> Any:
        return name if name in self.marks else None

    def add_marker(self, mark: Any) -> None:
        self.marks.add(mark.name)


def test_the_database_s_fixtures_mark_a_test_db_and_tests_web_says_which_each_is():
    web = Item("tests/web/test_x.py::test_a", ("table", "client", "app", "tmp_path"))
    server = Item("tests/web/test_x.py::test_b", ("server_db",))
    edge = Item("tests/web/test_x.py::test_c", ("app", "client"), "anydb")
    upgrade = Item("tests/web/test_x.py::test_d", ("alembic_engine",))
    page = Item("tests/browser/test_x.py::test_e", ("screens", "live"))
    game = Item("tests/browser/test_x.py::test_f", ("screens", "live"), "db")
    engine = Item("tests/engine/test_x.py::test_g", ())
    items = [web, server, edge, upgrade, page, game, engine]
    pytest_collection_modifyitems(None, items)  # type: ignore[arg-type]
    assert [("db" in i.marks) for i in items] == [True, True, False, True, False, True, False]

    for unsure in (Item("tests/web/test_x.py::test_h", ("tmp_path",)),
                   Item("tests/web/test_x.py::test_i", ("app",), "db", "anydb")):
        with pytest.raises(pytest.UsageError, match=unsure.nodeid.split("::")[1]):
            pytest_collection_modifyitems(None, [unsure])  # type: ignore[arg-type]


def test_one_browser_game_plays_on_postgresql_and_the_pass_asks_for_db():
    marked = []
    for path in sorted((ROOT / "tests" / "browser").glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "db" and isinstance(
                    node.value, ast.Attribute) and node.value.attr == "mark":
                marked.append(f"{path.name}:{node.lineno}")
    assert len(marked) == 1, marked
    script = (ROOT / "scripts" / "test").read_text()
    postgres = script[script.index("on PostgreSQL"):]
    assert "-m db" in postgres and "not looks" not in script
