"""The group's history as the pages show it (issues 14, 21): a page of games (paged and
filtered by player and month, the counted ones or those apart), the group's statistics
as SQL aggregates over the summaries, whatever their number, and a player's page.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from datetime import datetime, timedelta, tzinfo
from typing import Any, cast

from flask import current_app
from sqlalchemy import Table as SATable
from sqlalchemy import and_, case, exists, func, or_, select

from ..edge.errors import ApiError
from ..edge.when import COOKIE, in_utc, zone_named
from ..engine import Msg
from ..memory import ratings
from ..memory.stats import RESULT_KEY, finish_player_stats, ladder, new_player_stats
from ..memory.summary import REASONS, SIDES, SOURCES
from ..store.models import (
    ID_MAX,
    Event,
    Player,
    Table,
    db,
    now,
)
from .games import EXPIRY_DAYS, GAME, SEAT, SIDE, kept, seat_counts
from .story import decisive_reveal

PAGE = 20               # games a history page lists


SOLDIERS = [f"s{r}" for r in range(1, 11)]
MONTH = re.compile(r"\d{4}-\d{2}")


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


def listing(group_id: int, page: int = 1, player: int | None = None,
            month: str | None = None, zone: tzinfo | None = None,
            counted: bool = True) -> dict[str, Any]:
    """A page of the group's finished games, newest first (``player``: only theirs; ``month``:
    ``YYYY-MM`` as the clocks of ``zone`` show it, ``None``: this computer's; ``counted``:
    the games that count, else those kept apart, :func:`counts`), with the total, the
    number of pages and how many games the other list holds (kept per version)."""
    found: dict[str, Any] = kept("listing", group_id, (page, player, month, str(zone), counted),
                                 lambda: _listing(group_id, page, player, month, zone, counted))
    return {**found, "games": list(found["games"])}


def _listing(group_id: int, page: int, player: int | None, month: str | None,
             zone: tzinfo | None, counted: bool) -> dict[str, Any]:
    where: list[Any] = [GAME.c.group_id == group_id]
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
        select(GAME, t.c.code, t.c.teams, t.c.wall_distance, t.c.imported, t.c.accepted)
        .join(t, t.c.id == GAME.c.table_id).where(*where)
        .order_by(GAME.c.played.desc(), GAME.c.table_id.desc())
        .limit(PAGE).offset((page - 1) * PAGE)).mappings().all()
    ids = [r["table_id"] for r in rows]
    seats: dict[int, dict[str, list[dict[str, Any]]]] = {i: {"red": [], "blue": []} for i in ids}
    names = dict(db.session.execute(select(Player.id, Player.name).where(
        Player.group_id == group_id)).all()) if ids else {}
    for s in (db.session.execute(select(SEAT).where(SEAT.c.table_id.in_(ids),
                                                    SEAT.c.status == "active")
                                 .order_by(SEAT.c.part, SEAT.c.id)).mappings() if ids else ()):
        seats[s["table_id"]][s["side"]].append(
            {"id": s["player_id"], "name": names.get(s["player_id"], s["name"]),
             "part": s["part"]})
    ips = {(r.table_id, r.side): r.ip for r in db.session.execute(
        select(SIDE.c.table_id, SIDE.c.side, SIDE.c.ip).where(SIDE.c.table_id.in_(ids)))}
    events: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
    for table_id, data in (db.session.execute(
            select(Event.table_id, Event.data).where(Event.table_id.in_(ids),
                                                     Event.undone.is_(False))
            .order_by(Event.table_id, Event.seq)) if ids else ()):
        events[table_id].append(json.loads(data))
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
            # the story's decisive reveal, the same step and words (issue 52)
            "decisive": decisive_reveal(r["wall_distance"], events[r["table_id"]])})
    return {"games": games, "total": total, "page": page, "pages": pages,
            "player": player, "month": month if span else None, "counted": counted,
            "others": others}


def _why_apart(imported: bool, accepted: bool | None) -> str:
    """Why a game is kept apart: ``keeper`` (set aside), ``imported`` (from a record),
    ``pace`` (entered faster than a table plays)."""
    return "keeper" if accepted is False else "imported" if imported else "pace"


def players_with_games(group_id: int) -> list[dict[str, Any]]:
    """The group's remembered players who sat at a finished game, by name (the history's
    filter; kept per version)."""
    found: list[dict[str, Any]] = kept("players", group_id, (),
                                       lambda: _players_with_games(group_id))
    return found


def _players_with_games(group_id: int) -> list[dict[str, Any]]:
    rows = db.session.execute(
        select(Player.id, Player.name).where(Player.group_id == group_id, _has_counted_game())
        .order_by(Player.name, Player.id)).all()
    return [{"id": i, "name": n} for i, n in rows]


def _has_counted_game() -> Any:
    """The SQL condition of a player rated or counted in at least one counted game."""
    return exists().where(SEAT.c.player_id == Player.id, GAME.c.table_id == SEAT.c.table_id,
                          GAME.c.counted.is_(True), seat_counts())


IN_PLAY_FOR = 10.0                          # seconds a count of the tables in play is kept


def in_play(group_id: int) -> int:
    """The group's tables in play: not finished, touched lately, with someone seated
    (counted at most every 10 s: a figure for a statistics page, not for play)."""
    every: dict[int, tuple[float, int]] = current_app.extensions.setdefault(
        "companion.in_play", {})
    at, count = every.get(group_id, (0.0, 0))
    if at and time.monotonic() - at < IN_PLAY_FOR:
        return count
    count = _count_in_play(group_id)
    if len(every) > 10_000:         # (a server of many groups: the oldest counts go)
        every.clear()
    every[group_id] = (time.monotonic(), count)
    return count


def _count_in_play(group_id: int) -> int:
    return db.session.scalar(select(func.count()).select_from(Table).where(
        Table.group_id == group_id, Table.finished.is_(None), Table.practice.is_(False),
        Table.updated >= now() - timedelta(days=EXPIRY_DAYS),
        exists().where(SEAT.c.table_id == Table.id, SEAT.c.status == "active"))) or 0


def group(group_id: int) -> dict[str, Any]:
    """The group's statistics over every finished game (SQL over the summaries, kept per
    version), players under their names now, the ratings ladder, and how many games are
    still in play."""
    return {**kept("group", group_id, (), lambda: _group(group_id)),
            "in_play": in_play(group_id)}


def _group(group_id: int) -> dict[str, Any]:
    counted = and_(GAME.c.group_id == group_id, GAME.c.counted.is_(True))
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
        .where(Player.group_id == group_id, or_(_has_counted_game(), exists().where(
            # or sat at a game in play
            SEAT.c.player_id == Player.id, SEAT.c.status == "active",
            ~exists().where(GAME.c.table_id == SEAT.c.table_id),
            # (not the practice round's: it is never counted, issue 53)
            ~exists().where(Table.id == SEAT.c.table_id, Table.practice.is_(True)))))).all()
    players = ladder([{"id": i, "name": n, "games": line.get(i, (0, 0))[0],
                       "wins": line.get(i, (0, 0))[1]} for i, n, *_ in seated])
    rated = [{"id": i, "name": n, **_rating(mu, sigma, k)} for i, n, mu, sigma, k in seated
             if mu is not None]
    # the settled first, then those still provisional, each by their figure
    rated.sort(key=lambda p: (p["provisional"], -p["rating"], p["name"], p["id"]))
    return {"games": games, "winners": winners, "reasons": reasons,
            "days": round(days / games, 1) if games else None,
            "soldiers": {r: int(sums[r - 1]) for r in range(1, 11)}, "players": players,
            "ladder": rated}


def _rating(mu: float | None, sigma: float | None, games: int) -> dict[str, Any]:
    if mu is None or sigma is None:
        return {"rating": None, "provisional": True, "mu": None, "sigma": None, "rated": 0}
    r = ratings.Rating(mu, sigma, games)
    return {"rating": ratings.shown(r), "provisional": ratings.provisional(r),
            "mu": round(mu, 2), "sigma": round(sigma, 2),
            "rated": games}


def find_player(player_id: int, group_id: int) -> Player:
    """A player the group remembers, by id; 404 for one it does not know (another
    group's, or an id no database row can have: the same answer)."""
    who = db.session.get(Player, player_id) if 0 < player_id <= ID_MAX else None
    if who is None or who.group_id != group_id:
        raise ApiError(404, Msg("no such player here (forgotten, or never seen)"),
                       code="not_found")
    return who


def player(player_id: int, group_id: int) -> dict[str, Any]:
    """A player's statistics over the group's finished games (SQL over the summaries,
    kept per version) and rating; 404 for a player the group does not know."""
    found: dict[str, Any] = kept("player", group_id, (player_id,),
                                 lambda: _player_stats(player_id, group_id))
    return found


def _player_stats(player_id: int, group_id: int) -> dict[str, Any]:
    who = find_player(player_id, group_id)
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
    names = dict(db.session.execute(select(Player.id, Player.name)
                                    .where(Player.group_id == group_id)).all())
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
