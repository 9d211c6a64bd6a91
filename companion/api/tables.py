"""The JSON API's tables: open one (or from a saved record), find the games a screen's
keys belong to, and read a table: its view, who a key is, the ability calculator, its
story, its chance to win, its record. And the OpenAPI document itself."""

from __future__ import annotations

import json
from typing import Any

from flask import Response, jsonify, request

from .. import live
from ..edge import assets
from ..edge.errors import ApiError
from ..engine import SIDES, Msg, Options, Side, ability_preview
from ..engine import rank as rank_word
from ..group import chances, games
from ..group.story import story as game_story
from ..play import handover, opening, tables
from ..play.authority import Transaction
from ..store.models import Table
from ..table.states import active_events, derive
from ..table.views import public_view
from ..table.words import choice_label, choice_summary, effect_list
from .base import body, bp, fields, group, is_keeper, load, me_of, opened, secret
from .bodies import ImportRecord, Mine, OpenTable
from .declared import check


@bp.post("/tables")
def create_table() -> tuple[Response, int]:
    """Open a new table; the answer carries the host screen's secret, once."""
    return opened(opening.open_table(_declared(OpenTable), group_id=group()))


@bp.post("/tables/import")
def import_record() -> tuple[Response, int]:
    """Open a table from a game record, only if the referee replays it (else nothing);
    a finished game already here is answered as it is (200, ``existing``). The keeper's
    imports count in the group's memory; anyone else's are kept apart until the keeper
    counts them."""
    got = opening.open_table(_declared(ImportRecord), imported=True, keeper=is_keeper(),
                             secret=secret(), group_id=group())
    if got.source is not None:
        went_on(got.source, got.table.code)
    return opened(got)


def _declared(model: type[OpenTable] | type[ImportRecord]) -> dict[str, Any]:
    """A new table's fields; a seat of ``screen`` in team play is refused in its words."""
    sent = body()
    return check(model, sent, {"teams": sent.get("teams") is True})


def went_on(source: Table, code: str) -> None:
    """The table whose game a screen goes on with at ``code`` says so to its screens,
    when that game was entered on its screen (sides sit there) and that screen is gone
    (no stream of its host is open): anyone with the code may copy a game, but a copy
    of a game its phones play, or whose screen is there, sends nobody away from it. If
    the table changed meanwhile (its own screen is back), it says nothing either. Once
    per new table (the receipt's key is its code)."""
    if (not any(s.screen and s.status == "active" for s in source.seats)
            or "host" in live.hub.connected(source.code)):
        return
    try:
        with Transaction(source, {}, "went_on", key=f"went-on:{code}") as tx:
            if tx.receipt is None and source.rematch is None:
                handover.went_on(tx, code)
    except ApiError:
        return
    if tx.receipt is None and tx.result[0] == 200:     # pushed to the table's screens
        live.publish(tx.result[1]["view"], None if tx.told else tx.read_version)


@bp.post("/tables/mine")
def tables_held() -> Response:
    """The games in play this screen's keys belong to (the first page's "back to your
    game"); nothing about a code sent without its key."""
    return jsonify({"tables": tables.held(fields(Mine))})


@bp.get("/openapi.json")
def openapi_document() -> Response:
    """This API described in OpenAPI 3.1."""
    from .openapi import document
    return jsonify(document())


@bp.get("/tables/<code>/state")
def state(code: str) -> Response:
    """The public view; with ``?since=V`` only whether it moved past ``V`` (polling)."""
    table = load(code)
    actor = tables.actor_for(table, secret())
    tables.touch(actor)
    since = request.args.get("since", type=int)
    if since is not None and since >= table.version:
        resp = jsonify({"version": table.version, "changed": False,
                        "connected": live.hub.connected(table.code),
                        "watching": live.hub.watching(table.code)})
    else:
        resp = jsonify({"view": public_view(table), "me": me_of(table, actor), "changed": True,
                        "connected": live.hub.connected(table.code),
                        "watching": live.hub.watching(table.code)})
    # the pages' version: a page opened before an upgrade loads again (:mod:`.assets`)
    resp.headers["X-Assets"] = assets.version()
    return resp


@bp.get("/tables/<code>/me")
def me(code: str) -> Response:
    """Who this secret belongs to (host, seat or viewer), with the proof its live stream
    shows to count as connected."""
    table = load(code)
    actor = tables.actor_for(table, secret())
    tables.touch(actor)
    return jsonify(me_of(table, actor))


@bp.get("/tables/<code>/preview")
def preview(code: str) -> Response:
    """The ability calculator: what if ``side``'s ``rank`` were activated now?"""
    table = load(code)
    side = request.args.get("side")
    rank = request.args.get("rank", type=int)
    if side not in SIDES:
        raise ApiError(400, Msg("the parameter 'side' must be red or blue"), field="side",
                       code="bad_field")
    if rank is None or not 1 <= rank <= 10:
        raise ApiError(400, Msg("the parameter 'rank' must be a rank 1-10"), field="rank",
                       code="bad_field")
    options = [{**o, "summary": choice_summary(o), "effect_words": effect_list(o["effects"]),
                "label": choice_label(o, side) if o["choice"] else rank_word(rank)}
               for o in ability_preview(derive(table), Side(side), rank)]
    return jsonify({"side": side, "rank": rank, "name": rank_word(rank),
                    "version": table.version, "options": options})


@bp.get("/tables/<code>/story")
def story(code: str) -> Response:
    """The game replayed event by event: each step's board and words, and the key moments
    (expired tables too: a story is read, never played)."""
    table = load(code, allow_expired=True)
    out = game_story(table)
    if out["over"]:         # the chance over the whole game, once worked out (issue 25)
        got = chances.series(table)
        out["chances"] = {"pending": True} if got is None else {
            "steps": got["steps"], "playouts": got["playouts"],
            "turning": chances.turning_words(got)}
    return jsonify(out)


@bp.get("/tables/<code>/chances")
def chance(code: str) -> Response:
    """A table's live chance to win, if it opted in (``live``: the latest figure, of the
    game after ``events`` events; a newer one is being worked out when that is behind)."""
    table = load(code, allow_expired=True)
    return jsonify({"on": table.chances, "live": chances.live(table)})


@bp.get("/tables/<code>/record")
def record(code: str) -> Response:
    """The game as a spies-and-lies-record/1 file (events not undone); expired tables too."""
    table = load(code, allow_expired=True)
    out = {"format": "spies-and-lies-record/1",
           "options": {**Options(table.wall_distance, table.teams).to_dict(),
                       **games.record_options(table)},
           "events": [json.loads(r.data) for r in active_events(table)]}
    resp = jsonify(out)
    resp.headers["Content-Disposition"] = f'attachment; filename="spies-lies-{table.code}.json"'
    return resp
