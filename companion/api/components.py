"""The schemas of the JSON API's answers, for ``/api/openapi.json``: the view of a table
and its parts, a change's answer, a refusal, the story of a game, a game record. They
describe what the server sends (the answers are not checked against them; the fuzzer
and the shape test hold the two together); request bodies are declared in
:mod:`.bodies`. ``Side`` and ``IdempotencyKey`` are the bodies' own types.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from .bodies import KEY, SIDE


def ref(name: str) -> dict[str, str]:
    """A reference to one of these schemas."""
    return {"$ref": f"#/components/schemas/{name}"}


def story_schemas() -> dict[str, Any]:
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


def schemas() -> dict[str, Any]:
    """Every schema the document's components hold."""
    return {
        "Side": TypeAdapter(SIDE).json_schema(),
        "IdempotencyKey": TypeAdapter(KEY).json_schema(),
        "Error": {"type": "object", "required": ["error", "code"], "properties": {
            "error": {"type": "string", "description": "what went wrong, in plain words"},
            "code": {"type": "string"},
            "field": {"type": "string", "description": "the field at fault"},
            "event": {"type": "integer", "description": "the refused event's index"},
            "view": ref("View")}},
        "View": {"type": "object", "required": ["code", "version", "state"],
                 "properties": {"code": {"type": "string"},
                                "version": {"type": "integer"},
                                "teams": {"type": "boolean"},
                                "first_game": {"type": "boolean", "description":
                                               "a learning game: the set-up walked "
                                               "through, each rule explained when it "
                                               "first matters (issue 53)"},
                                "practice": {"type": "object", "description":
                                             "only at a practice table: each side's "
                                             "cards face up, the taps the script wants "
                                             "next, its end (issue 53)"},
                                "deduction": ref("Deduction"),
                                "lessons": {"type": "array", "items": {"type": "string"},
                                            "description":
                                            "only in a learning game (first_game): the "
                                            "rules first due at this step that some "
                                            "seated player has not seen at another "
                                            "table, as keys of /lessons.json (issue 53)"},
                                "lessons_seen": {
                                    "type": "object", "description":
                                    "only in a learning game: by seat id, those of "
                                    "`lessons` that seat's player saw at another table "
                                    "(its phone skips them)",
                                    "additionalProperties": {"type": "array",
                                                             "items": {"type": "string"}}},
                                "lessons_known": {"type": "integer", "description":
                                                  "only in a learning game: how many "
                                                  "lessons every seated player saw at "
                                                  "another table (skipped; POST /teach "
                                                  "brings them back)"},
                                "lessons_from": {"type": "integer", "description":
                                                 "only in a learning game: the step from "
                                                 "which its lessons count (POST /teach)"},
                                "walk": {"type": "boolean", "description":
                                         "only in a learning game: whether the big screen "
                                         "walks the group through the set-up before day 1 "
                                         "(not when every seated player saw it at another "
                                         "table)"},
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
                                "words": ref("Words"),
                                "taps": ref("Taps")}},
        "Deduction": {
            "type": ["object", "null"],
            "description": "only on a table that opted in to the deduction aid: for "
                           "the reveal in play, the line-ups of the side being guessed "
                           "that the public information still allows (null when no "
                           "reveal is due or that side's order broke, R60)",
            "required": ["side", "mission", "lineups", "missions"],
            "properties": {
                "side": ref("Side"),
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
            "sides": {"type": "array", "items": ref("Side"),
                      "description": "who may tap (empty: anyone at the table)"},
            "part": {"type": ["integer", "null"],
                     "description": "in team play, the part of the side (R80)"},
            "count": {"description": "exhaust: ranks per side; intel: 4"},
            "ranks": {"description": "the ranks that may be tapped (per side for "
                      "exhaust and check)"},
            "missions": {"description": "tokens: the missions; check: the face-down "
                         "missions per side, in order"},
            "starts": {"type": "array", "items": ref("Side")},
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
                   "properties": {"view": ref("View"),
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
        "Record": {"type": "object", "required": ["format", "events"], "properties": {
            "format": {"type": "string", "const": "spies-and-lies-record/1"},
            "options": {"type": "object", "properties": {
                "wall_distance": {"type": "integer", "minimum": 2, "maximum": 8},
                "teams": {"type": "boolean", "description": "team play (R80); "
                                                            "written only when true"}}},
            "events": {"type": "array", "items": {"type": "object"}}}},
        **story_schemas(),
    }
