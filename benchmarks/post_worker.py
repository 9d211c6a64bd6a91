"""One timing of a checkout's post path, run as a child by ``python -m benchmarks post``.

``python benchmarks/post_worker.py GAMES SEED`` with ``PYTHONPATH`` set to the checkout
being measured: random games played in-process through the Flask test client as the
phones post them (tables of four seats, each post asking for the delta, five live
subscriptions open and taking every change), on a fresh SQLite file (or on
``DATABASE_URL``). It prints one JSON line:
the app's CPU time and wall-clock time per post (inside ``app.wsgi_app``: no HTTP
server, no client) and the posts counted.
"""

from __future__ import annotations

import gc
import itertools
import json
import os
import random
import sys
import tempfile
import time
from typing import Any


def main(games: int, seed: int) -> None:
    import companion
    from companion import live
    from companion.engine.simulate import random_record
    from companion.live.delta import patch
    from companion.web import create_app
    from harness.steps import steps

    with tempfile.TemporaryDirectory(prefix="spies-lies-post-") as tmp:
        # one client opens every table: the per-client limit on new tables lifted
        url = os.environ.get("DATABASE_URL")     # PostgreSQL, else a fresh SQLite file
        app = create_app({"TESTING": True, "SECRET_KEY": "bench",
                          **({"SQLALCHEMY_DATABASE_URI": url} if url else {}),
                          "RATE_LIMITS": {"tables": "100000 per minute",
                                          "tables_all": "100000 per minute"}},
                         instance_path=tmp)
        # the app's CPU time (in all, in games' posts), and its wall-clock time (round trips
        # to a database server show there)
        inner, spent, wall = app.wsgi_app, [0.0], [0.0]
        counted, walled = [0.0], [0.0]

        def timed(environ: dict[str, Any], start_response: Any) -> Any:
            t, w = time.process_time(), time.perf_counter()
            try:
                return inner(environ, start_response)
            finally:
                spent[0] += time.process_time() - t
                wall[0] += time.perf_counter() - w

        app.wsgi_app = timed  # type: ignore[method-assign]
        counter = None
        if os.environ.get("POST_WORKER_STATEMENTS"):     # post --statements: counts instead
            import importlib.util
            spec = importlib.util.spec_from_file_location(
                "bench_statements", os.path.join(os.path.dirname(__file__), "statements.py"))
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            with app.app_context():
                from companion.store.models import db
                counter = module.Counter(db.engine)
        client = app.test_client()
        keys = itertools.count()
        origin = {"Origin": "http://localhost"}

        def post(code: str, path: str, body: dict[str, Any], view: dict[str, Any],
                 secret: str | None = None) -> tuple[int, dict[str, Any], dict[str, Any]]:
            full = {"version": view["version"], "answer": "delta",
                    "idempotency_key": f"bench-{next(keys):09d}", **body}
            headers = {**origin, **({"Authorization": f"Bearer {secret}"} if secret else {})}
            marks = counter.mark() if counter is not None else None
            r = client.post(f"/api/tables/{code}{path}", json=full, headers=headers)
            out = r.get_json()
            if counter is not None and marks is not None and r.status_code in (200, 201):
                counter.add(f"{path} {r.status_code}", marks)
            if "delta" in out:
                view = patch(view, out["delta"]["ops"])
            elif "view" in out:
                view = out["view"]
            assert r.status_code in (200, 201), out
            return r.status_code, out, view

        def game(rng: random.Random) -> int:
            rec = random_record(rng)
            r = client.post("/api/tables", json={"wall_distance": rec.options.wall_distance,
                                                 "teams": True}, headers=origin)
            made = r.get_json()
            code, view, host = made["code"], made["view"], made["host_secret"]
            seats = {}
            for side in ("red", "blue"):
                for part in (1, 2):
                    _, out, view = post(code, "/seats", {"side": side, "part": part,
                                                         "name": f"{side}{part}"}, view)
                    seats[(side, part)] = out["secret"]
            subs = [live.Subscription(live.hub.subscribe(code), f"screen{i}",
                                      view["version"], "en") for i in range(5)]
            for s in subs:                 # open, as the server opens a screen's stream:
                s.open()                   # the channel encodes each change for its language
            start, start_wall, n = spent[0], wall[0], 0
            for e in rec.events:
                draft = view["draft"]
                part = (draft.get("part") if draft else None) or 1
                todo, status = steps(e, view), None
                try:
                    while True:
                        who, path, body = todo.send(status)
                        secret = host if who == "host" else seats[(who, part)]
                        status, _, view = post(code, path, body, view, secret)
                        for s in subs:
                            s.take()
                        n += 1
                except StopIteration:
                    pass
            for s in subs:
                s.close()
            counted[0] += spent[0] - start
            walled[0] += wall[0] - start_wall
            return n

        rng = random.Random(seed)
        game(rng)                                   # warm up
        counted[0] = walled[0] = 0.0
        gc.collect()
        posts = 0
        for i in range(games):
            posts += game(rng)
            if os.environ.get("POST_WORKER_TRACE"):
                print(f"after game {i + 1}: {counted[0] / posts * 1e3:.3f} ms per post",
                      file=sys.stderr)
        print(json.dumps({"companion": companion.__file__, "posts": posts,
                          "app_cpu_ms": counted[0] / posts * 1e3,
                          "app_wall_ms": walled[0] / posts * 1e3,
                          **({"counts": counter.report(), "pg": counter.pg}
                             if counter is not None else {})}))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
