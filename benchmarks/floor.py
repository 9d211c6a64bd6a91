"""The benchmark's floor: the same server stack pushing a tiny message, nothing else.

Never part of the companion: ``python -m benchmarks.floor_server`` registers it
on the app it serves (``python -m benchmarks server`` starts that). ``POST
/_floor/<n>`` publishes a small message to every ``GET /_floor/<n>/stream``
subscriber through the same hub, streams and server threads as a table: no
database, no referee. What a table's push costs above this is ours.

``POST /_floor/<n>/durable`` is the *durable floor* (issue 24): the same, after one
single-row insert committed on the companion's own database, through the same pool and
settings as a post (SQLite WAL with ``synchronous=FULL``, or PostgreSQL as configured):
what a tap must cost at least if an acknowledged tap is to survive a crash.
"""

from __future__ import annotations

import json
import time

from flask import Blueprint, Response, jsonify, request
from sqlalchemy import text

from companion import live
from companion.store.models import db

bp = Blueprint("floor", __name__, url_prefix="/_floor")


FLOOR_TABLE = "bench_floor"


def create_table() -> None:
    """The durable floor's table (in the benchmark's own fresh database)."""
    with db.engine.begin() as conn:
        conn.execute(text(f"CREATE TABLE IF NOT EXISTS {FLOOR_TABLE} "
                          "(n INTEGER NOT NULL, v INTEGER NOT NULL, at FLOAT NOT NULL)"))


@bp.post("/<int:n>/durable")
def durable(n: int) -> Response:
    """One single-row insert, committed (durable, as a tap is), then as :func:`post`."""
    request.get_data()
    with db.engine.begin() as conn:
        conn.execute(text(f"INSERT INTO {FLOOR_TABLE} (n, v, at) VALUES (:n, 1, :at)"),
                     {"n": n, "at": time.time()})
    return post(n)


@bp.post("/<int:n>")
def post(n: int) -> Response:
    """Publish the next version of channel ``n`` to its streams."""
    request.get_data()
    ch = live.hub.get(f"_floor/{n}")
    if ch is None:
        return jsonify({"version": 0, "listeners": 0})
    with ch.cond:
        v = ch.version + 1
    ch.publish(v, json.dumps({"n": n, "version": v}))
    return jsonify({"version": v})


@bp.get("/<int:n>/stream")
def stream(n: int) -> Response:
    """The same SSE stream as a table's, on channel ``n``."""
    ch = live.hub.subscribe(f"_floor/{n}")
    return live.stream_response(ch, request.args.get("seat", "viewer"),
                                request.args.get("since", type=int) or 0)
