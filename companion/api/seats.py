"""The JSON API's changes of a table: sit down, the big screen's own seats, another
screen taking the table, a rematch, the host's decisions; and the game itself: an
event, a tap of a reveal, an undo. Each body is declared in :mod:`.bodies`."""

from __future__ import annotations

from flask import Response, jsonify

from ..edge.hosts import client
from ..play import actions, handover, opening, tables
from ..play import seats as seating
from ..table.views import requests
from .base import act, bp, load, secret
from .bodies import Decision, HandOver, Join, PostEvent, Rematch, ScreenSide, Tap, TeachAgain, Undo


@bp.post("/tables/<code>/seats")
def join(code: str) -> tuple[Response, int]:
    """Sit down: a side (and in team play a part) and a name, and the key this phone made
    for its seat (``secret``; without one the server makes it and sends it once)."""
    return act(code, "seats", Join, lambda tx, actor: seating.join(tx, client()),
               anonymous=True)


@bp.post("/tables/<code>/screen")
def screen_seat(code: str) -> tuple[Response, int]:
    """The host screen takes a side to enter it there (``on``: true, ``name``), or frees
    it for a phone (``on``: false): a table played without phones (issue 23)."""
    return act(code, "screen", ScreenSide, seating.screen_seat)


@bp.post("/tables/<code>/host")
def hand_over(code: str) -> tuple[Response, int]:
    """Another screen becomes the table's screen (``host_hash``: the SHA-256 of the key it
    made): at once with the table's screen's key or the keeper's as the bearer; from any
    other screen it is an ask (202) the table's screen allows or refuses (``/decision``).
    A seat's key is refused (issue 50)."""
    return act(code, "host", HandOver, lambda tx, actor: handover.hand_over(tx, actor, client()),
               keeper_too=True)


@bp.post("/tables/<code>/rematch")
def rematch(code: str) -> tuple[Response, int]:
    """The next game, same options, everyone seated (``swap``: colours exchanged); the
    host screen sends the new table's host key it made (``host_secret``)."""
    return act(code, "rematch", Rematch, opening.rematch)


@bp.get("/tables/<code>/requests")
def seat_requests(code: str) -> Response:
    """The phones waiting for the host screen to let them take over a seat, and how
    long ago each seated phone was last heard from (its heartbeat); for the host screen
    itself, the screens asking to take its place too (``screens``: each one's id and the
    number it shows; nobody else is shown them)."""
    table = load(code)
    out = {"requests": requests(table), "seen": tables.heard_from(table)}
    if tables.actor_for(table, secret()).host:
        out["screens"] = handover.screen_asks(table)
    return jsonify(out)


@bp.post("/tables/<code>/seats/<int:seat_id>/decision")
def decide(code: str, seat_id: int) -> tuple[Response, int]:
    """The host screen lets a phone take over a seat, or keeps it; or lets a screen that
    asked take its place (issue 50), or not."""
    return act(code, "decision", Decision,
               lambda tx, actor: handover.decide_takeover(tx, actor, seat_id))


@bp.post("/tables/<code>/events")
def post_event(code: str) -> tuple[Response, int]:
    """Record one event: exhaust, intel, tokens, start, check (reveals go through /draft)."""
    return act(code, "events", PostEvent, actions.post_event)


@bp.post("/tables/<code>/draft")
def post_draft(code: str) -> tuple[Response, int]:
    """One tap of the reveal being built: deception, guess, actual, choice."""
    return act(code, "draft", Tap, actions.post_draft)


@bp.post("/tables/<code>/undo")
def undo(code: str) -> tuple[Response, int]:
    """Take back the last tap or event, for every screen to see."""
    return act(code, "undo", Undo, actions.undo)


@bp.post("/tables/<code>/teach")
def teach_again(code: str) -> tuple[Response, int]:
    """"Teach again" (issue 53): the seated players forget the lessons they saw, and this
    game's lessons come back from its step now (the table becomes a learning game)."""
    return act(code, "teach", TeachAgain, actions.teach_again)
