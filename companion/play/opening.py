"""Opening a table: a new one, one from a record (an imported game, or a game continued
where its record ends), and the rematch that opens the next table with the seats moved.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..edge.errors import ApiError
from ..edge.fields import (
    person_name,
)
from ..engine import Msg, Options, Phase, Record, RecordError, State, replay
from ..group.games import played_at, remember_game
from ..store.loaded import table_by_code
from ..store.models import (
    Event,
    Seat,
    Table,
    db,
    hash_secret,
    new_code,
    new_secret,
    now,
)
from ..table.practice import WALL as PRACTICE_WALL
from ..table.states import active_events, derive
from ..table.views import seat_dict
from . import keeper
from .authority import Transaction
from .seats import screen_field, sit_on_screen
from .tables import Actor

# --- opening a table ---------------------------------------------------------------

@dataclass
class Opened:
    """A table a request opened: ``secret``, the host key the server made for it (``None``
    when the page sent its own, ``host_secret``, or for a table opened before);
    ``existing``: the same finished game was already here (an import of its record)."""

    table: Table
    secret: str | None = None
    existing: bool = False
    source: Table | None = None     # the table of this server whose game it goes on with


def open_table(body: dict[str, Any], imported: bool = False, keeper: bool = False,
               secret: str | None = None, group_id: int | None = None) -> Opened:
    """A new table of the group ``group_id`` (``None``: of no group, issue 54;
    ``imported``: from a record, only if the referee replays it; ``keeper``: imported by
    the group's keeper, whose imports count in the group's memory as the games played
    here do, issue 50; ``secret``: the request's bearer, which may go on with a table's
    game, ``from``: the new table is of that table's group).

    A retried request (same ``idempotency_key``) gets the table it opened the first time,
    and no secret: a retry never makes a new one. A finished game's record imported again
    is the same game (by content, issue 20): the table that holds it is answered, nothing
    new is opened. No intel card is learnt from an import: the cards offered at the intel
    step come from rounds played live here (:mod:`.cards`).
    """
    key, own = body.get("idempotency_key"), body.get("host_secret")
    again = _created_before(key)
    if again is not None:
        return Opened(again)
    events: list[dict[str, Any]] = []
    end: State | None = None
    teams: bool = body.get("teams", False)
    same: str | None = None
    source: Table | None = None
    played: datetime | None = None
    if imported:
        rec, end = _record_from(body)
        events = [e.to_dict() for e in rec.events]
        wall = rec.options.wall_distance
        if end.phase == Phase.OVER:
            # a finished game is what its record says, teams included: no field of the
            # request makes it another game (counted twice, issue 50)
            if "teams" in body and teams != rec.options.teams:
                raise ApiError(400, Msg("the field 'teams' must be what the finished game's "
                                        "record says ({value})",
                                        value=json.dumps(rec.options.teams)),
                               field="teams", code="bad_field")
            played = _played(body["record"].get("options") or {})
            same = digest(Options(wall, rec.options.teams), events)
            known = same_game(same, group_id)
            if known is not None:
                return Opened(known, existing=True)
        teams = teams or rec.options.teams          # a saved team game opens as one
        source = _continued_from(body, rec, events, end, secret)
        if source is not None:          # a game of this server going on at a new screen
            imported = source.imported  # (an imported game's, imported still)
            notice = json.dumps(Msg("Game continued from table {code}: {n} events",
                                    code=source.code, n=len(events)).to_dict())
        else:
            notice = json.dumps(Msg("Game imported: {n} events", n=len(events)).to_dict())
    else:
        wall, notice = body.get("wall_distance", 4), None
    practice = not imported and body.get("practice", False) is True
    if practice:            # the script's own board, one player a side, a learning game
        wall, teams = PRACTICE_WALL, False
    table = Table(wall_distance=wall, teams=teams, deduction=body.get("deduction", False),
                  chances=body.get("chances", False), practice=practice,
                  first_game=practice or body.get("first_game", False),
                  version=1 + len(events),
                  notice=notice,
                  finished=now() if end is not None and end.phase == Phase.OVER else None,
                  imported=imported, digest=same, accepted=True if keeper and imported else None,
                  group_id=source.group_id if source is not None else group_id)

    def remember(t: Table) -> None:     # a finished game's summary, with the table's rows
        if end is not None and end.phase == Phase.OVER:
            said = body["record"].get("options") or {}
            remember_game(t, end, played, told_players(said))
    # a game going on may seat sides on this screen too (a screen that goes on with a
    # game another screen entered); a finished one has nobody left to enter anything
    screens = screen_field(body, teams) if end is None or end.phase != Phase.OVER else []
    if practice and "screen" not in body:   # both sides on the big screen unless told
        screens = [(side, 0, side.capitalize()) for side in ("red", "blue")]
    # a game going on here keeps when each step was entered at its first table (it is
    # counted at a table's pace, games.counts)
    times = [r.created for r in active_events(source)] if source is not None else None
    made, secret = _insert_table(table, key, events, own, remember, times)
    if screens:
        for side, part, name in screens:
            sit_on_screen(made, side, part, name)
        db.session.commit()
    return Opened(made, secret, source=source)


def _played(options: dict[str, Any]) -> datetime | None:
    """When a finished record says its game was played (``options.played``), refused if
    that lies ahead: a date to come would keep a game at the top of the history for good
    (issue 50). A day's grace for the clocks of other time zones."""
    at = played_at(options.get("played"))
    if at is not None and at > now() + timedelta(days=1):
        raise ApiError(400, Msg("the record says its game was played on {date}, which is still "
                                "to come", date=at.date().isoformat()),
                       field="record", code="bad_record")
    return at


def told_players(options: dict[str, Any]) -> dict[str, list[str]] | None:
    """Who sat at each side, as a record's ``options.players`` says (``{"red": [names],
    "blue": [names]}``, RULINGS.md); ``None`` when it says nothing usable."""
    said = options.get("players")
    if not isinstance(said, dict):
        return None
    out: dict[str, list[str]] = {}
    for side in ("red", "blue"):
        names = said.get(side)
        if isinstance(names, list) and 0 < len(names) <= 2:
            kept = [k for k in map(person_name, names) if k]   # the rules of a seat's name
            if len(kept) == len(names):
                out[side] = kept
    return out or None


def digest(options: Options, events: list[dict[str, Any]]) -> str:
    """What a game is, by content: the SHA-256 of its record's options and events (each
    event as the referee writes it back, so the same game always gives the same digest).
    """
    text = json.dumps({"options": options.to_dict(), "events": events}, sort_keys=True,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def same_game(found: str, group_id: int | None) -> Table | None:
    """The group's finished game whose record has the digest ``found``, if it holds it
    (a table of no group is never the same game as another). Its finished games without a
    digest yet (played live here) get theirs first, once."""
    if group_id is None:
        return None
    for t in db.session.scalars(select(Table).where(Table.group_id == group_id,
                                                    Table.finished.is_not(None),
                                                    Table.digest.is_(None))):
        t.digest = digest(Options(t.wall_distance, t.teams),
                          [json.loads(r.data) for r in active_events(t)])
    db.session.commit()
    table: Table | None = db.session.scalar(
        select(Table).where(Table.group_id == group_id, Table.digest == found,
                            Table.finished.is_not(None))
        .order_by(Table.id).limit(1))
    return table


def _continued_from(body: dict[str, Any], rec: Record, events: list[dict[str, Any]],
                    end: State, secret: str | None) -> Table | None:
    """The table of this server that an import goes on with (``from``: a screen that goes
    on with a game entered on another, whose laptop is gone), when the record is that
    table's game as it stands and still going: not an outside record, so marked imported
    only if that game was (the keeper's "delete every imported game" would have taken a
    game the group played here). Anything else is a plain import.

    Only a screen that holds that table's host key, or the keeper's, names it (issue 50:
    a stranger's copy made the group's phones say the game went on at the stranger's
    table); any other ``from`` is refused, the same whether the table exists or not."""
    code = body.get("from")
    if code is None:
        return None
    source = table_by_code(code.upper()) if secret else None
    if source is None or not (hash_secret(secret or "") == source.host_hash
                              or keeper.is_keeper(secret)):
        raise ApiError(403, Msg("only the screen that holds the key of table {code}, or the "
                                "keeper's screen, can go on with its game at a new table",
                                code=code.upper()), field="from", code="not_host")
    if (end.phase == Phase.OVER
            or (source.wall_distance, source.teams) != (rec.options.wall_distance,
                                                        rec.options.teams)
            or [json.loads(r.data) for r in active_events(source)] != events):
        return None
    return source


def _record_from(body: dict[str, Any]) -> tuple[Record, State]:
    """The record of an import and its end, replayed once by the referee; a bad one
    opens nothing."""
    raw = body["record"]
    try:
        rec = Record.from_dict(raw)
        end = replay(rec)
    except RecordError as err:
        refusal = err.msg if err.index is None else Msg("event {n}: {reason}", n=err.index,
                                                        reason=err.msg)
        raise ApiError(400, Msg("the record is refused: {refusal}", refusal=refusal),
                       field="record", code=err.code, event=err.index) from None
    except (RecursionError, ValueError, TypeError) as err:   # the referee's own guard
        raise ApiError(400, Msg("the record is refused: {refusal}",
                                refusal=type(err).__name__), field="record",
                       code="bad_record") from None
    return rec, end


def _created_before(key: str | None) -> Table | None:
    """The table a retried create or import opened the first time."""
    if key is None:
        return None
    table: Table | None = db.session.scalar(select(Table).where(Table.create_key == key))
    return table


def free_code() -> str:
    """A table code no table has yet (a clash at the same moment fails the insert)."""
    for _ in range(20):
        code = new_code()
        if db.session.scalar(select(Table.id).where(Table.code == code)) is None:
            break
    return code


def _insert_table(table: Table, key: str | None, events: list[dict[str, Any]],
                  own: str | None,
                  before_commit: Callable[[Table], None] | None = None,
                  times: list[datetime] | None = None) -> tuple[Table, str | None]:
    made = None if own else new_secret()
    table.host_hash, table.create_key = hash_secret(own or made or ""), key
    table.code = free_code()
    try:
        db.session.add(table)
        db.session.flush()
        for i, d in enumerate(events, start=1):
            db.session.add(Event(table_id=table.id, seq=i, data=json.dumps(d),
                                 idempotency_key=None,
                                 **({"created": times[i - 1]} if times else {})))
        if before_commit is not None:
            db.session.flush()
            before_commit(table)
        db.session.commit()
    except IntegrityError:          # the same key at the same moment, or a code just taken
        db.session.rollback()
        again = _created_before(key)
        if again is None:
            raise ApiError(409, Msg("two tables were opened at the same moment; try again"),
                           code="stale") from None
        return again, None
    return table, made


# --- a rematch (issue 14) -----------------------------------------------------------

def rematch(tx: Transaction, actor: Actor) -> None:
    """Open the next game with the same options and the same players already seated
    (``swap``: colours exchanged). Each seat's key moves to its new seat, so every phone
    carries on with the key it holds; the old table says where the game went on.

    Only the host screen asks, only once the game is over; asking again answers with the
    same new table.
    """
    table = tx.table
    if not actor.host:
        raise ApiError(403, Msg("the big screen that opened the table starts a rematch"),
                       code="not_host")
    swap: bool = tx.fields()["swap"]
    own: str = tx.fields()["host_secret"]
    if table.rematch:
        raise ApiError(409, Msg("the rematch is already open"), code="rematch")
    if derive(table).phase != Phase.OVER:
        raise ApiError(409, Msg("a rematch starts once the game is over"), code="out_of_turn")
    new = Table(wall_distance=table.wall_distance, teams=table.teams,
                deduction=table.deduction, chances=table.chances, first_game=False,
                host_hash=hash_secret(own), group_id=table.group_id,
                version=1, notice=json.dumps(
                    (Msg("Rematch: everyone is seated, colours swapped") if swap
                     else Msg("Rematch: everyone is seated")).to_dict()))
    new.code = free_code()
    db.session.add(new)
    db.session.flush()
    moved: dict[str, Any] = {}
    for old in [s for s in table.seats if s.status == "active"]:
        key = old.secret_hash
        old.secret_hash = hash_secret(f"moved to {new.code}: {key}")   # retired, still unique
        db.session.flush()
        side = ("blue" if old.side == "red" else "red") if swap else old.side
        seat = Seat(table_id=new.id, side=side, part=old.part, name=old.name,
                    secret_hash=key, status="active", player_id=old.player_id,
                    screen=old.screen)
        db.session.add(seat)
        db.session.flush()
        moved[str(old.id)] = seat_dict(seat)
    table.rematch = json.dumps({"code": new.code, "swap": swap, "seats": moved})
    tx.commit(201, {"rematch": json.loads(table.rematch)},
              notice=Msg("Rematch at table {code}, colours swapped", code=new.code) if swap
              else Msg("Rematch at table {code}", code=new.code))


def closed(table: Table) -> None:
    """A game that went on at a rematch takes no more changes."""
    if table.rematch:
        code = json.loads(table.rematch)["code"]
        raise ApiError(409, Msg("this game is over; the rematch is at table {code}", code=code),
                       code="rematch")
