"""The referee of Spies & Lies: plain Python, no Flask, no database.

Public API (RULES.md ids in brackets):

- events as values: :class:`Exhaust`, :class:`Intel`, :class:`Tokens`, :class:`Start`,
  :class:`Reveal`, :class:`Check`; :func:`event_from_dict`; :class:`Record`, :class:`Options`
- state: :func:`new_game`, :func:`apply` (one event, returns a new state), :func:`replay`
- next: :func:`expected`, :func:`reveal_options`, :func:`choice_options`,
  :func:`ability_preview`, :func:`team_part` [R80]
- words: :func:`narrate_reveal`, :func:`narrate_end`
- refusals: :class:`RecordError` and its subclasses
"""

from .errors import BadRecord, GameOver, IllegalEvent, MalformedEvent, OutOfTurn, RecordError
from .events import (FORMAT, RANK_NAMES, SIDES, Check, Event, Exhaust, Intel, Options, Record,
                     Reveal, Start, Tokens, event_from_dict, other)
from .expect import (Expected, ability_preview, choice_options, describe_choice, expected,
                     reveal_options, team_part)
from .narrate import narrate_end, narrate_reveal
from .referee import State, apply, new_game, replay

__all__ = [
    "BadRecord", "GameOver", "IllegalEvent", "MalformedEvent", "OutOfTurn", "RecordError",
    "FORMAT", "RANK_NAMES", "SIDES", "Check", "Event", "Exhaust", "Intel", "Options", "Record",
    "Reveal", "Start", "Tokens", "event_from_dict", "other",
    "Expected", "ability_preview", "choice_options", "describe_choice", "expected",
    "reveal_options", "team_part", "narrate_end", "narrate_reveal",
    "State", "apply", "new_game", "replay", "replay_output",
]


def replay_output(state: State) -> dict:
    """The JSON object ``spies-lies replay`` prints: RECORD.md's keys and more."""
    d = state.to_dict()
    for r in d["reveals"]:
        r["narration"] = narrate_reveal(r)
    d["next"] = expected(state).to_dict()
    d["end"] = narrate_end(d)
    return d
