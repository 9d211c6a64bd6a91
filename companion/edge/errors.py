"""Refusals as the web layer sends them: :class:`ApiError` and the one table that
maps an engine refusal's code to an HTTP status.

>>> from companion.engine import OutOfTurn
>>> err = from_refusal(OutOfTurn("it is blue's turn"))
>>> err.status, err.code, str(err.message)
(409, 'out_of_turn', "it is blue's turn")
"""

from __future__ import annotations

from typing import Any

from ..engine.errors import RecordError
from ..engine.words import Msg

# An engine refusal's code -> the HTTP status a screen gets for it. A code not listed
# is a malformed or illegal request (400); out of turn and game over are conflicts with
# the table as it stands (409): the screen gets the fresh view with them.
REFUSAL_STATUS: dict[str, int] = {
    "bad_record": 400,
    "malformed": 400,
    "invalid": 400,
    "illegal": 400,
    "out_of_turn": 409,
    "game_over": 409,
}


class ApiError(Exception):
    """A refusal with an HTTP status, a message a player can read (words as data: each
    screen reads it in its own language) and maybe a field."""

    def __init__(self, status: int, message: Msg | str, field: str | None = None,
                 code: str = "refused", view: dict[str, Any] | None = None,
                 retry_after: int | None = None, event: int | None = None) -> None:
        super().__init__(str(message))
        self.status = status
        self.message = message
        self.field = field
        self.code = code
        self.view = view
        self.retry_after = retry_after
        self.event = event

    def to_dict(self) -> dict[str, Any]:
        """The JSON body of the refusal: message, machine-readable code, field, event, view."""
        d: dict[str, Any] = {"error": self.message, "code": self.code}
        if self.field:
            d["field"] = self.field
        if self.event is not None:
            d["event"] = self.event
        if self.view is not None:
            d["view"] = self.view
        return d


def from_refusal(err: RecordError, field: str | None = None) -> ApiError:
    """The HTTP refusal for a refusal of the referee (status from :data:`REFUSAL_STATUS`)."""
    return ApiError(REFUSAL_STATUS.get(err.code, 400), err.msg, field=field, code=err.code)


def disk_full(err: BaseException) -> bool:
    """Whether ``err`` (or what caused it) says the database's disk is full: SQLite's
    ``SQLITE_FULL`` (13), PostgreSQL's ``disk_full`` (SQLSTATE 53100), ``ENOSPC``.

    >>> import errno, sqlite3
    >>> disk_full(OSError(errno.ENOSPC, "No space left on device"))
    True
    >>> full = sqlite3.OperationalError("database or disk is full")
    >>> full.sqlite_errorcode = sqlite3.SQLITE_FULL
    >>> disk_full(full), disk_full(sqlite3.OperationalError("database is locked"))
    (True, False)
    """
    import errno
    import sqlite3
    seen: BaseException | None = err
    for _ in range(4):                      # SQLAlchemy's wrapper, the driver's error
        if seen is None:
            return False
        if isinstance(seen, sqlite3.Error) and \
                getattr(seen, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
            return True
        if getattr(seen, "sqlstate", None) == "53100":         # psycopg's DiskFull
            return True
        if isinstance(seen, OSError) and seen.errno == errno.ENOSPC:
            return True
        seen = getattr(seen, "orig", None) or seen.__cause__
    return False
