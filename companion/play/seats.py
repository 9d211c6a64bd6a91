"""Seats: a phone joins a side (and a team's part), a seat taken on the big screen
itself, remembered players, and a retried join answered as it was the first time.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from ..edge import limits
from ..edge.errors import ApiError
from ..edge.lang import revive
from ..engine import Msg
from ..engine import side as side_word
from ..group.games import changed, rates_new_seats, rebuild_ratings
from ..group.space import player_hash
from ..store.models import (
    Player,
    Receipt,
    Seat,
    Table,
    db,
    hash_secret,
    new_secret,
    now,
)
from ..table.views import public_view, seat_dict
from .authority import Transaction
from .tables import PENDING_MAX, Actor

# --- seats -----------------------------------------------------------------------

def _side_part(table_teams: bool, part: int | None, where: str = "") -> int:
    """A seat's part as team play wants it (R80: a half of a side, else the whole side);
    ``where``: the field's name in the refusal. Its type was checked as
    :mod:`companion.api.bodies` declares it."""
    if table_teams:
        if part not in (1, 2):
            raise ApiError(400, Msg("in team play the field 'part' must be 1 (missions 1-2) or "
                                "2 (missions 3-4)"), field=where + "part", code="bad_field")
        return int(part)
    if part not in (None, 0):
        raise ApiError(400, Msg("without team play the field 'part' must be 0 or left out"),
                       field=where + "part", code="bad_field")
    return 0


def screen_field(body: dict[str, Any], teams: bool) -> list[tuple[str, int, str]]:
    """The sides a new table seats on its big screen (issue 23): ``screen``, a list of
    ``{"side", "part", "name"}`` (name optional: the side's name)."""
    out: list[tuple[str, int, str]] = []
    for x in body.get("screen", []):      # names tidied as companion.api.bodies says
        part = _side_part(teams, x.get("part"), "screen.")
        name = x.get("name") or str(x["side"]).capitalize()
        if any(o[:2] == (x["side"], part) for o in out):
            raise ApiError(400, Msg("the field 'screen' names the same seat twice"),
                           field="screen", code="bad_field")
        out.append((x["side"], part, name))
    return out


def sit_on_screen(table: Table, side: str, part: int, name: str) -> Seat:
    """A seat the host screen holds: no phone key (a random one nobody is given)."""
    seat = Seat(table_id=table.id, side=side, part=part, name=name, screen=True,
                secret_hash=hash_secret(new_secret()), status="active", last_seen=None)
    table.seats.append(seat)
    db.session.flush()
    return seat


def screen_seat(tx: Transaction, actor: Actor) -> None:
    """The host screen takes a side (``on``: true, with a ``name``), taking it from the
    phone that held it if one did, or gives it up for a phone to take (``on``: false)."""
    table = tx.table
    if not actor.host:
        raise ApiError(403, Msg("only the big screen that opened the table seats a side on it"),
                       code="not_host")
    fields = tx.fields()
    on: bool = fields["on"]
    part = _side_part(table.teams, fields.get("part"))
    side: str = fields["side"]
    held = [s for s in table.seats if s.side == side and s.part == part
            and s.status == "active"]
    if on:
        name: str = fields["name"]
        if held and held[0].screen:
            held[0].name = name
            notice = Msg("{seat} is played on the big screen as {name}",
                         seat=_where(side, part), name=name)
        else:
            for s in held:
                s.status = "replaced"
            seat = sit_on_screen(table, side, part, name)
            notice = Msg("{seat} is now played on the big screen as {name}",
                         seat=_where(side, part), name=seat.name)
    else:
        if not held or not held[0].screen:
            raise ApiError(409, Msg("{seat} is not played on the big screen",
                                    seat=_where(side, part)), code="not_on_screen")
        held[0].status = "replaced"
        notice = Msg("{seat} is free for a phone to join", seat=_where(side, part))
    if table.finished is not None:
        changed(table.group_id)
    tx.commit(200, {"seats": [seat_dict(s) for s in table.seats if s.status == "active"]},
              notice=notice)

def _where(side: str, part: int) -> Msg:
    if part:
        return Msg("{side!c} missions {part}", side=side_word(side),
                   part="1-2" if part == 1 else "3-4")
    return Msg("{side!c}", side=side_word(side))


def join(tx: Transaction, client: str = "local") -> None:
    """Sit down at ``side`` (and ``part`` in team play) as ``name``; a taken seat waits
    for the host.

    ``secret`` is the key the phone made for its seat (only its hash is kept); without
    one the server makes it and sends it in this answer, once. ``player``: the key the
    phone keeps for its player (issue 14): the same person at the next table.
    """
    table = tx.table
    fields = tx.fields()
    side: str = fields["side"]
    name: str = fields["name"]
    part = _side_part(table.teams, fields.get("part"))
    own: str | None = fields.get("secret")
    if own is not None and (hash_secret(own) == table.host_hash or db.session.scalar(
            select(Seat.id).where(Seat.secret_hash == hash_secret(own))) is not None):
        raise ApiError(409, Msg("this phone's key is already in use; make a new one and join "
                                "again"),
                       field="secret", code="secret_taken")
    taken = [s for s in table.seats if s.side == side and s.part == part and s.status == "active"]
    if taken:
        _may_ask(table, client)
    secret = own or new_secret()
    who = remember(fields.get("player"), name, table.group_id)
    seat = Seat(table_id=table.id, side=side, part=part, name=name,
                secret_hash=hash_secret(secret), status="pending" if taken else "active",
                last_seen=now(), player_id=who.id if who else None)
    table.seats.append(seat)        # the view built after the commit lists it
    db.session.flush()
    if table.finished is not None and not taken:
        # who sat at a finished game shows in its history; rated only where a new seat
        # counts (every rating made again: the game may lie anywhere in the order)
        if rates_new_seats(table.id) and table.group_id is not None:
            rebuild_ratings(table.group_id)
        else:
            changed(table.group_id)
    if taken:
        notice = Msg("{name} asks to take over {seat} from {holder}: the host screen decides",
                     name=seat.name, seat=_where(side, part), holder=taken[0].name)
    else:
        notice = Msg("{name} sits down as {seat}", name=seat.name, seat=_where(side, part))
    answer: dict[str, Any] = {"seat": seat_dict(seat)}
    if not own:
        answer["secret"] = secret
    # a request to take over a seat waits for the host outside the versioned view: the
    # players' next taps stay valid however many phones ask
    tx.commit(201, answer, notice=notice, bump=not taken)


def remember(key: str | None, name: str, group_id: int | None) -> Player | None:
    """The player of the group whose phone keeps ``key`` (made by the phone; only its
    hash is kept), created the first time, renamed to ``name`` when the phone sends a new
    one. A table of no group remembers no one (issue 54)."""
    if key is None or group_id is None:
        return None
    h = player_hash(key, group_id)
    who: Player | None = db.session.scalar(select(Player).where(Player.key_hash == h))
    if who is None:
        limits.spend("players", lambda n: Msg("too many new players were made from here "
                                              "lately; wait {n} seconds and join again", n=n))
        who = Player(key_hash=h, name=name, last_seen=now(), group_id=group_id)
        db.session.add(who)
    else:
        who.name, who.last_seen = name, now()
    db.session.flush()
    return who


def _may_ask(table: Table, client: str) -> None:
    """A phone may ask for a taken seat only while few are waiting, and not too often."""
    if sum(1 for s in table.seats if s.status == "pending") >= PENDING_MAX:
        raise ApiError(429, Msg("{n} phones are already waiting for the host screen to decide; "
                                "ask again once it has", n=PENDING_MAX), code="too_many_requests",
                       retry_after=30)
    limits.spend("seat_asks", lambda n: Msg("this device asked for a seat too often; wait {n} "
                                            "seconds", n=n), client)


def answered_before(receipt: Receipt, table: Table) -> tuple[int, dict[str, Any]]:
    """The answer of a retried request: its stored answer (secrets are never stored, never
    remade) with the table's view as it is now, so the phone carries on from there.

    A retried join whose seat was since taken over or refused is refused: the seat is
    no longer the phone's.
    """
    body: dict[str, Any] = revive(receipt.body)
    body["view"] = public_view(table)
    if receipt.kind in (None, "seats") and isinstance(body.get("seat"), dict):
        seat = db.session.get(Seat, body["seat"].get("id"))
        if seat is None or seat.status in ("replaced", "declined"):
            raise ApiError(409, Msg("this seat is no longer yours; join again"), code="stale")
    return receipt.status, body
