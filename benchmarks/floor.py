"""The benchmark's floor: the same server stack pushing a tiny message, nothing else.

Never part of the companion: ``python -m benchmarks.floor_server`` registers it
on the app it serves (``python -m benchmarks server`` starts that). ``POST
/_floor/<n>`` publishes a small message to every ``GET /_floor/<n>/stream``
subscriber through the same hub, streams and server threads as a table: no
database, no referee. What a table's push costs above this is ours.
"""

from __future__ import annotations

import json

from flask import Blueprint, Response, jsonify, request

from companion.web import live

bp = Blueprint("floor", __name__, url_prefix="/_floor")


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
