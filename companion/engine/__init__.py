"""The referee of Spies & Lies: plain Python, no Flask, no database.

Public API (RULES.md ids in brackets):

- vocabulary: :class:`Side`, :class:`Phase`, :class:`Reason`, :class:`Outcome`
- events as values: :class:`Exhaust`, :class:`Intel`, :class:`Tokens`, :class:`Start`,
  :class:`Reveal`, :class:`Check`; :func:`event_from_dict`; :class:`Record`, :class:`Options`
- state: :func:`new_game`, :func:`apply` (one event, returns a new state), :func:`replay`;
  each reveal leaves a :class:`RevealResult` with its effects in ``state.reveals``
- next: :func:`expected`, :func:`reveal_options`, :func:`owner_choices`,
  :func:`choice_options`, :func:`ability_preview`, :func:`activate`, :func:`team_part` [R80]
- a reveal tapped in steps: :class:`Draft` [R13, R14, R45, R49, R80]
- words as data (a message key and its parameters, :class:`Msg`, put into a language at
  the edge): :func:`reveal_words`, :func:`end_words`, :func:`effect_words`; in English
  :func:`narrate_reveal`, :func:`narrate_end`
- refusals: :class:`RecordError` and its subclasses

Modules depend one way only: ``errors`` ← ``events`` ← ``results`` ← ``state`` ←
``scoring`` ← ``abilities`` ← ``referee`` ← ``preview`` ← ``draft``, and ``state`` ←
``expect`` ← ``referee``; ``narrate`` reads ``results``; every module may use ``words``
(which uses none). A rule lives in the function whose docstring starts with its id
(``grep -rn R45 companion/engine/``): the events' rules in ``referee``, IP and the
double agent in ``scoring``, the soldiers' abilities in ``abilities``.

>>> import random
>>> from companion.engine.simulate import random_record
>>> state = replay(random_record(random.Random(7)))
>>> state.is_over, state.outcome is not None, len(state.reveals) > 0
(True, True, True)
"""

from collections.abc import Sequence
from typing import Any

from .abilities import activate
from .draft import Draft
from .errors import BadRecord, GameOver, IllegalEvent, MalformedEvent, OutOfTurn, RecordError
from .events import (
    FORMAT,
    RANK_NAMES,
    SIDES,
    Check,
    Event,
    Exhaust,
    Intel,
    Options,
    Record,
    Reveal,
    Side,
    Start,
    Tokens,
    event_from_dict,
    other,
)
from .expect import Expected, describe_choice, expected, owner_choices, reveal_options, team_part
from .narrate import (
    effect_words,
    end_words,
    narrate_effect,
    narrate_end,
    narrate_reveal,
    reveal_words,
)
from .preview import ability_preview, choice_options
from .referee import apply, new_game, replay
from .results import Effect, Outcome, Reason, RevealResult
from .state import Phase, State
from .words import ENGLISH, N_, Msg, Translator, join, listing, plural, rank, side

__all__ = [
    "BadRecord", "GameOver", "IllegalEvent", "MalformedEvent", "OutOfTurn", "RecordError",
    "FORMAT", "RANK_NAMES", "SIDES", "Check", "Event", "Exhaust", "Intel", "Options", "Record",
    "Reveal", "Side", "Start", "Tokens", "event_from_dict", "other",
    "Effect", "Outcome", "Reason", "RevealResult", "Phase", "State",
    "Expected", "describe_choice", "expected", "owner_choices", "reveal_options", "team_part",
    "activate", "apply", "new_game", "replay", "ability_preview", "choice_options", "Draft",
    "narrate_effect", "narrate_end", "narrate_reveal", "replay_output",
    "effect_words", "end_words", "reveal_words",
    "ENGLISH", "N_", "Msg", "Translator", "join", "listing", "plural", "rank", "side",
]


def replay_output(state: State, words: bool = False,
                  told: Sequence[dict[str, Any] | None] = ()) -> dict[str, Any]:
    """The JSON object ``spies-lies replay`` prints: RECORD.md's keys and more.

    With ``words`` the narration, the end and the next step's text are :class:`Msg`
    values (for a screen to put into its own language), not English text. ``told``:
    reveals of this very game already output, by index (``None``: not this one), taken
    as they are instead of narrated again.
    """
    known = 0                    # the leading reveals already told: not made again
    while known < len(told) and known < len(state.reveals) and told[known] is not None:
        known += 1
    d = state.to_dict(told=known)
    reveals = d["reveals"]
    for i, r in enumerate(reveals):
        old = told[i] if i < len(told) else None
        if old is not None:
            reveals[i] = old
        else:
            r["narration"] = reveal_words(r) if words else narrate_reveal(r)
    exp = expected(state)
    d["next"] = exp.to_dict()
    if words:
        d["next"]["text"] = exp.words
    d["end"] = end_words(d) if words else narrate_end(d)
    return d
