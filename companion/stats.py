"""A group's statistics from its finished games (issue 14): plain Python, no Flask.

Each game comes in as its sides' players and the referee's replay output (RECORD.md);
only what the table saw is counted. A player at a side shares that side's game (in team
play both players of a side share its wins, IP and guesses).

>>> g = {"code": "AAAAA", "finished": "2026-11-20", "teams": False,
...      "sides": {"red": [{"id": 1, "name": "Ann"}], "blue": [{"id": 2, "name": "Bob"}]},
...      "out": {"winner": "red", "reason": "ip", "day": 3, "reveals": [],
...              "stats": {s: {"ip_identified": 2, "ip_abilities": 5, "ip_deception": 0,
...                            "infiltrations": 0} for s in ("red", "blue")}}}
>>> p = player_stats([g], 1)
>>> p["games"], p["wins"], p["by_side"]["red"], p["head_to_head"][0]["name"]
(1, 1, {'games': 1, 'wins': 1}, 'Bob')
>>> group_stats([g])["winners"]
{'red': 1, 'blue': 0, 'draw': 0}
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

SIDES = ("red", "blue")
REASONS = ("flag", "flag_cancelled", "territory", "ip", "draw")
SOURCES = ("identified", "abilities", "deception")
Game = Mapping[str, Any]


def side_tally(out: Mapping[str, Any], side: str) -> dict[str, Any]:
    """What one side did in one game: guesses (and how many were right), IP by source,
    infiltrations, and the IP each of its soldiers earned by acting (R40-R49, R50)."""
    guesses = right = 0
    soldiers: Counter[int] = Counter()
    for r in out["reveals"]:
        if r["guesser"] == side and r.get("guess") is not None:
            guesses += 1
            right += r["guess"] == r["actual"]
        if r["owner"] == side:
            for e in r["effects"]:
                if e["kind"] == "ip" and e["side"] == side and e["source"] != "identified":
                    soldiers[r["actual"]] += e["amount"]
    st = out["stats"][side]
    return {"guesses": guesses, "right": right,
            "ip": {s: st[f"ip_{s}"] for s in SOURCES}, "infiltrations": st["infiltrations"],
            "soldiers": dict(soldiers)}


def result_for(game: Game, side: str) -> str:
    """``win``, ``loss`` or ``draw`` for ``side``."""
    w = game["out"]["winner"]
    return "draw" if w == "draw" else "win" if w == side else "loss"


def seats_of(game: Game, player: int) -> list[str]:
    return [s for s in SIDES if any(p["id"] == player for p in game["sides"][s])]


def player_stats(games: Iterable[Game], player: int) -> dict[str, Any]:
    """One player's record over ``games``: games, wins and losses by side and by reason,
    guesses right, IP by source, infiltrations, the soldier that earned them most, and
    head-to-head records against each opponent."""
    out: dict[str, Any] = {
        "games": 0, "wins": 0, "losses": 0, "draws": 0,
        "by_side": {s: {"games": 0, "wins": 0} for s in SIDES},
        "wins_by_reason": dict.fromkeys(REASONS, 0), "guesses": 0, "right": 0,
        "ip": dict.fromkeys(SOURCES, 0), "infiltrations": 0, "best_soldier": None,
        "head_to_head": [], "name": None}
    soldiers: Counter[int] = Counter()
    rivals: dict[int, dict[str, Any]] = {}
    for g in games:
        for side in seats_of(g, player):
            res = result_for(g, side)
            out["games"] += 1
            out[{"win": "wins", "loss": "losses", "draw": "draws"}[res]] += 1
            out["by_side"][side]["games"] += 1
            if res == "win":
                out["by_side"][side]["wins"] += 1
                out["wins_by_reason"][g["out"]["reason"]] += 1
            t = side_tally(g["out"], side)
            out["guesses"] += t["guesses"]
            out["right"] += t["right"]
            for s in SOURCES:
                out["ip"][s] += t["ip"][s]
            out["infiltrations"] += t["infiltrations"]
            soldiers.update(t["soldiers"])
            out["name"] = next(p["name"] for p in g["sides"][side] if p["id"] == player)
            enemy = "blue" if side == "red" else "red"
            for p in g["sides"][enemy]:
                if p["id"] is None:
                    continue
                h = rivals.setdefault(p["id"], {"id": p["id"], "name": p["name"], "games": 0,
                                                "wins": 0, "losses": 0, "draws": 0})
                h["name"] = p["name"]
                h["games"] += 1
                h[{"win": "wins", "loss": "losses", "draw": "draws"}[res]] += 1
    if soldiers:
        rank, ip = max(soldiers.items(), key=lambda kv: (kv[1], kv[0]))
        out["best_soldier"] = {"rank": rank, "ip": ip}
    out["accuracy"] = round(100 * out["right"] / out["guesses"]) if out["guesses"] else None
    out["head_to_head"] = sorted(rivals.values(), key=lambda h: (-h["games"], h["name"]))
    return out


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
        o = g["out"]
        winners[o["winner"]] += 1
        reasons[o["reason"]] += 1
        days += o["day"]
        for side in SIDES:
            soldiers.update(side_tally(o, side)["soldiers"])
            for p in g["sides"][side]:
                if p["id"] is None:
                    continue
                names[p["id"]] = p["name"]
                line[p["id"]]["games"] += 1
                line[p["id"]]["wins"] += result_for(g, side) == "win"
    order = sorted(line, key=lambda i: (-line[i]["wins"], -line[i]["games"], names[i]))
    players = [{"id": i, "name": names[i], **line[i],
                "share": round(100 * line[i]["wins"] / line[i]["games"])} for i in order]
    return {"games": len(games), "winners": winners,
            "reasons": {r: reasons[r] for r in REASONS},
            "days": round(days / len(games), 1) if games else None,
            "soldiers": {r: soldiers[r] for r in range(1, 11)}, "players": players}
