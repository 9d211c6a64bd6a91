"""The referee's refusals: a small family of ``ValueError`` subclasses.

Every refusal carries its words as data, ``msg`` (a :class:`~.words.Msg`: a message
key and its parameters, put into the screen's language at the edge), the English
``reason`` made from it and, when it concerns one event of a record, that event's
0-based ``index``. ``str(error)``
is ``"event N: reason"`` (or just the reason when no event is concerned), which
is the text the replay command prints after ``error:``.
"""

from __future__ import annotations

from .words import Msg


class RecordError(ValueError):
    """Base of every refusal by the referee."""

    code = "invalid"

    def __init__(self, reason: Msg | str, index: int | None = None) -> None:
        self.msg = reason if isinstance(reason, Msg) else Msg("{reason}", reason=reason)
        self.reason = str(self.msg)
        super().__init__(self.reason)
        self.index = index

    def at(self, index: int) -> RecordError:
        """Return the same refusal, now naming the event at ``index``."""
        return type(self)(self.msg, index)

    def __str__(self) -> str:
        if self.index is None:
            return self.reason
        return f"event {self.index}: {self.reason}"


class BadRecord(RecordError):
    """The file itself is not a record of this format (not JSON, wrong format key…)."""

    code = "bad_record"


class MalformedEvent(RecordError):
    """An event whose shape is wrong: unknown type, missing key, wrong value type."""

    code = "malformed"


class IllegalEvent(RecordError):
    """A well-formed event that does not fit the game as it stands."""

    code = "illegal"


class OutOfTurn(IllegalEvent):
    """An event that is legal in general but not the one the game expects now."""

    code = "out_of_turn"


class GameOver(IllegalEvent):
    """Any event after the game has ended."""

    code = "game_over"
