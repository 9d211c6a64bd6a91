"""Pytest fixtures over :mod:`harness.server` (import them into a test module)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .server import database


@pytest.fixture
def server_db(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """(database URL, tmp folder) for server processes; see ``harness.server.database``."""
    with database(tmp_path) as (url, tmp):
        yield url, tmp
