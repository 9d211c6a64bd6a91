"""The JSON API under fire: schemathesis reads the app's own OpenAPI document (the one it
serves, made from the request bodies' declarations, companion/api/bodies.py) and
generates thousands of requests, well-formed and malformed, sent to the app with
and without the right origin and secrets, at a table in play. Not one answer may be
a 5xx, every answer must be one the document lists (and match its schema), and
afterwards every table in the database must still replay through the referee.
"""

from __future__ import annotations

import json
import os
import random
import re
import time
from collections import Counter
from typing import Any
from urllib.parse import quote

import jsonschema_rs
import schemathesis
import sqlalchemy as sa
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from schemathesis.core import NotSet
from schemathesis.generation import GenerationMode

from companion.api.openapi import document
from companion.edge import limits
from companion.engine import Options, event_from_dict, replay
from companion.store.models import Event, Table, db

from .conftest import ORIGIN, sit

DOC = document()
SCHEMA = schemathesis.openapi.from_dict(DOC)
OPERATIONS = [r.ok() for r in SCHEMA.get_all_operations()]
OPERATIONS = [op for op in OPERATIONS if not DOC["paths"][op.path][op.method].get("x-stream")]
STRATEGIES = [(op, mode, op.as_strategy(generation_mode=mode))
              for op in OPERATIONS for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)]
# what a stranger sends that once gave a 500: lone surrogates and NUL in text, headers
# that are not URLs (issue 10)
NOT_TEXT = ["\ud800", "a\u0000b", "Ann\udfff", "\u0000", "x\u202ey", "\u0007bell"]
BAD_ORIGINS = ["http://[", "http://[::1", "::::", "http://evil.example", "https://localhost",
               "http://localhost:notaport", "javascript:alert(1)", "http://\u00e9.example"]
# the suite runs this twice: on SQLite in full, on PostgreSQL (where the database's own
# part is what may differ: the state left, each table replayed) a shorter run from other
# seeds in CI (chunks 1000…), so the two passes send different requests
# A number of requests, not a time: under a busy machine's load a time limit sent fewer
# than it asked for (900 in 70 s) and failed; 2,000 take ~25 s on a quiet one (4,000 and 70 s
# before: the suite's time, issue 51), the time limit is only a guard against a hang
ON_PG = os.environ.get("DATABASE_URL", "").startswith("postgresql")
REQUESTS = int(os.environ.get("FUZZ_REQUESTS", "800" if ON_PG else "2000"))  # stop after
TIME_LIMIT = float(os.environ.get("FUZZ_SECONDS", "300"))                    # or after (s)
AT_LEAST = REQUESTS                 # all of them sent, unless the guard stopped it
CHUNK = 100                                                # examples per seed
SENDS = 3                                                  # requests per example
_validators: dict[tuple[str, str, int], Any] = {}


def validator(path: str, method: str, status: int) -> Any:
    key = (path, method, status)
    if key not in _validators:
        resp = DOC["paths"][path][method]["responses"][str(status)]
        schema = resp["content"]["application/json"]["schema"]
        _validators[key] = jsonschema_rs.Draft202012Validator(
            {**schema, "components": DOC["components"]})
    return _validators[key]


def _text(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def test_thousands_of_generated_requests_never_get_a_5xx(app, client, table):
    # what the fuzzer reads is the document the app serves (made from the declared bodies)
    assert client.get("/api/openapi.json").get_json() == json.loads(json.dumps(DOC))
    # the fuzzer tries codes on purpose, asks for taken seats, opens tables and players
    app.config["RATE_LIMITS"] = {name: "1000000 per second" for name in limits.LIMITS}
    host = table(wall_distance=3)
    red, blue = sit(host, "red", "Ann"), sit(host, "blue", "Bob")
    pending = sit(host, "red", "Cat")
    red.event({"type": "exhaust", "side": "red", "ranks": [1]})
    blue.event({"type": "exhaust", "side": "blue", "ranks": [10]})
    teams = table(teams=True)
    screens = {"host": host.secret, "red": red.secret, "blue": blue.secret,
               "pending": pending.secret, "teams-host": teams.secret, "none": None,
               "junk": "x" * 43}
    seat_ids = [red.seat["id"], blue.seat["id"], pending.seat["id"]]
    statuses: Counter[int] = Counter()
    by_op: Counter[str] = Counter()
    start = time.monotonic()
    keys = iter(range(10**9))
    used: list[str] = []
    versions = {host.code: host.refresh()["version"], teams.code: teams.refresh()["version"]}

    choices = STRATEGIES

    def fuzz(data: st.DataObject) -> None:
        op, mode, strategy = data.draw(st.sampled_from(choices), label="operation")
        case = data.draw(strategy, label="case")
        rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="choices"))
        for _ in range(SENDS):            # the same case as several screens, codes, versions
            send(op, case, rng)

    def send(op: Any, case: Any, rng: random.Random) -> None:
        params = dict(case.path_parameters or {})
        if "code" in params and rng.random() < 0.85:
            params["code"] = rng.choice([host.code, host.code, teams.code, host.code.lower()])
        if "seat_id" in params and rng.random() < 0.6:
            params["seat_id"] = rng.choice(seat_ids)
        path = op.path
        for name, value in params.items():
            path = path.replace("{" + name + "}", quote(str(value), safe="%"))
        headers = {k: v for k, v in (case.headers or {}).items()
                   if isinstance(v, str) and v.isascii() and "\n" not in v and "\r" not in v}
        who = rng.choice(sorted(screens, key=str))
        if screens[who] and rng.random() < 0.9:
            headers["Authorization"] = "Bearer " + screens[who]
        if rng.random() < 0.9:
            headers["Origin"] = ORIGIN
        if rng.random() < 0.04:           # an Origin or Referer that is not this server's
            headers[rng.choice(["Origin", "Referer"])] = rng.choice(BAD_ORIGINS)
        body = case.body
        kwargs: dict[str, Any] = {}
        if not isinstance(body, NotSet):
            if isinstance(body, dict) and rng.random() < 0.6:   # reach past the first checks
                body = dict(body)
                body["version"] = versions.get(params.get("code"), 1)
                body["idempotency_key"] = f"fuzz-{next(keys):08d}"
                if used and rng.random() < 0.1:   # a key already used, maybe elsewhere
                    body["idempotency_key"] = rng.choice(used)
                used.append(body["idempotency_key"])
            if isinstance(body, dict) and rng.random() < 0.08:  # text that is not text
                body = dict(body)
                body[rng.choice([*[k for k, v in body.items() if isinstance(v, str)], "name"])] = \
                    rng.choice(NOT_TEXT)
            if rng.random() < 0.03:
                kwargs["data"] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
            else:
                try:
                    kwargs["data"] = json.dumps(body)
                except (TypeError, ValueError):
                    kwargs["data"] = str(body)
            headers.setdefault("Content-Type", case.media_type or "application/json")
        query = {k: (v if isinstance(v, list) else [v]) for k, v in (case.query or {}).items()}
        query = {k: [_text(x) for x in v] for k, v in query.items()}
        r = client.open(path, method=op.method.upper(), headers=headers, query_string=query,
                        **kwargs)
        statuses[r.status_code] += 1
        got = r.get_json(silent=True)
        if isinstance(got, dict) and isinstance(got.get("view"), dict):
            versions[got["view"]["code"]] = got["view"]["version"]
        by_op[f"{op.method.upper()} {op.path}"] += 1
        assert r.status_code < 500, (op.method, path, kwargs.get("data"), r.get_data(as_text=True))
        documented = DOC["paths"][op.path][op.method]["responses"]
        assert str(r.status_code) in documented, (op.method, path, r.status_code, r.get_json())
        assert r.is_json, (path, r.status_code)
        errors = sorted(validator(op.path, op.method, r.status_code).iter_errors(r.get_json()),
                        key=str)
        assert not errors, (op.method, path, r.status_code, errors[0].message)

    # chunks of examples, each from its own seed (fixed in CI, fresh locally), until the
    # number of requests or the time is reached
    base = (1000 if ON_PG else 0) if os.environ.get("CI") else random.randrange(10**6)
    for chunk in range(10**6):
        if sum(statuses.values()) >= REQUESTS or time.monotonic() - start > TIME_LIMIT:
            break
        run = settings(max_examples=CHUNK, deadline=None, database=None, derandomize=False,
                       suppress_health_check=list(HealthCheck))(
            seed(base + chunk)(given(st.data())(fuzz)))
        run()
    sent = sum(statuses.values())
    assert sent >= AT_LEAST, f"only {sent} requests in {TIME_LIMIT} s"
    # an operation the draw happened to pass by is sent on its own (a few examples each)
    for op in [op for op in OPERATIONS if f"{op.method.upper()} {op.path}" not in by_op]:
        choices = [c for c in STRATEGIES if c[0] is op]
        settings(max_examples=20, deadline=None, database=None, derandomize=False,
                 suppress_health_check=list(HealthCheck))(
            seed(base)(given(st.data())(fuzz)))()
    assert len(by_op) == len(OPERATIONS)

    # no state corruption: every table still replays through the referee, views build
    with app.app_context():
        tables = list(db.session.scalars(sa.select(Table)))
        for t in tables:
            rows = db.session.scalars(sa.select(Event).where(Event.table_id == t.id,
                                                             Event.undone.is_(False))
                                      .order_by(Event.seq))
            replay(Options(t.wall_distance), [event_from_dict(json.loads(e.data)) for e in rows])
            seqs = list(db.session.scalars(sa.select(Event.seq).where(Event.table_id == t.id)))
            assert len(seqs) == len(set(seqs))
        codes = [t.code for t in tables]
    for code in codes:
        r = client.get(f"/api/tables/{code}/state")
        assert r.status_code == 200, r.get_json()
    rec = client.get(f"/api/tables/{host.code}/record").get_json()
    assert re.fullmatch(r"spies-and-lies-record/1", rec["format"])
    took = time.monotonic() - start
    final = client.get(f"/api/tables/{host.code}/state").get_json()["view"]["version"]
    print(f"\nfuzz (seeds from {base}): {sent} requests in {took:.0f} s over {len(by_op)} "
          f"operations, 5xx: {sum(n for s, n in statuses.items() if s >= 500)}, "
          f"statuses {dict(sorted(statuses.items()))}, {len(codes)} tables still replay, "
          f"main table at version {final}")
