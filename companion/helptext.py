"""Rules at hand: the help texts the table screens show, in the project's own words.

Everything here follows ``shared/spec/RULES.md`` (the project's statement of the
rules, ids R1-R80) and its rulings; the printed rulebook is only a reference and
none of its sentences are reused.  The texts themselves are data, one file per
language (``companion/help/en.json``, ``nl.json``, ``fr.json``, ``de.json``; the same
entries and ids in each), so a translator edits text, not code; this module loads
them and looks things up (``texts(locale)`` gives one language's; the names below are
English):

- ``RANKS``: the ten soldiers, what each does when activated (R40-R49).
- ``RULES``: one entry per rule id of RULES.md, tagged with the phases and ranks
  it concerns and the related rules.
- ``PHASES``: what each game phase is about and what the phones ask for.
- ``GLOSSARY``: the table's vocabulary.
- ``search(query)`` and ``for_phase(phase)``.

>>> [r["id"] for r in for_phase("capture_check")][:2]
['R10', 'R60']
>>> any(e.get("rank") == 6 for e in search("captain"))
True
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

__all__ = ["RANKS", "RULES", "PHASES", "PHASE_NAMES", "GLOSSARY", "LOCALES", "search",
           "for_phase", "rule", "rank", "texts"]

#: The languages the help texts are written in (``companion/help/<locale>.json``).
LOCALES: tuple[str, ...] = ("en", "nl", "fr", "de")

#: The game phases of the referee (``State.phase``), in the order a game meets them.
PHASE_NAMES: tuple[str, ...] = ("setup", "intel", "mission", "round_end", "capture_check", "over")


# --- the texts: data a translator edits (companion/help/<locale>.json) ------------------

def _load(locale: str = "en") -> dict[str, Any]:
    """The help texts of ``locale`` from their data file."""
    text = resources.files("companion").joinpath("help", f"{locale}.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


_BY_LOCALE: dict[str, dict[str, Any]] = {}


def texts(locale: str = "en") -> dict[str, Any]:
    """All help texts of ``locale`` (``ranks``, ``rules``, ``phases``, ``glossary``),
    English for a language we do not have; read once.

    >>> texts("de")["ranks"][0]["name"], texts("xx")["ranks"][0]["name"]
    ('Spionin', 'Spy')
    """
    locale = locale if locale in LOCALES else "en"
    if locale not in _BY_LOCALE:
        _BY_LOCALE[locale] = _load(locale)
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


# --- look-ups -----------------------------------------------------------------------

_SEARCH_KEYS = ("id", "title", "text", "name", "term", "ability")


def _matches(entry: dict[str, Any], needle: str) -> bool:
    return any(needle in str(entry[k]).lower() for k in _SEARCH_KEYS if k in entry)


def score(entry: dict[str, Any], needle: str) -> int | None:
    """How well ``entry`` answers ``needle`` (lower is better; ``None``: not at all):
    0 its exact id ("r45", or a soldier's own rule), 1 its title, name or term,
    2 anything in its text."""
    if needle in (str(entry.get("id", "")).lower(), str(entry.get("rule", "")).lower()):
        return 0 if "id" in entry else 1
    if any(needle in str(entry.get(k, "")).lower() for k in ("title", "name", "term")):
        return 1
    return 2 if _matches(entry, needle) else None


def search(query: str) -> list[dict[str, Any]]:
    """Rules, ranks and glossary entries whose id, title, name, term or text contains
    ``query`` (case-insensitive): an exact id first ("R45" opens the Captain's rule),
    then titles and names ("bomb" finds the Bomb and its rule before every soldier
    whose text mentions a Bomb), then text. A blank query finds nothing.

    The entries are shallow copies, so a caller cannot change the help data.
    """
    needle = (query or "").strip().lower()
    if not needle:
        return []
    scored = [(s, i, e) for i, e in enumerate([*RULES, *RANKS, *GLOSSARY])
              if (s := score(e, needle)) is not None]
    return [dict(e) for _, _, e in sorted(scored, key=lambda t: (t[0], t[1]))]


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
