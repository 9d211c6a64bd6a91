"""Tables read: a table looked up by code (expired after a month untouched), the actor a
request's key makes (host, seat, a screen asking to be the host, viewer), when each phone
was last heard from, and the tables a screen holds keys for ("back to your game").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from flask import current_app
from sqlalchemy import bindparam, or_, select
from sqlalchemy.orm import joinedload

from ..edge import limits
from ..edge.errors import ApiError
from ..edge.fields import (
    CODE_RE,
)
from ..engine import SIDES, Msg
from ..store.loaded import table_by_code
from ..store.models import (
    Seat,
    Table,
    db,
    hash_secret,
    now,
)
from ..table.practice import SCRIPT
from ..table.states import derive
from ..table.views import seat_dict
from . import keeper

EXPIRY_DAYS = 30            # a table untouched this long is expired (TABLE_EXPIRY_DAYS)
PENDING_MAX = 8             # phones that may wait at once for the host to let them in
ASKING = "host-ask"         # a seat row's status: a screen asking to be the table's screen


ASK_MINUTES = 10            # an ask nobody answered this long is dropped


@dataclass
class Actor:
    """Who sends a request: the host screen, a seat, or nobody known. The host screen
    also acts for the sides that sit on it (``screens``, issue 23). ``keeper``: the
    keeper key was the bearer (:mod:`.keeper`, only where a request accepts it);
    ``asking``: the key of a screen that asked to be the table's screen (issue 50),
    which is nobody yet."""

    host: bool = False
    seat: Seat | None = None
    screens: tuple[Seat, ...] = ()
    keeper: bool = False
    asking: bool = False

    def acting(self, side: str | None, part: int | None = None) -> Seat | None:
        """The seat this request enters for at ``side`` (``part``: a team's half, R80):
        a phone's own seat, or a side sitting on the host screen; ``None`` if neither."""
        for s in (self.seat,) if self.seat is not None else self.screens:
            if s.status == "active" and s.side == side and (part is None
                                                            or s.part in (0, part)):
                return s
        return None

    @property
    def screen_sides(self) -> set[str]:
        """The sides (whole or a part) that sit on the host screen."""
        return {s.side for s in self.screens if s.status == "active"}

    @property
    def name(self) -> str:
        if self.seat is not None:
            return self.seat.name
        return "the host screen" if self.host else "someone"

    @property
    def known(self) -> bool:
        return self.host or self.seat is not None

    @property
    def seat_id(self) -> int | None:
        return self.seat.id if self.seat is not None else None

    @property
    def key(self) -> str:
        """Who this is, as a receipt remembers it: host, seat:<id>, keeper or anyone."""
        if self.seat is not None:
            return f"seat:{self.seat.id}"
        return "host" if self.host else "keeper" if self.keeper else "anyone"


# --- looking a table up ----------------------------------------------------------

def expired(table: Table) -> bool:
    """A table nobody has changed for ``TABLE_EXPIRY_DAYS`` (30) days is over for good."""
    days = current_app.config.get("TABLE_EXPIRY_DAYS", EXPIRY_DAYS)
    return bool(table.updated < now() - timedelta(days=days))


def load(code: str, client: str = "local", allow_expired: bool = False,
         held: Callable[[str], bool] | None = None) -> Table:
    """The table with this code; an unknown code counts against ``client``, which is
    refused every look-up once it tried too many (:mod:`.limits`: no guessing).

    ``held(code)``: whether the request proves a key of the table of that code (its
    bearer: :func:`holds_key`, or a stream's proof of one). Such a request is served
    even while ``client`` is refused look-ups (issue 50: a hostile page in the TV's
    browser spends the TV's address); without it, or with a key that is not the
    table's, the refusal is the same for a table that exists and one that does not."""
    wait = limits.code_wait(client)
    if wait and (held is None or not CODE_RE.match(code) or not held(code.upper())):
        raise limits.too_many(Msg("too many table codes that do not exist were tried from this "
                                  "device; wait {n} seconds and check the code on the big "
                                  "screen", n=wait), wait)
    table = None
    if CODE_RE.match(code):
        # with its seats, in the same statement: every request of a table reads them
        # (whose key it carries, the view), and a second query cost each post more than
        # the join; read without the ORM's query (:mod:`..store.loaded`)
        table = table_by_code(code.upper())
    if table is None:
        limits.code_missed(client)
        raise ApiError(404, Msg("there is no table with the code {code}; check the code on the "
                                "big screen", code=repr(code.upper()[:12])), code="not_found")
    if not allow_expired and expired(table):
        raise ApiError(410, Msg("the table {code} has expired: nobody played at it for {n} "
                                "days. Open a new table to play again", code=table.code,
                                n=current_app.config.get("TABLE_EXPIRY_DAYS", EXPIRY_DAYS)),
                       code="expired")
    return table


# the table of a code whose host key, or an active seat's key, has this hash: asked in
# one statement, so that a key that is not the table's reads what an unknown code reads
_HELD_BY = (select(Table.id).where(
    Table.code == bindparam("code"),
    or_(Table.host_hash == bindparam("h"),
        Table.id.in_(select(Seat.table_id).where(Seat.secret_hash == bindparam("h"),
                                                 Seat.status == "active")))))


def holds_key(code: str, secret: str) -> bool:
    """Whether ``secret`` is a key of the table ``code`` that may act there: its host
    key, an active seat's key, or the keeper key (:mod:`.keeper`)."""
    return keeper.is_keeper(secret) or db.session.scalar(
        _HELD_BY, {"code": code, "h": hash_secret(secret)}) is not None


def actor_for(table: Table, secret: str | None) -> Actor:
    """The actor a bearer secret belongs to; a wrong secret is refused, none is anonymous."""
    if not secret:
        return Actor()
    h = hash_secret(secret)
    if h == table.host_hash:
        return Actor(host=True, screens=tuple(
            s for s in table.seats if s.screen and s.status == "active"))
    # the table's seats are read once (the view needs them too) and searched here
    seat = next((s for s in table.seats if s.secret_hash == h), None)
    if seat is None:
        raise ApiError(401, Msg("this phone's key does not belong to a seat at this table; join "
                                "again"),
                       code="bad_secret")
    if seat.status == ASKING:       # a screen waiting for the table's screen: nobody yet
        return Actor(asking=not ask_expired(seat))
    if seat.status == "replaced":
        raise ApiError(401, Msg("another phone has taken over this seat; join again to play"),
                       code="seat_taken_over")
    return Actor(seat=seat)


HEARTBEAT = 5.0            # seconds: a phone's "I am here" is written at most this often


def touch(actor: Actor) -> None:
    """Note that a seat's phone is alive (at most every 5 s, to spare the database)."""
    s = actor.seat
    if s is not None and (s.last_seen is None
                          or (now() - s.last_seen).total_seconds() > HEARTBEAT):
        s.last_seen = now()
        db.session.commit()


def heard_from(table: Table) -> dict[str, float | None]:
    """Seconds since each seated phone was last heard from (``None``: never)."""
    t = now()
    return {str(s.id): (round((t - s.last_seen).total_seconds(), 1) if s.last_seen else None)
            for s in table.seats if s.status == "active"}


def who(actor: Actor) -> dict[str, Any]:
    """Whom this screen's secret belongs to: the host, a seat, or a viewer."""
    if actor.host:
        return {"role": "host"}
    if actor.seat is not None:
        return {"role": "seat", **seat_dict(actor.seat)}
    # a screen that asked to be the table's screen, while its ask waits (issue 50)
    return {"role": "viewer", "asking": True} if actor.asking else {"role": "viewer"}


# --- the tables a screen holds keys for ------------------------------------------

HELD_MAX = 12               # tables one request may ask about (the first page sends its 8)
_HELD = (select(Table).options(joinedload(Table.seats))
         .where(Table.code.in_(bindparam("codes", expanding=True))))


def held(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The games in play that a screen's keys belong to, newest first (the first page's
    "back to your game": a closed tab, a browser restarted). ``body["tables"]`` lists
    ``{"code", "key"}``; a table answers only to its host key or an active seat's key, and
    only while it is in play (not finished, not moved on to a rematch, not expired). A code
    with no table and a key that is not the table's are left out alike and cost nothing:
    without its 256-bit key a code tells nothing here, so no miss is counted (a phone's
    keys of tables long gone must not lock it out of the next table's code)."""
    asked = body["tables"]          # at most HELD_MAX, as companion.api.bodies says
    keys: dict[str, set[str]] = {}
    for x in asked:
        keys.setdefault(x["code"].upper(), set()).add(hash_secret(x["key"]))
    found = db.session.scalars(_HELD, {"codes": sorted(keys)}).unique() if keys else ()
    out = []
    for table in found:
        if table.finished is not None or table.rematch or expired(table):
            continue
        hashes = keys[table.code]
        active = [s for s in table.seats if s.status == "active"]
        # the host key first (a laptop that hosts and sits), else the phone's own seat
        seat = None if table.host_hash in hashes else next(
            (s for s in active if s.secret_hash in hashes), None)
        if seat is None and table.host_hash not in hashes:
            continue
        state = derive(table)
        if table.practice and state.event_count >= len(SCRIPT):
            continue            # a practice round played to its end: nothing to go back to
        players: dict[str, list[str]] = {side: [] for side in SIDES}
        for s in active:
            players[s.side].append(s.name)
        out.append((table.updated, {
            "code": table.code, "role": "seat" if seat else "host",
            "side": seat.side if seat else None, "part": seat.part if seat else None,
            "day": state.day, "started": state.event_count > 0, "players": players,
            "idle": max(0, round((now() - table.updated).total_seconds()))}))
    return [x for _, x in sorted(out, key=lambda x: x[0], reverse=True)]


def ask_expired(seat: Seat) -> bool:
    return bool(seat.created < now() - timedelta(minutes=ASK_MINUTES))
