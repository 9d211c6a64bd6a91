"""The OpenAPI 3.1 description of the JSON API, served at ``/api/openapi.json``.

Built by hand from the same words the API uses, and kept honest by a test that
compares it with the app's routes and by the fuzzer that reads it.
"""

from __future__ import annotations

from typing import Any

from ..edge.fields import CODE_RE, KEY_RE, SECRET_RE

ERRORS = {
    400: "a field is missing or malformed (`field` names it) or the record is refused",
    401: "the bearer secret belongs to no seat of this table, or none was sent where one is needed",
    403: "another site sent it, or this seat may not do this now",
    404: "no such table (or seat request)",
    409: "the table moved on (`view` holds the fresh state) or the action is out of turn",
    410: "the table has expired (untouched for 30 days)",
    421: "the Host header names a server this one is not (DNS rebinding is refused)",
    422: "this idempotency key was already used for another kind of request or by "
         "another screen",
    413: "the request body is larger than 16 KB",
    429: "too many unknown table codes, tables, imports, new players or seat requests from "
         "this client, or from all clients together (see Retry-After)",
    507: "the server's disk is full",
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> dict[str, Any]:
    out = {}
    for c in codes:
        resp = _json(_ref("Error"), ERRORS[c])
        if c == 429:
            resp["headers"] = {"Retry-After": {"schema": {"type": "string"},
                                               "description": "seconds to wait"}}
        out[str(c)] = resp
    return out


CODE = {"name": "code", "in": "path", "required": True,
        "description": "the table code shown on the big screen (letters and digits)",
        "schema": {"type": "string", "pattern": CODE_RE.pattern}}
SEAT_ID = {"name": "seat_id", "in": "path", "required": True,
           "schema": {"type": "integer", "minimum": 0}}
PLAYER_ID = {"name": "player_id", "in": "path", "required": True,
             "schema": {"type": "integer", "minimum": 0}}
FIRST_GAME = {"type": "boolean", "description": "a first game: the big screen explains each "
              "ability in one sentence the first time it is activated"}
CHANCES = {"type": "boolean", "description": "opt in to the live chance-to-win bar on the big "
           "screen and the watchers' phones (issue 25)"}
SCREEN: dict[str, Any] = {
    "type": "array", "maxItems": 4,
    "description": "the seats entered on the big screen (issue 23), not by phones",
    "items": {"type": "object", "required": ["side"], "properties": {
        "side": {"$ref": "#/components/schemas/Side"},
        "part": {"type": "integer", "enum": [0, 1, 2]},
        "name": {"type": "string", "maxLength": 40}}}}
ACTION = ["version", "idempotency_key"]      # fields every change of a table carries
LOOKUP = (404, 410, 421, 429)                 # every address with a table code may answer these


def _action(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": {
        "type": "object", "required": ACTION + required,
        "properties": {"version": {"type": "integer",
                                   "description": "the table version this screen last saw"},
                       "idempotency_key": _ref("IdempotencyKey"),
                       "answer": {"type": "string", "enum": ["view", "delta", "none"],
                                  "description": "delta: the answer carries what changed "
                                  "since `version` (set/del/add operations) instead of the "
                                  "whole view, when the server still has that view; none: "
                                  "only the new `version` (the live stream brings the "
                                  "change)"},
                       **props}}}}}


def _post(summary: str, props: dict[str, Any], required: list[str], ok: int,
          secure: bool = True) -> dict[str, Any]:
    op: dict[str, Any] = {
        "summary": summary, "parameters": [CODE], "requestBody": _action(props, required),
        "responses": {str(ok): _json(_ref("Change"), "applied, or the first answer to this "
                                                     "idempotency key"),
                      **_errors(400, 401, 403, 409, 413, 422, *LOOKUP)}}
    if secure:
        op["security"] = [{"seat": []}, {}]
    return op


def _answers(op: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """``op`` with more answers than :func:`_post` lists (an ask's 202)."""
    return {**op, "responses": {**op["responses"], **more}}


def _story_schemas() -> dict[str, Any]:
    """The story of a game (GET /api/tables/{code}/story) and its parts."""
    ip = {"type": "object", "required": ["red", "blue"],
          "properties": {"red": {"type": "integer"}, "blue": {"type": "integer"}}}
    nullable = {"type": ["string", "null"]}
    card = {"type": "object", "required": ["rank", "outcome", "deception"], "properties": {
        "rank": {"type": "integer", "minimum": 1, "maximum": 10},
        "outcome": {"type": ["string", "null"],
                    "enum": ["identified", "activated", "neutralised", None],
                    "description": "null: turned up by the capture check (R71)"},
        "deception": {"type": "boolean"}}}
    per_side = {"type": "object", "description": "mission (\"1\"-\"4\") -> card",
                "additionalProperties": card}
    step = {"type": "object", "required": ["step", "event", "type", "day", "phase", "ip", "da",
                                           "dt", "revealed", "winner", "reason", "text"],
            "properties": {
                "step": {"type": "integer", "minimum": 0},
                "event": {"type": ["integer", "null"],
                          "description": "the index of the step's event; null for step 0"},
                "type": {"type": "string", "description": "the event type, or \"begin\""},
                "day": {"type": "integer"}, "phase": {"type": "string"},
                "ip": ip, "da": {"type": "integer"},
                "dt": {"type": "object", "required": ["red", "blue", "supply"]},
                "revealed": {"type": "object", "required": ["red", "blue"],
                             "description": "the cards turned up this round, per owner",
                             "properties": {"red": per_side, "blue": per_side}},
                "intel": {"type": ["array", "null"]}, "tokens": {"type": "object"},
                "winner": nullable, "reason": nullable,
                "text": {"type": "string", "description": "the words of this step"}}}
    moment = {"type": "object", "required": ["step", "day", "kinds", "text"], "properties": {
        "step": {"type": "integer"}, "day": {"type": "integer"},
        "kinds": {"type": "array", "items": {"type": "string", "enum": [
            "infiltrate", "da", "order_broken", "R61", "flag", "decisive", "end"]}},
        "text": {"type": "string"}}}
    return {"Story": {
        "type": "object",
        "required": ["code", "version", "wall_distance", "winner", "reason", "over", "end",
                     "steps", "moments", "days", "ranks"],
        "properties": {
            "code": {"type": "string"}, "version": {"type": "integer"},
            "wall_distance": {"type": "integer"}, "winner": nullable, "reason": nullable,
            "over": {"type": "boolean"}, "end": nullable,
            "steps": {"type": "array", "items": step, "minItems": 1,
                      "description": "step N: the game after N events"},
            "moments": {"type": "array", "items": moment,
                        "description": "the key moments, in order of play"},
            "ranks": {"type": "object", "description": "rank number → name",
                      "additionalProperties": {"type": "string"}},
            "days": {"type": "array", "items": {
                "type": "object", "required": ["day", "first", "last"],
                "properties": {"day": {"type": "integer"}, "first": {"type": "integer"},
                               "last": {"type": "integer"}}}}}}}


def document() -> dict[str, Any]:
    """The whole OpenAPI document as a dict."""
    rank = {"type": "integer", "minimum": 1, "maximum": 10}
    table_created = _json({"type": "object", "required": ["code", "view"],
                           "properties": {"code": {"type": "string"},
                                          "host_secret": {"type": "string", "minLength": 40},
                                          "view": _ref("View")}},
                          "the table; a host secret made by the server is in the first "
                          "answer only (none when the page sent its own)")
    own_secret = {"type": "string", "pattern": SECRET_RE.pattern,
                  "description": "a key this screen made for itself; only its hash is kept"}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Spies & Lies table companion", "version": "1",
                 "description": "Every POST must come from this site (Origin or Referer "
                                "header), carry a JSON object of at most 16 KB and, to change "
                                "a table, the table version it last saw and an idempotency "
                                "key: a retry with the same key gets the first answer and is "
                                "never applied twice. Seats and the host screen prove "
                                "themselves with `Authorization: Bearer <secret>`."},
        "paths": {
            "/api/openapi.json": {"get": {
                "summary": "this document",
                "responses": {"200": _json({"type": "object"}, "the OpenAPI document")}}},
            "/api/tables": {"post": {
                "summary": "open a new table",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "properties": {
                        "wall_distance": {"type": "integer", "minimum": 2, "maximum": 8},
                        "teams": {"type": "boolean"}, "host_secret": own_secret,
                        "deduction": {"type": "boolean", "description":
                                      "opt in to the deduction aid on the guess step"},
                        "first_game": FIRST_GAME, "chances": CHANCES,
                        "screen": SCREEN,
                        "idempotency_key": _ref("IdempotencyKey")}}}}},
                "responses": {"201": table_created,
                              **_errors(400, 403, 409, 413, 421, 429)}}},
            "/api/tables/import": {"post": {
                "summary": "open a table from a game record, only if the referee replays it",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["record"], "properties": {
                        "record": _ref("Record"), "teams": {"type": "boolean"},
                        "deduction": {"type": "boolean", "description":
                                      "opt in to the deduction aid on the guess step"},
                        "first_game": FIRST_GAME, "chances": CHANCES,
                        "screen": {**SCREEN, "description": SCREEN["description"] + "; "
                                   "a finished game's are ignored"},
                        "from": {"type": "string", "pattern": CODE_RE.pattern, "description":
                                 "the table of this server whose game the record is, going "
                                 "on at a new screen: when it is that game as it stands, "
                                 "the new table is not marked imported. Only with that "
                                 "table's host key or the keeper key as the bearer (else "
                                 "403)"},
                        "host_secret": own_secret,
                        "idempotency_key": _ref("IdempotencyKey")}}}}},
                "responses": {"201": table_created,
                              "200": {**table_created, "description": "the same finished game "
                                      "was already here (`existing`): that table, no secret"},
                              **_errors(400, 403, 409, 413, 421, 429)}}},
            "/api/tables/{code}/state": {"get": {
                "summary": "the public view (with since=V: only whether it moved past V)",
                "parameters": [CODE, {"name": "since", "in": "query", "required": False,
                                      "schema": {"type": "integer"}}],
                "security": [{"seat": []}, {}],
                "responses": {"200": _json({"type": "object", "required": ["changed", "connected"],
                                            "properties": {"version": {"type": "integer"},
                                                           "changed": {"type": "boolean"},
                                                           "view": _ref("View"),
                                                           "me": _ref("Me"),
                                                           "connected": {"type": "array"},
                                                           "watching": {"type": "integer"}}},
                                           "the view"),
                              **_errors(401, *LOOKUP)}}},
            "/api/tables/mine": {"post": {
                "summary": "the games in play this screen's keys belong to, newest first (the "
                           "first page's 'back to your game'); a code without its key is left "
                           "out, as is a code with no table",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["tables"], "properties": {
                        "tables": {"type": "array", "maxItems": 12, "items": {
                            "type": "object", "required": ["code", "key"], "properties": {
                                "code": {"type": "string", "pattern": CODE_RE.pattern},
                                "key": {"type": "string", "pattern": SECRET_RE.pattern,
                                        "description": "the host screen's key or a "
                                                       "seat's"}}}}}}}}},
                "responses": {"200": _json({"type": "object", "properties": {"tables": {
                    "type": "array", "items": {"type": "object", "properties": {
                        "code": {"type": "string"},
                        "role": {"type": "string", "enum": ["host", "seat"]},
                        "side": {"oneOf": [_ref("Side"), {"type": "null"}]},
                        "part": {"type": ["integer", "null"], "description": "a team's "
                                 "half: 1 missions 1-2, 2 missions 3-4 (0: the whole side)"},
                        "day": {"type": "integer"}, "started": {"type": "boolean"},
                        "players": {"type": "object", "description": "the seated names "
                                    "by side"},
                        "idle": {"type": "integer", "description": "seconds since the "
                                 "table last changed"}}}}}}, "the games in play"),
                              **_errors(400, 403, 413, 421)}}},
            "/api/tables/{code}/me": {"get": {
                "summary": "who this secret belongs to", "parameters": [CODE],
                "security": [{"seat": []}, {}],
                "responses": {"200": _json(_ref("Me"), "host, seat or viewer"),
                              **_errors(401, *LOOKUP)}}},
            "/api/tables/{code}/seats": {"post": _post(
                "sit down as a side (and in team play a part); the answer holds the seat "
                "secret", {"side": _ref("Side"), "name": {"type": "string", "minLength": 1,
                                                          "maxLength": 40},
                           "part": {"type": "integer", "enum": [0, 1, 2]},
                           "secret": own_secret,
                           "player": {**own_secret, "description": "the key this phone keeps "
                                      "for its player: the same person at every table"}},
                ["side", "name"], 201, secure=False)},
            "/api/tables/{code}/seats/{seat_id}/decision": {"post": {
                **_post("the host screen lets a phone take over a seat, or keeps it; or lets "
                        "a screen that asked (POST /host) take its place, or refuses it",
                        {"approve": {"type": "boolean"}}, ["approve"], 200),
                "parameters": [CODE, SEAT_ID]}},
            "/api/tables/{code}/events": {"post": _post(
                "record one event other than a reveal",
                {"event": {"type": "object", "description": "a RECORD.md event; an exhaust "
                           "or start may say \"random\": true to be drawn by the server",
                           "required": ["type"],
                           "properties": {"type": {"type": "string", "enum": [
                               "exhaust", "intel", "tokens", "start", "check"]}}}},
                ["event"], 201)},
            "/api/tables/{code}/draft": {"post": _post(
                "one tap of the reveal being built",
                {"step": {"type": "string", "enum": ["deception", "guess", "actual", "choice"]},
                 "value": {"description": "bool (deception), rank (guess, actual) or a "
                           "choice text"}}, ["step", "value"], 200)},
            "/api/tables/{code}/screen": {"post": _post(
                "the host screen takes a side to enter it on the big screen (on: true, with a "
                "name), taking it from a phone if one held it, or frees it (on: false)",
                {"side": _ref("Side"), "part": {"type": "integer", "enum": [0, 1, 2]},
                 "on": {"type": "boolean"},
                 "name": {"type": "string", "minLength": 1, "maxLength": 40}},
                ["side", "on"], 200)},
            "/api/tables/{code}/rematch": {"post": _post(
                "the next game with the same options and everyone seated (swap: colours "
                "exchanged); only the host screen, once the game is over",
                {"swap": {"type": "boolean"}, "host_secret": own_secret},
                ["swap", "host_secret"], 201)},
            "/api/tables/{code}/host": {"post": _answers(_post(
                "another screen becomes the table's screen (host_hash: the SHA-256 of the "
                "key that screen made): at once with the table's screen's key or the "
                "keeper key as the bearer; without either, the screen asks (202: asked.id "
                "and the number it shows) and the table's screen allows or refuses it "
                "(/seats/{id}/decision); a seat's key is refused",
                {"host_hash": {"type": "string", "pattern": "^[0-9a-f]{64}$"}},
                ["host_hash"], 200), {
                    "202": _json({"type": "object", "required": ["asked"], "properties": {
                        "asked": {"type": "object", "properties": {
                            "id": {"type": "integer"},
                            "number": {"type": "string", "pattern": "^[0-9]{4}$"}}}}},
                        "asked: the table's screen decides"),
                    **_errors(429)})},
            "/api/tables/{code}/undo": {"post": _post(
                "take back the last tap or event", {}, [], 200)},
            "/api/tables/{code}/requests": {"get": {
                "summary": "the phones waiting for the host screen to let them take a seat; "
                           "with the host screen's key, the screens asking to take its "
                           "place too (screens)",
                "parameters": [CODE], "security": [{"seat": []}, {}],
                "responses": {"200": _json({"type": "object", "required": ["requests"],
                                            "properties": {"requests": {"type": "array"},
                                                           "seen": {"type": "object"},
                                                           "screens": {"type": "array"}}},
                                           "the waiting phones"),
                              **_errors(401, *LOOKUP)}}},
            "/api/tables/{code}/chances": {"get": {
                "summary": "the live chance to win of a table that opted in (issue 25)",
                "parameters": [CODE],
                "responses": {"200": _json({"type": "object", "required": ["on", "live"],
                                            "properties": {"on": {"type": "boolean"},
                                                           "live": {"type": ["object", "null"]}}},
                                           "the latest figure"),
                              **_errors(*LOOKUP)}}},
            "/api/tables/{code}/preview": {"get": {
                "summary": "the ability calculator: what if this side's rank were activated",
                "parameters": [CODE,
                               {"name": "side", "in": "query", "required": True,
                                "schema": _ref("Side")},
                               {"name": "rank", "in": "query", "required": True,
                                "schema": rank}],
                "responses": {"200": _json({"type": "object", "required": ["options"],
                                            "properties": {"side": _ref("Side"),
                                                           "rank": rank,
                                                           "name": {"type": "string"},
                                                           "version": {"type": "integer"},
                                                           "options": {"type": "array",
                                                                       "items": {
                                    "type": "object", "properties": {
                                        "summary": {"type": "string",
                                                    "description": "what it leaves, in words"},
                                        "effect_words": {"type": "string",
                                                         "description": "its effects in the "
                                                         "narration's words"}}}}}},
                                           "what the ability could do"),
                              **_errors(400, *LOOKUP)}}},
            "/api/tables/{code}/record": {"get": {
                "summary": "the game as a spies-and-lies-record/1 file (expired tables too)",
                "parameters": [CODE],
                "responses": {"200": _json(_ref("Record"), "the record"),
                              **_errors(404, 429)}}},
            "/api/tables/{code}/story": {"get": {
                "summary": "the game replayed event by event: each step's board and words, "
                           "and the key moments (expired tables too)",
                "parameters": [CODE],
                "responses": {"200": _json(_ref("Story"), "the story of the game so far"),
                              **_errors(404, 421, 429)}}},
            "/api/history": {"get": {
                "summary": "the finished games that count, newest first: players by side, "
                           "winner, reason, days (apart=1: the games kept apart, imported or "
                           "entered faster than a table plays)",
                "parameters": [{"name": "apart", "in": "query", "required": False,
                                "schema": {"type": "string", "enum": ["1"]}}],
                "responses": {"200": _json({"type": "object", "required": ["games", "others"],
                                            "properties": {"games": {"type": "array"},
                                                           "others": {"type": "integer"}}},
                                           "the history")}}},
            "/api/history/{code}/count": {"post": {
                "summary": "the keeper's word on whether a finished game counts (the keeper "
                           "key as the bearer; count: true, false, or null for the rule)",
                "parameters": [CODE], "security": [{"seat": []}, {}],
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"type": "object", "required": ["count"], "properties": {
                        "count": {"type": ["boolean", "null"]}}}}}},
                "responses": {"200": _json({"type": "object"}, "whether it counts now"),
                              **_errors(400, 403, 404, 413, 421)}}},
            "/api/keeper/claim": {"post": {
                "summary": "a keeper link opened: its one-time secret traded for the keeper "
                           "key, once (403 after)",
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"type": "object", "required": ["once"], "properties": {
                        "once": {"type": "string", "minLength": 20, "maxLength": 100}}}}}},
                "responses": {"200": _json({"type": "object"}, "the keeper key"),
                              **_errors(400, 403, 413, 421)}}},
            "/api/keeper": {"post": {
                "summary": "whether the bearer is this server's keeper key (403 if not); with "
                           "it, the screens asking to be a table's screen at every table "
                           "(screens: code, number, hash, version; the keeper lets one in "
                           "with POST /api/tables/{code}/host)",
                "security": [{"seat": []}],
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"type": "object"}}}},
                "responses": {"200": _json({"type": "object", "properties": {
                    "keeper": {"type": "boolean"}, "backup": {"type": "boolean"},
                    "screens": {"type": "array"}}}, "the keeper"),
                              **_errors(400, 403, 413, 421)}}},
            "/api/keeper/backup": {"post": {
                "summary": "the group's games as one SQLite file, for spies-lies restore (the "
                           "keeper key as the bearer; 409 when the games are in PostgreSQL)",
                "security": [{"seat": []}, {}],
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"type": "object"}}}},
                "responses": {"200": {"description": "the games' SQLite file",
                                      "content": {"application/vnd.sqlite3": {
                                          "schema": {"type": "string",
                                                     "format": "binary"}}}},
                              **_errors(400, 403, 409, 413, 421, 507)}}},
            "/api/history/imported/delete": {"post": {
                "summary": "delete every game opened from a saved record (the keeper key as "
                           "the bearer)",
                "security": [{"seat": []}, {}],
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"type": "object"}}}},
                "responses": {"200": _json({"type": "object"}, "how many were deleted"),
                              **_errors(400, 403, 413, 421)}}},
            "/api/history/{code}/delete": {"post": {
                "summary": "delete a finished game: from the screen that hosted it (its "
                           "host secret as the bearer) or by the keeper (the keeper key)",
                "parameters": [CODE], "security": [{"seat": []}, {}],
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"type": "object"}}}},
                "responses": {"200": _json({"type": "object"}, "deleted"),
                              **_errors(400, 403, 404, 413, 421)}}},
            "/api/stats": {"get": {
                "summary": "the group's statistics over every finished game",
                "responses": {"200": _json({"type": "object"}, "the statistics")}}},
            "/api/players/{player_id}/stats": {"get": {
                "summary": "one player's statistics: wins by side and reason, guesses, IP, "
                           "head-to-head", "parameters": [PLAYER_ID],
                "responses": {"200": _json({"type": "object"}, "the statistics"),
                              **_errors(404)}}},
            "/api/players/me": {"post": {
                "summary": "a player renames themself from their phone",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["player", "name"], "properties": {
                        "player": own_secret,
                        "name": {"type": "string", "minLength": 1, "maxLength": 40}}}}}},
                "responses": {"200": _json({"type": "object"}, "the new name"),
                              **_errors(400, 403, 404, 413, 421)}}},
            "/api/players/{player_id}/delete": {"post": {
                "summary": "forget a player: from their own phone (the player key as the "
                           "bearer) or by the keeper (the keeper key), who may delete every "
                           "finished game they sat at in the same step (games: true)",
                "parameters": [PLAYER_ID], "security": [{"seat": []}, {}],
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"type": "object", "properties": {
                        "games": {"type": "boolean"}}}}}},
                "responses": {"200": _json({"type": "object"}, "forgotten"),
                              **_errors(400, 403, 404, 413, 421)}}},
            "/api/tables/{code}/stream": {"get": {
                "summary": "Server-Sent Events: the view whenever it changes, and presence",
                "x-stream": True,
                "parameters": [CODE,
                               {"name": "since", "in": "query", "required": False,
                                "schema": {"type": "integer"}},
                               {"name": "seat", "in": "query", "required": False,
                                "schema": {"type": "string"}}],
                "responses": {"200": {"description": "an endless event stream",
                                      "content": {"text/event-stream": {
                                          "schema": {"type": "string"}}}},
                              **_errors(*LOOKUP)}}},
        },
        "components": {
            "securitySchemes": {"seat": {"type": "http", "scheme": "bearer",
                                         "description": "a seat's or the host screen's secret"}},
            "schemas": {
                "Side": {"type": "string", "enum": ["red", "blue"]},
                "IdempotencyKey": {"type": "string", "pattern": KEY_RE.pattern},
                "Error": {"type": "object", "required": ["error", "code"], "properties": {
                    "error": {"type": "string", "description": "what went wrong, in plain words"},
                    "code": {"type": "string"},
                    "field": {"type": "string", "description": "the field at fault"},
                    "event": {"type": "integer", "description": "the refused event's index"},
                    "view": _ref("View")}},
                "View": {"type": "object", "required": ["code", "version", "state"],
                         "properties": {"code": {"type": "string"},
                                        "version": {"type": "integer"},
                                        "teams": {"type": "boolean"},
                                        "first_game": {"type": "boolean", "description":
                                                       "the big screen explains each ability "
                                                       "the first time it is activated"},
                                        "deduction": _ref("Deduction"),
                                        "wall_distance": {"type": "integer"},
                                        "state": {"type": "object"},
                                        "draft": {"type": ["object", "null"]},
                                        "seats": {"type": "array"},
                                        "notice": {"type": ["string", "null"]},
                                        "went_on": {"type": ["string", "null"], "description":
                                                    "the table another screen went on with "
                                                    "this game at (an import naming this "
                                                    "table as 'from'), until anything more is "
                                                    "entered here"},
                                        "log": {"type": "array"},
                                        "seen_intel": {"type": "array"},
                                        "words": _ref("Words"),
                                        "taps": _ref("Taps")}},
                "Deduction": {
                    "type": ["object", "null"],
                    "description": "only on a table that opted in to the deduction aid: for "
                                   "the reveal in play, the line-ups of the side being guessed "
                                   "that the public information still allows (null when no "
                                   "reveal is due or that side's order broke, R60)",
                    "required": ["side", "mission", "lineups", "missions"],
                    "properties": {
                        "side": _ref("Side"),
                        "mission": {"type": "integer", "description": "the mission guessed now"},
                        "lineups": {"type": "integer", "minimum": 0,
                                    "description": "N; 0: some intel on the table is wrong"},
                        "missions": {"type": "object", "description": "mission (\"1\"-\"4\") "
                                     "-> rank -> how many of the N line-ups put it there"}}},
                "Words": {"type": "object", "description": "what the screens say, in words",
                          "required": ["da", "next", "ranks"], "properties": {
                    "da": {"type": "string", "description": "\"at the centre\", \"2 toward blue\""},
                    "da_short": {"type": "string", "description": "\"centre\", \"2 blue\""},
                    "winner": {"type": ["string", "null"],
                               "description": "\"Red wins\", \"A draw\"; null until the end"},
                    "reason": {"type": ["string", "null"], "description": "why it ended"},
                    "next": {"type": "string", "description": "what the table waits for, "
                             "the step of a reveal being built included"},
                    "waiting": {"type": ["string", "null"],
                                "description": "whom a reveal being built waits for"},
                    "ranks": {"type": "object", "description": "rank number → name",
                              "additionalProperties": {"type": "string"}}}},
                "Taps": {"type": "object", "required": ["step", "sides"],
                         "description": "what may be tapped now; per-side values are keyed "
                                        "by side",
                         "properties": {
                    "step": {"type": "string", "enum": [
                        "exhaust", "intel", "tokens", "start", "deception", "guess",
                        "actual", "choice", "check", "over"]},
                    "sides": {"type": "array", "items": _ref("Side"),
                              "description": "who may tap (empty: anyone at the table)"},
                    "part": {"type": ["integer", "null"],
                             "description": "in team play, the part of the side (R80)"},
                    "count": {"description": "exhaust: ranks per side; intel: 4"},
                    "ranks": {"description": "the ranks that may be tapped (per side for "
                              "exhaust and check)"},
                    "missions": {"description": "tokens: the missions; check: the face-down "
                                 "missions per side, in order"},
                    "starts": {"type": "array", "items": _ref("Side")},
                    "spin": {"type": "boolean"},
                    "choices": {"type": "array",
                                "description": "deception: true/false; choice: the choices"}}},
                "Me": {"type": "object", "required": ["role"], "properties": {
                    "role": {"type": "string", "enum": ["host", "seat", "viewer"]},
                    "asking": {"type": "boolean", "description": "the key of a screen "
                               "whose ask to be the table's screen waits"}}},
                "Change": {"type": "object",
                           "description": "the view (answer=view, the default), or what "
                           "changed since the request's version (answer=delta), or only the "
                           "new version (answer=none)",
                           "anyOf": [{"required": ["view"]}, {"required": ["delta"]},
                                     {"required": ["version"]}],
                           "properties": {"view": _ref("View"),
                                          "version": {"type": "integer"},
                                          "delta": {"type": "object",
                                                    "required": ["from", "to", "ops"],
                                                    "properties": {
                                                        "from": {"type": "integer"},
                                                        "to": {"type": "integer"},
                                                        "ops": {"type": "array"}}},
                                          "secret": {"type": "string",
                                                     "description": "a new seat's secret, when the "
                                                    "server made it (first answer only)"}}},
                **_story_schemas(),
                "Record": {"type": "object", "required": ["format", "events"], "properties": {
                    "format": {"type": "string", "const": "spies-and-lies-record/1"},
                    "options": {"type": "object", "properties": {
                        "wall_distance": {"type": "integer", "minimum": 2, "maximum": 8},
                        "teams": {"type": "boolean", "description": "team play (R80); "
                                                                    "written only when true"}}},
                    "events": {"type": "array", "items": {"type": "object"}}}},
            },
        },
    }
