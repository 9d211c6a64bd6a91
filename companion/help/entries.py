"""The help texts: loaded from their data files, and looked up by id, rank and phase.

Everything here follows ``shared/spec/RULES.md`` (the project's statement of the
rules, ids R1-R80) and its rulings; the printed rulebook is only a reference and
none of its sentences are reused. The texts themselves are data, one file per
language (``companion/help/en.json``, ``nl.json``, ``fr.json``, ``de.json``; the same
entries and ids in each), so a translator edits text, not code; ``texts(locale)``
gives one language's, the names below are English:

- ``RANKS``: the ten soldiers, what each does when activated (R40-R49).
- ``RULES``: one entry per rule id of RULES.md, tagged with the phases and ranks
  it concerns and the related rules.
- ``PHASES``: what each game phase is about and what the phones ask for.
- ``GLOSSARY``: the table's vocabulary.

>>> [r["id"] for r in for_phase("capture_check")][:2]
['R10', 'R60']
>>> rule("R45")["title"], rank(6)["name"], anchor(rank(6))
('Captain (6)', 'Captain', 'rank-6')
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

#: The languages the help texts are written in (``companion/help/<locale>.json``).
LOCALES: tuple[str, ...] = ("en", "nl", "fr", "de")

#: The game phases of the referee (``State.phase``), in the order a game meets them.
PHASE_NAMES: tuple[str, ...] = ("setup", "intel", "mission", "round_end", "capture_check", "over")


def load(name: str) -> Any:
    """The data file ``companion/help/<name>.json``, as it is shipped."""
    text = resources.files("companion").joinpath("help", f"{name}.json").read_text("utf-8")
    return json.loads(text)


_BY_LOCALE: dict[str, dict[str, Any]] = {}


def texts(locale: str = "en") -> dict[str, Any]:
    """All help texts of ``locale`` (``ranks``, ``rules``, ``phases``, ``glossary``),
    English for a language we do not have; read once.

    >>> texts("de")["ranks"][0]["name"], texts("xx")["ranks"][0]["name"]
    ('Spionin', 'Spy')
    """
    locale = locale if locale in LOCALES else "en"
    if locale not in _BY_LOCALE:
        _BY_LOCALE[locale] = load(locale)
    return _BY_LOCALE[locale]


_EN = texts()
#: The ten soldiers, what each does when activated (R40-R49).
RANKS: list[dict[str, Any]] = _EN["ranks"]
#: One entry per rule id of RULES.md, with the phases and ranks it concerns.
RULES: list[dict[str, Any]] = _EN["rules"]
#: What each game phase is about and what the phones ask for.
PHASES: dict[str, dict[str, Any]] = _EN["phases"]
#: The table's vocabulary.
GLOSSARY: list[dict[str, Any]] = _EN["glossary"]


def anchor(entry: dict[str, Any]) -> str:
    """Where ``entry`` stands on the /rules page: a rule's id ("R45"), a soldier's
    "rank-6", a glossary word's "word-7" (its place in the glossary)."""
    if "id" in entry:
        return str(entry["id"])
    if "rank" in entry:
        return f"rank-{entry['rank']}"
    for locale in LOCALES:
        words = texts(locale)["glossary"]
        if entry in words:
            return f"word-{words.index(entry)}"
    raise ValueError(f"not a help entry: {entry!r}")


def for_phase(phase: str) -> list[dict[str, Any]]:
    """The RULES entries that matter in ``phase`` (one of ``PHASE_NAMES``), in id order.
    An unknown phase gives an empty list."""
    return [dict(e) for e in RULES if phase in e["phases"]]


def rule(rule_id: str) -> dict[str, Any] | None:
    """The RULES entry with id ``rule_id`` (e.g. ``"R45"``), or None."""
    for e in RULES:
        if e["id"] == rule_id:
            return dict(e)
    return None


def rank(number: int) -> dict[str, Any] | None:
    """The RANKS entry of rank ``number`` (1-10), or None."""
    for e in RANKS:
        if e["rank"] == number:
            return dict(e)
    return None


_LESSONS: dict[str, dict[str, Any]] = {}


def lesson(key: str, locale: str = "en") -> dict[str, Any]:
    """A learning game's lesson in ``locale`` (issue 53): ``title``, ``text`` (at most 40
    words) and the ``rules`` it explains, from ``lessons.<locale>.json``; a soldier's
    ability (``ability-<rank>``) is its name and its one-line ability from the rules'
    texts. English for a language we do not have; ``KeyError`` for no such lesson.

    >>> lesson("deploy")["rules"], lesson("ability-6", "de")["title"]
    (['R10'], 'Kapitän (6)')
    """
    locale = locale if locale in LOCALES else "en"
    if key.startswith("ability-") and key[8:].isdigit() and 1 <= int(key[8:]) <= 10:
        r = texts(locale)["ranks"][int(key[8:]) - 1]
        # (the General's move has no rule of its own: the double agent's, R32)
        return {"title": f"{r['name']} ({r['rank']})", "text": r["ability"],
                "rules": [r["rule"] or "R32"]}
    if key.startswith("_"):
        raise KeyError(key)
    found: dict[str, Any] = _lessons(locale)[key]
    return found


def lesson_words(locale: str = "en") -> dict[str, str]:
    """The words around a lesson on a screen (``got``, ``more``, ``count``) in ``locale``.

    >>> lesson_words("de")["got"]
    'Verstanden'
    """
    words: dict[str, str] = _lessons(locale if locale in LOCALES else "en")["_words"]
    return words


def _lessons(locale: str) -> dict[str, Any]:
    if locale not in _LESSONS:
        _LESSONS[locale] = load(f"lessons.{locale}")
    return _LESSONS[locale]
