"""What a seat (or the host screen) does at the table: record an event, tap a step of
the reveal being built, undo. Each runs inside a :class:`~.authority.Transaction`.
"""

from __future__ import annotations

import json
import random
from typing import Any

from ..edge.errors import ApiError, from_refusal
from ..engine import (
    SIDES,
    Check,
    Draft,
    Event,
    Msg,
    RecordError,
    Reveal,
    Side,
    Start,
    State,
    event_from_dict,
    expected,
    rank,
    reveal_words,
)
from ..engine import side as side_word
from ..engine.draft import STEP_WORDS
from ..table import practice
from ..table.states import active_events, derive, event_rows
from ..table.taught import players_of
from ..table.views import public_view, undo_target
from ..table.words import event_text, stored_words, undo_question
from .authority import Transaction
from .tables import Actor

_rng = random.SystemRandom()


def _may(actor: Actor, side: str, part: int | None = None) -> bool:
    """Whether ``actor`` enters for ``side``: its phone's seat, or a side on the big screen."""
    return actor.acting(side, part) is not None


def _need_seat(actor: Actor) -> None:
    if not actor.known:
        raise ApiError(401, Msg("join the table first: this request carries no seat key"),
                       code="no_secret")
    if actor.seat is not None and actor.seat.status != "active":
        raise ApiError(403, Msg("this phone is waiting for the host screen to let it take the "
                                "seat"),
                       code="pending")


def _commit_event(tx: Transaction, seat_id: int | None, state: State, event: Event) -> None:
    """Record ``event`` (entered for the seat ``seat_id``; ``None``: the host screen for
    nobody's side) and answer with it, its words and what comes next.

    On days 2 and 3 the starting side is no one's choice (R12): once both sides'
    tokens are in, its ``start`` is recorded with them, and nobody taps for it. So is
    the capture check of a side whose four cards are all face up already (R71: the
    check is empty then; issue 52 asked for a tap that confirmed nothing).
    """
    after = tx.record(state, event, seat_id)
    text = reveal_words(after.reveals[-1]) if isinstance(event, Reveal) else \
        event_text(event.to_dict())
    nxt = expected(after)
    answer: dict[str, Any] = {"event": event.to_dict()}
    if nxt.type == "start" and nxt.sides:
        start = Start(nxt.sides[0])
        after = tx.record(after, start, None, follows=True)
        text = Msg("{first}. {next}", first=text, next=event_text(start.to_dict()))
        nxt = expected(after)
        answer["followed"] = [start.to_dict()]    # recorded with it, by the rules (R12)
    elif nxt.type == "check" and len(after.revealed[nxt.sides[0]]) == 4:
        check = Check(nxt.sides[0])               # nothing face down: nothing to turn up
        after = tx.record(after, check, None, follows=True)
        nxt = expected(after)
        answer["followed"] = [check.to_dict()]    # recorded with it, by the rules (R71)
    tx.commit(201, {**answer, "text": text,
                    "next": {**nxt.to_dict(), "text": nxt.words}})


def _drawn_at_random(state: State, raw: dict[str, Any]) -> None:
    """Fill in an exhausted soldier or the starting side drawn by the server."""
    exp = expected(state)
    if raw.get("type") == "exhaust" and raw.get("side") in exp.count:
        side = raw["side"]
        pool = (sorted(state.revealed[side].values()) if state.phase == "round_end"
                else list(range(1, 11)))
        raw["ranks"] = _rng.sample(pool, exp.count[side])
    elif raw.get("type") == "start" and exp.type == "start" and not exp.sides:
        raw["side"] = _rng.choice(SIDES)
    else:
        raise ApiError(400, Msg("only an exhausted soldier or the starting side can be drawn "
                            "at random, and only when it is due"), field="event",
                       code="bad_field")


def _done(table: Any) -> list[dict[str, Any]]:
    """A practice table's events so far, as the script writes them (the rows kept with
    the state this request derived: no second read of the table's events)."""
    return [json.loads(r.data) for r in event_rows(table)]


def _off_script(why: Msg | None, table: Any, state: State) -> None:
    """A practice table takes the script's next step only (issue 53): anything else is
    refused, with the view, so the screen shows again what to tap."""
    if why is not None:
        raise ApiError(409, why, field="event", code="practice",
                       view=public_view(table, state))


def post_event(tx: Transaction, actor: Actor) -> None:
    """Record one event other than a reveal (reveals are built by :func:`post_draft`)."""
    _need_seat(actor)
    raw: dict[str, Any] = tx.fields()["event"]
    state = derive(tx.table)
    exp = expected(state)
    raw = dict(raw)
    if raw.get("type") == "reveal":
        raise ApiError(400, Msg("a reveal is recorded step by step (deception, guess, card, "
                                "choice)"),
                       field="event", code="use_draft")
    done = _done(tx.table) if tx.table.practice else None
    if raw.pop("random", False) is True:
        if done is not None:        # nothing is drawn at random there: the script says
            scripted = practice.drawn(done, raw)
            if scripted is None:
                _off_script(practice.refusal(done, raw), tx.table, state)
            raw = scripted or raw
        else:
            _drawn_at_random(state, raw)
    try:
        event = event_from_dict(raw)
    except RecordError as err:
        raise ApiError(400, err.msg, field="event", code=err.code) from None
    if done is not None:
        _off_script(practice.refusal(done, json.loads(json.dumps(event.to_dict()))),
                    tx.table, state)
    if exp.type == event.type and exp.sides:
        side = getattr(event, "side", None)
        if not any(_may(actor, s) for s in exp.sides) or (side and not _may(actor, side)):
            who = side if side in exp.sides else " or ".join(exp.sides)
            raise ApiError(403, Msg("this is for {who}'s phone to record: {what}", who=who,
                                    what=exp.words),
                           code="wrong_seat")
    elif exp.type == event.type and actor.seat is not None and actor.seat.status != "active":
        raise ApiError(403, Msg("this phone is not seated"), code="wrong_seat")
    side = getattr(event, "side", None)
    entered = actor.acting(side) if side else actor.seat
    _commit_event(tx, entered.id if entered is not None else None, state, event)


def _tap_words(draft: Draft, step: str, after: Draft) -> Msg:
    """What a tap that records no event yet did, in words."""
    owner = side_word(draft.owner)
    if step == "deception":
        return (Msg("{owner!c} plays a deception token on mission {mission}", owner=owner,
                    mission=draft.mission) if after.deception
                else Msg("{owner!c} takes its deception token back", owner=owner))
    if step == "guess":
        assert after.guess is not None
        return Msg("{guesser!c} guesses {name} ({r})", guesser=side_word(draft.guesser),
                   name=rank(after.guess), r=after.guess)
    assert after.actual is not None
    return Msg("{owner!c}'s {name} is activated: {owner} chooses", owner=owner,
               name=rank(after.actual))


def post_draft(tx: Transaction, actor: Actor) -> None:
    """One tap of a reveal: the guess, the card turned up (either side's phone), the
    owner's choice, or the owner's deception token while the guess is awaited."""
    _need_seat(actor)
    table = tx.table
    state = derive(table)
    draft = Draft.from_dict(state, table.draft_dict())
    if draft is None:
        raise ApiError(409, Msg("no reveal is due now: {expecting}",
                                expecting=expected(state).words), code="out_of_turn",
                       view=public_view(table, state))
    step: str = tx.fields()["step"]          # and its value, as companion.api.bodies says
    sides = draft.may_tap(step)
    if not sides:
        wait = (Msg("this reveal waits for the {step} from {side}",
                    step=Msg(STEP_WORDS[draft.step]), side=side_word(draft.side))
                if step != "deception"
                else Msg("no deception token now: {side} has guessed already",
                         side=side_word(draft.guesser)))
        raise ApiError(409, wait, field="step", code="out_of_turn",
                       view=public_view(table, state))
    part = draft.part if table.teams else None
    if not any(_may(actor, side, part) for side in sides):
        names: list[Msg] = [
            Msg("{side} (missions {part})", side=side_word(x),
                part="1-2" if draft.part == 1 else "3-4") if table.teams else side_word(x)
            for x in sides]
        who: Any = names[0]
        for x in names[1:]:
            who = Msg("{first} or {last}", first=who, last=x)
        raise ApiError(403, Msg("it is {who}'s phone that records the {step} now", who=who,
                                step=Msg(STEP_WORDS[step])), code="wrong_seat")
    # the seat it is tapped for: a phone's own, or the first of the sides the step is
    # open to that sits on the big screen
    entered = next(x for x in (actor.acting(side, part) for side in sides) if x is not None)
    if table.practice:
        _off_script(practice.tap_refusal(_done(table), step, tx.fields()["value"]), table,
                    state)
    try:
        after = draft.tap(step, tx.fields()["value"], by=Side(entered.side))
    except RecordError as err:
        raise from_refusal(err, field="value") from None
    if isinstance(after, Reveal):
        _commit_event(tx, entered.id, state, after)
        return
    tx.set_draft(json.dumps(after.to_dict()))
    tx.state = state            # a tap of a reveal records no event: same game
    tx.commit(200, {"draft": after.to_dict(), "text": _tap_words(draft, step, after)})


def _mine(actor: Actor) -> set[str]:
    """The sides ``actor`` enters for: its phone's, or those on the big screen (every
    side for a host screen nobody sits on: it referees, as before issue 23)."""
    if actor.seat is not None:
        return {actor.seat.side}
    return (actor.screen_sides or set(SIDES)) if actor.host else set()


def _needs_yes(actor: Actor, by: str | None) -> str | None:
    """The side whose phone must agree before ``actor`` undoes what ``by`` entered: a
    completed reveal (the card was seen) or anything the other side entered. A screen
    both sides sit on asks its own second tap instead (issue 23)."""
    mine = _mine(actor)
    if by == "reveal" or (by is not None and by not in mine):
        return next((x for x in SIDES if x not in mine), None)
    return None


def undo(tx: Transaction, actor: Actor) -> None:
    """Take back the last tap of a reveal in progress, else the last recorded event.

    A completed reveal, or anything the other side entered, is undone only when the
    other side's phone (or the host screen) agrees: ``{"confirm": true}`` from it
    answers the pending request, ``false`` refuses it. Anything else recorded since
    the request drops it.
    """
    _need_seat(actor)
    table = tx.table
    state = derive(table)
    target = undo_target(table, state)
    if target is None:
        raise ApiError(409, Msg("there is nothing to undo yet"), code="nothing_to_undo")
    what, by, n = target
    stored = table.draft_dict() or {}
    asked = stored.get("undo") if stored.get("events") == state.event_count else None
    confirm = tx.fields().get("confirm")
    if confirm is not None:
        if not asked:
            raise ApiError(409, Msg("no undo is waiting for an answer"), code="nothing_to_undo")
        if asked["needs"] not in _mine(actor):
            raise ApiError(403, Msg("{side}'s phone or the big screen answers this undo",
                                    side=side_word(asked["needs"])), code="wrong_seat")
        if not confirm:
            tx.set_draft(json.dumps({k: v for k, v in stored.items() if k != "undo"}))
            tx.state = state
            tx.commit(200, {"undone": None},
                      notice=Msg("{name} kept it: {what}", name=actor.name,
                                 what=stored_words(asked["thing"]) if "thing" in asked
                                 else undo_question(asked)))
            return
    else:
        needs = _needs_yes(actor, by)
        if needs is not None:
            tx.set_draft(json.dumps({**stored, "events": state.event_count,
                                      "undo": {"by": next(iter(_mine(actor))),
                                               "needs": needs,
                                               # what it takes back (views.py says
                                               # "Undo: …"; "kept it: …" if refused)
                                               "thing": what.to_dict() if isinstance(what, Msg)
                                               else what}}))
            tx.state = state
            tx.commit(200, {"undone": None, "asked": needs},
                      notice=Msg("{name} asks to undo — {what} ({side}'s phone must agree)",
                                 name=actor.name, what=what, side=side_word(needs)))
            return
    if n == 0:                                      # one tap of the reveal in progress
        draft = Draft.from_dict(state, table.draft_dict())
        assert draft is not None
        before = draft.undo()
        assert before is not None
        tx.set_draft(json.dumps(before.to_dict()))
        tx.state = state
        tx.commit(200, {"undone": what}, notice=Msg("{name} took back {what}", name=actor.name,
                                                    what=what))
        return
    for row in active_events(table)[-n:]:
        row.undone = True
    tx.set_draft(None)
    tx.unfinish = True                            # an end undone leaves the history
    tx.commit(200, {"undone": what}, notice=Msg("{name} undid: {what}", name=actor.name,
                                                what=what))


def teach_again(tx: Transaction, actor: Actor) -> None:
    """"Teach again" (issue 53): the players seated here forget the lessons they were
    taught, and this game's lessons count anew from its step now, so each comes back at
    its next moment; a table that was not a learning game becomes one. The big screen or
    a seated phone asks it."""
    _need_seat(actor)
    table = tx.table
    state = derive(table)
    for player in players_of(table).values():
        player.taught = None
    tx.state = state
    tx.commit(200, {"lessons_from": state.event_count},
              notice=Msg("Teach again: each rule is explained again when it next matters"),
              also={"first_game": True, "lessons_from": state.event_count})
