"""The referee's refusals: a small family of ``ValueError`` subclasses.

Every refusal carries the plain-words ``reason`` a player can read and, when it
concerns one event of a record, that event's 0-based ``index``. ``str(error)``
is ``"event N: reason"`` (or just the reason when no event is concerned), which
is the text the replay command prints after ``error:``.
"""

from __future__ import annotations


class RecordError(ValueError):
    """Base of every refusal by the referee."""

    code = "invalid"

    def __init__(self, reason: str, index: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.index = index

    def at(self, index: int) -> RecordError:
        """Return the same refusal, now naming the event at ``index``."""
        return type(self)(self.reason, index)

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
