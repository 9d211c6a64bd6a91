"""What each post asks of the database, counted (issue 54): ``python -m benchmarks post
--statements`` (with ``--database-url`` for PostgreSQL, ``--against PATH`` for another
checkout beside it).

Counts, not timings, so the same on any machine and at any load: per accepted post, by
its path and answer, the SQL statements sent (SQLAlchemy's ``before_cursor_execute``),
the commits, and on PostgreSQL the round trips to its server: each statement, plus the
``BEGIN`` psycopg sends before the first statement of a transaction and the ``COMMIT``
or ``ROLLBACK`` that ends one (a statement run in autocommit needs neither).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

IDLE = 0          # psycopg's TransactionStatus.IDLE: no transaction open


class Counter:
    """Statements, round trips and commits on one engine, read around each post."""

    def __init__(self, engine: Any) -> None:
        from sqlalchemy import event
        self.pg = engine.dialect.name == "postgresql"
        self.statements = self.trips = self.commits = 0
        self.by: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        event.listen(engine, "before_cursor_execute", self._statement)
        event.listen(engine, "commit", self._commit)
        event.listen(engine, "rollback", self._ended)

    def _open(self, conn: Any) -> bool:
        raw = conn.connection.driver_connection
        return bool(self.pg and raw is not None and raw.info.transaction_status != IDLE)

    def _statement(self, conn: Any, *args: Any) -> None:
        self.statements += 1
        self.trips += 1
        raw = conn.connection.driver_connection
        if self.pg and not raw.autocommit and raw.info.transaction_status == IDLE:
            self.trips += 1                 # psycopg's BEGIN first
        # (SQLite: no server to reach; its statements are counted, not its round trips)

    def _commit(self, conn: Any) -> None:
        self.commits += 1
        self._ended(conn)

    def _ended(self, conn: Any) -> None:
        if self._open(conn):
            self.trips += 1                 # COMMIT or ROLLBACK sent

    def mark(self) -> tuple[int, int, int]:
        return self.statements, self.trips, self.commits

    def add(self, kind: str, since: tuple[int, int, int]) -> None:
        """Count one post of ``kind`` (path and status) from the marks ``since``."""
        row = self.by[kind]
        row[0] += 1
        for i, (now, before) in enumerate(zip(self.mark(), since, strict=True)):
            row[i + 1] += now - before

    def report(self) -> dict[str, list[float]]:
        """Per kind: posts, then statements, round trips and commits per post."""
        return {k: [n, s / n, t / n, c / n] for k, (n, s, t, c) in sorted(self.by.items())}


def show(who: str, counts: dict[str, list[float]], pg: bool) -> None:
    """Print one checkout's counts."""
    n = sum(v[0] for v in counts.values())
    print(f"  {who}: {n:.0f} accepted posts")
    for kind, (posts, s, t, c) in counts.items():
        trips = f"{t:5.2f} round trips, " if pg else ""
        print(f"    {kind:14} {posts:5.0f} posts: {s:5.2f} statements, {trips}{c:4.2f} commits "
              "a post")
    if n:
        s, t, c = (sum(v[0] * v[i] for v in counts.values()) / n for i in (1, 2, 3))
        print(f"    {'all':14} {n:5.0f} posts: {s:5.2f} statements, "
              f"{f'{t:5.2f} round trips, ' if pg else ''}{c:4.2f} commits a post")
