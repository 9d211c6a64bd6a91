"""Tables and seats: look a table up by code, open one (new or from a record), who
holds which seat, and the secrets that prove it (kept only as hashes).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from flask import current_app
from sqlalchemy import bindparam, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import joinedload

from ..edge import limits
from ..edge.errors import ApiError
from ..edge.fields import (
    CODE_RE,
    HASH_RE,
    SECRET_RE,
    body_field,
    flag,
    idempotency_key,
    name_field,
    person_name,
    secret_field,
)
from ..edge.lang import revive
from ..engine import SIDES, Msg, Options, Phase, Record, RecordError, State, replay
from ..engine import side as side_word
from ..group.history import changed, played_at, rebuild_ratings, remember_game
from ..store.models import (
    ID_MAX,
    Event,
    Player,
    Receipt,
    Seat,
    Table,
    db,
    hash_secret,
    new_code,
    new_secret,
    now,
)
from ..table.states import active_events, derive
from ..table.views import public_view, seat_dict
from . import keeper
from .authority import Transaction

EXPIRY_DAYS = 30            # a table untouched this long is expired (TABLE_EXPIRY_DAYS)
PENDING_MAX = 8             # phones that may wait at once for the host to let them in
ASKING = "host-ask"         # a seat row's status: a screen asking to be the table's screen
ASKS_MAX = 8                # screens that wait at once for the table's screen (the oldest goes)
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


# built once: a statement and its cache key cost more to make than the query to run
_BY_CODE = (select(Table).options(joinedload(Table.seats))
            .where(Table.code == bindparam("code")))


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
        # with its seats, in the same query: every request of a table reads them (whose
        # key it carries, the view), and a second query cost each post more than the join
        table = db.session.scalar(_BY_CODE, {"code": code.upper()})
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
        return Actor(asking=not _ask_expired(seat))
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
    asked = body.get("tables")
    if (not isinstance(asked, list) or len(asked) > HELD_MAX
            or not all(isinstance(x, dict) and isinstance(x.get("code"), str)
                       and isinstance(x.get("key"), str) and CODE_RE.match(x["code"])
                       and SECRET_RE.match(x["key"]) for x in asked)):
        raise ApiError(400, Msg("the field 'tables' must list at most {n} tables, each a "
                                "code and its key", n=HELD_MAX), field="tables",
                       code="bad_field")
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
        players: dict[str, list[str]] = {side: [] for side in SIDES}
        for s in active:
            players[s.side].append(s.name)
        out.append((table.updated, {
            "code": table.code, "role": "seat" if seat else "host",
            "side": seat.side if seat else None, "part": seat.part if seat else None,
            "day": state.day, "started": state.event_count > 0, "players": players,
            "idle": max(0, round((now() - table.updated).total_seconds()))}))
    return [x for _, x in sorted(out, key=lambda x: x[0], reverse=True)]


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
               secret: str | None = None) -> Opened:
    """A new table (``imported``: from a record, only if the referee replays it;
    ``keeper``: imported by the keeper, whose imports count in the group's memory as the
    games played here do, issue 50; ``secret``: the request's bearer, which may go on
    with a table's game, ``from``).

    A retried request (same ``idempotency_key``) gets the table it opened the first time,
    and no secret: a retry never makes a new one. A finished game's record imported again
    is the same game (by content, issue 20): the table that holds it is answered, nothing
    new is opened. No intel card is learnt from an import: the cards offered at the intel
    step come from rounds played live here (:mod:`.cards`).
    """
    key = idempotency_key(body, required=False)
    own = secret_field(body, "host_secret")
    again = _created_before(key)
    if again is not None:
        return Opened(again)
    events: list[dict[str, Any]] = []
    end: State | None = None
    teams = flag(body, "teams")
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
            known = same_game(same)
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
        if type(wall) is not int or not 2 <= wall <= 8:
            raise ApiError(400, Msg("the field 'wall_distance' must be a whole number 2-8"),
                           field="wall_distance", code="bad_field")
    deduction = flag(body, "deduction")
    table = Table(wall_distance=wall, teams=teams, deduction=deduction,
                  chances=flag(body, "chances"),
                  first_game=flag(body, "first_game"), version=1 + len(events), notice=notice,
                  finished=now() if end is not None and end.phase == Phase.OVER else None,
                  imported=imported, digest=same, accepted=True if keeper and imported else None)

    def remember(t: Table) -> None:     # a finished game's summary, with the table's rows
        if end is not None and end.phase == Phase.OVER:
            said = body["record"].get("options") or {}
            remember_game(t, end, played, told_players(said))
    # a game going on may seat sides on this screen too (a screen that goes on with a
    # game another screen entered); a finished one has nobody left to enter anything
    screens = _screen_field(body, teams) if end is None or end.phase != Phase.OVER else []
    # a game going on here keeps when each step was entered at its first table (it is
    # counted at a table's pace, history.counts)
    times = [r.created for r in active_events(source)] if source is not None else None
    made, secret = _insert_table(table, key, events, own, remember, times)
    if screens:
        for side, part, name in screens:
            _sit_on_screen(made, side, part, name)
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


def same_game(found: str) -> Table | None:
    """The finished game whose record has the digest ``found``, if this server holds it.
    Finished games without a digest yet (played live here) get theirs first, once."""
    for t in db.session.scalars(select(Table).where(Table.finished.is_not(None),
                                                    Table.digest.is_(None))):
        t.digest = digest(Options(t.wall_distance, t.teams),
                          [json.loads(r.data) for r in active_events(t)])
    db.session.commit()
    table: Table | None = db.session.scalar(
        select(Table).where(Table.digest == found, Table.finished.is_not(None))
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
    if not isinstance(code, str) or not CODE_RE.match(code):
        raise ApiError(400, Msg("the field 'from' must be a table code"), field="from",
                       code="bad_field")
    source = db.session.scalar(_BY_CODE, {"code": code.upper()}) if secret else None
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
    raw = body.get("record")
    if not isinstance(raw, dict):
        raise ApiError(400, Msg("the field 'record' must be a game record (a JSON object with "
                            "format, options and events)"), field="record",
                       code="missing_field" if raw is None else "bad_field")
    flag(body, "teams")
    flag(body, "deduction")
    flag(body, "first_game")
    flag(body, "chances")
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


# --- seats -----------------------------------------------------------------------

def _side_part(table_teams: bool, side: Any, part: Any, where: str = "") -> int:
    """A seat's part, checked with its side (``where``: the field's name in the answer)."""
    if side not in SIDES:
        raise ApiError(400, Msg("the field 'side' must be \"red\" or \"blue\""),
                       field=where + "side", code="bad_field")
    if table_teams:
        if part not in (1, 2):
            raise ApiError(400, Msg("in team play the field 'part' must be 1 (missions 1-2) or "
                                "2 (missions 3-4)"), field=where + "part", code="bad_field")
        return int(part)
    if part not in (None, 0):
        raise ApiError(400, Msg("without team play the field 'part' must be 0 or left out"),
                       field=where + "part", code="bad_field")
    return 0


def _screen_field(body: dict[str, Any], teams: bool) -> list[tuple[str, int, str]]:
    """The sides a new table seats on its big screen (issue 23): ``screen``, a list of
    ``{"side", "part", "name"}`` (name optional: the side's name)."""
    raw = body.get("screen", [])
    if not isinstance(raw, list) or len(raw) > 4 or not all(isinstance(x, dict) for x in raw):
        raise ApiError(400, Msg("the field 'screen' must be a list of seats: side, part, name"),
                       field="screen", code="bad_field")
    out: list[tuple[str, int, str]] = []
    for x in raw:
        part = _side_part(teams, x.get("side"), x.get("part"), "screen.")
        name = name_field(x) if x.get("name") not in (None, "") else str(x["side"]).capitalize()
        if any(o[:2] == (x["side"], part) for o in out):
            raise ApiError(400, Msg("the field 'screen' names the same seat twice"),
                           field="screen", code="bad_field")
        out.append((x["side"], part, name))
    return out


def _sit_on_screen(table: Table, side: str, part: int, name: str) -> Seat:
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
    on = body_field(tx.body, "on", bool, "true or false")
    part = _side_part(table.teams, tx.body.get("side"), tx.body.get("part"))
    side = str(tx.body["side"])
    held = [s for s in table.seats if s.side == side and s.part == part
            and s.status == "active"]
    if on:
        name = name_field(tx.body)
        if held and held[0].screen:
            held[0].name = name
            notice = Msg("{seat} is played on the big screen as {name}",
                         seat=_where(side, part), name=name)
        else:
            for s in held:
                s.status = "replaced"
            seat = _sit_on_screen(table, side, part, name)
            notice = Msg("{seat} is now played on the big screen as {name}",
                         seat=_where(side, part), name=seat.name)
    else:
        if not held or not held[0].screen:
            raise ApiError(409, Msg("{seat} is not played on the big screen",
                                    seat=_where(side, part)), code="not_on_screen")
        held[0].status = "replaced"
        notice = Msg("{seat} is free for a phone to join", seat=_where(side, part))
    if table.finished is not None:
        changed()
    tx.commit(200, {"seats": [seat_dict(s) for s in table.seats if s.status == "active"]},
              notice=notice)

def _where(side: str, part: int) -> Msg:
    if part:
        return Msg("{side!c} missions {part}", side=side_word(side),
                   part="1-2" if part == 1 else "3-4")
    return Msg("{side!c}", side=side_word(side))


def join(tx: Transaction, name: Any, side: Any, part: Any, secret: Any = None,
         client: str = "local", player: Any = None) -> None:
    """Sit down at ``side`` (and ``part`` in team play); a taken seat waits for the host.

    ``secret`` is the key the phone made for its seat (only its hash is kept); without
    one the server makes it and sends it in this answer, once. ``player``: the key the
    phone keeps for its player (issue 14): the same person at the next table.
    """
    table = tx.table
    part = _side_part(table.teams, side, part)
    name = name_field({"name": name})
    own = secret_field({"secret": secret}, "secret")
    if own is not None and (hash_secret(own) == table.host_hash or db.session.scalar(
            select(Seat.id).where(Seat.secret_hash == hash_secret(own))) is not None):
        raise ApiError(409, Msg("this phone's key is already in use; make a new one and join "
                                "again"),
                       field="secret", code="secret_taken")
    taken = [s for s in table.seats if s.side == side and s.part == part and s.status == "active"]
    if taken:
        _may_ask(table, client)
    secret = own or new_secret()
    who = remember(player, name)
    seat = Seat(table_id=table.id, side=side, part=part, name=name,
                secret_hash=hash_secret(secret), status="pending" if taken else "active",
                last_seen=now(), player_id=who.id if who else None)
    table.seats.append(seat)        # the view built after the commit lists it
    db.session.flush()
    if table.finished is not None and not taken:
        rebuild_ratings()           # who sat at a finished game counts in its history
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


def remember(key: Any, name: str) -> Player | None:
    """The player whose phone keeps ``key`` (made by the phone; only its hash is kept),
    created the first time, renamed to ``name`` when the phone sends a new one."""
    own = secret_field({"player": key}, "player")
    if own is None:
        return None
    h = hash_secret(own)
    who: Player | None = db.session.scalar(select(Player).where(Player.key_hash == h))
    if who is None:
        limits.spend("players", lambda n: Msg("too many new players were made from here "
                                              "lately; wait {n} seconds and join again", n=n))
        who = Player(key_hash=h, name=name, last_seen=now())
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
    h = tx.body.get("host_hash")
    if not isinstance(h, str) or not HASH_RE.match(h):
        raise ApiError(400, Msg("the field 'host_hash' must be the SHA-256 of the screen's "
                                "new key (64 hex digits)"), field="host_hash",
                       code="bad_field")
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


def _ask_expired(seat: Seat) -> bool:
    return bool(seat.created < now() - timedelta(minutes=ASK_MINUTES))


def screen_asks(table: Table) -> list[dict[str, Any]]:
    """The screens asking to be the table's screen, oldest first (for its host)."""
    return [{"id": s.id, "number": ask_number(s.secret_hash)}
            for s in table.seats if s.status == ASKING and not _ask_expired(s)]


def asks_everywhere() -> list[dict[str, Any]]:
    """The screens asking to be a table's screen at any table still open, newest first
    (the keeper's page: the screen a group brought to a table whose own screen is gone
    for good). Each with the hash the keeper hands the table to, and the table's version."""
    rows = db.session.execute(
        select(Seat.secret_hash, Seat.created, Table.code, Table.version)
        .join(Table, Table.id == Seat.table_id)
        .where(Seat.status == ASKING, Seat.created >= now() - timedelta(minutes=ASK_MINUTES),
               Table.rematch.is_(None))
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
        fresh = [s for s in waiting if not _ask_expired(s)]
        oldest = fresh[:max(0, len(fresh) + 1 - ASKS_MAX)]
        for s in waiting:
            if _ask_expired(s) or s in oldest:
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


def decide_takeover(tx: Transaction, actor: Actor, seat_id: int, approve: Any) -> None:
    """The host screen lets a waiting phone take over a seat, or keeps the seat as it is;
    or lets a screen that asked take its place as the table's screen, or not (issue 50)."""
    if not actor.host:
        raise ApiError(403, Msg("only the host screen can let a phone take over a seat"),
                       code="not_host")
    if type(approve) is not bool:
        raise ApiError(400, Msg("the field 'approve' must be true or false"), field="approve",
                       code="bad_field")
    seat = db.session.get(Seat, seat_id) if 0 <= seat_id <= ID_MAX else None
    if (seat is not None and seat.table_id == tx.table.id and seat.status == ASKING
            and not _ask_expired(seat)):
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
        changed()                       # who sat at a finished game: the history says so
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
    swap = body_field(tx.body, "swap", bool, "true or false")
    own = secret_field(tx.body, "host_secret")
    if own is None:
        raise ApiError(400, Msg("the field 'host_secret' must be the new table's host key made "
                                "by this screen"), field="host_secret", code="missing_field")
    if table.rematch:
        raise ApiError(409, Msg("the rematch is already open"), code="rematch")
    if derive(table).phase != Phase.OVER:
        raise ApiError(409, Msg("a rematch starts once the game is over"), code="out_of_turn")
    new = Table(wall_distance=table.wall_distance, teams=table.teams,
                deduction=table.deduction, chances=table.chances, first_game=False,
                host_hash=hash_secret(own),
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
