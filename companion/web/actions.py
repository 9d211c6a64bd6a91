"""What a seat (or the host screen) does at the table: record an event, tap a step of
the reveal being built, undo. Each runs inside a :class:`~.authority.Transaction`.
"""

from __future__ import annotations

import json
import random
from typing import Any

from ..engine import (
    RANK_NAMES,
    SIDES,
    Draft,
    Event,
    RecordError,
    Reveal,
    State,
    event_from_dict,
    expected,
    narrate_reveal,
)
from ..engine.draft import STEPS
from .authority import Transaction
from .errors import ApiError, from_refusal
from .fields import body_field
from .states import active_events, derive
from .tables import Actor
from .views import event_text, public_view

_rng = random.SystemRandom()


def _may(actor: Actor, side: str, part: int | None = None) -> bool:
    s = actor.seat
    if s is None or s.status != "active" or s.side != side:
        return False
    return part is None or s.part in (0, part)


def _need_seat(actor: Actor) -> None:
    if not actor.known:
        raise ApiError(401, "join the table first: this request carries no seat key",
                       code="no_secret")
    if actor.seat is not None and actor.seat.status != "active":
        raise ApiError(403, "this phone is waiting for the host screen to let it take the seat",
                       code="pending")


def _commit_event(tx: Transaction, actor: Actor, state: State, event: Event) -> None:
    """Record ``event`` and answer with it, its words and what comes next."""
    after = tx.record(state, event, actor.seat_id)
    text = narrate_reveal(after.reveals[-1]) if isinstance(event, Reveal) else \
        event_text(event.to_dict())
    tx.commit(201, {"event": event.to_dict(), "text": text, "next": expected(after).to_dict()})


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
        raise ApiError(400, "only an exhausted soldier or the starting side can be drawn "
                            "at random, and only when it is due", field="event",
                       code="bad_field")


def post_event(tx: Transaction, actor: Actor) -> None:
    """Record one event other than a reveal (reveals are built by :func:`post_draft`)."""
    _need_seat(actor)
    raw = tx.body.get("event")
    if not isinstance(raw, dict):
        raise ApiError(400, "the field 'event' is missing or not an object", field="event",
                       code="missing_field" if raw is None else "bad_field")
    state = derive(tx.table)
    exp = expected(state)
    raw = dict(raw)
    if raw.get("type") == "reveal":
        raise ApiError(400, "a reveal is recorded step by step (deception, guess, card, choice)",
                       field="event", code="use_draft")
    if raw.pop("random", False) is True:
        _drawn_at_random(state, raw)
    try:
        event = event_from_dict(raw)
    except RecordError as err:
        raise ApiError(400, err.reason, field="event", code=err.code) from None
    if exp.type == event.type and exp.sides:
        side = getattr(event, "side", None)
        if not any(_may(actor, s) for s in exp.sides) or (side and not _may(actor, side)):
            who = side if side in exp.sides else " or ".join(exp.sides)
            raise ApiError(403, f"this is for {who}'s phone to record: {exp.text}",
                           code="wrong_seat")
    elif exp.type == event.type and actor.seat is not None and actor.seat.status != "active":
        raise ApiError(403, "this phone is not seated", code="wrong_seat")
    _commit_event(tx, actor, state, event)


def _tap_value(step: str, body: dict[str, Any]) -> Any:
    """The value of a tap, checked for its type at the edge (the draft checks the rest)."""
    if step == "deception":
        return body_field(body, "value", bool, "true or false")
    if step == "choice":
        return body_field(body, "value", str, "one of the offered choices")
    v: int = body_field(body, "value", int, "a rank 1-10")
    if not 1 <= v <= 10:
        raise ApiError(400, "the field 'value' must be a rank 1-10", field="value",
                       code="bad_field")
    return v


def _tap_words(draft: Draft, step: str, after: Draft) -> str:
    """What a tap that records no event yet did, in words."""
    owner = draft.owner.capitalize()
    if step == "deception":
        return f"{owner} plays a deception token" if after.deception else \
            f"{owner} plays no deception token"
    if step == "guess":
        assert after.guess is not None
        return f"{draft.guesser.capitalize()} guesses {RANK_NAMES[after.guess]} ({after.guess})"
    assert after.actual is not None
    return f"{owner} turns up the {RANK_NAMES[after.actual]}: choose"


def post_draft(tx: Transaction, actor: Actor) -> None:
    """One tap of a reveal: deception, guess, the card turned up, or the owner's choice."""
    _need_seat(actor)
    table = tx.table
    state = derive(table)
    draft = Draft.from_dict(state, table.draft_dict())
    if draft is None:
        raise ApiError(409, "no reveal is due now: " + expected(state).text, code="out_of_turn",
                       view=public_view(table, state))
    step = body_field(tx.body, "step", str, "deception, guess, actual or choice")
    if step not in STEPS:
        raise ApiError(400, "the field 'step' must be deception, guess, actual or choice",
                       field="step", code="bad_field")
    if step != draft.step:
        raise ApiError(409, f"this reveal waits for the {draft.step} from {draft.side}, "
                            f"not the {step}", field="step", code="out_of_turn",
                       view=public_view(table, state))
    if not _may(actor, draft.side, draft.part if table.teams else None):
        part = f" (missions {'1-2' if draft.part == 1 else '3-4'})" if table.teams else ""
        raise ApiError(403, f"it is {draft.side}{part}'s phone that records the {step} now",
                       code="wrong_seat")
    try:
        after = draft.tap(step, _tap_value(step, tx.body))
    except RecordError as err:
        raise from_refusal(err, field="value") from None
    if isinstance(after, Reveal):
        _commit_event(tx, actor, state, after)
        return
    table.draft = json.dumps(after.to_dict())
    tx.state = state            # a tap of a reveal records no event: same game
    tx.commit(200, {"draft": after.to_dict(), "text": _tap_words(draft, step, after)})


def undo(tx: Transaction, actor: Actor) -> None:
    """Take back the last tap of a reveal in progress, else the last recorded event."""
    _need_seat(actor)
    table = tx.table
    state = derive(table)
    draft = Draft.from_dict(state, table.draft_dict())
    before = draft.undo() if draft is not None else None
    if draft is not None and before is not None:
        table.draft = json.dumps(before.to_dict())
        tx.state = state
        tx.commit(200, {"undone": draft.undone}, notice=f"{actor.name} took back {draft.undone}")
        return
    rows = active_events(table)
    if not rows:
        raise ApiError(409, "there is nothing to undo yet", code="nothing_to_undo")
    last = rows[-1]
    last.undone = True
    table.draft = None
    what = event_text(json.loads(last.data))
    if json.loads(last.data)["type"] == "reveal":
        what = narrate_reveal(state.reveals[-1])
    tx.commit(200, {"undone": what}, notice=f"{actor.name} undid: {what}")
