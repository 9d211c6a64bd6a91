"""``python -m benchmarks.floor_server [spies-lies serve options]``: the companion
with the floor endpoints (``benchmarks/floor.py``) added, served exactly as
``spies-lies serve`` serves it (:class:`companion.run.server.Server`: the same loop, threads
and database pool). ``python -m benchmarks server`` starts it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from contextlib import suppress

from companion.cli import build_parser
from companion.live import channel
from companion.run import gcfreeze
from companion.run.serve import client_cap, engine_config, public_url
from companion.run.server import Server
from companion.web import create_app

from . import floor


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(["serve", *(sys.argv[1:] if argv is None else argv)])
    app = create_app({"PUBLIC_URL": public_url(args), **engine_config(args.threads)})
    # one client (the benchmark) holds every table's screens: no cap on its streams
    # (a real client may hold channel.STREAMS_PER_CLIENT)
    channel.STREAMS_PER_CLIENT = 1 << 30
    app.register_blueprint(floor.bp)
    with app.app_context():
        floor.create_table()
    print(f"floor server on http://{args.host}:{args.port}/ ({args.threads} threads)", flush=True)
    server = Server(app, host=args.host, port=args.port, threads=args.threads,
                    per_client=client_cap(args), between=True)
    gcfreeze.start(app)          # as spies-lies serve does (serve._run)
    with suppress(KeyboardInterrupt):       # Ctrl+C; the benchmark stops it with SIGTERM
        server.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
