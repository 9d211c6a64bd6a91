"""The table's screen: who may make another screen the host (issue 50) — the host key,
the keeper's key, or the host's consent to a screen that asks — and a table gone on.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from ..edge import limits
from ..edge.errors import ApiError
from ..engine import Msg
from ..engine import side as side_word
from ..group.games import changed
from ..store.models import (
    ID_MAX,
    Seat,
    Table,
    db,
    now,
)
from ..table.views import seat_dict
from .authority import Transaction
from .tables import ASK_MINUTES, ASKING, Actor, ask_expired

ASKS_MAX = 8                # screens that wait at once for the table's screen (the oldest goes)


# --- the table's screen: who may make another screen the host (issue 50) -------------

def hand_over(tx: Transaction, actor: Actor, client: str = "local") -> None:
    """Make another screen the table's screen (its host), or ask for it: that screen made
    a key and sends its SHA-256 (``host_hash``).

    The role moves only with a key that already holds it: the table's screen's own key,
    or the keeper's (a screen gone for good, a flat battery: :mod:`.keeper`). Anyone else
    only asks: the table's screen is shown the ask, with a number the asking screen shows
    too, and lets that screen take its place or refuses (:func:`decide_takeover`). A
    seat's key never moves it, nor asks: a phone is a player, not a screen. Nothing here
    looks at who is connected (a worker of ``--workers`` that has not heard of a stream
    decides as any other), and the old key is worth nothing after.
    """
    table = tx.table
    if actor.seat is not None:
        raise ApiError(403, Msg("a phone cannot choose the table's screen: tap \"Make this "
                                "screen the table's screen\" on the screen itself, and allow it "
                                "on the table's screen"), code="not_host")
    h: str = tx.fields()["host_hash"]
    if h == table.host_hash:
        raise ApiError(409, Msg("this screen is already the table's screen"),
                       field="host_hash", code="host_already")
    mine = next((s for s in table.seats if s.secret_hash == h), None)
    if (mine is not None and mine.status != ASKING) or (mine is None and db.session.scalar(
            select(Seat.id).where(Seat.secret_hash == h)) is not None):
        raise ApiError(409, Msg("this key is a seat's; the screen must make a new one"),
                       field="host_hash", code="secret_taken")
    if actor.host:
        _new_host(tx, h, Msg("The table's screen handed the table to another screen"))
    elif actor.keeper:
        _new_host(tx, h, Msg("The keeper made another screen the table's screen"))
    else:
        _ask(tx, h, mine, client)


def ask_number(key_hash: str) -> str:
    """The number an asking screen shows and the table's screen is shown with its ask
    (four digits of the key's hash): the screen in the room is the one let in, not a
    stranger's ask that came at the same moment.

    >>> ask_number("0000002a" + "f" * 56)
    '0042'
    """
    return f"{int(key_hash[:8], 16) % 10000:04d}"


def screen_asks(table: Table) -> list[dict[str, Any]]:
    """The screens asking to be the table's screen, oldest first (for its host)."""
    return [{"id": s.id, "number": ask_number(s.secret_hash)}
            for s in table.seats if s.status == ASKING and not ask_expired(s)]


def asks_everywhere(group_id: int) -> list[dict[str, Any]]:
    """The screens asking to be a table's screen at any of the group's tables still
    open, newest first (the keeper's page: the screen a group brought to a table whose own
    screen is gone for good). Each with the hash the keeper hands the table to, and the
    table's version."""
    rows = db.session.execute(
        select(Seat.secret_hash, Seat.created, Table.code, Table.version)
        .join(Table, Table.id == Seat.table_id)
        .where(Seat.status == ASKING, Seat.created >= now() - timedelta(minutes=ASK_MINUTES),
               Table.rematch.is_(None), Table.group_id == group_id)
        .order_by(Seat.created.desc()).limit(ASKS_MAX * 10))
    t = now()
    return [{"code": code, "number": ask_number(h), "hash": h, "version": version,
             "asked": max(0, round((t - created).total_seconds()))}
            for h, created, code, version in rows]


def _ask(tx: Transaction, h: str, mine: Seat | None, client: str) -> None:
    """A screen asks the table's screen to let it take its place: kept as a row of the
    table's seats (status ``host-ask``, the key's hash its own) until the table's screen
    answers, the role moves, or ``ASK_MINUTES`` pass; the players' version is not moved."""
    table = tx.table
    if mine is None:
        limits.spend("screen_asks", lambda n: Msg("this screen asked too often; wait {n} "
                                                  "seconds", n=n), client)
        # the oldest ask makes room, never a refusal: asks from elsewhere (a stranger's)
        # can delay the group's screen, not lock it out (nor the keeper, who sees it)
        waiting = sorted((s for s in table.seats if s.status == ASKING),
                         key=lambda s: (s.created, s.id))
        fresh = [s for s in waiting if not ask_expired(s)]
        oldest = fresh[:max(0, len(fresh) + 1 - ASKS_MAX)]
        for s in waiting:
            if ask_expired(s) or s in oldest:
                table.seats.remove(s)
        mine = Seat(table_id=table.id, side="", part=0, name="", secret_hash=h,
                    status=ASKING, last_seen=None)
        table.seats.append(mine)
    else:
        mine.created = now()        # asked again: it waits as long again
    db.session.flush()
    tx.commit(202, {"asked": {"id": mine.id, "number": ask_number(h)}}, bump=False)


def _new_host(tx: Transaction, h: str, notice: Msg) -> None:
    """The screen whose key hashes to ``h`` is the table's screen from now on; the asks
    made of the one before go with its key."""
    table = tx.table
    for s in [s for s in table.seats if s.status == ASKING]:
        table.seats.remove(s)
    db.session.flush()
    tx.commit(200, {"number": ask_number(h)}, notice=notice, also={"host_hash": h})


def decide_takeover(tx: Transaction, actor: Actor, seat_id: int) -> None:
    """The host screen lets a waiting phone take over a seat, or keeps the seat as it is;
    or lets a screen that asked take its place as the table's screen, or not (issue 50)."""
    if not actor.host:
        raise ApiError(403, Msg("only the host screen can let a phone take over a seat"),
                       code="not_host")
    approve: bool = tx.fields()["approve"]
    seat = db.session.get(Seat, seat_id) if 0 <= seat_id <= ID_MAX else None
    if (seat is not None and seat.table_id == tx.table.id and seat.status == ASKING
            and not ask_expired(seat)):
        if approve:
            _new_host(tx, seat.secret_hash,
                      Msg("The table's screen let another screen take its place"))
        else:                 # the asking screen finds its key unknown: refused
            tx.table.seats.remove(seat)
            db.session.flush()
            tx.commit(200, {"refused": ask_number(seat.secret_hash)}, bump=False)
        return
    if seat is None or seat.table_id != tx.table.id or seat.status != "pending":
        raise ApiError(404, Msg("there is no such request to take over a seat"), code="not_found")
    if tx.table.finished is not None:
        changed(tx.table.group_id)      # who sat at a finished game: the history says so
    if approve:
        for s in tx.table.seats:
            if s.side == seat.side and s.part == seat.part and s.status == "active":
                s.status = "replaced"
        seat.status = "active"
        notice = Msg("{name} now plays {side}", name=seat.name, side=side_word(seat.side))
    else:
        seat.status = "declined"
        notice = Msg("The host kept the seat; {name} was not let in", name=seat.name)
    tx.commit(200, {"seat": seat_dict(seat)}, notice=notice)


def went_on(tx: Transaction, code: str) -> None:
    """Another screen went on with this table's game at table ``code`` (its screen, a
    laptop gone, could not be entered any more): this table's screens and phones say
    where (in their own words: ``went_on`` in the view), until anything more is entered
    here (its own screen is back, and the group goes on here after all). Nothing here is
    closed or taken: whoever taps "go on here" only opens a table of its own."""
    said = {"code": code, "version": tx.table.version + 1}      # the version it commits
    tx.commit(200, {}, also={"went_on": json.dumps(said)})
