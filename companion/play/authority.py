"""The authority: one state-changing request on one table, in one fixed sequence.

Lock the table (in this process) → read its row → a retried key gets its stored
answer → a stale version is refused with the fresh view → the action applies its
events through the referee → compare-and-swap the version, write the receipt and
commit. Only then is the request acknowledged, and the change pushed.
"""

from __future__ import annotations

import json
import threading
import time
import weakref
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any, cast

from flask import current_app
from sqlalchemy import Table as SATable
from sqlalchemy import bindparam, false, func, insert, literal_column, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value

from ..edge.errors import ApiError, from_refusal
from ..edge.lang import stored
from ..engine import Event as GameEvent
from ..engine import Msg, Phase, RecordError, State, apply
from ..group.games import forget_game, remember_game
from ..store.models import Event, Receipt, Table, db, now
from ..store.prepared import Prepared, alone, on_its_own
from ..table.cards import counted, ended_round, learn
from ..table.states import Row, event_rows, keep, kept_rows
from ..table.views import public_view
from .ahead import Turn
from .teaching import mark
from .written import written

# the tables themselves, for plain SQL statements
TABLE: SATable = cast(SATable, Table.__table__)
EVENT: SATable = cast(SATable, Event.__table__)
RECEIPT: SATable = cast(SATable, Receipt.__table__)

# one lock per table while anyone holds it (weak: a table nobody uses costs nothing)
_locks: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
_locks_lock = threading.Lock()


def _table_lock(table_id: int) -> Any:
    with _locks_lock:
        lock = _locks.get(table_id)
        if lock is None:
            lock = _locks[table_id] = threading.Lock()
        return lock


class Transaction:
    """One state-changing request on one table: lock, idempotency, version, receipt.

    ``key`` and ``version`` are the request's, checked by its route (``version`` None:
    a change the server makes itself, judged by its key alone); ``check`` gives the rest
    of its fields as its route declares them (:meth:`fields`)."""

    def __init__(self, table: Table, body: dict[str, Any], kind: str,
                 actor: str = "anyone", key: str = "", version: int | None = None,
                 check: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
                 turn: Turn | None = None) -> None:
        self.table = table
        self.body = body
        self.kind = kind                    # seats, events, draft, undo, decision
        self.actor = actor                  # host, seat:<id>, anyone
        self.version = version
        self.key = key
        self._check = check
        self._fields: dict[str, Any] | None = None
        self.lock = _table_lock(table.id)
        self.receipt: Receipt | None = None
        self.read_version = 0
        self.state: State | None = None     # the game after this change, when known
        # the events it adds, as the views read them, each with its idempotency key
        self.added: list[tuple[Row, str | None]] = []
        self.unfinish = False               # events undone: a finished game may be no more
        self.cards: list[tuple[int, ...]] = []    # intel cards its rounds' ends teach
        # the other processes were told of the change by its transaction (else they are
        # told after it, with what changed: live.publish)
        self.told = True
        self.pushed = False                 # its screens here were sent it (by commit)
        self.turn = turn                    # its place among the taps before their push
        self.result: tuple[int, dict[str, Any]] = (500, {})

    def fields(self) -> dict[str, Any]:
        """The request's fields, checked as its route declares them (a malformed one is
        refused, naming it) when the action first reads them: after who sent it and
        whether it is due are judged, as they always were."""
        if self._fields is None:
            self._fields = self._check(self.body) if self._check is not None else self.body
        return self._fields

    def _stored(self) -> Receipt | None:
        """The receipt of an earlier request with this key, if it was this kind by this
        screen; a key used for anything else is refused (never answered with another's)."""
        r = db.session.scalar(select(Receipt).where(
            Receipt.table_id == self.table.id, Receipt.key == self.key))
        if r is not None and r.kind is not None and (r.kind, r.actor) != (self.kind, self.actor):
            raise ApiError(422, Msg("this idempotency key was already used for another request; "
                                "send a new key for a new request"), field="idempotency_key",
                           code="key_reused")
        return r

    def __enter__(self) -> Transaction:
        # The table row was read just before (no second read under the lock): a change
        # committed meanwhile moved its version, and the compare-and-swap at commit
        # refuses this request as stale. A retry carries the version its first attempt
        # saw, so only a request whose version is not the table's looks for its receipt.
        self.lock.acquire()
        try:
            self.read_version = self.table.version
            if self.version is None:
                self.receipt = self._stored()
            else:
                if self.version != self.table.version:
                    self.receipt = self._stored()
                    if self.receipt is None:
                        db.session.refresh(self.table)
                        raise ApiError(409, Msg("the table changed since this screen last "
                                                "updated; here is the fresh state — check "
                                                "and tap again"),
                                       field="version", code="stale",
                                       view=public_view(self.table))
        except BaseException:
            db.session.rollback()
            self.lock.release()
            raise
        return self

    def __exit__(self, *exc: Any) -> bool:
        try:
            if exc[0] is not None:
                db.session.rollback()
                err = exc[1]
                if isinstance(err, ApiError) and self.receipt is None:
                    # a retry that carried the table's version (its phone had caught up) and
                    # that the action refused: its first answer is the answer
                    self.receipt = self._stored()
                    if self.receipt is not None:
                        return True
                if isinstance(err, ApiError) and err.code != "stale" and self._moved():
                    # another process changed the table while this request was judged
                    # (its version and its events were read apart): a lost race is
                    # refused as stale, with the fresh view, whatever the reason was
                    raise ApiError(409, Msg("the table changed at the same moment; here is the "
                                        "fresh state — check and tap again"), field="version",
                                   code="stale", view=public_view(self.table)) from None
                if isinstance(err, ApiError) and err.status == 409 and err.view is None:
                    db.session.refresh(self.table)
                    err.view = public_view(self.table)
        finally:
            self.lock.release()
        return False

    def _moved(self) -> bool:
        """Whether the table's version is no longer the one this request read."""
        try:
            db.session.refresh(self.table)
        except Exception:          # the table itself is unreadable: not a race
            db.session.rollback()
            return False
        return self.table.version != self.read_version

    def apply(self, state: State, event: GameEvent) -> State:
        """The game after ``event``, or the referee's refusal as an :class:`ApiError`."""
        try:
            return apply(state, event)
        except RecordError as err:
            raise from_refusal(err) from None

    def record(self, state: State, event: GameEvent, seat_id: int | None,
               follows: bool = False) -> State:
        """Apply ``event`` and add it to the table's events (written at :meth:`commit`).

        ``follows``: an event the referee's rules decided after the request's own one
        (a day's start by R12): it carries no key of its own.
        """
        after = self.apply(state, event)
        if not self.table.practice:      # (the practice round's card is the script's)
            # a card whose round is over: one tap next time (counted at :meth:`commit`)
            self.cards += ended_round(state, after)
        self.added.append((Row(json.dumps(event.to_dict()), seat_id),
                           None if follows else self.key))
        self.set_draft(None)
        self.state = after
        return after

    def set_draft(self, draft: str | None) -> None:
        """The reveal being built after this change (written at :meth:`commit`). Set as
        the table's loaded value, not as a change for the ORM to find: the commit writes
        the row itself, and a session with nothing to flush commits without its unit of
        work (issue 24). A request that fails rolls back, which expires it."""
        set_committed_value(self.table, "draft", draft)

    def commit(self, status: int, body: dict[str, Any], notice: Msg | str | None = None,
               keep_notice: bool = False, bump: bool = True,
               also: dict[str, Any] | None = None) -> None:
        """Bump the version (only if it is still the one we read), keep a receipt, commit.

        ``bump=False``: a change no screen's next tap depends on (a phone asking for a
        seat): only the receipt and the change's own rows are written. ``also``: more of
        the table's columns, written with its version.
        """
        t = self.table
        view: dict[str, Any] | None = None
        values: dict[str, Any] = {"version": t.version + (1 if bump else 0), "updated": now(),
                                  "draft": t.draft, "finished": t.finished, **(also or {})}
        was_finished = t.finished is not None
        if self.state is not None:     # the history lists a game from the moment it ends
            over = self.state.phase == Phase.OVER
            values["finished"] = (t.finished or now()) if over else None
        if self.unfinish:
            values["finished"] = None
        if values["finished"] is None and t.digest is not None:
            values["digest"] = None           # an end undone: no longer that finished game
        if values["finished"] is None and t.chance_series is not None:
            values["chance_series"] = None    # nor its chances by step (issue 25)
        if not keep_notice:     # a notice is kept as its message (each screen reads it)
            values["notice"] = (json.dumps(notice.to_dict()) if isinstance(notice, Msg)
                                else notice) if bump else t.notice
        # The compare-and-swap comes first, before any row of this request is written:
        # it takes the table's row lock (PostgreSQL) or the write lock (SQLite), so a
        # writer in another thread or process that read the same version finds it gone
        # and is refused, whatever lock this process holds.
        stale = ApiError(409, Msg("the table changed at the same moment; here is the fresh "
                              "state — check and tap again"), field="version", code="stale")
        # The rows are written with plain SQL statements (no unit of work to run for
        # them): the table's row, each event numbered inside its insert, the receipt; on
        # PostgreSQL all in one statement with the NOTIFY (issue 54: :mod:`.written`).
        # a learning game's lessons given so far: taught to its seated players (not the
        # practice round's: the real game explains them again, issue 53)
        teach = bool(t.first_game and not t.practice and self.added and self.state is not None)
        # the group's memory (issue 21): a game that ends leaves its summary, one whose
        # end is undone takes it back, in this same transaction
        remember = (not was_finished and values["finished"] is not None
                    and self.state is not None and not t.practice)  # practice never counts
        forget = was_finished and values["finished"] is None
        # the receipt keeps the answer without the view (a retry is answered with the
        # table's view as it is then) and never a secret
        kept = stored({k: v for k, v in body.items() if k != "secret"})
        # the other processes sharing the database (PostgreSQL), told by this transaction:
        # they hear of the change when it commits
        fanout = current_app.extensions.get("live_fanout") if bump else None
        try:
            with db.session.no_autoflush:
                conn = db.session.connection()
                # (view, told) when the one statement carried the NOTIFY (or had nothing
                # to tell: told after the commit); None: the others are told below
                told = None
                if conn.dialect.name == "postgresql":
                    told = self._write_one(conn, values, status, kept, stale,
                                           fanout if not (teach or remember or forget) else None)
                else:
                    self._write_each(conn, values, status, kept, stale)
                for name, value in values.items():    # written: no second write of the row
                    set_committed_value(t, name, value)
                if teach:
                    assert self.state is not None
                    mark(t, self.state, self._rows() or event_rows(t))
                if remember:
                    assert self.state is not None
                    remember_game(t, self.state)
                elif forget:
                    forget_game(t.id)
                if told is not None:
                    view, self.told = told
                elif fanout is not None:
                    view = self._view_now()
                    self.told = fanout.notify(conn, t.code, values["version"],
                                              self.read_version, view)
            _commit_keeping()      # acknowledged only after this returns
        except (IntegrityError, ApiError) as err:
            # the same seq or key written first by another process, or the version moved:
            # if that was this very request (a retry that reached another process while
            # the first was committing), its stored answer is the answer
            db.session.rollback()
            self.receipt = self._stored()
            if self.receipt is not None:      # answered by the caller, as any retry
                return
            if isinstance(err, ApiError):
                raise
            raise stale from None
        if self.state is not None:  # committed: the next request need not replay the game
            keep(t, self.state, self._rows())
        self.result = (status, {**body, "view": view if view is not None
                                else public_view(t, self.state)})

    def _write_each(self, conn: Any, values: dict[str, Any], status: int, kept: str,
                    stale: ApiError) -> None:
        """The change's rows, a statement each (SQLite): the table's compare-and-swap
        first, then each event numbered inside its insert, then the receipt."""
        t = self.table
        res = _update_for(tuple(values)).run(
            conn, w_id=t.id, w_version=t.version,
            **{f"v_{name}": value for name, value in values.items()})
        if res.rowcount != 1:
            raise stale
        for row, key in self.added:
            _INSERT_EVENT.run(conn, e_table=t.id, e_data=row.data, e_seat=row.seat_id,
                              e_key=key, e_created=now())
        learn(counted(self.cards, t.group_id), t.group_id)
        _INSERT_RECEIPT.run(conn, r_table=t.id, r_key=self.key, r_status=status,
                            r_body=kept, r_kind=self.kind, r_actor=self.actor,
                            r_created=now())

    def _write_one(self, conn: Any, values: dict[str, Any], status: int, kept: str,
                   stale: ApiError, fanout: Any) -> tuple[dict[str, Any] | None, bool] | None:
        """The change's rows in one statement (PostgreSQL, :mod:`.written`), with its
        NOTIFY when ``fanout`` is given: the view after the change is made from the
        table's new values (a change refused as stale rolls back, which drops them),
        first when what the others are told comes from it, else while the statement is
        written. Returns that view and whether the others were told (``None``: nothing
        was to be told in it)."""
        t = self.table
        when = now()
        params: dict[str, Any] = {
            "w_id": t.id, "w_version": t.version, "e_created": when,
            "r_key": self.key, "r_status": status, "r_body": kept, "r_kind": self.kind,
            "r_actor": self.actor, "r_created": when,
            **{f"v_{name}": value for name, value in values.items()}}
        for i, (row, key) in enumerate(self.added):
            params.update({f"e{i}_data": row.data, f"e{i}_seat": row.seat_id,
                           f"e{i}_key": key})
        cards = counted(self.cards, t.group_id)
        for i, (ranks, seen) in enumerate(cards.items()):
            params.update({f"c{i}_ranks": ranks, f"c{i}_seen": seen})
        if cards:
            params.update(c_group=t.group_id, c_last=when)
        # a change whose statement is all its transaction writes (nothing written before
        # it, no row of the ORM's waiting, nothing to write after it): the statement is
        # its own transaction, committed when it returns (:func:`alone`, one round trip)
        last = fanout is not None and not (db.session.new or db.session.dirty
                                           or db.session.deleted)
        # ... and when no other process needs its view in its NOTIFY, the view and what
        # the screens will be sent are made while the database writes it (issue 54:
        # :mod:`..store.sent`)
        ahead = last and fanout.ahead(t.code)
        payload, view = None, None
        if fanout is not None:
            for name, value in values.items():
                set_committed_value(t, name, value)
            if not ahead:
                view = self._view_now()
            payload = fanout.payload(t.code, values["version"], self.read_version, view)
        if payload is not None:
            params.update(n_channel=fanout.channel, n_payload=payload,
                          n_listener=fanout.listener, n_me=fanout.me)
        statement = written(tuple(values), len(self.added), payload is not None, len(cards))
        with alone(conn) if last else nullcontext():
            # (not when a transaction was open before: then the commit below commits it)
            committed = on_its_own(conn)
            sent = statement.send(conn, **params)
            try:
                if ahead:
                    view = self._view_now()
                    if view is not None:
                        fanout.prepare(t.code, self.read_version, view)
            finally:
                answer = sent.result()          # (read even when the view failed)
            if answer.fetchone() is None:
                raise stale
        if fanout is None:
            return None
        if committed and view is not None and payload is not None:
            # committed (the statement was its own transaction) and the others told: the
            # screens here are sent it now, before this request's own bookkeeping
            fanout.show(view)
            self.pushed = True
            if self.turn is not None:
                self.turn.passed()
            # a stream this thread could not write (its socket full) is the loop's, which
            # that woke: let it have the GIL now rather than when this thread has left
            # the app (issue 54)
            time.sleep(0)
        return view, payload is not None

    def _view_now(self) -> dict[str, Any] | None:
        """The table's view after this change, made inside its transaction, so that the
        NOTIFY it sends carries what changed (issue 24: no second transaction after the
        commit for it). Only for a change that writes nothing but its events and the
        table's row (a tap, an event) from a game this process kept; ``None`` otherwise
        (the view is made after the commit, as for any change)."""
        if self.kind not in ("events", "draft") or self.state is None:
            return None
        rows = self._rows()
        return None if rows is None else public_view(self.table, self.state, rows)

    def _rows(self) -> list[Row] | None:
        """The events not undone after this change: those kept with the version it read
        and the ones it adds (``None``: this process kept none)."""
        base = kept_rows(self.table, self.read_version)
        return None if base is None else base + [r for r, _ in self.added]


# The statements of a commit, each compiled once per database (issue 24: building them
# for each post cost more than running them): the table's compare-and-swap for each set
# of columns a change writes, each event numbered inside its own insert, the receipt.
_UPDATES: dict[tuple[str, ...], Prepared] = {}


def _update_for(names: tuple[str, ...]) -> Prepared:
    """``UPDATE table SET <names> WHERE id = :w_id AND version = :w_version``."""
    p = _UPDATES.get(names)
    if p is None:
        p = _UPDATES[names] = Prepared(lambda: update(TABLE).where(
            TABLE.c.id == bindparam("w_id"), TABLE.c.version == bindparam("w_version"))
            .values({name: bindparam(f"v_{name}") for name in names}))
    return p


_INSERT_EVENT = Prepared(lambda: insert(EVENT).inline().values(
    table_id=bindparam("e_table"),
    seq=select(func.coalesce(func.max(EVENT.c.seq), literal_column("0")) + literal_column("1"))
    .where(EVENT.c.table_id == bindparam("e_table")).scalar_subquery(),
    data=bindparam("e_data"), seat_id=bindparam("e_seat"), idempotency_key=bindparam("e_key"),
    undone=false(), created=bindparam("e_created")))
_INSERT_RECEIPT = Prepared(lambda: insert(RECEIPT).inline().values(
    table_id=bindparam("r_table"), key=bindparam("r_key"), status=bindparam("r_status"),
    body=bindparam("r_body"), kind=bindparam("r_kind"), actor=bindparam("r_actor"),
    created=bindparam("r_created")))


def _commit_keeping() -> None:
    """Commit, keeping what the session loaded: the view built next reads the table and
    its seats as this request left them, without reading them again."""
    session = db.session()
    session.expire_on_commit = False
    try:
        session.commit()
    finally:
        session.expire_on_commit = True
