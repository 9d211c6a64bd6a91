"""A change's rows written in one statement on PostgreSQL (issue 54): one round trip.

A post wrote its table's row (the compare-and-swap of its version), each event, its
receipt and the NOTIFY that tells the other processes as four to five statements, each a
round trip to the database server and its parse, in the transaction that holds the
table's row lock. On PostgreSQL they are one statement: the table's update returns its
id only when the version was still the one read, and the event and receipt inserts and
the NOTIFY take their rows from it, so nothing of the change is written (and nobody is
told) when the version moved:

    WITH u AS (UPDATE "table" SET ... WHERE id = :w_id AND version = :w_version
               RETURNING "table".id),
         e0 AS (INSERT INTO event (...) SELECT u.id, <last seq> + 1, ... FROM u),
         r AS (INSERT INTO receipt (...) SELECT u.id, ... FROM u),
         c0 AS (INSERT INTO intel_card (...) SELECT :c_group, ... FROM u
                ON CONFLICT (group_id, ranks) DO UPDATE SET seen = intel_card.seen + ...)
    SELECT u.id, CASE WHEN EXISTS (<another process listens>)
                      THEN pg_notify(:n_channel, :n_payload) END FROM u

Every part of one statement reads one snapshot, so the events are numbered from the
table's last seq plus their place in the change (the table's row lock, and the unique
``(table_id, seq)``, keep two writers apart as before). The intel cards a change teaches
its group (a round's end) are counted in it too (``c<i>``), so that a round's last reveal
is one statement like any tap. The NOTIFY is sent only when another process listens on
this database (its listening session, named ``n_listener``, is not this one's ``n_me``):
one server alone pays no NOTIFY, nor its own listener's wake-up for it (issue 54). A
process that starts listening reads the tables it shows again once it is up
(:mod:`companion.live.fanout`). SQLite has no such statement (nor a server to reach): it
writes them one by one (:mod:`.authority`).

>>> from sqlalchemy.dialects import postgresql
>>> sql = written(("version",), 2, True, 1).compiled(postgresql.psycopg.dialect()).sql
>>> [line.split()[-2] for line in sql.splitlines() if line.endswith(" AS ")]
['u', 'e0', 'e1', 'r', 'c0']
>>> " ".join(sql.split()[-10:])
'THEN pg_notify(%(n_channel)s::VARCHAR, %(n_payload)s::VARCHAR) ELSE NULL END AS told FROM u'
"""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import (
    Integer,
    Select,
    bindparam,
    case,
    column,
    exists,
    false,
    func,
    insert,
    literal_column,
    null,
    select,
    table,
    update,
)
from sqlalchemy import Table as SATable
from sqlalchemy.dialects.postgresql import insert as pg_insert

from ..store.models import Event, IntelCard, Receipt, Table
from ..store.prepared import Prepared

TABLE: SATable = cast(SATable, Table.__table__)
EVENT: SATable = cast(SATable, Event.__table__)
RECEIPT: SATable = cast(SATable, Receipt.__table__)
CARD: SATable = cast(SATable, IntelCard.__table__)

_BUILT: dict[tuple[tuple[str, ...], int, bool, int], Prepared] = {}


def written(names: tuple[str, ...], events: int, notify: bool, cards: int = 0) -> Prepared:
    """The one statement for a change that writes the table's columns ``names``, adds
    ``events`` events and its receipt, counts ``cards`` intel cards for the table's group
    and (``notify``) tells the other processes.

    Its values by name: ``w_id``, ``w_version``, ``v_<column>``; ``e<i>_data``,
    ``e<i>_seat``, ``e<i>_key`` for each event and ``e_created``; ``r_key``, ``r_status``,
    ``r_body``, ``r_kind``, ``r_actor``, ``r_created``; ``c_group``, ``c_last`` and
    ``c<i>_ranks``, ``c<i>_seen`` for each card (distinct); ``n_channel``, ``n_payload``,
    ``n_listener``, ``n_me``.
    One row comes back when the change was written, none when the version had moved."""
    key = (names, events, notify, cards)
    p = _BUILT.get(key)
    if p is None:
        p = _BUILT[key] = Prepared(lambda: _build(names, events, notify, cards))
    return p


def _card(u: Any, i: int) -> Any:
    """Count card ``i`` for the group, once the table's update was made (issue 11's
    upsert: two tables ending a round with one card at one moment both count it)."""
    add = pg_insert(CARD).from_select(
        ["group_id", "ranks", "seen", "last"],
        select(bindparam("c_group", type_=CARD.c.group_id.type),
               bindparam(f"c{i}_ranks", type_=CARD.c.ranks.type),
               bindparam(f"c{i}_seen", type_=CARD.c.seen.type),
               bindparam("c_last", type_=CARD.c.last.type)).select_from(u))
    return add.on_conflict_do_update(
        index_elements=[CARD.c.group_id, CARD.c.ranks],
        set_={"seen": CARD.c.seen + add.excluded.seen, "last": add.excluded.last}).cte(f"c{i}")


def _build(names: tuple[str, ...], events: int, notify: bool, cards: int) -> Select[Any]:
    u = (update(TABLE)
         .where(TABLE.c.id == bindparam("w_id"), TABLE.c.version == bindparam("w_version"))
         .values({name: bindparam(f"v_{name}", type_=TABLE.c[name].type) for name in names})
         .returning(TABLE.c.id).cte("u"))
    last = (select(func.coalesce(func.max(EVENT.c.seq), literal_column("0")))
            .where(EVENT.c.table_id == bindparam("w_id")).scalar_subquery())
    ctes = []
    created = bindparam("e_created", type_=EVENT.c.created.type)
    for i in range(events):
        ctes.append(insert(EVENT).from_select(
            ["table_id", "seq", "data", "seat_id", "idempotency_key", "undone", "created"],
            select(u.c.id, last + literal_column(str(i + 1)),
                   bindparam(f"e{i}_data", type_=EVENT.c.data.type),
                   bindparam(f"e{i}_seat", type_=EVENT.c.seat_id.type),
                   bindparam(f"e{i}_key", type_=EVENT.c.idempotency_key.type),
                   false(), created)).cte(f"e{i}"))
    ctes.append(insert(RECEIPT).from_select(
        ["table_id", "key", "status", "body", "kind", "actor", "created"],
        select(u.c.id, *(bindparam(f"r_{c}", type_=RECEIPT.c[c].type)
                         for c in ("key", "status", "body", "kind", "actor", "created"))))
        .cte("r"))
    ctes += [_card(u, i) for i in range(cards)]
    told = ([case((_listening(), func.pg_notify(
        bindparam("n_channel", type_=RECEIPT.c.kind.type),
        bindparam("n_payload", type_=RECEIPT.c.kind.type))), else_=null()).label("told")]
        if notify else [])
    return select(u.c.id, *told).add_cte(*ctes)


# the database's sessions (PostgreSQL's view): their database, name and process
_ACTIVITY = table("pg_stat_activity", column("datname"), column("application_name"),
                  column("pid"))


def _listening() -> Any:
    """Whether another process listens for changes on this database: a session named
    ``n_listener`` (each process's listening connection is) other than ``n_me`` (this
    process's own, 0 when it has none)."""
    return exists().where(
        _ACTIVITY.c.datname == func.current_database(),
        _ACTIVITY.c.application_name == bindparam("n_listener", type_=RECEIPT.c.kind.type),
        _ACTIVITY.c.pid != bindparam("n_me", type_=Integer()))
