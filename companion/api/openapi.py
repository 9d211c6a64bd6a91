"""The OpenAPI 3.1 description of the JSON API, served at ``/api/openapi.json``.

Each request body's schema comes from its declaration in :mod:`.bodies` (the same
models check the requests, issue 51); the answers' schemas are :mod:`.components`.
Kept honest by a test that compares it with the app's routes, by the fuzzer that reads
it, and by the shape test (tests/web/test_api_shapes.py).
"""

from __future__ import annotations

from typing import Any

from ..edge.fields import CODE_RE
from .bodies import (
    Change,
    Claim,
    Count,
    Decision,
    EnterGroup,
    Forget,
    HandOver,
    ImportRecord,
    Join,
    Mine,
    NewGroup,
    Nothing,
    OpenTable,
    PostEvent,
    Rematch,
    Rename,
    ScreenSide,
    Tap,
    TeachAgain,
    Undo,
)
from .components import ref, schemas
from .declared import Body, schema

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


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> dict[str, Any]:
    out = {}
    for c in codes:
        resp = _json(ref("Error"), ERRORS[c])
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
LOOKUP = (404, 410, 421, 429)                 # every address with a table code may answer these


def _request(model: type[Body]) -> dict[str, Any]:
    """A request body as :mod:`.bodies` declares it."""
    return {"required": True, "content": {"application/json": {"schema": schema(model)}}}


def _post(summary: str, model: type[Change], ok: int, secure: bool = True) -> dict[str, Any]:
    """A change of a table: its body as ``model`` declares it, and every answer it may get."""
    op: dict[str, Any] = {
        "summary": summary, "parameters": [CODE], "requestBody": _request(model),
        "responses": {str(ok): _json(ref("Change"), "applied, or the first answer to this "
                                                     "idempotency key"),
                      **_errors(400, 401, 403, 409, 413, 422, *LOOKUP)}}
    if secure:
        op["security"] = [{"seat": []}, {}]
    return op


def _answers(op: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """``op`` with more answers than :func:`_post` lists (an ask's 202)."""
    return {**op, "responses": {**op["responses"], **more}}


def document() -> dict[str, Any]:
    """The whole OpenAPI document as a dict."""
    rank = {"type": "integer", "minimum": 1, "maximum": 10}
    table_created = _json({"type": "object", "required": ["code", "view"],
                           "properties": {"code": {"type": "string"},
                                          "host_secret": {"type": "string", "minLength": 40},
                                          "view": ref("View")}},
                          "the table; a host secret made by the server is in the first "
                          "answer only (none when the page sent its own)")
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
                "requestBody": _request(OpenTable),
                "responses": {"201": table_created,
                              **_errors(400, 403, 409, 413, 421, 429)}}},
            "/api/tables/import": {"post": {
                "summary": "open a table from a game record, only if the referee replays it",
                "requestBody": _request(ImportRecord),
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
                                                           "view": ref("View"),
                                                           "me": ref("Me"),
                                                           "connected": {"type": "array"},
                                                           "watching": {"type": "integer"}}},
                                           "the view"),
                              **_errors(401, *LOOKUP)}}},
            "/api/tables/mine": {"post": {
                "summary": "the games in play this screen's keys belong to, newest first (the "
                           "first page's 'back to your game'); a code without its key is left "
                           "out, as is a code with no table",
                "requestBody": _request(Mine),
                "responses": {"200": _json({"type": "object", "properties": {"tables": {
                    "type": "array", "items": {"type": "object", "properties": {
                        "code": {"type": "string"},
                        "role": {"type": "string", "enum": ["host", "seat"]},
                        "side": {"oneOf": [ref("Side"), {"type": "null"}]},
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
                "responses": {"200": _json(ref("Me"), "host, seat or viewer"),
                              **_errors(401, *LOOKUP)}}},
            "/api/tables/{code}/seats": {"post": _post(
                "sit down as a side (and in team play a part); the answer holds the seat "
                "secret", Join, 201, secure=False)},
            "/api/tables/{code}/seats/{seat_id}/decision": {"post": {
                **_post("the host screen lets a phone take over a seat, or keeps it; or lets "
                        "a screen that asked (POST /host) take its place, or refuses it",
                        Decision, 200),
                "parameters": [CODE, SEAT_ID]}},
            "/api/tables/{code}/events": {"post": _post(
                "record one event other than a reveal", PostEvent, 201)},
            "/api/tables/{code}/draft": {"post": _post(
                "one tap of the reveal being built", Tap, 200)},
            "/api/tables/{code}/screen": {"post": _post(
                "the host screen takes a side to enter it on the big screen (on: true, with a "
                "name), taking it from a phone if one held it, or frees it (on: false)",
                ScreenSide, 200)},
            "/api/tables/{code}/rematch": {"post": _post(
                "the next game with the same options and everyone seated (swap: colours "
                "exchanged); only the host screen, once the game is over", Rematch, 201)},
            "/api/tables/{code}/host": {"post": _answers(_post(
                "another screen becomes the table's screen (host_hash: the SHA-256 of the "
                "key that screen made): at once with the table's screen's key or the "
                "keeper key as the bearer; without either, the screen asks (202: asked.id "
                "and the number it shows) and the table's screen allows or refuses it "
                "(/seats/{id}/decision); a seat's key is refused", HandOver, 200), {
                    "202": _json({"type": "object", "required": ["asked"], "properties": {
                        "asked": {"type": "object", "properties": {
                            "id": {"type": "integer"},
                            "number": {"type": "string", "pattern": "^[0-9]{4}$"}}}}},
                        "asked: the table's screen decides"),
                    **_errors(429)})},
            "/api/tables/{code}/undo": {"post": _post(
                "take back the last tap or event", Undo, 200)},
            "/api/tables/{code}/teach": {"post": _post(
                "teach again (issue 53): the seated players forget the lessons they saw and "
                "this game's lessons come back from its step now; the big screen or a "
                "seated phone", TeachAgain, 200)},
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
                                "schema": ref("Side")},
                               {"name": "rank", "in": "query", "required": True,
                                "schema": rank}],
                "responses": {"200": _json({"type": "object", "required": ["options"],
                                            "properties": {"side": ref("Side"),
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
                "responses": {"200": _json(ref("Record"), "the record"),
                              **_errors(404, 429)}}},
            "/api/tables/{code}/story": {"get": {
                "summary": "the game replayed event by event: each step's board and words, "
                           "and the key moments (expired tables too)",
                "parameters": [CODE],
                "responses": {"200": _json(ref("Story"), "the story of the game so far"),
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
                                           "the history"), **_errors(404)}}},
            "/api/history/{code}/count": {"post": {
                "summary": "the keeper's word on whether a finished game counts (the keeper "
                           "key as the bearer; count: true, false, or null for the rule)",
                "parameters": [CODE], "security": [{"seat": []}, {}],
                "requestBody": _request(Count),
                "responses": {"200": _json({"type": "object"}, "whether it counts now"),
                              **_errors(400, 403, 404, 413, 421)}}},
            "/api/keeper/claim": {"post": {
                "summary": "a keeper link opened: its one-time secret traded for the keeper "
                           "key, once (403 after)",
                "requestBody": _request(Claim),
                "responses": {"200": _json({"type": "object"}, "the keeper key"),
                              **_errors(400, 403, 413, 421)}}},
            "/api/keeper": {"post": {
                "summary": "whether the bearer is this server's keeper key (403 if not); with "
                           "it, the screens asking to be a table's screen at every table "
                           "(screens: code, number, hash, version; the keeper lets one in "
                           "with POST /api/tables/{code}/host)",
                "security": [{"seat": []}],
                "requestBody": _request(Nothing),
                "responses": {"200": _json({"type": "object", "properties": {
                    "keeper": {"type": "boolean"}, "backup": {"type": "boolean"},
                    "screens": {"type": "array"}}}, "the keeper"),
                              **_errors(400, 403, 413, 421)}}},
            "/api/keeper/backup": {"post": {
                "summary": "the group's games as one SQLite file, for spies-lies restore (the "
                           "keeper key as the bearer; 409 when the games are in PostgreSQL)",
                "security": [{"seat": []}, {}],
                "requestBody": _request(Nothing),
                "responses": {"200": {"description": "the games' SQLite file",
                                      "content": {"application/vnd.sqlite3": {
                                          "schema": {"type": "string",
                                                     "format": "binary"}}}},
                              **_errors(400, 403, 409, 413, 421, 507)}}},
            "/api/history/imported/delete": {"post": {
                "summary": "delete every game opened from a saved record (the keeper key as "
                           "the bearer)",
                "security": [{"seat": []}, {}],
                "requestBody": _request(Nothing),
                "responses": {"200": _json({"type": "object"}, "how many were deleted"),
                              **_errors(400, 403, 413, 421)}}},
            "/api/history/{code}/delete": {"post": {
                "summary": "delete a finished game: from the screen that hosted it (its "
                           "host secret as the bearer) or by the keeper (the keeper key)",
                "parameters": [CODE], "security": [{"seat": []}, {}],
                "requestBody": _request(Nothing),
                "responses": {"200": _json({"type": "object"}, "deleted"),
                              **_errors(400, 403, 404, 413, 421)}}},
            "/api/stats": {"get": {
                "summary": "the group's statistics over every finished game",
                "responses": {"200": _json({"type": "object"}, "the statistics"),
                              **_errors(404)}}},
            "/api/players/{player_id}/stats": {"get": {
                "summary": "one player's statistics: wins by side and reason, guesses, IP, "
                           "head-to-head", "parameters": [PLAYER_ID],
                "responses": {"200": _json({"type": "object"}, "the statistics"),
                              **_errors(404)}}},
            "/api/players/me": {"post": {
                "summary": "a player renames themself from their phone",
                "requestBody": _request(Rename),
                "responses": {"200": _json({"type": "object"}, "the new name"),
                              **_errors(400, 403, 404, 413, 421)}}},
            "/api/players/{player_id}/delete": {"post": {
                "summary": "forget a player: from their own phone (the player key as the "
                           "bearer) or by the keeper (the keeper key), who may delete every "
                           "finished game they sat at in the same step (games: true)",
                "parameters": [PLAYER_ID], "security": [{"seat": []}, {}],
                "requestBody": _request(Forget),
                "responses": {"200": _json({"type": "object"}, "forgotten"),
                              **_errors(400, 403, 404, 413, 421)}}},
            "/api/groups": {"post": {
                "summary": "start a group (issue 54): its link and its keeper link, each said "
                           "once; the browser is in the group from then on (a cookie)",
                "requestBody": _request(NewGroup),
                "responses": {"201": _json({"type": "object", "required": ["link", "keeper"],
                                            "properties": {"name": {"type": "string"},
                                                           "link": {"type": "string"},
                                                           "keeper": {"type": "string"}}},
                                           "the group's two links"),
                              **_errors(400, 403, 413, 421, 429)}}},
            "/api/group/enter": {"post": {
                "summary": "a group's link opened (link: the secret of its fragment): the "
                           "browser is in the group from then on (a cookie); 404 for a link "
                           "of no group",
                "requestBody": _request(EnterGroup),
                "responses": {"200": _json({"type": "object"}, "the group's name"),
                              **_errors(400, 403, 404, 413, 421)}}},
            "/api/group": {"get": {
                "summary": "the request's group: its name, and whether it is the server's "
                           "default group (404 without one)",
                "responses": {"200": _json({"type": "object"}, "the group"), **_errors(404)}}},
            "/api/group/export": {"post": {
                "summary": "every game of the group as a record, with its players (the "
                           "group's keeper key as the bearer)",
                "security": [{"seat": []}, {}],
                "requestBody": _request(Nothing),
                "responses": {"200": _json({"type": "object"}, "the group's data"),
                              **_errors(400, 403, 404, 413, 421)}}},
            "/api/group/delete": {"post": {
                "summary": "delete the group and everything it keeps (the group's keeper key "
                           "as the bearer; the server's default group stays, emptied)",
                "security": [{"seat": []}, {}],
                "requestBody": _request(Nothing),
                "responses": {"200": _json({"type": "object", "properties": {
                    "deleted": {"type": "object"}, "gone": {"type": "boolean"}}},
                    "what was deleted; gone: the group too (not the default group)"),
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
            "schemas": schemas(),
        },
    }
