"""The intel cards a group remembers (issues 11, 54): one tap for a card seen before.

The box holds six intel cards and every game draws three of them, so after a game or
two every card a group turns up has been seen. A card is learnt when a round played
with it ends (its eighth reveal, or a flag capture or infiltration that ends the game),
so a card mistapped and undone during the intel step is never offered again. Each group
learns its own; a table of no group learns and offers none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from sqlalchemy import select
from sqlalchemy.dialects import sqlite

from ..engine import Phase, State
from ..store.models import IntelCard, db, now
from ..store.prepared import alone

SHOWN = 6          # the box's intel cards: more than six is a slip learnt in an old game


def key(ranks: Sequence[int]) -> str:
    """A card's stored key: its ranks in order.

    >>> key((8, 1, 6, 3))
    '1-3-6-8'
    """
    return "-".join(str(r) for r in sorted(ranks))


def counted(cards: Iterable[Sequence[int]], group_id: int | None) -> dict[str, int]:
    """The cards a change teaches its group, by stored key, each with how many times it
    is seen again (none for a table of no group): what :func:`learn` writes on SQLite, and
    the change's one statement on PostgreSQL (:mod:`..play.written`)."""
    if group_id is None:
        return {}
    return dict(Counter(key(c) for c in cards))


def learn(counts: Mapping[str, int], group_id: int | None) -> None:
    """Count each card for the group, an upsert each, in the caller's transaction (two
    tables ending a round with the same card at the same moment both count it). SQLite
    only: on PostgreSQL the change's one statement counts them."""
    for ranks, seen in counts.items():
        stmt = sqlite.insert(IntelCard).values(group_id=group_id, ranks=ranks, seen=seen,
                                               last=now())
        db.session.execute(stmt.on_conflict_do_update(
            index_elements=[IntelCard.group_id, IntelCard.ranks],
            set_={"seen": IntelCard.seen + stmt.excluded.seen, "last": stmt.excluded.last}))


def ended_round(before: State, after: State) -> list[tuple[int, ...]]:
    """The intel card of a round that ``after`` ends (its reveals are over), if any."""
    if before.phase == Phase.MISSION and after.phase != Phase.MISSION and before.intel:
        return [before.intel]
    return []


def played(state: State) -> list[tuple[int, ...]]:
    """The cards of every round of a game that ended (an imported game)."""
    done = state.phase not in (Phase.INTEL, Phase.MISSION)
    return [*state.old_intel, *([state.intel] if done and state.intel else [])]


def known(used: Iterable[Sequence[int]], group_id: int | None) -> list[list[int]]:
    """The group's cards to offer: the most often seen first, without those this game
    has used (they lie on the old-intel pile)."""
    if group_id is None:
        return []
    gone = {key(c) for c in used}
    # read alone (:func:`alone`): read while a change is judged, before its one statement
    # writes it, this read opens no transaction, so that statement still commits itself
    # (issue 54: an intel step's view cost its change a BEGIN and a COMMIT more)
    with alone(db.session.connection()):
        rows = db.session.execute(select(IntelCard.ranks).where(
            IntelCard.group_id == group_id, IntelCard.seen > 0)
            .order_by(IntelCard.seen.desc(), IntelCard.last.desc(), IntelCard.ranks)
            .limit(SHOWN + len(gone))).scalars().all()
    return [[int(r) for r in k.split("-")] for k in rows if k not in gone][:SHOWN]
