"""The finished games kept in the database (issues 14, 20, 21, 50): which count, their
summaries written and forgotten, the ratings, and the version of the group's memory that
the pages' answers are kept under.

What a finished game contributes is its summary (:mod:`companion.memory.summary`),
derived from its events once — when the referee ends it (:func:`remember_game`, in the
transaction of the post that ended it) or when it is imported — and kept beside the
events in ``game`` and ``game_side``: a cache, never separate truth (an undone end
deletes it, :func:`forget_game`; ``tests/web/test_memory.py`` checks it against a fresh
replay). Ratings (:mod:`companion.memory.ratings`) are updated as games finish and
rebuilt when the order of games changes.

Only real play counts (issue 50, :func:`counts`): the ratings, the statistics and the
history's own list take the games played live here at a table's pace, with the seats
that sat before each began, and the games the keeper counted. An imported game, or one
entered faster than any table plays (a script), is kept and listed apart ("not
counted"), where the keeper may count it; a stranger's games cannot move the group's
ladder or push its games off the history's first page.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, cast

from flask import current_app
from sqlalchemy import Table as SATable
from sqlalchemy import and_, delete, exists, func, insert, or_, select, update

from ..engine import State
from ..memory import ratings
from ..memory.summary import FIGURES, SIDES, summarize
from ..store.models import (
    Event,
    Game,
    GameSide,
    Memory,
    Player,
    Seat,
    Table,
    db,
    now,
)
from ..table.states import Recent, derive

PACE = 1.0              # seconds a step, at the least, a game played at a table takes on average
EXPIRY_DAYS = 30        # a table untouched this long is no longer in play
GAME, SIDE, SEAT, MEMORY = (cast(SATable, m.__table__) for m in (Game, GameSide, Seat, Memory))
PLAYER = cast(SATable, Player.__table__)
KEPT_PAGES = 256        # pages' answers kept per version of the memory (all languages)


# --- the version of the memory, and the pages' answers kept per version ------------------

def changed(group_id: int | None) -> None:
    """The group's memory changed (in the caller's transaction): the pages answered from
    the version before are answered again. (No group: nothing is kept of it.)"""
    if group_id is not None:
        db.session.execute(update(MEMORY).where(MEMORY.c.id == group_id)
                           .values(version=MEMORY.c.version + 1))


def version(group_id: int) -> tuple[int, int, int]:
    """What a group's pages depend on, in one small query: its memory's version, and
    its newest player and the newest seat at its tables (a phone that sits down at any of
    them may be listed)."""
    tables = cast(SATable, Table.__table__)
    row = db.session.execute(select(
        MEMORY.c.version,
        select(func.max(PLAYER.c.id)).where(PLAYER.c.group_id == group_id).scalar_subquery(),
        select(func.max(SEAT.c.id)).where(SEAT.c.table_id.in_(
            select(tables.c.id).where(tables.c.group_id == group_id))).scalar_subquery())
        .where(MEMORY.c.id == group_id)).one()
    return row[0], row[1] or 0, row[2] or 0


def kept(name: str, group_id: int, args: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    """``make()``'s answer for this version of the group's memory, made once per version
    and kept (every screen and language reads the same words as data)."""
    pages: Recent[Any] | None = current_app.extensions.get("companion.pages")
    if pages is None:         # each app its own (apps in one process share nothing)
        pages = current_app.extensions.setdefault("companion.pages", Recent(KEPT_PAGES))
    # one page of the group's memory at a time: however many screens load them, the
    # tables' posts share the interpreter with one of them at most
    with pages.lock_pages:
        key = (name, group_id, args, version(group_id))
        found = pages.recall(key)
        if found is None:
            found = make()
            pages.keep(key, found)
    return found


def none_finished(group_id: int | None) -> bool:
    """Whether the group has finished no game here yet (imported ones aside): the set-up
    page then offers a learning game first (issue 53). The big screen knows no player
    before the phones sit down, so the group's history stands for them. (No group: a
    table that counts nowhere, and knows no one.)"""
    return group_id is None or db.session.execute(select(Table.id).where(
        Table.group_id == group_id, Table.finished.is_not(None),
        Table.imported.is_(False)).limit(1)).first() is None


# --- which games count (issue 50) ---------------------------------------------------------

def counts(table: Table) -> tuple[bool, datetime | None]:
    """Whether the finished game of ``table`` counts in the ratings, the statistics and
    the history's own list, and when it began here (``None``: every seat counts).

    The keeper's word first (``table.accepted``). Else an imported game does not count
    (anyone can write a record), and a game played here counts if it was entered at a
    table's pace: on average at least ``TABLE_PACE`` seconds a step (1 s; people turn
    cards, a table takes many minutes; a script that plays a game in seconds does not
    count). It began at its first step entered at this table (a game another screen went
    on with keeps the times of the steps entered before): a seat that sat down later is
    not rated for it (:func:`seat_counts`).
    """
    if table.accepted is not None:
        return table.accepted, None
    if table.imported:
        return False, None
    times = list(db.session.scalars(select(Event.created).where(
        Event.table_id == table.id, Event.undone.is_(False)).order_by(Event.seq)))
    if not times:
        return False, None
    pace = float(current_app.config.get("TABLE_PACE", PACE))
    live = (times[-1] - times[0]).total_seconds() >= pace * (len(times) - 1)
    opened = table.created or times[0]
    began = min((t for t in times if t >= opened), default=times[-1])
    return live, began


def seat_counts(seat: Any = SEAT) -> Any:
    """The SQL condition of a seat whose player a counted game rates and counts (``GAME``
    joined): active, and sat before the game began here — or took over a seat that did
    (a phone that died and came back on another). For a game the keeper counted
    (``began`` unset), every active seat."""
    earlier = SEAT.alias("earlier")
    return and_(seat.c.status == "active", or_(
        GAME.c.began.is_(None), seat.c.created <= GAME.c.began,
        exists().where(earlier.c.table_id == seat.c.table_id,
                       earlier.c.side == seat.c.side, earlier.c.part == seat.c.part,
                       earlier.c.status == "replaced", earlier.c.created <= GAME.c.began)))


def rates_new_seats(table_id: int) -> bool:
    """Whether a seat that sits down now at this finished game is rated for it: only at a
    counted game every seat of which counts (one the keeper counted, ``began`` unset);
    at a game played here a seat that sat after it began is not (:func:`seat_counts`),
    and an uncounted one rates nobody."""
    row = db.session.execute(select(GAME.c.counted, GAME.c.began)
                             .where(GAME.c.table_id == table_id)).one_or_none()
    return row is not None and bool(row.counted) and row.began is None


# --- keeping the summaries: written when a game ends, deleted when its end is undone ---

def remember_game(table: Table, state: State, played: datetime | None = None,
                  names: Mapping[str, Sequence[str]] | None = None, rate: bool = True) -> None:
    """Keep what the finished game of ``table`` contributes (in the caller's transaction),
    and rate its players (``rate``). ``played``/``names``: what an imported record says
    of when it was played and who sat."""
    s = summarize(state)
    finished = table.finished or now()
    counted, began = counts(table)
    db.session.execute(insert(GAME).values(
        table_id=table.id, finished=finished, played=played or finished, winner=s["winner"],
        reason=s["reason"], days=s["days"], ending=json.dumps(s["ending"]),
        names=json.dumps({k: list(v) for k, v in names.items()}) if names else None,
        counted=counted, began=began, group_id=table.group_id))
    for side in SIDES:
        t = s["sides"][side]
        db.session.execute(insert(SIDE).values(
            table_id=table.id, side=side, result=t["result"], **{k: t[k] for k in FIGURES},
            **{f"s{r}": t["soldiers"][r] for r in range(1, 11)}))
    changed(table.group_id)
    if not rate or not counted or table.group_id is None:
        return
    later = db.session.scalar(select(func.count()).select_from(GAME).where(
        GAME.c.group_id == table.group_id, GAME.c.counted.is_(True),
        (GAME.c.played > (played or finished))
        | and_(GAME.c.played == (played or finished), GAME.c.table_id > table.id)))
    if later:                           # an older game came in: the order changed
        rebuild_ratings(table.group_id)
    else:
        _rate(table.id, s["winner"])


def forget_game(table_id: int) -> None:
    """The game of ``table_id`` is no longer finished (its end undone) or is deleted:
    its summary goes, and the ratings are made again without it."""
    group = db.session.execute(select(GAME.c.group_id)
                               .where(GAME.c.table_id == table_id)).one_or_none()
    db.session.execute(delete(GAME).where(GAME.c.table_id == table_id))
    db.session.execute(delete(SIDE).where(SIDE.c.table_id == table_id))
    if group is not None and group[0] is not None:
        rebuild_ratings(group[0])
        changed(group[0])


def backfill() -> int:
    """Summaries for the finished games that have none (finished before issue 21); how
    many were made. Run once at the app's start."""
    missing = list(db.session.scalars(select(Table).where(
        Table.finished.is_not(None), ~exists().where(GAME.c.table_id == Table.id))
        .order_by(Table.finished, Table.id)))
    for table in missing:
        remember_game(table, derive(table), rate=False)
    for group_id in sorted({t.group_id for t in missing if t.group_id is not None}):
        rebuild_ratings(group_id)
    if missing:
        db.session.commit()
    return len(missing)


# --- ratings -------------------------------------------------------------------------------

def _sides_of(table_ids: Sequence[int]) -> dict[int, dict[str, list[int | None]]]:
    """Who sat at each side of these finished games, as they count (:func:`seat_counts`;
    ``None``: not remembered)."""
    out: dict[int, dict[str, list[int | None]]] = {t: {"red": [], "blue": []}
                                                   for t in table_ids}
    if not table_ids:
        return out
    rows = db.session.execute(select(SEAT.c.table_id, SEAT.c.side, SEAT.c.player_id)
                              .join(GAME, GAME.c.table_id == SEAT.c.table_id)
                              .where(SEAT.c.table_id.in_(table_ids), seat_counts())
                              .order_by(SEAT.c.table_id, SEAT.c.part, SEAT.c.id))
    for t, side, player in rows:
        out[t][side].append(player)
    return out


def _rate(table_id: int, winner: str) -> None:
    """Rate the players of one more game, the latest (their rows locked meanwhile)."""
    sides = _sides_of([table_id])[table_id]
    ids = [i for s in SIDES for i in sides[s] if i is not None]
    if not ids:
        return
    rows = db.session.scalars(select(Player).where(Player.id.in_(ids)).with_for_update())
    known = {p.id: ratings.Rating(p.mu, p.sigma, p.rated) for p in rows
             if p.mu is not None and p.sigma is not None}
    for i, r in ratings.rate(known, sides, winner).items():
        db.session.execute(update(Player).where(Player.id == i)
                           .values(mu=r.mu, sigma=r.sigma, rated=r.games))


def rated_games(group_id: int) -> list[tuple[dict[str, list[int | None]], str]]:
    """Every counted game of the group's: its sides and winner, in the order played."""
    games = db.session.execute(select(GAME.c.table_id, GAME.c.winner)
                               .where(GAME.c.group_id == group_id, GAME.c.counted.is_(True))
                               .order_by(GAME.c.played, GAME.c.table_id)).all()
    sides = _sides_of([t for t, _ in games])
    return [(sides[t], w) for t, w in games]


def rebuild_ratings(group_id: int) -> dict[int, ratings.Rating]:
    """Every rating of the group's players made again from its finished games (in the
    caller's transaction): ``spies-lies ratings --rebuild``, and whenever the order
    changed."""
    found = ratings.rebuild(rated_games(group_id))
    changed(group_id)
    db.session.execute(update(Player).where(Player.group_id == group_id)
                       .values(mu=None, sigma=None, rated=0))
    if found:       # one statement for them all (an UPDATE per player was a round trip each)
        db.session.execute(update(Player), [{"id": i, "mu": r.mu, "sigma": r.sigma,
                                             "rated": r.games} for i, r in found.items()])
    return found


def record_options(table: Table) -> dict[str, Any]:
    """What a finished game's record says of when it was played and who sat (optional
    keys of ``options``, RULINGS.md D4): an import of it shows them again."""
    row = db.session.execute(select(GAME.c.played, GAME.c.names)
                             .where(GAME.c.table_id == table.id)).one_or_none()
    if row is None:
        return {}
    sides: dict[str, list[str]] = {"red": [], "blue": []}
    for s in sorted(table.seats, key=lambda s: (s.part, s.id)):
        if s.status == "active":
            sides[s.side].append(s.name)
    told = json.loads(row.names) if row.names else {}
    players = {side: sides[side] or told.get(side, []) for side in SIDES}
    # kept in UTC, and said so: a time with no zone reads as the reader's own
    out: dict[str, Any] = {"played": row.played.isoformat(timespec="seconds") + "+00:00"}
    if any(players.values()):
        out["players"] = {k: v for k, v in players.items() if v}
    return out


def played_at(value: Any) -> datetime | None:
    """When a record says its game was played (``options.played``: an ISO date or date
    and time; with a zone, kept in UTC); ``None`` when it says nothing usable.

    >>> played_at("2025-06-01T20:15:00+02:00"), played_at("2025-06-01"), played_at("x")
    (datetime.datetime(2025, 6, 1, 18, 15), datetime.datetime(2025, 6, 1, 0, 0), None)
    >>> played_at("0001-01-01T00:00+01:00")          # in UTC, before the first year there is
    """
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        at = datetime.fromisoformat(value)
        if at.tzinfo is not None:
            at = at.astimezone(UTC).replace(tzinfo=None)
    except (ValueError, OverflowError):
        return None
    return at
