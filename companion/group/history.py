"""The group's history in the database (issues 14, 20, 21): finished games, players,
statistics, ratings, deletions.

What a finished game contributes is its summary (:mod:`companion.memory.summary`),
derived from its events once — when the referee ends it (:func:`remember_game`, in the
transaction of the post that ended it) or when it is imported — and kept beside the
events in ``game`` and ``game_side``: a cache, never separate truth (an undone end
deletes it, :func:`forget_game`; ``tests/web/test_memory.py`` checks it against a fresh
replay). The history is paged, and the statistics are SQL aggregates over the
summaries, whatever their number. Ratings (:mod:`companion.memory.ratings`) are updated
as games finish and rebuilt when the order of games changes.

Only real play counts (issue 50, :func:`counts`): the ratings, the statistics and the
history's own list take the games played live here at a table's pace, with the seats
that sat before each began, and the games the keeper counted. An imported game, or one
entered faster than any table plays (a script), is kept and listed apart ("not
counted"), where the keeper may count it; a stranger's games cannot move the group's
ladder or push its games off the history's first page.

A player is who a phone remembers (``tables.remember``). Deleting asks who may (issue 20:
a key, never an address): the keeper (:mod:`.keeper`: any game, any player, every
imported game at once), the screen that hosted that game (its host key), or, for a
player, that player's own phone (its player key).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any, cast

from flask import current_app
from sqlalchemy import Table as SATable
from sqlalchemy import and_, case, delete, exists, func, insert, or_, select, update

from ..edge.errors import ApiError
from ..edge.when import COOKIE, in_utc, zone_named
from ..engine import Msg, State
from ..memory import ratings
from ..memory.stats import RESULT_KEY, finish_player_stats, ladder, new_player_stats
from ..memory.summary import FIGURES, REASONS, SIDES, SOURCES, summarize
from ..store.models import (
    ID_MAX,
    Event,
    Game,
    GameSide,
    Memory,
    Player,
    Receipt,
    Seat,
    Table,
    db,
    hash_secret,
    now,
)
from ..table.states import Recent, derive
from ..table.views import stored_words

PAGE = 20               # games a history page lists
PACE = 1.0              # seconds a step, at the least, a game played at a table takes on average
EXPIRY_DAYS = 30        # a table untouched this long is no longer in play
GAME, SIDE, SEAT, MEMORY = (cast(SATable, m.__table__) for m in (Game, GameSide, Seat, Memory))
PLAYER = cast(SATable, Player.__table__)
KEPT_PAGES = 256        # pages' answers kept per version of the memory (all languages)
SOLDIERS = [f"s{r}" for r in range(1, 11)]
MONTH = re.compile(r"\d{4}-\d{2}")


# --- the version of the memory, and the pages' answers kept per version ------------------

def changed() -> None:
    """The group's memory changed (in the caller's transaction): the pages answered from
    the version before are answered again."""
    db.session.execute(update(MEMORY).where(MEMORY.c.id == 1)
                       .values(version=MEMORY.c.version + 1))


def version() -> tuple[int, int, int]:
    """What the pages depend on, in one small query: the memory's version, and the
    newest player and seat (a phone that sits down anywhere may be listed)."""
    row = db.session.execute(select(
        MEMORY.c.version,
        select(func.max(PLAYER.c.id)).scalar_subquery(),
        select(func.max(SEAT.c.id)).scalar_subquery()).where(MEMORY.c.id == 1)).one()
    return row[0], row[1] or 0, row[2] or 0


def kept(name: str, args: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    """``make()``'s answer for this version of the memory, made once per version and
    kept (every screen and language reads the same words as data)."""
    pages: Recent[Any] | None = current_app.extensions.get("companion.pages")
    if pages is None:         # each app its own (apps in one process share nothing)
        pages = current_app.extensions.setdefault("companion.pages", Recent(KEPT_PAGES))
    # one page of the group's memory at a time: however many screens load them, the
    # tables' posts share the interpreter with one of them at most
    with pages.lock_pages:
        key = (name, args, version())
        found = pages.recall(key)
        if found is None:
            found = make()
            pages.keep(key, found)
    return found


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
        counted=counted, began=began))
    for side in SIDES:
        t = s["sides"][side]
        db.session.execute(insert(SIDE).values(
            table_id=table.id, side=side, result=t["result"], **{k: t[k] for k in FIGURES},
            **{f"s{r}": t["soldiers"][r] for r in range(1, 11)}))
    changed()
    if not rate or not counted:
        return
    later = db.session.scalar(select(func.count()).select_from(GAME).where(
        GAME.c.counted.is_(True), (GAME.c.played > (played or finished))
        | and_(GAME.c.played == (played or finished), GAME.c.table_id > table.id)))
    if later:                           # an older game came in: the order changed
        rebuild_ratings()
    else:
        _rate(table.id, s["winner"])


def forget_game(table_id: int) -> None:
    """The game of ``table_id`` is no longer finished (its end undone) or is deleted:
    its summary goes, and the ratings are made again without it."""
    gone = db.session.execute(delete(GAME).where(GAME.c.table_id == table_id))
    db.session.execute(delete(SIDE).where(SIDE.c.table_id == table_id))
    if gone.rowcount:                   # type: ignore[attr-defined]
        rebuild_ratings()
        changed()


def backfill() -> int:
    """Summaries for the finished games that have none (finished before issue 21); how
    many were made. Run once at the app's start."""
    missing = list(db.session.scalars(select(Table).where(
        Table.finished.is_not(None), ~exists().where(GAME.c.table_id == Table.id))
        .order_by(Table.finished, Table.id)))
    for table in missing:
        remember_game(table, derive(table), rate=False)
    if missing:
        rebuild_ratings()
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


def rated_games() -> list[tuple[dict[str, list[int | None]], str]]:
    """Every counted game's sides and winner, in the order played."""
    games = db.session.execute(select(GAME.c.table_id, GAME.c.winner)
                               .where(GAME.c.counted.is_(True))
                               .order_by(GAME.c.played, GAME.c.table_id)).all()
    sides = _sides_of([t for t, _ in games])
    return [(sides[t], w) for t, w in games]


def rebuild_ratings() -> dict[int, ratings.Rating]:
    """Every player's rating made again from every finished game (in the caller's
    transaction): ``spies-lies ratings --rebuild``, and whenever the order changed."""
    found = ratings.rebuild(rated_games())
    changed()
    db.session.execute(update(Player).values(mu=None, sigma=None, rated=0))
    for i, r in found.items():
        db.session.execute(update(Player).where(Player.id == i)
                           .values(mu=r.mu, sigma=r.sigma, rated=r.games))
    return found


# --- the pages: a page of games, the group's statistics, a player ---------------------------

def month_range(month: str | None) -> tuple[datetime, datetime] | None:
    """The first moment of ``YYYY-MM`` and of the month after, as a clock shows them;
    ``None`` for anything else.

    >>> month_range("2026-12")
    (datetime.datetime(2026, 12, 1, 0, 0), datetime.datetime(2027, 1, 1, 0, 0))
    >>> month_range("2026-13"), month_range("2026-1"), month_range("soon")
    (None, None, None)
    >>> month_range("9999-12")[1]           # the last month there is: up to the end of time
    datetime.datetime(9999, 12, 31, 23, 59, 59, 999999)
    """
    if not month or not MONTH.fullmatch(month):
        return None
    try:
        start = datetime.strptime(month, "%Y-%m")
    except ValueError:
        return None
    try:
        end = (start + timedelta(days=32)).replace(day=1)
    except OverflowError:
        end = datetime.max
    return start, end


def wanted(args: Mapping[str, str], cookies: Mapping[str, str]) -> dict[str, Any]:
    """The history's page and filters from a request's query ``args`` (anything else is
    ignored; a player id no row can have is a player with no games, not a database error),
    and the zone whose months the month filter means (the browser's, told in a cookie:
    :mod:`companion.edge.when`). The keywords of :func:`listing`."""
    try:
        page = int(args.get("page", 1)) or 1
    except ValueError:
        page = 1
    try:
        player: int | None = int(args["player"]) if "player" in args else None
    except ValueError:
        player = None
    return {"page": max(1, min(page, ID_MAX)),
            "player": player if player is None or abs(player) <= ID_MAX else 0,
            "month": args.get("month") or None,
            "zone": zone_named(cookies.get(COOKIE)),
            "counted": args.get("apart") != "1"}


def listing(page: int = 1, player: int | None = None, month: str | None = None,
            zone: tzinfo | None = None, counted: bool = True) -> dict[str, Any]:
    """A page of finished games, newest first (``player``: only theirs; ``month``:
    ``YYYY-MM`` as the clocks of ``zone`` show it, ``None``: this computer's; ``counted``:
    the games that count, else those kept apart, :func:`counts`), with the total, the
    number of pages and how many games the other list holds (kept per version)."""
    found: dict[str, Any] = kept("listing", (page, player, month, str(zone), counted),
                                 lambda: _listing(page, player, month, zone, counted))
    return {**found, "games": list(found["games"])}


def _listing(page: int, player: int | None, month: str | None,
             zone: tzinfo | None, counted: bool) -> dict[str, Any]:
    where: list[Any] = []
    if player is not None:
        where.append(exists().where(SEAT.c.table_id == GAME.c.table_id,
                                    SEAT.c.player_id == player, seat_counts()))
    span = month_range(month)
    if span is not None:            # the month where the group lives, not in UTC
        where += [GAME.c.played >= in_utc(span[0], zone), GAME.c.played < in_utc(span[1], zone)]
    others = db.session.scalar(select(func.count()).select_from(GAME).where(
        GAME.c.counted.is_(not counted), *where)) or 0
    where.append(GAME.c.counted.is_(counted))
    total = db.session.scalar(select(func.count()).select_from(GAME).where(*where)) or 0
    pages = max(1, -(-total // PAGE))
    page = min(max(1, page), pages)
    t = cast(SATable, Table.__table__)
    rows = db.session.execute(
        select(GAME, t.c.code, t.c.teams, t.c.wall_distance, t.c.imported, t.c.chance_series,
               t.c.accepted)
        .join(t, t.c.id == GAME.c.table_id).where(*where)
        .order_by(GAME.c.played.desc(), GAME.c.table_id.desc())
        .limit(PAGE).offset((page - 1) * PAGE)).mappings().all()
    ids = [r["table_id"] for r in rows]
    seats: dict[int, dict[str, list[dict[str, Any]]]] = {i: {"red": [], "blue": []} for i in ids}
    names = dict(db.session.execute(select(Player.id, Player.name)).all()) if ids else {}
    for s in (db.session.execute(select(SEAT).where(SEAT.c.table_id.in_(ids),
                                                    SEAT.c.status == "active")
                                 .order_by(SEAT.c.part, SEAT.c.id)).mappings() if ids else ()):
        seats[s["table_id"]][s["side"]].append(
            {"id": s["player_id"], "name": names.get(s["player_id"], s["name"]),
             "part": s["part"]})
    ips = {(r.table_id, r.side): r.ip for r in db.session.execute(
        select(SIDE.c.table_id, SIDE.c.side, SIDE.c.ip).where(SIDE.c.table_id.in_(ids)))}
    games = []
    for r in rows:
        sides = seats[r["table_id"]]
        told = json.loads(r["names"]) if r["names"] else {}
        for side in SIDES:              # an imported record's players, when no seat is known
            if not sides[side] and told.get(side):
                sides[side] = [{"id": None, "name": n, "part": 0} for n in told[side]]
        games.append({
            "code": r["code"], "finished": r["played"].isoformat(timespec="minutes"),
            "teams": r["teams"], "wall_distance": r["wall_distance"],
            "imported": r["imported"], "counted": r["counted"],
            "why": None if r["counted"] else _why_apart(r["imported"], r["accepted"]),
            "sides": sides, "winner": r["winner"],
            "reason": r["reason"], "end": Msg.from_dict(json.loads(r["ending"])),
            "days": r["days"], "ip": {s: ips.get((r["table_id"], s), 0) for s in SIDES},
            "turning": _turning(r["chance_series"])})
    return {"games": games, "total": total, "page": page, "pages": pages,
            "player": player, "month": month if span else None, "counted": counted,
            "others": others}


def _why_apart(imported: bool, accepted: bool | None) -> str:
    """Why a game is kept apart: ``keeper`` (set aside), ``imported`` (from a record),
    ``pace`` (entered faster than a table plays)."""
    return "keeper" if accepted is False else "imported" if imported else "pace"


def _turning(kept: str | None) -> dict[str, Any] | None:
    """A game's biggest swing of the chance to win (issue 25), once worked out."""
    if not kept:
        return None
    turning = json.loads(kept).get("turning") or []
    if not turning:
        return None
    top = max(turning, key=lambda t: t["swing"])
    return {"step": top["step"], "toward": top["toward"], "swing": top["swing"],
            "text": stored_words(top["text"])}


def players_with_games() -> list[dict[str, Any]]:
    """The remembered players who sat at a finished game, by name (the history's filter;
    kept per version)."""
    found: list[dict[str, Any]] = kept("players", (), _players_with_games)
    return found


def _players_with_games() -> list[dict[str, Any]]:
    rows = db.session.execute(
        select(Player.id, Player.name).where(_has_counted_game())
        .order_by(Player.name, Player.id)).all()
    return [{"id": i, "name": n} for i, n in rows]


def _has_counted_game() -> Any:
    """The SQL condition of a player rated or counted in at least one counted game."""
    return exists().where(SEAT.c.player_id == Player.id, GAME.c.table_id == SEAT.c.table_id,
                          GAME.c.counted.is_(True), seat_counts())


IN_PLAY_FOR = 10.0                          # seconds a count of the tables in play is kept


def in_play() -> int:
    """Tables in play: not finished, touched lately, with someone seated (counted at
    most every 10 s: a figure for a statistics page, not for play)."""
    counted: list[float] = current_app.extensions.setdefault("companion.in_play", [0.0, 0.0])
    at, count = counted
    if at and time.monotonic() - at < IN_PLAY_FOR:
        return int(count)
    count = _count_in_play()
    counted[:] = [time.monotonic(), count]
    return int(count)


def _count_in_play() -> int:
    return db.session.scalar(select(func.count()).select_from(Table).where(
        Table.finished.is_(None), Table.updated >= now() - timedelta(days=EXPIRY_DAYS),
        exists().where(SEAT.c.table_id == Table.id, SEAT.c.status == "active"))) or 0


def group() -> dict[str, Any]:
    """The group's statistics over every finished game (SQL over the summaries, kept per
    version), players under their names now, the ratings ladder, and how many games are
    still in play."""
    return {**kept("group", (), _group), "in_play": in_play()}


def _group() -> dict[str, Any]:
    counted = GAME.c.counted.is_(True)
    games, days = db.session.execute(select(func.count(), func.sum(GAME.c.days))
                                     .where(counted)).one()
    winners = {"red": 0, "blue": 0, "draw": 0}
    winners.update(dict(db.session.execute(select(GAME.c.winner, func.count()).where(counted)
                                           .group_by(GAME.c.winner)).all()))
    reasons = dict.fromkeys(REASONS, 0)
    reasons.update(dict(db.session.execute(select(GAME.c.reason, func.count()).where(counted)
                                           .group_by(GAME.c.reason)).all()))
    sums = db.session.execute(select(*[func.coalesce(func.sum(SIDE.c[c]), 0)
                                       for c in SOLDIERS])
                              .join(GAME, GAME.c.table_id == SIDE.c.table_id)
                              .where(counted)).one()
    won = func.sum(case((SIDE.c.result == "win", 1), else_=0))
    line = {p: (n, w) for p, n, w in db.session.execute(
        select(SEAT.c.player_id, func.count(), won)
        .join(SIDE, and_(SIDE.c.table_id == SEAT.c.table_id, SIDE.c.side == SEAT.c.side))
        .join(GAME, GAME.c.table_id == SEAT.c.table_id)
        .where(counted, seat_counts(), SEAT.c.player_id.is_not(None))
        .group_by(SEAT.c.player_id))}
    seated = db.session.execute(
        select(Player.id, Player.name, Player.mu, Player.sigma, Player.rated)
        .where(or_(_has_counted_game(), exists().where(    # or sat at a game in play
            SEAT.c.player_id == Player.id, SEAT.c.status == "active",
            ~exists().where(GAME.c.table_id == SEAT.c.table_id))))).all()
    players = ladder([{"id": i, "name": n, "games": line.get(i, (0, 0))[0],
                       "wins": line.get(i, (0, 0))[1]} for i, n, *_ in seated])
    rated = [{"id": i, "name": n, **_rating(mu, sigma, k)} for i, n, mu, sigma, k in seated
             if mu is not None]
    rated.sort(key=lambda p: (-p["rating"], p["name"], p["id"]))
    return {"games": games, "winners": winners, "reasons": reasons,
            "days": round(days / games, 1) if games else None,
            "soldiers": {r: int(sums[r - 1]) for r in range(1, 11)}, "players": players,
            "ladder": rated}


def _rating(mu: float | None, sigma: float | None, games: int) -> dict[str, Any]:
    if mu is None or sigma is None:
        return {"rating": None, "mu": None, "sigma": None, "rated": 0}
    r = ratings.Rating(mu, sigma, games)
    return {"rating": ratings.shown(r), "mu": round(mu, 2), "sigma": round(sigma, 2),
            "rated": games}


def _player(player_id: int) -> Player:
    """A remembered player by id; 404 for one the server does not know (or an id no
    database row can have)."""
    who = db.session.get(Player, player_id) if 0 < player_id <= ID_MAX else None
    if who is None:
        raise ApiError(404, Msg("no such player here (forgotten, or never seen)"),
                       code="not_found")
    return who


def player(player_id: int) -> dict[str, Any]:
    """A player's statistics over every finished game (SQL over the summaries, kept per
    version) and rating; 404 for a player the server does not know."""
    found: dict[str, Any] = kept("player", (player_id,), lambda: _player_stats(player_id))
    return found


def _player_stats(player_id: int) -> dict[str, Any]:
    who = _player(player_id)
    out = new_player_stats()
    figures = ["guesses", "correct", *[f"ip_{s}" for s in SOURCES], "infiltrations", *SOLDIERS]
    rows = db.session.execute(
        select(SEAT.c.side, SIDE.c.result, GAME.c.reason, func.count(),
               *[func.sum(SIDE.c[c]) for c in figures])
        .join(SIDE, and_(SIDE.c.table_id == SEAT.c.table_id, SIDE.c.side == SEAT.c.side))
        .join(GAME, GAME.c.table_id == SEAT.c.table_id)
        .where(SEAT.c.player_id == player_id, GAME.c.counted.is_(True), seat_counts())
        .group_by(SEAT.c.side, SIDE.c.result, GAME.c.reason)).all()
    soldiers = dict.fromkeys(range(1, 11), 0)
    for side, result, reason, n, *sums in rows:
        got = dict(zip(figures, (int(x or 0) for x in sums), strict=True))
        out["games"] += n
        out[RESULT_KEY[result]] += n
        out["by_side"][side]["games"] += n
        if result == "win":
            out["by_side"][side]["wins"] += n
            out["wins_by_reason"][reason] += n
        out["guesses"] += got["guesses"]
        out["right"] += got["correct"]
        for s in SOURCES:
            out["ip"][s] += got[f"ip_{s}"]
        out["infiltrations"] += got["infiltrations"]
        for r in range(1, 11):
            soldiers[r] += got[f"s{r}"]
    me, them = SEAT.alias("me"), SEAT.alias("them")
    rivals: dict[int, dict[str, Any]] = {}
    names = dict(db.session.execute(select(Player.id, Player.name)).all())
    for rival, result, n in db.session.execute(
            select(them.c.player_id, SIDE.c.result, func.count())
            .select_from(me)
            .join(GAME, GAME.c.table_id == me.c.table_id)
            .join(them, and_(them.c.table_id == me.c.table_id, them.c.side != me.c.side,
                             seat_counts(them), them.c.player_id.is_not(None)))
            .join(SIDE, and_(SIDE.c.table_id == me.c.table_id, SIDE.c.side == me.c.side))
            .where(me.c.player_id == player_id, GAME.c.counted.is_(True), seat_counts(me))
            .group_by(them.c.player_id, SIDE.c.result)):
        h = rivals.setdefault(rival, {"id": rival, "name": names.get(rival, "?"), "games": 0,
                                      "wins": 0, "losses": 0, "draws": 0})
        h["games"] += n
        h[RESULT_KEY[result]] += n
    finish_player_stats(out, soldiers, rivals.values())
    return {**out, "name": who.name, "id": who.id,
            **_rating(who.mu, who.sigma, who.rated)}


# --- a player renames or forgets themself; deleting games ----------------------------------

def rename(key: Any, name: str) -> dict[str, Any]:
    """A player renames themself from their own phone (``key``: the player key)."""
    who = _by_key(key)
    who.name = name
    changed()
    db.session.commit()
    return {"id": who.id, "name": who.name}


def _by_key(key: Any) -> Player:
    if not isinstance(key, str) or not key:
        raise ApiError(400, Msg("the field 'player' must be this phone's player key"),
                       field="player", code="bad_field")
    who = db.session.scalar(select(Player).where(Player.key_hash == hash_secret(key)))
    if who is None:
        raise ApiError(404, Msg("this phone's player is not known here"), code="not_found")
    return who


def _drop(table: Table) -> None:
    """A table and everything of it, in the caller's transaction (ratings not remade)."""
    for model in (Event, Receipt, Game, GameSide):
        db.session.execute(delete(model).where(model.table_id == table.id))
    db.session.delete(table)              # its seats go with it


def delete_game(code: str, keeper: bool, host_key: str | None) -> None:
    """Delete a finished game and its events (by the keeper or the screen that hosted it)."""
    table = db.session.scalar(select(Table).where(Table.code == code.upper()))
    if table is None or table.finished is None:
        raise ApiError(404, Msg("no finished game with this code"), code="not_found")
    if not (keeper or (host_key and hash_secret(host_key) == table.host_hash)):
        raise ApiError(403, Msg("a game is deleted from the screen that hosted it or by the "
                                "keeper of the group's games"), code="not_host")
    _drop(table)
    db.session.flush()
    rebuild_ratings()
    db.session.commit()


def delete_imported(keeper: bool) -> int:
    """Delete every table opened from a saved record (the keeper only, in one action);
    how many went."""
    if not keeper:
        raise ApiError(403, Msg("only the keeper of the group's games can delete every imported "
                                "game"), code="not_keeper")
    found = list(db.session.scalars(select(Table).where(Table.imported.is_(True))))
    for table in found:
        _drop(table)
    db.session.flush()
    rebuild_ratings()
    db.session.commit()
    return len(found)


def delete_player(player_id: int, keeper: bool, key: str | None, games: bool = False) -> int:
    """Forget a player (by the keeper or the player's own phone): their seats in old
    games keep no name and no link to them. ``games``: the keeper also deletes every
    finished game they sat at (a stranger's made-up games gone in one step, issue 50);
    how many went."""
    who = _player(player_id)
    if games and not keeper:
        raise ApiError(403, Msg("only the keeper of the group's games can delete a player's "
                                "games"), code="not_keeper")
    if not (keeper or (key and hash_secret(key) == who.key_hash)):
        raise ApiError(403, Msg("a player is forgotten from their own phone or by the keeper "
                                "of the group's games"), code="not_host")
    found = list(db.session.scalars(select(Table).where(
        Table.finished.is_not(None), exists().where(
            SEAT.c.table_id == Table.id, SEAT.c.player_id == who.id,
            SEAT.c.status == "active")))) if games else []
    for table in found:
        _drop(table)
    db.session.execute(update(Seat).where(Seat.player_id == who.id)
                       .values(player_id=None, name="(forgotten)"))
    db.session.delete(who)
    db.session.flush()
    rebuild_ratings()
    db.session.commit()
    return len(found)


MISSING = object()      # a field the request did not send (refused as a wrong one)


def count_game(code: str, count: Any) -> dict[str, Any]:
    """The keeper's word on a finished game (``count``: true counts it, false sets it
    aside, ``None`` lets the rule decide, :func:`counts`): its summary says so and the
    ratings are made again. The caller checked the keeper key."""
    if count is not None and type(count) is not bool:
        raise ApiError(400, Msg("the field 'count' must be true, false or null"),
                       field="count", code="bad_field")
    table = db.session.scalar(select(Table).where(Table.code == str(code).upper()))
    if table is None or table.finished is None:
        raise ApiError(404, Msg("no finished game with this code"), code="not_found")
    table.accepted = count
    db.session.flush()
    counted, began = counts(table)
    db.session.execute(update(GAME).where(GAME.c.table_id == table.id)
                       .values(counted=counted, began=began))
    rebuild_ratings()
    db.session.commit()
    return {"code": table.code, "counted": counted, "accepted": count}


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
