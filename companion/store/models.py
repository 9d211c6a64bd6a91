"""The tables of the companion: a table (one game), its seats, its events.

The game state is never stored: it is always ``replay(options, events)`` over
the events that are not undone. A table's ``version`` only grows; every event,
draft step, undo and seat change increments it.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import (
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# set in ``app.extensions`` when an app is being dropped (``live.close``): work it started
# in the background writes nothing to its database any more
CLOSED = "companion.closed"
_background = threading.Lock()


@contextmanager
def in_background(app: Any) -> Iterator[bool]:
    """Background work reads or writes ``app``'s database inside this (``True``: the app
    is still open). :func:`close_background` waits for it: a connection checked out
    while the app's engine is disposed would be left open to the garbage collector."""
    with _background:
        yield not app.extensions.get(CLOSED)


def close_background(app: Any) -> None:
    """Mark ``app`` dropped, once no background work is using its database."""
    app.extensions[CLOSED] = True
    with _background:
        pass

# the group of a LAN install (migration 0016): every row from before the groups is its
DEFAULT_GROUP = 1

# no row's id is larger (PostgreSQL's integer; SQLite's go to 2**63): a larger id from
# an address or a body is a row that does not exist, never a database error
ID_MAX = 2**31 - 1


class Base(DeclarativeBase):
    """Typed declarative models (SQLAlchemy 2): columns are checked by mypy."""


db = SQLAlchemy(model_class=Base)

# No 0/O, 1/I/L, 2/Z, 5/S, 8/B: a code read off a TV is typed without doubt.
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
CODE_LENGTH = 5


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def new_secret() -> str:
    """A secret of 256 bits for a seat or a host screen."""
    return secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    """Only this SHA-256 hash of a secret is stored."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class Group(Base):
    """A group (issue 54): a private space of players, finished games, ratings, learnt
    intel cards and a keeper key. The default group (``DEFAULT_GROUP``, no link) is the
    server's plain address on a LAN; another group is reached by its link, whose secret
    only the group holds (its hash is kept here), as is its keeper key's."""

    __tablename__ = "play_group"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(60))
    link_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    keeper_hash: Mapped[str | None] = mapped_column(String(64))
    created: Mapped[datetime | None] = mapped_column(DateTime, default=now)


class Table(Base):
    """One game at one physical table."""

    __tablename__ = "table"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(12), unique=True, index=True)
    wall_distance: Mapped[int] = mapped_column(Integer, default=4)
    teams: Mapped[bool] = mapped_column(Boolean, default=False)
    # opt-in thinking aid (issue 13): the view carries the deduction for the side guessed
    deduction: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # a learning game (issues 13, 53): the set-up shown, each rule explained when it first matters
    first_game: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # the chance to win (issue 25): the live bar opted in; a finished game's chances by step
    chances: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    chance_series: Mapped[str | None] = mapped_column(Text)
    # the practice round (issue 53): a scripted short round, cards face up, never counted
    practice: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # a learning game's lessons count from this step on ("Teach again", issue 53)
    lessons_from: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    host_hash: Mapped[str] = mapped_column(String(64))
    version: Mapped[int] = mapped_column(Integer, default=1)
    draft: Mapped[str | None] = mapped_column(Text)      # JSON of the reveal being built
    notice: Mapped[str | None] = mapped_column(Text)     # last undo or seat change
    created: Mapped[datetime] = mapped_column(DateTime, default=now)
    updated: Mapped[datetime] = mapped_column(DateTime, default=now, onupdate=now)
    # when the referee ended the game (None while it runs, or once its end is undone)
    finished: Mapped[datetime | None] = mapped_column(DateTime, index=True)
    # JSON: where the group plays on after this game (issue 14): {"code", "swap", "seats":
    # {old seat id: new seat}}; a table with a rematch takes no more changes
    rematch: Mapped[str | None] = mapped_column(Text)
    # JSON: the table another screen went on with this game at ("go on here", issue 23),
    # {"code", "version"}; said only while this table is still at that version (its own
    # screen, back, entering anything here carries this game on here instead)
    went_on: Mapped[str | None] = mapped_column(Text)
    # opened from a saved record (issue 20): the history says so, the keeper can clear
    # them out in one action, and no intel card is learnt from it
    imported: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # a finished game's content (SHA-256 of its record: options and events), set when an
    # import needs it: the same record imported again is the same game (issue 20)
    digest: Mapped[str | None] = mapped_column(String(64), index=True)
    # the keeper's word on whether this finished game counts (issue 50): None, the rule
    # decides (played live here at a table's pace: yes; imported: no); True: counted;
    # False: set aside. Games finished before migration 0014 are counted.
    accepted: Mapped[bool | None] = mapped_column(Boolean)
    # the idempotency key of the request that opened (or imported) the table
    create_key: Mapped[str | None] = mapped_column(String(64), unique=True, index=True)
    # the group it was opened from (issue 54); None: no group, it counts nowhere
    group_id: Mapped[int | None] = mapped_column(
        ForeignKey("play_group.id", name="fk_table_group"), index=True)

    seats: Mapped[list[Seat]] = relationship(back_populates="table", order_by="Seat.id",
                                             cascade="all, delete-orphan")

    def draft_dict(self) -> dict[str, Any] | None:
        """The stored reveal being built, if any."""
        return json.loads(self.draft) if self.draft else None


class Seat(Base):
    """A phone at the table, or a side the big screen holds (``screen``, issue 23): a
    side, and in team play missions 1-2 or 3-4."""

    __tablename__ = "seat"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("table.id"), index=True)
    side: Mapped[str] = mapped_column(String(4))
    part: Mapped[int] = mapped_column(Integer, default=0)   # 0 whole side, 1 or 2 (R80)
    name: Mapped[str] = mapped_column(String(40))
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # active: plays; pending: asks to take over an occupied seat; replaced: taken over
    status: Mapped[str] = mapped_column(String(10), default="active")
    last_seen: Mapped[datetime | None] = mapped_column(DateTime)
    created: Mapped[datetime] = mapped_column(DateTime, default=now)
    # the player the phone remembers (issue 14), if it sent one
    player_id: Mapped[int | None] = mapped_column(
        ForeignKey("player.id", name="fk_seat_player", ondelete="SET NULL"), index=True)
    # entered from the host screen (issue 23): no phone holds it, the host's key acts for it
    screen: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    table: Mapped[Table] = relationship(back_populates="seats")


class Player(Base):
    """Someone a phone remembers (issue 14): a name and the hash of a key the phone made
    and keeps; no account, no password. Only what the table saw is kept about them."""

    __tablename__ = "player"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(40))
    # nullable as migration 0007 made it (always set here): the model says what the
    # migrations make (pytest-alembic's check, tests/web/test_upgrades.py)
    created: Mapped[datetime] = mapped_column(DateTime, default=now, nullable=True)
    last_seen: Mapped[datetime | None] = mapped_column(DateTime)
    # the rating from every finished game (issue 21: openskill, companion/memory/ratings.py):
    # a cache of the games in order, rebuilt by `spies-lies ratings --rebuild`
    mu: Mapped[float | None] = mapped_column(Float)
    sigma: Mapped[float | None] = mapped_column(Float)
    rated: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # the learning game's lessons this player has seen (issue 53): JSON, each key with the
    # id of the table that taught it
    taught: Mapped[str | None] = mapped_column(Text)
    # the group that remembers this player (issue 54; always set)
    group_id: Mapped[int | None] = mapped_column(
        ForeignKey("play_group.id", name="fk_player_group"), index=True)


class Game(Base):
    """What a finished game contributes to the group's memory (issue 21): derived from its
    events once, when it finishes or is imported, and kept beside them as a cache (never
    as separate truth: undoing the end deletes it). ``companion/memory/summary.py``."""

    __tablename__ = "game"
    __table_args__ = (Index("ix_game_group_counted_played", "group_id", "counted", "played"),)
    table_id: Mapped[int] = mapped_column(ForeignKey("table.id", ondelete="CASCADE"),
                                          primary_key=True)
    finished: Mapped[datetime] = mapped_column(DateTime)
    # when it was played: the record's options.played for an import, else when it ended
    played: Mapped[datetime] = mapped_column(DateTime, index=True)
    winner: Mapped[str] = mapped_column(String(5))
    reason: Mapped[str] = mapped_column(String(16))
    days: Mapped[int] = mapped_column(Integer)
    ending: Mapped[str] = mapped_column(Text)           # JSON: the end in words (a Msg)
    # JSON: who sat, as an imported record's options.players says ({"red": [names], ...})
    names: Mapped[str | None] = mapped_column(Text)
    # whether it counts in the ratings, the statistics and the history's own list (issue
    # 50: companion/group/games.py ``counts``), and when it began here (seats that sat
    # later are not rated; None: every seat counts)
    counted: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    began: Mapped[datetime | None] = mapped_column(DateTime)
    # its table's group (issue 54): a group's pages read their own rows by this index
    group_id: Mapped[int | None] = mapped_column(ForeignKey("play_group.id",
                                                            name="fk_game_group"))


class GameSide(Base):
    """One side of a finished game: its result and what it did (team play: both players
    of the side share it)."""

    __tablename__ = "game_side"
    table_id: Mapped[int] = mapped_column(ForeignKey("table.id", ondelete="CASCADE"),
                                          primary_key=True)
    side: Mapped[str] = mapped_column(String(4), primary_key=True)
    result: Mapped[str] = mapped_column(String(4))      # win, loss, draw
    ip: Mapped[int] = mapped_column(Integer)
    guesses: Mapped[int] = mapped_column(Integer)
    correct: Mapped[int] = mapped_column(Integer)       # guesses that were right
    ip_identified: Mapped[int] = mapped_column(Integer)
    ip_abilities: Mapped[int] = mapped_column(Integer)
    ip_deception: Mapped[int] = mapped_column(Integer)
    infiltrations: Mapped[int] = mapped_column(Integer)
    # IP each rank earned by acting (R40-R50): one column a rank, summed by SQL
    s1: Mapped[int] = mapped_column(Integer, default=0)
    s2: Mapped[int] = mapped_column(Integer, default=0)
    s3: Mapped[int] = mapped_column(Integer, default=0)
    s4: Mapped[int] = mapped_column(Integer, default=0)
    s5: Mapped[int] = mapped_column(Integer, default=0)
    s6: Mapped[int] = mapped_column(Integer, default=0)
    s7: Mapped[int] = mapped_column(Integer, default=0)
    s8: Mapped[int] = mapped_column(Integer, default=0)
    s9: Mapped[int] = mapped_column(Integer, default=0)
    s10: Mapped[int] = mapped_column(Integer, default=0)


class Memory(Base):
    """A row per group (its id the group's): the version of the group's memory, one more
    at every change of its finished games, their players' names or ratings (issue 21).
    The history, statistics and player pages are kept per version
    (``companion/group/games.py``)."""

    __tablename__ = "memory"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    version: Mapped[int] = mapped_column(Integer, default=0)


class Event(Base):
    """One recorded event (RECORD.md dict), in order by its per-table ``seq``."""

    __tablename__ = "event"
    __table_args__ = (UniqueConstraint("table_id", "seq", name="uq_event_table_seq"),
                      UniqueConstraint("table_id", "idempotency_key", name="uq_event_table_key"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("table.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    data: Mapped[str] = mapped_column(Text)
    seat_id: Mapped[int | None] = mapped_column(ForeignKey("seat.id"))
    created: Mapped[datetime] = mapped_column(DateTime, default=now)
    undone: Mapped[bool] = mapped_column(Boolean, default=False)
    idempotency_key: Mapped[str | None] = mapped_column(String(64))


class Receipt(Base):
    """The answer to one state-changing request, kept so a retry gets it again."""

    __tablename__ = "receipt"
    __table_args__ = (UniqueConstraint("table_id", "key", name="uq_receipt_table_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("table.id"))
    key: Mapped[str] = mapped_column(String(64))
    status: Mapped[int] = mapped_column(Integer)
    body: Mapped[str] = mapped_column(Text)
    created: Mapped[datetime] = mapped_column(DateTime, default=now)
    # what the request was (seats, events, draft, undo, decision) and who sent it
    # (host, seat:<id>, anyone): a key belongs to one kind of request by one screen
    kind: Mapped[str | None] = mapped_column(String(16))
    actor: Mapped[str | None] = mapped_column(String(16))


class IntelCard(Base):
    """An intel card seen in a finished round at a table of the group (issues 11, 54).

    The box holds six intel cards and they come back every game: a card seen before is
    offered to the phones as one tap. Public, like everything the table saw; no game's
    state depends on it (a game is still only its events).
    """

    __tablename__ = "intel_card"
    group_id: Mapped[int] = mapped_column(ForeignKey("play_group.id", name="fk_intel_card_group"),
                                          primary_key=True)
    ranks: Mapped[str] = mapped_column(String(32), primary_key=True)   # "1-3-6-8"
    seen: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    last: Mapped[datetime | None] = mapped_column(DateTime)
