"""The JSON API keeps its shapes (issue 51): the served OpenAPI document, and the shape of
every answer of a scripted session (a table opened, both sides seated, intel, a reveal
with its guesses, an undo, a finished game and an imported one, the history, statistics
and player pages, the keeper's requests, and refusals of every kind), as they were
before the request bodies were declared once (companion/api/). A shape is the keys and
the types of the values, recursively, never the values; a refusal keeps its status, its
``code``, its ``field`` and its words in English and in one other language.

``SL_SHAPES_WRITE=1`` writes the fixtures again (only when an answer's shape changes on
purpose; the diff of tests/web/api_shapes/ then shows what changed).
"""

from __future__ import annotations

import json
import os
import random
from hashlib import sha256
from pathlib import Path
from typing import Any

from companion.engine.simulate import random_record

from .conftest import ORIGIN, Player, enter, sit

HERE = Path(__file__).resolve().parent / "api_shapes"
RECORDS = Path(__file__).resolve().parents[1] / "records"
WRITE = os.environ.get("SL_SHAPES_WRITE") == "1"
OTHER = ["nl", "fr", "de"]          # each refusal is read again in one of these, in turn
KEY = "k" * 40                      # a player key a phone keeps
KEY2 = "q" * 40


def shape(v: Any, codes: frozenset[str] = frozenset(), within: str = "") -> Any:
    """The keys and value types of ``v``, recursively (a list: the shapes of its items,
    each once, in a fixed order); a table code as a key is written ``<code>``, a seat's
    id (the keys of a rematch's ``seats``: PostgreSQL spends an id on a refused insert)
    ``<seat>``."""
    if isinstance(v, dict):
        return {("<code>" if k in codes else "<seat>" if within == "seats" and k.isdigit()
                 else k): shape(x, codes, k) for k, x in sorted(v.items())}
    if isinstance(v, list):
        seen = {json.dumps(shape(x, codes), sort_keys=True) for x in v}
        return [json.loads(s) for s in sorted(seen)]
    if v is None:
        return "null"
    return type(v).__name__


class Script:
    """The requests of the session and what each one got."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.got: list[dict[str, Any]] = []
        self.codes: set[str] = set()
        self.keys = iter(range(10**6))
        self.turn = 0

    def call(self, label: str, method: str, path: str, body: Any = None, secret: str | None = None,
             version: int | None = None, data: str | None = None, origin: bool = True,
             status: int | None = None) -> Any:
        """One request (a body with ``version`` gets it and a fresh idempotency key unless
        it brings its own); its status and answer's shape are kept under ``label``."""
        headers = {"Origin": ORIGIN} if origin else {}
        if secret:
            headers["Authorization"] = f"Bearer {secret}"
        if isinstance(body, dict) and version is not None:
            body = {"version": version, "idempotency_key": f"shape-{next(self.keys):06d}", **body}
        kw: dict[str, Any] = {"json": body} if data is None and body is not None else {}
        if data is not None:
            kw = {"data": data, "content_type": "application/json"}
        r = self.client.open(path, method=method, headers=headers, **kw)
        if status is not None:
            assert r.status_code == status, (label, r.status_code, r.get_data(as_text=True)[:300])
        out: dict[str, Any] = {"label": label, "status": r.status_code}
        answer = r.get_json(silent=True)
        if r.is_json:
            if isinstance(answer, dict) and isinstance(answer.get("code"), str) \
                    and r.status_code < 400 and len(answer["code"]) <= 12:
                self.codes.add(answer["code"])
            out["shape"] = shape(answer, frozenset(self.codes))
        else:
            out["type"] = r.mimetype
        if r.status_code >= 400 and r.is_json:
            out["refusal"] = {"code": answer.get("code"), "field": answer.get("field"),
                              "en": self.plain(answer.get("error"))}
            other = OTHER[self.turn % len(OTHER)]
            self.turn += 1
            again = self.client.open(path, method=method,
                                     headers={**headers, "Accept-Language": other}, **kw)
            said = again.get_json(silent=True) or {}
            assert (again.status_code, said.get("code")) == (r.status_code, answer.get("code"))
            out["refusal"][other] = self.plain(said.get("error"))
        self.got.append(out)
        return r

    def plain(self, text: Any) -> Any:
        """A refusal's words with every table code in them written ``<code>``."""
        for code in self.codes if isinstance(text, str) else ():
            text = text.replace(code, "<code>")
        return text

    def refused(self, label: str, path: str, body: Any, status: int = 400, **kw: Any) -> Any:
        return self.call(label, "POST", path, body, status=status, **kw)


def session(app: Any, client: Any, keeper_key: str) -> list[dict[str, Any]]:
    """The scripted session; returns what each request got."""
    app.config["RATE_LIMITS"] = {"tables": "1000 per minute", "imports": "1000 per minute",
                                 "players": "1000 per hour", "codes": "1000 per minute",
                                 "seat_asks": "1000 per minute"}
    s = Script(client)
    call = s.call

    # --- opening a table, and what opening refuses -----------------------------------
    new = "/api/tables"
    for label, body in [
            ("wall 12", {"wall_distance": 12}), ("wall text", {"wall_distance": "4"}),
            ("wall null", {"wall_distance": None}), ("wall float", {"wall_distance": 4.0}),
            ("teams text", {"teams": "yes"}), ("teams null", {"teams": None}),
            ("deduction 1", {"deduction": 1}), ("chances text", {"chances": "x"}),
            ("first_game null", {"first_game": None}),
            ("host_secret short", {"host_secret": "short"}),
            ("host_secret number", {"host_secret": 5}),
            ("key short", {"idempotency_key": "short"}), ("key number", {"idempotency_key": 5}),
            ("key spaces", {"idempotency_key": "has spaces in it"}),
            ("screen text", {"screen": "red"}), ("screen long", {"screen": [{"side": "red"}] * 5}),
            ("screen item", {"screen": ["red"]}),
            ("screen side", {"screen": [{"side": "green"}]}),
            ("screen part", {"screen": [{"side": "red", "part": 1}]}),
            ("screen team part", {"teams": True, "screen": [{"side": "red", "part": 0}]}),
            ("screen name", {"screen": [{"side": "red", "name": "\u200b"}]}),
            ("screen name number", {"screen": [{"side": "red", "name": 7}]}),
            ("screen twice", {"screen": [{"side": "red"}, {"side": "red", "name": "X"}]}),
            ("wall and teams", {"wall_distance": 9, "teams": "x"}),
            ("secret and key", {"host_secret": "x", "idempotency_key": "y"}),
            ("text not text", {"wall_distance": 3, "name": "a\u0000b"})]:
        s.refused(f"open: {label}", new, body)
    s.refused("open: not json", new, None, data="{not json")
    s.refused("open: not an object", new, [1, 2])
    s.refused("open: other site", new, {}, status=403, origin=False)
    s.refused("open: too large", new, None, status=413, data=json.dumps({"x": "y" * 20000}))
    r = call("open", "POST", new, {"wall_distance": 2, "deduction": True, "chances": False,
                                   "first_game": True, "idempotency_key": "open-table-1"},
             status=201)
    host = Player(client, r.get_json()["code"], r.get_json()["host_secret"])
    code = host.code
    call("open again (retry)", "POST", new, {"wall_distance": 2, "deduction": True,
                                             "chances": False, "first_game": True,
                                             "idempotency_key": "open-table-1"}, status=201)
    call("open on screen", "POST", new, {"wall_distance": 3, "teams": True,
                                         "host_secret": "s" * 43,
                                         "screen": [{"side": "red", "part": 1, "name": "Zoë"},
                                                    {"side": "blue", "part": 2}]}, status=201)
    base = f"/api/tables/{code}"

    def fresh() -> int:
        return int(client.get(f"{base}/state").get_json()["view"]["version"])


    # --- reading a table ---------------------------------------------------------------
    v = call("state", "GET", f"{base}/state", secret=host.secret, status=200)
    version = v.get_json()["view"]["version"]
    call("state since", "GET", f"{base}/state?since={version}", status=200)
    call("state lower", "GET", f"{base}/state".replace(code, code.lower()), status=200)
    call("me host", "GET", f"{base}/me", secret=host.secret, status=200)
    call("me nobody", "GET", f"{base}/me", status=200)
    call("me bad key", "GET", f"{base}/me", secret="x" * 43, status=401)
    call("no such table", "GET", "/api/tables/ZZZZZ/state", status=404)
    call("no such address", "GET", "/api/nothing-here", status=404)
    call("wrong method", "DELETE", "/api/tables", status=405)

    # --- sitting down --------------------------------------------------------------------
    seats = f"{base}/seats"
    for label, body in [
            ("side green", {"side": "green", "name": "X"}), ("side missing", {"name": "X"}),
            ("side number", {"side": 1, "name": "X"}), ("name missing", {"side": "red"}),
            ("name empty", {"side": "red", "name": ""}),
            ("name invisible", {"side": "red", "name": "\u200b\u200b"}),
            ("name long", {"side": "red", "name": "x" * 41}),
            ("name number", {"side": "red", "name": 7}),
            ("name bidi", {"side": "red", "name": "x\u202ey"}),
            ("part 1 no teams", {"side": "red", "name": "X", "part": 1}),
            ("part text", {"side": "red", "name": "X", "part": "1"}),
            ("secret short", {"side": "red", "name": "X", "secret": "abc"}),
            ("secret number", {"side": "red", "name": "X", "secret": 12}),
            ("player short", {"side": "red", "name": "X", "player": "abc"}),
            ("side and name", {"side": "green"}), ("name and secret", {"side": "red",
                                                                    "secret": "x"})]:
        s.refused(f"join: {label}", seats, body, version=version)
    s.refused("join: version missing", seats, {"idempotency_key": "abcdefgh-1", "side": "red",
                                               "name": "X"})
    s.refused("join: version text", seats, {"version": "3", "idempotency_key": "abcdefgh-2",
                                            "side": "red", "name": "X"})
    s.refused("join: version null", seats, {"version": None, "idempotency_key": "abcdefgh-3",
                                            "side": "red", "name": "X"})
    s.refused("join: version bool", seats, {"version": True, "idempotency_key": "abcdefgh-4",
                                            "side": "red", "name": "X"})
    s.refused("join: key missing", seats, {"version": version, "side": "red", "name": "X"})
    s.refused("join: key pattern", seats, {"version": version, "idempotency_key": "a b c d e f",
                                           "side": "red", "name": "X"})
    s.refused("join: key and version", seats, {"idempotency_key": 5})
    s.refused("join: stale", seats, {"side": "red", "name": "X"}, version=version - 1,
              status=409)
    s.refused("join: stale and bad", seats, {"side": "green", "name": "X"},
              version=version - 1, status=409)
    red_r = call("join red", "POST", seats, {"side": "red", "name": " Ann ", "player": KEY},
                 version=version, status=201)
    red = Player(client, code, red_r.get_json()["secret"], "Ann")
    version = red_r.get_json()["view"]["version"]
    blue_r = call("join blue (own key)", "POST", seats,
                  {"side": "blue", "name": "Bob", "secret": "b" * 43, "player": KEY2},
                  version=version, status=201)
    blue = Player(client, code, "b" * 43, "Bob")
    version = blue_r.get_json()["view"]["version"]
    s.refused("join: key taken", seats, {"side": "blue", "name": "Cy", "secret": "b" * 43},
              version=version, status=409)
    ask = call("join taken seat", "POST", seats, {"side": "red", "name": "Cy"},
               version=version, status=201)
    call("requests (host)", "GET", f"{base}/requests", secret=host.secret, status=200)
    call("requests (anyone)", "GET", f"{base}/requests", status=200)
    decision = f"{base}/seats/{ask.get_json()['seat']['id']}/decision"
    s.refused("decide: approve text", decision, {"approve": "yes"}, secret=host.secret,
              version=fresh())
    s.refused("decide: approve missing", decision, {}, secret=host.secret, version=fresh())
    s.refused("decide: from a phone", decision, {"approve": False}, secret=red.secret,
              version=fresh(), status=403)
    call("decide: keep", "POST", decision, {"approve": False}, secret=host.secret,
         version=fresh(), status=200)
    call("decide: no such ask", "POST", decision, {"approve": False}, secret=host.secret,
         version=fresh(), status=404)

    # --- entering the game -------------------------------------------------------------
    events = f"{base}/events"
    for label, body in [("event missing", {}), ("event text", {"event": "exhaust"}),
                        ("event empty", {"event": {}}),
                        ("event type", {"event": {"type": "teleport"}}),
                        ("event ranks", {"event": {"type": "exhaust", "side": "red",
                                                   "ranks": [11]}}),
                        ("reveal", {"event": {"type": "reveal"}})]:
        s.refused(f"event: {label}", events, body, secret=red.secret, version=fresh())
    s.refused("event: no seat", events, {"event": {"type": "exhaust", "side": "red",
                                                   "ranks": [1]}}, version=fresh(), status=401)
    s.refused("event: wrong seat", events, {"event": {"type": "exhaust", "side": "red",
                                                      "ranks": [1]}},
              secret=blue.secret, version=fresh(), status=403)
    s.refused("event: not due", events, {"event": {"type": "intel", "ranks": [1, 2, 3, 4]}},
              secret=host.secret, version=fresh(), status=409)
    call("exhaust red", "POST", events, {"event": {"type": "exhaust", "side": "red",
                                                   "ranks": [1]}},
         secret=red.secret, version=fresh(), status=201)
    call("exhaust blue (delta)", "POST", events,
         {"event": {"type": "exhaust", "side": "blue", "ranks": [10]}, "answer": "delta"},
         secret=blue.secret, version=fresh(), status=201)
    call("intel (none)", "POST", events, {"event": {"type": "intel", "ranks": [3, 5, 8, 9]},
                                          "answer": "none"},
         secret=host.secret, version=fresh(), status=201)
    call("tokens red (answer other)", "POST", events,
         {"event": {"type": "tokens", "side": "red", "missions": []}, "answer": "all"},
         secret=red.secret, version=fresh(), status=201)
    call("tokens blue", "POST", events, {"event": {"type": "tokens", "side": "blue",
                                                   "missions": [2]}},
         secret=blue.secret, version=fresh(), status=201)
    reused = {"event": {"type": "start", "side": "red"}, "version": fresh(),
              "idempotency_key": "start-key-01"}
    call("start", "POST", events, reused, secret=host.secret, status=201)
    call("start again (retry)", "POST", events, reused, secret=host.secret, status=201)
    s.refused("key used for another", f"{base}/undo", {"version": fresh(),
                                                       "idempotency_key": "start-key-01"},
              secret=host.secret, status=422)
    call("preview", "GET", f"{base}/preview?side=red&rank=3", status=200)
    call("preview: side", "GET", f"{base}/preview?side=green&rank=3", status=400)
    call("preview: rank", "GET", f"{base}/preview?side=red&rank=11", status=400)
    call("preview: rank text", "GET", f"{base}/preview?side=red&rank=x", status=400)

    draft = f"{base}/draft"
    for label, body, who, st in [
            ("step missing", {"value": 3}, red, 400), ("step number", {"step": 5, "value": 3},
                                                       red, 400),
            ("step bribe", {"step": "bribe", "value": 3}, red, 400),
            ("step null", {"step": None, "value": 3}, red, 400),
            ("guess text", {"step": "guess", "value": "ten"}, red, 400),
            ("guess 11", {"step": "guess", "value": 11}, red, 400),
            ("guess bool", {"step": "guess", "value": True}, red, 400),
            ("guess missing", {"step": "guess"}, red, 400),
            ("deception text", {"step": "deception", "value": "yes"}, blue, 400),
            ("actual too soon", {"step": "actual", "value": 3}, red, 409),
            ("guess by blue", {"step": "guess", "value": 3}, blue, 403),
            ("guess by nobody", {"step": "guess", "value": 3}, None, 401)]:
        s.refused(f"draft: {label}", draft, body, secret=who.secret if who else None,
                  version=fresh(), status=st)
    call("deception", "POST", draft, {"step": "deception", "value": True}, secret=blue.secret,
         version=fresh(), status=200)
    call("guess", "POST", draft, {"step": "guess", "value": 3}, secret=red.secret,
         version=fresh(), status=200)
    s.refused("draft: actual impossible", draft, {"step": "actual", "value": 10},
              secret=blue.secret, version=fresh())
    call("actual", "POST", draft, {"step": "actual", "value": 3}, secret=blue.secret,
         version=fresh(), status=201)
    s.refused("undo: confirm text", f"{base}/undo", {"confirm": "yes"}, secret=red.secret,
              version=fresh())
    call("undo (asks)", "POST", f"{base}/undo", {}, secret=red.secret, version=fresh())
    call("undo (agreed)", "POST", f"{base}/undo", {"confirm": True}, secret=blue.secret,
         version=fresh())
    call("undo tap", "POST", f"{base}/undo", {}, secret=red.secret, version=fresh())
    call("state seated", "GET", f"{base}/state", secret=red.secret, status=200)
    call("me seat", "GET", f"{base}/me", secret=red.secret, status=200)
    call("chances", "GET", f"{base}/chances", status=200)
    call("story in play", "GET", f"{base}/story", status=200)
    call("record", "GET", f"{base}/record", status=200)

    # --- the screen, another screen, a rematch --------------------------------------
    screen = f"{base}/screen"
    for label, body in [("on missing", {"side": "red"}), ("on text", {"side": "red", "on": 1}),
                        ("side missing", {"on": True, "name": "X"}),
                        ("name missing", {"side": "red", "on": True}),
                        ("name bad", {"side": "red", "on": True, "name": "\u0301" * 3}),
                        ("part", {"side": "red", "on": False, "part": 2})]:
        s.refused(f"screen: {label}", screen, body, secret=host.secret, version=fresh())
    s.refused("screen: from a phone", screen, {"side": "red", "on": True, "name": "X"},
              secret=red.secret, version=fresh(), status=403)
    s.refused("screen: not there", screen, {"side": "blue", "on": False}, secret=host.secret,
              version=fresh(), status=409)
    call("screen: take red", "POST", screen, {"side": "red", "on": True, "name": "Dee"},
         secret=host.secret, version=fresh(), status=200)
    call("screen: free red", "POST", screen, {"side": "red", "on": False},
         secret=host.secret, version=fresh(), status=200)
    hand = f"{base}/host"
    for label, body in [("hash missing", {}), ("hash short", {"host_hash": "ab"}),
                        ("hash upper", {"host_hash": "A" * 64})]:
        s.refused(f"host: {label}", hand, body, secret=host.secret, version=fresh())
    s.refused("host: from a seat", hand, {"host_hash": "a" * 64}, secret=blue.secret,
              version=fresh(), status=403)
    call("host: ask", "POST", hand, {"host_hash": "c" * 64}, version=fresh(), status=202)
    call("requests with a screen", "GET", f"{base}/requests", secret=host.secret, status=200)
    moved = "n" * 43
    call("host: hand over", "POST", hand, {"host_hash": sha256(moved.encode()).hexdigest()},
         secret=host.secret, version=fresh(), status=200)
    s.refused("host: already", hand, {"host_hash": sha256(moved.encode()).hexdigest()},
              secret=moved, version=fresh(), status=409)
    call("me after hand over", "GET", f"{base}/me", secret=host.secret, status=401)

    # --- a finished game, its rematch; an imported one; the group's pages ----------------
    r = client.post(new, json={"wall_distance": 2}, headers={"Origin": ORIGIN})
    done = Player(client, r.get_json()["code"], r.get_json()["host_secret"])
    done.refresh()
    s.codes.add(done.code)
    players = {"red": sit(done, "red", "Ann", player=KEY),
               "blue": sit(done, "blue", "Bob", player=KEY2)}
    enter(done, players, random_record(random.Random(1), wall_distance=2).events)
    assert done.refresh()["state"]["phase"] == "over"
    dbase = f"/api/tables/{done.code}"
    call("state over", "GET", f"{dbase}/state", status=200)
    call("story over", "GET", f"{dbase}/story", status=200)
    for label, body in [("swap missing", {"host_secret": "r" * 43}),
                        ("swap text", {"swap": "no", "host_secret": "r" * 43}),
                        ("host_secret missing", {"swap": False}),
                        ("host_secret short", {"swap": False, "host_secret": "r"})]:
        s.refused(f"rematch: {label}", f"{dbase}/rematch", body, secret=done.secret,
                  version=fresh_of(client, done.code))
    s.refused("rematch: from a phone", f"{dbase}/rematch", {"swap": True,
                                                            "host_secret": "r" * 43},
              secret=players["red"].secret, version=fresh_of(client, done.code), status=403)
    call("rematch", "POST", f"{dbase}/rematch", {"swap": True, "host_secret": "r" * 43},
         secret=done.secret, version=fresh_of(client, done.code), status=201)

    imp = "/api/tables/import"
    record = json.loads((RECORDS / "random-flag-1.json").read_text())
    half = {**record, "events": record["events"][:8]}
    for label, body in [("record missing", {}), ("record text", {"record": "x"}),
                        ("record bad", {"record": {"format": "x", "events": []}}),
                        ("record event", {"record": {**record, "events": [{"type": "x"}]}}),
                        ("teams text", {"record": record, "teams": "x"}),
                        ("teams other", {"record": record, "teams": True}),
                        ("from number", {"record": record, "from": 5}),
                        ("from bad", {"record": record, "from": "no such!"}),
                        ("screen bad", {"record": half, "screen": "x"}),
                        ("screen side", {"record": half, "screen": [{"side": "x"}]}),
                        ("host_secret bad", {"record": record, "host_secret": "x"}),
                        ("chances null", {"record": record, "chances": None})]:
        s.refused(f"import: {label}", imp, body)
    s.refused("import: from without key", imp, {"record": record, "from": done.code},
              status=403)
    call("import", "POST", imp, {"record": record}, status=201)
    call("import again", "POST", imp, {"record": record}, status=200)
    call("import unfinished", "POST", imp, {"record": half, "teams": False,
                                            "screen": [{"side": "blue"}]}, status=201)

    mine = "/api/tables/mine"
    for label, body in [("tables missing", {}), ("tables text", {"tables": "x"}),
                        ("tables many", {"tables": [{"code": code, "key": "k" * 43}] * 13}),
                        ("tables code", {"tables": [{"code": "!", "key": "k" * 43}]}),
                        ("tables key", {"tables": [{"code": code, "key": "k"}]})]:
        s.refused(f"mine: {label}", mine, body)
    call("mine", "POST", mine, {"tables": [{"code": code, "key": red.secret},
                                           {"code": code, "key": "z" * 43}]}, status=200)

    call("history", "GET", "/api/history", status=200)
    call("history apart", "GET", "/api/history?apart=1", status=200)
    call("stats", "GET", "/api/stats", status=200)
    ann = players["red"].seat["player"]
    call("player stats", "GET", f"/api/players/{ann}/stats", status=200)
    call("player stats: none", "GET", "/api/players/999999/stats", status=404)
    rename = "/api/players/me"
    for label, body in [("name missing", {"player": KEY}), ("name bad", {"player": KEY,
                                                                         "name": ""}),
                        ("player missing", {"name": "Ann"}), ("player number", {"player": 5,
                                                                               "name": "A"}),
                        ("both", {"player": 5})]:
        s.refused(f"rename: {label}", rename, body)
    s.refused("rename: unknown", rename, {"player": "u" * 40, "name": "Ann"}, status=404)
    call("rename", "POST", rename, {"player": KEY, "name": "Annie"}, status=200)

    # --- the keeper --------------------------------------------------------------------
    call("keeper: not", "POST", "/api/keeper", {}, secret="x" * 43, status=403)
    call("keeper", "POST", "/api/keeper", {}, secret=keeper_key, status=200)
    for label, body in [("once missing", {}), ("once short", {"once": "x"}),
                        ("once number", {"once": 5}), ("once unknown", {"once": "o" * 30})]:
        s.refused(f"claim: {label}", "/api/keeper/claim", body, status=403)
    count = f"/api/history/{done.code}/count"
    for label, body in [("count missing", {}), ("count text", {"count": "yes"})]:
        s.refused(f"count: {label}", count, body, secret=keeper_key)
    s.refused("count: not keeper", count, {"count": True}, status=403)
    call("count", "POST", count, {"count": False}, secret=keeper_key, status=200)
    call("count: rule", "POST", count, {"count": None}, secret=keeper_key, status=200)
    r = client.post("/api/keeper/backup", json={},
                    headers={"Origin": ORIGIN, "Authorization": f"Bearer {keeper_key}"})
    pg = app.config["SQLALCHEMY_DATABASE_URI"].startswith("postgresql")      # pg_dump's
    assert (r.status_code, r.mimetype) == ((409, "application/json") if pg
                                           else (200, "application/vnd.sqlite3"))
    s.refused("forget: games text", f"/api/players/{ann}/delete", {"games": "yes"},
              secret=keeper_key)
    s.refused("forget: not theirs", f"/api/players/{ann}/delete", {}, secret="x" * 43,
              status=403)
    call("forget", "POST", f"/api/players/{ann}/delete", {"games": False}, secret=keeper_key,
         status=200)
    call("delete game: not host", "POST", f"/api/history/{done.code}/delete", {},
         secret="x" * 43, status=403)
    call("delete game", "POST", f"/api/history/{done.code}/delete", {}, secret=keeper_key,
         status=200)
    call("delete imported", "POST", "/api/history/imported/delete", {}, secret=keeper_key,
         status=200)

    # --- too many unknown codes: 429 with Retry-After ----------------------------------
    app.config["RATE_LIMITS"] = {**app.config["RATE_LIMITS"], "codes": "2 per minute"}
    for n in range(3):
        client.get(f"/api/tables/QQQQ{n}/state")
    call("too many codes", "GET", "/api/tables/QQQQ9/state", status=429)
    return s.got


def written(got: list[dict[str, Any]]) -> str:
    """The fixture's text: each distinct shape once (a view's is long), by a short name
    the answers refer to, one answer a line."""
    shapes: dict[str, Any] = {}
    rows = []
    for g in got:
        g = dict(g)
        if "shape" in g:
            text = json.dumps(g["shape"], sort_keys=True)
            name = f"s{sha256(text.encode()).hexdigest()[:10]}"
            shapes[name] = g["shape"]
            g["shape"] = name
        rows.append(json.dumps(g, ensure_ascii=False, sort_keys=True))
    return ('{"answers": [\n' + ",\n".join(rows) + '\n],\n"shapes": '
            + json.dumps(shapes, indent=1, sort_keys=True) + "}\n")


def read(fixture: dict[str, Any]) -> list[dict[str, Any]]:
    """The answers of :func:`written`'s text, each with its shape again."""
    return [{**a, "shape": fixture["shapes"][a["shape"]]} if "shape" in a else a
            for a in fixture["answers"]]


def fresh_of(client: Any, code: str) -> int:
    return int(client.get(f"/api/tables/{code}/state").get_json()["view"]["version"])


def test_the_served_document_and_every_answer_keep_their_shapes(app, client, keeper_key):
    doc = client.get("/api/openapi.json").get_json()
    got = session(app, client, keeper_key)
    if WRITE:
        HERE.mkdir(exist_ok=True)
        (HERE / "openapi.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        (HERE / "answers.json").write_text(written(got))
    want_doc = json.loads((HERE / "openapi.json").read_text())
    # the one change since the fixture: the undo's `confirm`, checked before and not
    # described, is described now that the description comes from the same declaration
    undo = want_doc["paths"]["/api/tables/{code}/undo"]["post"]["requestBody"]
    undo["content"]["application/json"]["schema"]["properties"].setdefault("confirm", {
        "type": "boolean", "description": "the other side's answer to an undo that waits "
                                          "for it: true agrees, false refuses"})
    assert doc == want_doc, "the served OpenAPI document changed"
    want = read(json.loads((HERE / "answers.json").read_text()))
    assert [g["label"] for g in got] == [w["label"] for w in want]
    changed = [g["label"] for g, w in zip(got, want, strict=True) if g != w]
    for g, w in zip(got, want, strict=True):
        assert g == w, (g["label"], f"{len(changed)} answers changed: {changed}")
