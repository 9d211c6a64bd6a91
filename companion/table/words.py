"""The words of a table's view, as messages (:class:`Msg`) each screen renders in its own
language: an event's line in the log, the double agent's place, a winner and its reason,
an ability's choices and effects, what the table waits for, words kept in the database.
"""

from __future__ import annotations

import json
from typing import Any

from ..engine import (
    N_,
    Msg,
    effect_words,
    join,
    listing,
    plural,
    rank,
    side,
)


def event_text(d: dict[str, Any]) -> Msg | str:
    """Words for a recorded event other than a reveal (reveals are narrated)."""
    t = d["type"]
    if t == "exhaust":
        return Msg("{side!c}'s exhausted soldier: {names}", side=side(d["side"]),
                   names=join([rank(r) for r in d["ranks"]]))
    if t == "intel":
        return Msg("Intel card: {cards}", cards=listing(
            [Msg("{r} {name}", r=r, name=rank(r)) for r in d["ranks"]]))
    if t == "tokens":
        return Msg("{side!c}'s intel tokens on missions: {missions}", side=side(d["side"]),
                   missions=", ".join(str(m) for m in d["missions"]) or Msg("none"))
    if t == "start":
        return Msg("{side!c} starts the day", side=side(d["side"]))
    if t == "check":
        cards = listing([Msg("mission {m}: {name}", m=m, name=rank(r))
                         for m, r in d["ranks"].items()])
        return Msg("{side!c} turns up its face-down cards: {cards}", side=side(d["side"]),
                   cards=cards or Msg("none left"))
    return str(t)


RANK_WORDS = {str(r): rank(r) for r in range(1, 11)}

REASON_WORDS = {"flag": Msg("flag captured"),
                "flag_cancelled": Msg("flag capture cancelled (cards out of order)"),
                "territory": Msg("double agent's territory after day 3"),
                "ip": Msg("more IP after day 3"), "draw": Msg("equal after day 3")}

_DRAFT_WAIT = {"guess": N_("Waiting for {side} to guess."),
               "actual": N_("Waiting for {side} to tap the rank turned up."),
               "choice": N_("Waiting for {side} to choose.")}
_DRAFT_WAIT_PART = {"guess": N_("Waiting for {side} ({part}) to guess."),
                    "actual": N_("Waiting for {side} ({part}) to tap the rank turned up."),
                    "choice": N_("Waiting for {side} ({part}) to choose.")}
PART_WORDS = {1: Msg("missions 1–2"), 2: Msg("missions 3–4")}


def da_words(da: int, wall: int = 99) -> Msg:
    """Where the double agent stands: "at the centre", "2 toward blue", or past the
    wall (R70) "on blue's flag"."""
    if da == 0:
        return Msg("at the centre")
    toward = side("red" if da < 0 else "blue")
    if abs(da) > wall:
        return Msg("on {side}'s flag", side=toward)
    return Msg("{n} toward {side}", n=abs(da), side=toward)


def da_short(da: int, wall: int = 99) -> Msg:
    """The same in a phone's score line: "centre", "2 blue", "blue flag"."""
    if da == 0:
        return Msg("centre")
    toward = side("red" if da < 0 else "blue")
    if abs(da) > wall:
        return Msg("{side} flag", side=toward)
    return Msg("{n} {side}", n=abs(da), side=toward)


def winner_words(winner: str | None) -> Msg | None:
    """The heading of the end: "A draw", "Red wins" (``None`` while the game goes on)."""
    if winner is None:
        return None
    return Msg("A draw") if winner == "draw" else Msg("{side!c} wins", side=side(winner))


def _side_ip(o: dict[str, Any], x: str) -> Msg:
    """A side's IP as the choice leaves them, from where they stand now: "red 4 → 9 IP"
    (never a bare "−7" beside a "+6": issue 22), "red 4 → 10 → 0 IP (infiltrates)"."""
    after, change = o["ip"][x], o["ip_change"][x]
    if any(e["kind"] == "infiltrate" and e["side"] == x for e in o.get("effects", ())):
        return Msg("{side} {before} → 10 → {after} IP (infiltrates)", side=side(x),
                   before=after - change, after=after)
    if change:
        return Msg("{side} {before} → {after} IP", side=side(x), before=after - change,
                   after=after)
    return Msg("{side} {n} IP", side=side(x), n=after)


def choice_summary(o: dict[str, Any]) -> Msg:
    """What a choice (or the calculator's option) leaves: IP, the double agent, a winner."""
    moved = o["da_change"]
    toward: Msg | str = Msg(" ({n} toward {side})", n=abs(moved),
                            side=side("red" if moved < 0 else "blue")) if moved else ""
    text = Msg("Then {red} · {blue} · DA {da}{toward}", red=_side_ip(o, "red"),
               blue=_side_ip(o, "blue"), da=da_words(o["da"]), toward=toward)
    if o.get("winner"):
        win = Msg("a draw") if o["winner"] == "draw" else Msg("{side!c} wins",
                                                               side=side(o["winner"]))
        text = Msg("{text} · {winner}", text=text, winner=win)
    return text


_GAIN = {1: Msg("+1 IP and a deception token"), 2: Msg("+{n} IP", n=2),
         3: Msg("+{n} IP", n=3), 4: Msg("+{n} IP", n=4), 5: Msg("double agent 1 step"),
         7: Msg("the Bomb's effect"), 8: Msg("+{n} IP", n=8), 9: Msg("double agent 2 steps")}


def choice_label(o: dict[str, Any], own: str) -> Msg:
    """What a Captain's or Marshal's choice does, said before it is tapped: the gain,
    an infiltration with the double agent's move, or that it fizzles (R45, R49)."""
    parts = str(o["choice"]).split(":")
    effects = o["effects"]
    what: Msg
    if parts == ["ip"]:
        what = Msg("+{n} IP", n=next((e["amount"] for e in effects if e["kind"] == "ip"), 0))
    elif parts == ["drain"]:
        what = Msg("+5 IP and the enemy −5 IP")
    else:
        n = int(parts[1])
        then = {"ip": Msg(" (+10 IP)"), "drain": Msg(" (+5 IP, enemy −5 IP)")}.get(
            parts[2] if len(parts) > 2 else "",
            Msg(" ({gain})", gain=_GAIN[n]) if n in _GAIN else "")
        what = Msg("Use the exhausted {name}{then}", name=rank(n), then=then)
    fizzle = next((e for e in effects if e["kind"] == "fizzle"), None)
    if fizzle is not None:
        if fizzle["by"] == "R40":
            return Msg("{what}: fizzles, the enemy Spy is in play, nothing gained",
                       what=what)
        return Msg("{what}: fizzles, the enemy Miner is in play, nothing gained",
                   what=what)
    if any(e["kind"] == "infiltrate" and e["side"] == own for e in effects):
        moved = sum(e["steps"] for e in effects if e["kind"] == "da" and e["side"] == own)
        what = Msg("{what}: {side} reaches 10 and infiltrates, double agent {steps} toward "
                   "{enemy}", what=what, side=side(own),
                   steps=plural("{n} step", "{n} steps", moved),
                   enemy=side("blue" if own == "red" else "red"))
    if o.get("winner") and o["winner"] != "draw":
        what = Msg("{what} — {side} wins", what=what, side=side(o["winner"]))
    return what


def effect_list(effects: list[dict[str, Any]]) -> Msg:
    """The effects of an activation in the narration's words, or "no effect"."""
    words = [w for w in (effect_words(e) for e in effects) if w]
    if not words:
        return Msg("no effect")
    out = words[0]
    for w in words[1:]:
        out = Msg("{first}; {next}", first=out, next=w)
    return out


def next_words(out: dict[str, Any], draft: dict[str, Any] | None, end: Msg | None,
               nxt: Msg | None) -> Msg | str:
    """What the table waits for, in words, including the step of a reveal being built."""
    if out["end"] and out["phase"] != "capture_check":
        return end or ""
    if not draft:
        return nxt or ""
    d = draft
    owner, guesser, m = side(d["owner"]), side(d["guesser"]), d["mission"]
    if d["step"] == "guess":
        step = Msg("{guesser!c}: guess {owner}'s mission {mission}", guesser=guesser,
                   owner=owner, mission=m)
    elif d["step"] == "actual" and not d["guess_needed"]:
        step = Msg("{owner!c}'s mission {mission} counts as identified: "
                   "tap the rank turned up", owner=owner, mission=m)
    elif d["step"] == "actual":
        step = Msg("Turn up {owner}'s mission {mission} ({guesser!c} guessed {name})",
                   owner=owner, mission=m, guesser=guesser, name=rank(d["guess"]))
    else:
        step = Msg("{owner!c}: choose what the {name} does", owner=owner, name=rank(d["actual"]))
    if d["deception"]:
        step = Msg("{step} · deception token played", step=step)
    return step


def words(out: dict[str, Any], draft: dict[str, Any] | None, teams: bool,
          end: Msg | None = None, nxt: Msg | None = None) -> dict[str, Any]:
    """The words the screens show about the game as it stands."""
    waiting, over = None, out["phase"] == "over"
    if draft:
        step, who = draft["step"], side(draft["side"])
        if teams:
            key = _DRAFT_WAIT_PART[step]
            waiting = Msg(key, side=who, part=PART_WORDS[draft["part"]])
        else:
            key = _DRAFT_WAIT[step]
            waiting = Msg(key, side=who)
    wall = out["wall_distance"]
    return {"da": da_words(out["da"], wall), "da_short": da_short(out["da"], wall),
            "winner": winner_words(out["winner"]) if over else None,
            "reason": REASON_WORDS.get(out["reason"]) if over else None,
            "next": next_words(out, draft, end, nxt), "waiting": waiting, "ranks": RANK_WORDS}


def undo_question(asked: dict[str, Any]) -> Msg | str:
    """ "Undo: …" for an undo waiting for an answer, from what it takes back (rows from
    before issue 22 kept the question itself)."""
    if "thing" in asked:
        return Msg("Undo: {what}", what=stored_words(asked["thing"]))
    return stored_words(asked["what"])


def stored_words(stored: Any) -> Msg | str:
    """Words kept in the database (a notice, an undo's question): a message as its dict
    (:meth:`Msg.to_dict`), so each screen reads it in its own language; older rows hold
    English text."""
    if isinstance(stored, dict) and "key" in stored:
        return Msg.from_dict(stored)
    if isinstance(stored, str) and stored.startswith('{"key"'):
        try:
            return Msg.from_dict(json.loads(stored))
        except (ValueError, KeyError, TypeError):
            return stored
    return "" if stored is None else str(stored)


def notice_words(notice: str | None) -> Msg | str | None:
    """The table's notice (stored as a message's JSON) as words to render."""
    return None if notice is None else stored_words(notice)
