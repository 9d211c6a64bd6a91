"""The rules at hand: the help texts, data a translator edits (``<locale>.json`` beside this
file), and the look-ups over them (by rule id, rank, phase, or a question typed by a player).

May import: nothing of the companion (plain Python over the data files).

- ``entries``: the texts loaded (``texts(locale)``, ``RANKS``, ``RULES``, ``PHASES``,
  ``GLOSSARY``) and looked up by id, rank and phase (``rule``, ``rank``, ``for_phase``,
  ``anchor``); a learning game's lessons (``lesson``);
- ``ranking``: the search (``search(query, locale)``, ``ids``, ``score``, ``fold``);
- ``questions``: a question typed as a sentence, its words in ``words.json`` beside it.

>>> search("R45")[0]["id"], ids("kapitän")[:2], texts("fr")["ranks"][5]["name"]
('R45', ['R45', 'rank-6'], 'Capitaine')
"""

from .entries import (
    GLOSSARY,
    LOCALES,
    PHASE_NAMES,
    PHASES,
    RANKS,
    RULES,
    anchor,
    for_phase,
    lesson,
    lesson_words,
    rank,
    rule,
    texts,
)
from .ranking import fold, ids, score, search

__all__ = ["RANKS", "RULES", "PHASES", "PHASE_NAMES", "GLOSSARY", "LOCALES", "search",
           "ids", "anchor", "score", "fold", "for_phase", "rule", "rank", "texts", "lesson",
           "lesson_words"]
