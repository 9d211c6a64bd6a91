"""The tables of the companion: a table (one game), its seats, its events.

The game state is never stored: it is always ``replay(options, events)`` over
the events that are not undone. A table's ``version`` only grows; every event,
draft step, undo and seat change increments it.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from datetime import datetime, timezone
from typing import Any

from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import UniqueConstraint

db = SQLAlchemy()

# No 0/O, 1/I/L, 2/Z, 5/S, 8/B: a code read off a TV is typed without doubt.
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
CODE_LENGTH = 5


def now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def new_secret() -> str:
    """A secret of 256 bits for a seat or a host screen."""
    return secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    """Only this SHA-256 hash of a secret is stored."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class Table(db.Model):
    """One game at one physical table."""

    __tablename__ = "table"
    id = db.Column(db.Integer, primary_key=True)
    code = db.Column(db.String(12), unique=True, nullable=False, index=True)
    wall_distance = db.Column(db.Integer, nullable=False, default=4)
    teams = db.Column(db.Boolean, nullable=False, default=False)
    host_hash = db.Column(db.String(64), nullable=False)
    version = db.Column(db.Integer, nullable=False, default=1)
    draft = db.Column(db.Text, nullable=True)      # JSON of the reveal being built
    notice = db.Column(db.Text, nullable=True)     # last undo or seat change, for every screen
    created = db.Column(db.DateTime, nullable=False, default=now)
    updated = db.Column(db.DateTime, nullable=False, default=now, onupdate=now)
    # the idempotency key of the request that opened (or imported) the table
    create_key = db.Column(db.String(64), nullable=True, unique=True, index=True)

    seats = db.relationship("Seat", back_populates="table", order_by="Seat.id",
                            cascade="all, delete-orphan")

    def draft_dict(self) -> dict[str, Any] | None:
        return json.loads(self.draft) if self.draft else None


class Seat(db.Model):
    """A phone at the table: a side (and in team play, missions 1-2 or 3-4)."""

    __tablename__ = "seat"
    id = db.Column(db.Integer, primary_key=True)
    table_id = db.Column(db.Integer, db.ForeignKey("table.id"), nullable=False, index=True)
    side = db.Column(db.String(4), nullable=False)
    part = db.Column(db.Integer, nullable=False, default=0)   # 0 whole side, 1 or 2 (R80)
    name = db.Column(db.String(40), nullable=False)
    secret_hash = db.Column(db.String(64), nullable=False, unique=True)
    # active: plays; pending: asks to take over an occupied seat; replaced: taken over
    status = db.Column(db.String(10), nullable=False, default="active")
    last_seen = db.Column(db.DateTime, nullable=True)
    created = db.Column(db.DateTime, nullable=False, default=now)

    table = db.relationship("Table", back_populates="seats")


class Event(db.Model):
    """One recorded event (RECORD.md dict), in order by its per-table ``seq``."""

    __tablename__ = "event"
    __table_args__ = (UniqueConstraint("table_id", "seq", name="uq_event_table_seq"),
                      UniqueConstraint("table_id", "idempotency_key", name="uq_event_table_key"))
    id = db.Column(db.Integer, primary_key=True)
    table_id = db.Column(db.Integer, db.ForeignKey("table.id"), nullable=False, index=True)
    seq = db.Column(db.Integer, nullable=False)
    data = db.Column(db.Text, nullable=False)
    seat_id = db.Column(db.Integer, db.ForeignKey("seat.id"), nullable=True)
    created = db.Column(db.DateTime, nullable=False, default=now)
    undone = db.Column(db.Boolean, nullable=False, default=False)
    idempotency_key = db.Column(db.String(64), nullable=True)


class Receipt(db.Model):
    """The answer to one state-changing request, kept so a retry gets it again."""

    __tablename__ = "receipt"
    __table_args__ = (UniqueConstraint("table_id", "key", name="uq_receipt_table_key"),)
    id = db.Column(db.Integer, primary_key=True)
    table_id = db.Column(db.Integer, db.ForeignKey("table.id"), nullable=False)
    key = db.Column(db.String(64), nullable=False)
    status = db.Column(db.Integer, nullable=False)
    body = db.Column(db.Text, nullable=False)
    created = db.Column(db.DateTime, nullable=False, default=now)
