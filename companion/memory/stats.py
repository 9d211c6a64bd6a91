"""A group's statistics from its finished games (issues 14, 21): plain Python, no Flask.

The database answers the pages with SQL over the kept summaries
(``companion/group/history.py``); this is the same arithmetic over a list of games, the
definition those queries are tested against. A game is its summary
(:func:`~companion.memory.summary.summarize`) and who sat at each side; a player at a
side shares that side's game (in team play both players of a side share its wins, IP
and guesses).

>>> side = {"ip": 7, "guesses": 2, "correct": 1, "ip_identified": 2, "ip_abilities": 5,
...         "ip_deception": 0, "infiltrations": 0, "soldiers": {8: 5}}
>>> g = {"summary": {"winner": "red", "reason": "ip", "days": 3,
...                  "sides": {"red": {**side, "result": "win"},
...                            "blue": {**side, "result": "loss"}}},
...      "sides": {"red": [{"id": 1, "name": "Ann"}], "blue": [{"id": 2, "name": "Bob"}]}}
>>> p = player_stats([g], 1)
>>> p["games"], p["wins"], p["by_side"]["red"], p["head_to_head"][0]["name"]
(1, 1, {'games': 1, 'wins': 1}, 'Bob')
>>> group_stats([g])["winners"], group_stats([g])["soldiers"][8]
({'red': 1, 'blue': 0, 'draw': 0}, 10)
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from .summary import REASONS, SIDES, SOURCES

Game = Mapping[str, Any]
RESULT_KEY = {"win": "wins", "loss": "losses", "draw": "draws"}


def seats_of(game: Game, player: int) -> list[str]:
    return [s for s in SIDES if any(p["id"] == player for p in game["sides"][s])]


def new_player_stats() -> dict[str, Any]:
    """A player's record before any game."""
    return {"games": 0, "wins": 0, "losses": 0, "draws": 0,
            "by_side": {s: {"games": 0, "wins": 0} for s in SIDES},
            "wins_by_reason": dict.fromkeys(REASONS, 0), "guesses": 0, "right": 0,
            "ip": dict.fromkeys(SOURCES, 0), "infiltrations": 0, "best_soldier": None,
            "head_to_head": [], "accuracy": None}


def finish_player_stats(out: dict[str, Any], soldiers: Mapping[int, int],
                        rivals: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The derived figures of a player's record: best soldier, accuracy, rivals in order."""
    best = [(ip, r) for r, ip in soldiers.items() if ip]
    if best:
        ip, rank = max(best)
        out["best_soldier"] = {"rank": rank, "ip": ip}
    out["accuracy"] = round(100 * out["right"] / out["guesses"]) if out["guesses"] else None
    out["head_to_head"] = sorted(rivals, key=lambda h: (-h["games"], h["name"], h["id"]))
    return out


def player_stats(games: Iterable[Game], player: int) -> dict[str, Any]:
    """One player's record over ``games``: games, wins and losses by side and by reason,
    guesses right, IP by source, infiltrations, the soldier that earned them most, and
    head-to-head records against each opponent."""
    out = new_player_stats()
    soldiers: Counter[int] = Counter()
    rivals: dict[int, dict[str, Any]] = {}
    for g in games:
        summary = g["summary"]
        for side in seats_of(g, player):
            t = summary["sides"][side]
            res = t["result"]
            out["games"] += 1
            out[RESULT_KEY[res]] += 1
            out["by_side"][side]["games"] += 1
            if res == "win":
                out["by_side"][side]["wins"] += 1
                out["wins_by_reason"][summary["reason"]] += 1
            out["guesses"] += t["guesses"]
            out["right"] += t["correct"]
            for s in SOURCES:
                out["ip"][s] += t[f"ip_{s}"]
            out["infiltrations"] += t["infiltrations"]
            soldiers.update({int(r): ip for r, ip in t["soldiers"].items()})
            enemy = "blue" if side == "red" else "red"
            for p in g["sides"][enemy]:
                if p["id"] is None:
                    continue
                h = rivals.setdefault(p["id"], {"id": p["id"], "name": p["name"], "games": 0,
                                                "wins": 0, "losses": 0, "draws": 0})
                h["games"] += 1
                h[RESULT_KEY[res]] += 1
    return finish_player_stats(out, soldiers, rivals.values())


def group_stats(games: Iterable[Game]) -> dict[str, Any]:
    """The whole group: games, winners by side, reasons, the soldiers that earned most,
    and a line per player (games, wins, share of wins)."""
    games = list(games)
    winners = {"red": 0, "blue": 0, "draw": 0}
    reasons: Counter[str] = Counter()
    soldiers: Counter[int] = Counter()
    names: dict[int, str] = {}
    line: dict[int, dict[str, int]] = defaultdict(lambda: {"games": 0, "wins": 0})
    days = 0
    for g in games:
        summary = g["summary"]
        winners[summary["winner"]] += 1
        reasons[summary["reason"]] += 1
        days += summary["days"]
        for side in SIDES:
            soldiers.update({int(r): ip for r, ip in summary["sides"][side]["soldiers"].items()})
            for p in g["sides"][side]:
                if p["id"] is None:
                    continue
                names[p["id"]] = p["name"]
                line[p["id"]]["games"] += 1
                line[p["id"]]["wins"] += summary["sides"][side]["result"] == "win"
    return {"games": len(games), "winners": winners,
            "reasons": {r: reasons[r] for r in REASONS},
            "days": round(days / len(games), 1) if games else None,
            "soldiers": {r: soldiers[r] for r in range(1, 11)},
            "players": ladder([{"id": i, "name": names[i], **line[i]} for i in line])}


def ladder(players: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Players in order of wins, then games, then name, each with their share of wins."""
    out = [{**p, "share": round(100 * p["wins"] / p["games"]) if p["games"] else 0}
           for p in players]
    return sorted(out, key=lambda p: (-p["wins"], -p["games"], p["name"], p["id"]))
