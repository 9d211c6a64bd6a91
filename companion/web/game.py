"""The authority between the HTTP layer and the referee.

It loads a table, derives its state by replaying the events that are not
undone, builds the public view every screen shares, checks who may act, and
applies actions under one lock per table with a version that only grows.
Nothing here knows about HTTP beyond raising :class:`ApiError`.
"""

from __future__ import annotations

import json
import math
import random
import re
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from flask import current_app, has_request_context, request
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from ..engine import (RANK_NAMES, SIDES, Options, Record, Reveal, State, apply, choice_options,
                      event_from_dict, expected, narrate_reveal, replay, replay_output,
                      reveal_options)
from ..engine.errors import RecordError
from .limits import TokenBucket
from .models import Event, Receipt, Seat, Table, db, hash_secret, new_code, new_secret, now

_rng = random.SystemRandom()
# one lock per table while anyone holds it (weak: a table nobody uses costs nothing)
_locks: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
_locks_lock = threading.Lock()
# table id -> (code, version, state), least recently used first; the code is checked too,
# as a rolled-back insert or a fresh database hands the same id to another table
_cache: OrderedDict[int, tuple[str, int, State]] = OrderedDict()
_cache_lock = threading.Lock()
CACHE_TABLES = 256          # states kept in memory; an older table is replayed when it acts
KEY_RE = re.compile(r"^[A-Za-z0-9_.:-]{8,64}$")
CODE_RE = re.compile(r"^[A-Za-z0-9]{1,12}$")
EXPIRY_DAYS = 30            # a table untouched this long is expired (TABLE_EXPIRY_DAYS)
LOOKUP_BURST = 20           # unknown codes a client may try at once (CODE_LOOKUP_BURST)
LOOKUP_REFILL = 3.0         # seconds until it may try one more (CODE_LOOKUP_REFILL)


class ApiError(Exception):
    """A refusal with an HTTP status, a message a player can read and maybe a field."""

    def __init__(self, status: int, message: str, field: str | None = None,
                 code: str = "refused", view: dict[str, Any] | None = None,
                 retry_after: int | None = None, event: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field
        self.code = code
        self.view = view
        self.retry_after = retry_after
        self.event = event

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"error": self.message, "code": self.code}
        if self.field:
            d["field"] = self.field
        if self.event is not None:
            d["event"] = self.event
        if self.view is not None:
            d["view"] = self.view
        return d


@dataclass
class Actor:
    """Who sends a request: the host screen, a seat, or nobody known."""

    host: bool = False
    seat: Seat | None = None

    @property
    def name(self) -> str:
        if self.seat is not None:
            return self.seat.name
        return "the host screen" if self.host else "someone"

    @property
    def known(self) -> bool:
        return self.host or self.seat is not None


# --- loading and deriving ------------------------------------------------------

def _lookup_bucket() -> TokenBucket:
    """This app's bucket of code look-ups per client (made on first use)."""
    bucket = current_app.extensions.get("companion.code_lookups")
    if bucket is None:
        refill = float(current_app.config.get("CODE_LOOKUP_REFILL", LOOKUP_REFILL))
        bucket = TokenBucket(current_app.config.get("CODE_LOOKUP_BURST", LOOKUP_BURST),
                             1.0 / refill)
        current_app.extensions["companion.code_lookups"] = bucket
    return bucket


def _client() -> str:
    return (request.remote_addr or "unknown") if has_request_context() else "local"


def expired(table: Table) -> bool:
    """A table nobody has changed for ``TABLE_EXPIRY_DAYS`` (30) days is over for good."""
    days = current_app.config.get("TABLE_EXPIRY_DAYS", EXPIRY_DAYS)
    return table.updated < now() - timedelta(days=days)


def load(code: str, allow_expired: bool = False) -> Table:
    """The table with this code; unknown codes cost the client a token (no guessing)."""
    bucket, client = _lookup_bucket(), _client()
    wait = bucket.blocked(client)
    if wait:
        secs = max(1, math.ceil(wait))
        raise ApiError(429, "too many table codes that do not exist were tried from this "
                            f"device; wait {secs} seconds and check the code on the big screen",
                       code="rate_limited", retry_after=secs)
    table = None
    if CODE_RE.match(code):
        table = db.session.scalar(select(Table).where(Table.code == code.upper()))
    if table is None:
        bucket.spend(client)
        raise ApiError(404, f"there is no table with the code {code.upper()[:12]!r}; check "
                            "the code on the big screen", code="not_found")
    if not allow_expired and expired(table):
        raise ApiError(410, f"the table {table.code} has expired: nobody played at it for "
                            f"{current_app.config.get('TABLE_EXPIRY_DAYS', EXPIRY_DAYS)} days. "
                            "Open a new table to play again", code="expired")
    return table


def actor_for(table: Table, secret: str | None) -> Actor:
    """The actor a bearer secret belongs to; a wrong secret is refused, none is anonymous."""
    if not secret:
        return Actor()
    h = hash_secret(secret)
    if h == table.host_hash:
        return Actor(host=True)
    seat = db.session.scalar(select(Seat).where(Seat.table_id == table.id,
                                                Seat.secret_hash == h))
    if seat is None:
        raise ApiError(401, "this phone's key does not belong to a seat at this table; join again",
                       code="bad_secret")
    if seat.status == "replaced":
        raise ApiError(401, "another phone has taken over this seat; join again to play",
                       code="seat_taken_over")
    return Actor(seat=seat)


def active_events(table: Table) -> list[Event]:
    return list(db.session.scalars(select(Event).where(Event.table_id == table.id,
                                                       Event.undone.is_(False))
                                   .order_by(Event.seq)))


def _event_rows(table: Table) -> list[Any]:
    """(data, seat_id) of the events not undone: plain rows, no ORM objects to build."""
    return list(db.session.execute(select(Event.data, Event.seat_id)
                                   .where(Event.table_id == table.id, Event.undone.is_(False))
                                   .order_by(Event.seq)))


def derive(table: Table) -> State:
    """The state of the game: a replay of the events not undone (cached per version)."""
    with _cache_lock:
        hit = _cache.get(table.id)
        if hit is not None:
            _cache.move_to_end(table.id)
    if hit and hit[0] == table.code and hit[1] == table.version:
        return hit[2]
    events = [event_from_dict(json.loads(e.data)) for e in _event_rows(table)]
    state = replay(Options(table.wall_distance), events)
    _keep(table, state)
    return state


def _keep(table: Table, state: State) -> None:
    """Cache a table's state; beyond ``CACHE_TABLES`` tables the least recent is dropped."""
    with _cache_lock:
        _cache[table.id] = (table.code, table.version, state)
        _cache.move_to_end(table.id)
        while len(_cache) > CACHE_TABLES:
            _cache.popitem(last=False)


# --- the view every screen shares ------------------------------------------------

def _event_text(d: dict[str, Any]) -> str:
    t = d["type"]
    if t == "exhaust":
        names = " and ".join(RANK_NAMES[r] for r in d["ranks"])
        return f"{d['side'].capitalize()}'s exhausted soldier: {names}"
    if t == "intel":
        return "Intel card: " + ", ".join(f"{r} {RANK_NAMES[r]}" for r in d["ranks"])
    if t == "tokens":
        ms = ", ".join(str(m) for m in d["missions"]) or "none"
        return f"{d['side'].capitalize()}'s intel tokens on missions: {ms}"
    if t == "start":
        return f"{d['side'].capitalize()} starts the day"
    if t == "check":
        cards = ", ".join(f"mission {m}: {RANK_NAMES[r]}" for m, r in d["ranks"].items())
        return f"{d['side'].capitalize()} turns up its face-down cards: {cards or 'none left'}"
    return t


def draft_view(table: Table, state: State) -> dict[str, Any] | None:
    """The reveal being built over several taps, and the step it waits for."""
    opts = reveal_options(state)
    if opts is None:
        return None
    d = table.draft_dict()
    if not d or d.get("events") != state.events:
        d = {"events": state.events, "deception": None if opts["deception"] else False,
             "guess": None, "actual": None}
    view: dict[str, Any] = {
        "guesser": opts["guesser"], "owner": opts["owner"], "mission": opts["mission"],
        "part": opts["part"], "token": opts["token"], "ranks": opts["ranks"],
        "can_deceive": opts["deception"], "deception": d["deception"],
        "guess": d["guess"], "actual": d["actual"], "choices": [],
    }
    if d["deception"] is None:
        view["step"], view["side"] = "deception", opts["owner"]
    elif d["guess"] is None:
        view["step"], view["side"] = "guess", opts["guesser"]
    elif d["actual"] is None:
        view["step"], view["side"] = "actual", opts["owner"]
    else:
        view["step"], view["side"] = "choice", opts["owner"]
        view["choices"] = choice_options(state, d["guess"], d["actual"], d["deception"])
    return view


def seat_dict(seat: Seat) -> dict[str, Any]:
    return {"id": seat.id, "side": seat.side, "part": seat.part, "name": seat.name,
            "status": seat.status}


def public_view(table: Table, state: State | None = None) -> dict[str, Any]:
    """Everything any screen may see: no secrets, the same for every viewer."""
    state = state or derive(table)
    out = replay_output(state)
    rows = _event_rows(table)
    reveal_text = {r["index"]: r["narration"] for r in out["reveals"]}
    names = {s.id: s.name for s in table.seats}
    log = []
    for i, row in enumerate(rows):
        d = json.loads(row.data)
        log.append({"index": i, "type": d["type"],
                    "text": reveal_text.get(i) or _event_text(d),
                    "by": names.get(row.seat_id) if row.seat_id else None})
    seen = []
    for card in [*out["old_intel"], *([out["intel"]] if out["intel"] else [])]:
        if card not in seen:
            seen.append(card)
    return {
        "code": table.code, "version": table.version, "teams": table.teams,
        "wall_distance": table.wall_distance, "state": out, "draft": draft_view(table, state),
        "seats": [seat_dict(s) for s in table.seats if s.status in ("active", "pending")],
        "notice": table.notice, "log": log, "seen_intel": seen,
    }


# --- acting ----------------------------------------------------------------------

def body_field(body: dict[str, Any], name: str, kind: type | tuple[type, ...],
               what: str, required: bool = True) -> Any:
    v = body.get(name)
    if v is None:
        if required:
            raise ApiError(400, f"the field '{name}' is missing ({what})", field=name,
                           code="missing_field")
        return None
    if kind is int and type(v) is not int or kind is not int and not isinstance(v, kind):
        raise ApiError(400, f"the field '{name}' must be {what}, not {json.dumps(v)[:40]}",
                       field=name, code="bad_field")
    return v


class Transaction:
    """One state-changing request on one table: lock, idempotency, version, receipt."""

    def __init__(self, table: Table, body: dict[str, Any], need_version: bool = True) -> None:
        self.table = table
        self.body = body
        self.need_version = need_version
        key = body_field(body, "idempotency_key", str, "a text of 8-64 letters, digits or -_.:")
        if not KEY_RE.match(key):
            raise ApiError(400, "the field 'idempotency_key' must be 8-64 letters, digits or -_.:",
                           field="idempotency_key", code="bad_field")
        self.key = key
        with _locks_lock:
            self.lock = _locks.get(table.id)
            if self.lock is None:
                self.lock = _locks[table.id] = threading.Lock()
        self.state: State | None = None     # the game after this change, when known

    def __enter__(self) -> "Transaction":
        self.lock.acquire()
        try:
            db.session.refresh(self.table)
            self.receipt = db.session.scalar(select(Receipt).where(
                Receipt.table_id == self.table.id, Receipt.key == self.key))
            if self.receipt is None and self.need_version:
                v = body_field(self.body, "version", int, "the table version the phone last saw")
                if v != self.table.version:
                    raise ApiError(409, "the table changed since this screen last updated; "
                                        "here is the fresh state — check and tap again",
                                   field="version", code="stale",
                                   view=public_view(self.table))
        except BaseException:
            db.session.rollback()
            self.lock.release()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            if exc[0] is not None:
                db.session.rollback()
                err = exc[1]
                if isinstance(err, ApiError) and err.status == 409 and err.view is None:
                    db.session.refresh(self.table)
                    err.view = public_view(self.table)
        finally:
            self.lock.release()

    def commit(self, status: int, body: dict[str, Any], notice: str | None = None,
               keep_notice: bool = False) -> None:
        """Bump the version (only if it is still the one we read), keep a receipt, commit."""
        t = self.table
        values: dict[str, Any] = {"version": t.version + 1, "updated": now(), "draft": t.draft}
        if not keep_notice:
            values["notice"] = notice
        # The compare-and-swap comes first, before any row of this request is written:
        # it takes the table's row lock (PostgreSQL) or the write lock (SQLite), so a
        # writer in another thread or process that read the same version finds it gone
        # and is refused, whatever lock this process holds.
        stale = ApiError(409, "the table changed at the same moment; here is the fresh "
                              "state — check and tap again", field="version", code="stale")
        try:
            with db.session.no_autoflush:
                res = db.session.execute(
                    update(Table).where(Table.id == t.id, Table.version == t.version)
                    .values(**values).execution_options(synchronize_session=False))
            if res.rowcount != 1:
                raise stale
            db.session.flush()
            db.session.refresh(t)
            body = {**body, "view": public_view(t, self.state)}
            kept = {k: v for k, v in body.items() if k != "secret"}   # secrets are never stored
            db.session.add(Receipt(table_id=t.id, key=self.key, status=status,
                                   body=json.dumps(kept)))
            db.session.commit()    # acknowledged only after this returns
        except IntegrityError:     # the same seq or key written by another process first
            db.session.rollback()
            raise stale from None
        if self.state is not None:  # committed: the next request need not replay the game
            _keep(t, self.state)
        self.result = (status, body)


def _create_key(body: dict[str, Any]) -> str | None:
    key = body.get("idempotency_key")
    if key is None:
        return None
    if not isinstance(key, str) or not KEY_RE.match(key):
        raise ApiError(400, "the field 'idempotency_key' must be 8-64 letters, digits or -_.:",
                       field="idempotency_key", code="bad_field")
    return key


def _created_before(key: str | None) -> tuple[Table, str] | None:
    """A retried create or import: the same table, with a new host secret (the first was lost)."""
    if key is None:
        return None
    table = db.session.scalar(select(Table).where(Table.create_key == key))
    if table is None:
        return None
    secret = new_secret()
    table.host_hash = hash_secret(secret)
    db.session.commit()
    return table, secret


def _insert_table(table: Table, key: str | None, events: list[dict[str, Any]] = ()
                  ) -> tuple[Table, str]:
    secret = new_secret()
    table.host_hash, table.create_key = hash_secret(secret), key
    for _ in range(20):
        code = new_code()
        if db.session.scalar(select(Table.id).where(Table.code == code)) is None:
            break
    table.code = code
    try:
        db.session.add(table)
        db.session.flush()
        for i, d in enumerate(events, start=1):
            db.session.add(Event(table_id=table.id, seq=i, data=json.dumps(d),
                                 idempotency_key=None))
        db.session.commit()
    except IntegrityError:          # the same key at the same moment, or a code just taken
        db.session.rollback()
        again = _created_before(key)
        if again is None:
            raise ApiError(409, "two tables were opened at the same moment; try again",
                           code="stale") from None
        return again
    return table, secret


def import_table(body: dict[str, Any]) -> tuple[Table, str]:
    """A new table from a record file, only if the referee replays it; nothing otherwise."""
    key = _create_key(body)
    again = _created_before(key)
    if again is not None:
        return again
    raw = body.get("record")
    if not isinstance(raw, dict):
        raise ApiError(400, "the field 'record' must be a game record (a JSON object with "
                            "format, options and events)", field="record",
                       code="missing_field" if raw is None else "bad_field")
    teams = body.get("teams", False)
    if type(teams) is not bool:
        raise ApiError(400, "the field 'teams' must be true or false", field="teams",
                       code="bad_field")
    try:
        rec = Record.from_dict(raw)
        replay(rec)
    except RecordError as err:
        raise ApiError(400, f"the record is refused: {err}", field="record", code=err.code,
                       event=err.index) from None
    except (RecursionError, ValueError, TypeError) as err:   # the referee's own guard
        raise ApiError(400, f"the record is refused: {type(err).__name__}", field="record",
                       code="bad_record") from None
    events = [e.to_dict() for e in rec.events]
    table = Table(wall_distance=rec.options.wall_distance, teams=teams,
                  version=1 + len(events), notice=f"Game imported: {len(events)} events")
    return _insert_table(table, key, events)


def create_table(body: dict[str, Any]) -> tuple[Table, str]:
    key = _create_key(body)
    again = _created_before(key)
    if again is not None:
        return again
    wall = body.get("wall_distance", 4)
    if type(wall) is not int or not 2 <= wall <= 8:
        raise ApiError(400, "the field 'wall_distance' must be a whole number 2-8",
                       field="wall_distance", code="bad_field")
    teams = body.get("teams", False)
    if type(teams) is not bool:
        raise ApiError(400, "the field 'teams' must be true or false", field="teams",
                       code="bad_field")
    return _insert_table(Table(wall_distance=wall, teams=teams, version=1), key)


def join(tx: Transaction, name: Any, side: Any, part: Any) -> tuple[Seat, str]:
    table = tx.table
    if side not in SIDES:
        raise ApiError(400, "the field 'side' must be \"red\" or \"blue\"", field="side",
                       code="bad_field")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > 40:
        raise ApiError(400, "the field 'name' must be a name of 1-40 characters", field="name",
                       code="bad_field")
    if table.teams:
        if part not in (1, 2):
            raise ApiError(400, "in team play the field 'part' must be 1 (missions 1-2) or "
                                "2 (missions 3-4)", field="part", code="bad_field")
    else:
        if part not in (None, 0):
            raise ApiError(400, "without team play the field 'part' must be 0 or left out",
                           field="part", code="bad_field")
        part = 0
    taken = [s for s in table.seats if s.side == side and s.part == part and s.status == "active"]
    secret = new_secret()
    seat = Seat(table_id=table.id, side=side, part=part, name=name.strip(),
                secret_hash=hash_secret(secret), status="pending" if taken else "active",
                last_seen=now())
    db.session.add(seat)
    db.session.flush()
    where = side.capitalize() + (f" missions {'1-2' if part == 1 else '3-4'}" if part else "")
    if taken:
        notice = f"{seat.name} asks to take over {where} from {taken[0].name}: the host screen decides"
    else:
        notice = f"{seat.name} sits down as {where}"
    tx.commit(201, {"seat": seat_dict(seat), "secret": secret}, notice=notice)
    return seat, secret


def rejoin(receipt: Receipt) -> tuple[int, dict[str, Any]]:
    """A retried join: the first answer was lost with its secret, so the seat gets a new one."""
    body = json.loads(receipt.body)
    seat = db.session.get(Seat, body["seat"]["id"])
    if seat is None or seat.status in ("replaced", "declined"):
        raise ApiError(409, "this seat is no longer yours; join again", code="stale")
    secret = new_secret()
    seat.secret_hash = hash_secret(secret)
    db.session.commit()
    return receipt.status, {**body, "secret": secret}


def decide_takeover(tx: Transaction, actor: Actor, seat_id: int, approve: Any) -> None:
    if not actor.host:
        raise ApiError(403, "only the host screen can let a phone take over a seat", code="not_host")
    if type(approve) is not bool:
        raise ApiError(400, "the field 'approve' must be true or false", field="approve",
                       code="bad_field")
    seat = db.session.get(Seat, seat_id) if 0 <= seat_id < 2**31 else None
    if seat is None or seat.table_id != tx.table.id or seat.status != "pending":
        raise ApiError(404, "there is no such request to take over a seat", code="not_found")
    if approve:
        for s in tx.table.seats:
            if s.side == seat.side and s.part == seat.part and s.status == "active":
                s.status = "replaced"
        seat.status = "active"
        notice = f"{seat.name} now plays {seat.side}"
    else:
        seat.status = "declined"
        notice = f"The host kept the seat; {seat.name} was not let in"
    tx.commit(200, {"seat": seat_dict(seat)}, notice=notice)


def _may(actor: Actor, side: str, part: int | None = None) -> bool:
    s = actor.seat
    if s is None or s.status != "active" or s.side != side:
        return False
    return part is None or s.part in (0, part)


def _need_seat(actor: Actor) -> None:
    if not actor.known:
        raise ApiError(401, "join the table first: this request carries no seat key",
                       code="no_secret")
    if actor.seat is not None and actor.seat.status != "active":
        raise ApiError(403, "this phone is waiting for the host screen to let it take the seat",
                       code="pending")


def _apply(state: State, event: Any) -> State:
    try:
        return apply(state, event)
    except RecordError as err:
        raise ApiError(409 if err.code in ("out_of_turn", "game_over") else 400, err.reason,
                       code=err.code) from None


def _record(tx: Transaction, actor: Actor, state: State, event: Any) -> State:
    after = _apply(state, event)
    last = db.session.scalar(select(Event.seq).where(Event.table_id == tx.table.id)
                             .order_by(Event.seq.desc()).limit(1))
    db.session.add(Event(table_id=tx.table.id, seq=(last or 0) + 1,
                         data=json.dumps(event.to_dict()),
                         seat_id=actor.seat.id if actor.seat else None,
                         idempotency_key=tx.key))
    tx.table.draft = None
    tx.state = after
    return after


def post_event(tx: Transaction, actor: Actor) -> None:
    """Record one event other than a reveal (reveals are built by :func:`post_draft`)."""
    _need_seat(actor)
    raw = tx.body.get("event")
    if not isinstance(raw, dict):
        raise ApiError(400, "the field 'event' is missing or not an object", field="event",
                       code="missing_field" if raw is None else "bad_field")
    state = derive(tx.table)
    exp = expected(state)
    raw = dict(raw)
    if raw.get("type") == "reveal":
        raise ApiError(400, "a reveal is recorded step by step (deception, guess, card, choice)",
                       field="event", code="use_draft")
    if raw.pop("random", False) is True:
        if raw.get("type") == "exhaust" and raw.get("side") in exp.count:
            side = raw["side"]
            pool = (sorted(state.revealed[side].values()) if state.phase == "round_end"
                    else list(range(1, 11)))
            raw["ranks"] = _rng.sample(pool, exp.count[side])
        elif raw.get("type") == "start" and exp.type == "start" and not exp.sides:
            raw["side"] = _rng.choice(SIDES)
        else:
            raise ApiError(400, "only an exhausted soldier or the starting side can be drawn "
                                "at random, and only when it is due", field="event",
                           code="bad_field")
    try:
        event = event_from_dict(raw)
    except RecordError as err:
        raise ApiError(400, err.reason, field="event", code=err.code) from None
    if exp.type == event.type and exp.sides:
        side = getattr(event, "side", None)
        if not any(_may(actor, s) for s in exp.sides) or (side and not _may(actor, side)):
            who = side if side in exp.sides else " or ".join(exp.sides)
            raise ApiError(403, f"this is for {who}'s phone to record: {exp.text}",
                           code="wrong_seat")
    elif exp.type == event.type and actor.seat is not None and actor.seat.status != "active":
        raise ApiError(403, "this phone is not seated", code="wrong_seat")
    after = _record(tx, actor, state, event)
    text = _event_text(event.to_dict())
    tx.commit(201, {"event": event.to_dict(), "text": text,
                    "next": expected(after).to_dict()})


def post_draft(tx: Transaction, actor: Actor) -> None:
    """One tap of a reveal: deception, guess, the card turned up, or the owner's choice."""
    _need_seat(actor)
    table = tx.table
    state = derive(table)
    view = draft_view(table, state)
    if view is None:
        raise ApiError(409, "no reveal is due now: " + expected(state).text, code="out_of_turn",
                       view=public_view(table, state))
    step = body_field(tx.body, "step", str, "deception, guess, actual or choice")
    if step not in ("deception", "guess", "actual", "choice"):
        raise ApiError(400, "the field 'step' must be deception, guess, actual or choice",
                       field="step", code="bad_field")
    if step != view["step"]:
        raise ApiError(409, f"this reveal waits for the {view['step']} from {view['side']}, "
                            f"not the {step}", field="step", code="out_of_turn",
                       view=public_view(table, state))
    if not _may(actor, view["side"], view["part"] if table.teams else None):
        part = f" (missions {'1-2' if view['part'] == 1 else '3-4'})" if table.teams else ""
        raise ApiError(403, f"it is {view['side']}{part}'s phone that records the {step} now",
                       code="wrong_seat")
    d = {k: view[k] for k in ("deception", "guess", "actual")}
    d["events"] = state.events
    d["auto_deception"] = not view["can_deceive"]
    guesser, mission = view["guesser"], view["mission"]
    event = None
    if step == "deception":
        d["deception"] = body_field(tx.body, "value", bool, "true or false")
        text = (f"{view['owner'].capitalize()} plays a deception token" if d["deception"]
                else f"{view['owner'].capitalize()} plays no deception token")
    elif step == "guess":
        g = body_field(tx.body, "value", int, "a rank 1-10")
        if not 1 <= g <= 10:
            raise ApiError(400, "the field 'value' must be a rank 1-10", field="value",
                           code="bad_field")
        d["guess"] = g
        text = f"{guesser.capitalize()} guesses {RANK_NAMES[g]} ({g})"
    elif step == "actual":
        a = body_field(tx.body, "value", int, "a rank 1-10")
        if not 1 <= a <= 10:
            raise ApiError(400, "the field 'value' must be a rank 1-10", field="value",
                           code="bad_field")
        if a not in view["ranks"]:
            raise ApiError(400, f"{view['owner']} cannot turn up the {RANK_NAMES[a]} now: it is "
                                "already revealed or exhausted", field="value", code="illegal")
        choices = choice_options(state, d["guess"], a, d["deception"])
        if choices:
            _apply(state, Reveal(guesser, mission, d["guess"], a, d["deception"],
                                 choices[0]["choice"]))
            d["actual"] = a
            text = f"{view['owner'].capitalize()} turns up the {RANK_NAMES[a]}: choose"
        else:
            event = Reveal(guesser, mission, d["guess"], a, d["deception"])
    else:
        c = body_field(tx.body, "value", str, "one of the offered choices")
        if c not in [o["choice"] for o in view["choices"]]:
            raise ApiError(400, "the field 'value' must be one of: "
                           + ", ".join(o["choice"] for o in view["choices"]),
                           field="value", code="bad_field")
        event = Reveal(guesser, mission, d["guess"], d["actual"], d["deception"], c)
    if event is not None:
        after = _record(tx, actor, state, event)
        text = narrate_reveal(after.reveals[-1])
        tx.commit(201, {"event": event.to_dict(), "text": text,
                        "next": expected(after).to_dict()})
    else:
        table.draft = json.dumps(d)
        tx.state = state            # a tap of a reveal records no event: same game
        tx.commit(200, {"draft": d, "text": text})


def undo(tx: Transaction, actor: Actor) -> None:
    """Take back the last tap of a reveal in progress, else the last recorded event."""
    _need_seat(actor)
    table = tx.table
    state = derive(table)
    d = table.draft_dict()
    if d and d.get("events") == state.events:
        for k in ("actual", "guess", "deception"):
            if d.get(k) is not None and not (k == "deception" and d.get("auto_deception")):
                what = {"actual": "the card turned up", "guess": "the guess",
                        "deception": "the deception decision"}[k]
                d[k] = None
                table.draft = json.dumps(d)
                tx.state = state
                tx.commit(200, {"undone": what}, notice=f"{actor.name} took back {what}")
                return
    rows = active_events(table)
    if not rows:
        raise ApiError(409, "there is nothing to undo yet", code="nothing_to_undo")
    last = rows[-1]
    last.undone = True
    table.draft = None
    what = _event_text(json.loads(last.data))
    if json.loads(last.data)["type"] == "reveal":
        what = narrate_reveal(state.reveals[-1])
    tx.commit(200, {"undone": what}, notice=f"{actor.name} undid: {what}")


def touch(actor: Actor) -> None:
    """Note that a seat's phone is alive (at most every 10 s, to spare the database)."""
    s = actor.seat
    if s is not None and (s.last_seen is None or (now() - s.last_seen).total_seconds() > 10):
        s.last_seen = now()
        db.session.commit()


def who(actor: Actor) -> dict[str, Any]:
    if actor.host:
        return {"role": "host"}
    if actor.seat is not None:
        return {"role": "seat", **seat_dict(actor.seat)}
    return {"role": "viewer"}

