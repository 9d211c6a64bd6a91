"""What each screen is sent: the public view every screen shares (no secrets).

The view is the same for every viewer; who a secret belongs to is sent apart
(:func:`companion.play.tables.who`).
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from ..engine import (
    N_,
    SIDES,
    Draft,
    Msg,
    State,
    effect_words,
    join,
    listing,
    other,
    plural,
    rank,
    replay_output,
    reveal_words,
    side,
)
from ..engine.deduce import deduce_side
from ..store.models import Seat, Table, db
from .cards import known
from .states import Recent, Row, derived, event_rows, versioned_rows


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


def draft_view(table: Table, state: State) -> dict[str, Any] | None:
    """The reveal being built over several taps, and the step it waits for."""
    draft = Draft.from_dict(state, table.draft_dict())
    if draft is None:
        return None
    view = draft.view()
    view["choices"] = [{**o, "label": choice_label(o, view["owner"]),
                        "summary": choice_summary(o)} for o in view["choices"]]
    return view


# --- the words every screen shows, said once here ---------------------------------

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


def taps(state: State, out: dict[str, Any], draft: dict[str, Any] | None) -> dict[str, Any]:
    """What may be tapped now: the step, who taps it (``sides`` empty: anyone at the
    table; ``part``: in team play the part of the side) and the legal values."""
    nxt = out["next"]
    every = list(range(1, 11))
    if draft:
        t: dict[str, Any] = {"step": draft["step"], "sides": draft["sides"],
                             "part": draft["part"]}
        if draft["may_deceive"]:          # optional, for the owner, while the guess waits
            t["deceive"] = {"side": draft["owner"], "mission": draft["mission"]}
        if draft["step"] in ("guess", "actual"):
            # a guess names a rank the owner could still hold there: not exhausted, not
            # turned up this round (a rank outside them is wrong whatever the card is)
            t["ranks"] = draft["ranks"]
        else:
            t["choices"] = [o["choice"] for o in draft["choices"]]
        return t
    kind = nxt["type"]
    t = {"step": kind or "over", "sides": nxt["sides"], "part": None}
    if kind == "exhaust":
        t["count"] = nxt["count"]
        t["ranks"] = {x: sorted(state.revealed[x].values()) if state.phase == "round_end"
                      else every for x in nxt["sides"]}
    elif kind == "intel":
        t["ranks"], t["count"] = every, 4
    elif kind == "tokens":
        t["missions"] = [1, 2, 3, 4]
    elif kind == "start":
        t["starts"] = nxt["sides"] or list(SIDES)
        t["spin"] = not nxt["sides"]
    elif kind == "check":
        t["missions"] = {x: [m for m in range(1, 5) if m not in state.revealed[x]]
                         for x in nxt["sides"]}
        t["ranks"] = {x: state.hand_ranks(x) for x in nxt["sides"]}
    return t


def undo_target(table: Table, state: State, rows: list[Any] | None = None
                ) -> tuple[Msg | str, str | None, int] | None:
    """What an undo would take back now: (words, who entered it — a side, ``"reveal"``
    for a completed reveal, ``None`` for the host screen — and how many events it
    removes, 0 for a tap); ``None`` when there is nothing to undo. ``rows``: the
    table's events not undone, when the caller has read them already."""
    draft = Draft.from_dict(state, table.draft_dict())
    if draft is not None and draft.undo() is not None:
        return draft.undone, str(draft.undone_by), 0
    rows = event_rows(table) if rows is None else rows
    if not rows:
        return None
    n, last = 1, rows[-1]
    d = json.loads(last.data)
    if d["type"] == "start" and last.seat_id is None and len(rows) > 1 and state.day > 1:
        n, last = 2, rows[-2]          # R12's start goes with the tokens that set it off
        d = json.loads(last.data)
    if d["type"] == "reveal":
        return reveal_words(state.reveals[-1]), "reveal", n
    side = next((s.side for s in table.seats if s.id == last.seat_id), None)
    return event_text(d), side, n


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


def requests(table: Table) -> list[dict[str, Any]]:
    """The phones asking to take over a seat: outside the versioned view, so a flood of
    them never changes the version the players' taps carry."""
    return [seat_dict(s) for s in table.seats if s.status == "pending"]


def seat_dict(seat: Seat) -> dict[str, Any]:
    """A seat as every screen may see it (no secret)."""
    return {"id": seat.id, "side": seat.side, "part": seat.part, "name": seat.name,
            "status": seat.status, "player": seat.player_id, "screen": seat.screen}


def deduction_view(state: State) -> dict[str, Any] | None:
    """The deduction aid (issue 13): for the reveal in play, how many line-ups of the
    side being guessed fit the public information, and per mission how many of them
    put each rank there; ``None`` when no reveal is due or that side's order broke."""
    nxt = state.next_reveal()
    if nxt is None:
        return None
    guesser, mission = nxt
    d = deduce_side(state, other(guesser))
    if d is None:
        return None
    return {"side": other(guesser), "mission": mission, **d.to_dict()}


class _Said(NamedTuple):
    """What the last view of one table said: its reveals (the referee's own objects and
    their output) and its log (the event rows, their entries, the seats' names)."""

    code: str
    results: list[Any]
    reveals: list[dict[str, Any]]
    rows: list[Any]
    log: list[dict[str, Any]]
    names: dict[int, str]


# table id -> what its last view said, least recently used first (issue 15: a post's view
# narrates only its new reveal and writes only its new log lines; the rest are the same
# objects as in the view before, which also makes the delta between the two quick to find)
_said: Recent[_Said] = Recent(1024)


def _of_one_version(table: Table, state: State | None, rows: list[Row] | None
                    ) -> tuple[State, list[Row]]:
    """The state and the events not undone of one version, the table's. Read apart, they
    may be two: a post can commit between the table's read and the events' (the view then
    said "Undo: <a reveal>" of a state with no reveal, and failed; or, after an undo and a
    new event, told the newer log beside the older board). The table is read again then,
    and so are they."""
    for _ in range(3):
        version: int | None = table.version
        if state is None:
            state, rows, version = derived(table)
        elif rows is None:
            rows, version = versioned_rows(table)
        if (version is None or version == table.version) and len(rows) == state.event_count:
            return state, rows
        db.session.expire(table)             # a newer version: everything of it
        state = rows = None
    state, rows, _version = derived(table)   # (a table changing this fast: its newest)
    return state, rows


def went_on(table: Table) -> str | None:
    """The code of the table another screen went on with this game at, while nothing
    more was entered here (``Table.went_on``)."""
    said = json.loads(table.went_on) if table.went_on else None
    return said["code"] if said and said["version"] == table.version else None


def public_view(table: Table, state: State | None = None,
                rows: list[Row] | None = None) -> dict[str, Any]:
    """Everything any screen may see: no secrets, the same for every viewer. ``state``
    and ``rows`` (the events not undone): given by a change that made them, else kept
    or read."""
    state, rows = _of_one_version(table, state, rows)
    said = _said.recall(table.id)
    if said is None or said.code != table.code:
        said = _Said(table.code, [], [], [], [], {})
    # a reveal is the referee's immutable result: the same object, the same words
    n = len(said.results)
    same = [said.reveals[i] if i < n and said.results[i] is r else None
            for i, r in enumerate(state.reveals)]
    out = replay_output(state, words=True, told=same)
    reveal_text = {r["index"]: r["narration"] for r in out["reveals"]}
    names = {s.id: s.name for s in table.seats}
    log = []
    same_names = names == said.names
    for i, row in enumerate(rows):
        old = said.log[i] if same_names and i < len(said.rows) and said.rows[i] is row else None
        text = reveal_text.get(i)
        if old is not None and (text is None or old["text"] is text):
            log.append(old)          # the same row, the same words, the same names
            continue
        d = json.loads(row.data)
        log.append({"index": i, "type": d["type"], "text": text or event_text(d),
                    "by": names.get(row.seat_id) if row.seat_id else None})
    _said.keep(table.id, _Said(table.code, list(state.reveals), out["reveals"], rows, log,
                               names))
    seen: list[list[int]] = []
    for card in [*out["old_intel"], *([out["intel"]] if out["intel"] else [])]:
        if card not in seen:
            seen.append(card)
    draft = draft_view(table, state)
    can = taps(state, out, draft)
    if can["step"] == "intel":          # the box's cards seen before: one tap each
        can["cards"] = known(state.old_intel)
    view = {
        "code": table.code, "version": table.version, "teams": table.teams,
        "first_game": table.first_game, "chances": table.chances,
        "wall_distance": table.wall_distance, "state": out, "draft": draft,
        "seats": [seat_dict(s) for s in table.seats if s.status == "active"],
        "notice": notice_words(table.notice), "log": log, "seen_intel": seen,
        # where the group plays on (issue 14): each seat's new seat, so phones follow
        "rematch": json.loads(table.rematch) if table.rematch else None,
        # where another screen goes on with this game, until anything more is entered here
        "went_on": went_on(table),
        "words": words(out, draft, table.teams, out["end"], out["next"]["text"]),
        "taps": can,
    }
    stored = table.draft_dict() or {}
    # an undo that waits for the other side's phone (or the big screen) to agree
    asked = stored.get("undo") if stored.get("events") == state.event_count else None
    view["undo"] = ({"by": asked["by"], "needs": asked["needs"], "what": undo_question(asked)}
                    if asked else None)
    target = undo_target(table, state, rows)
    # what the undo button would take back now, and who entered it (a completed reveal,
    # or the other side's entry, waits for that side's phone to agree)
    view["undo_next"] = ({"what": Msg("Undo: {what}", what=target[0]), "by": target[1]}
                         if target else None)
    if table.deduction:           # opt-in: a table without the aid gets the view unchanged
        view["deduction"] = deduction_view(state)
    return view
