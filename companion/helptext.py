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
- ``search(query, locale)`` (accents and case folded, every language's words, a typo
  forgiven) and ``for_phase(phase)``.

>>> [r["id"] for r in for_phase("capture_check")][:2]
['R10', 'R60']
>>> any(e.get("rank") == 6 for e in search("captain"))
True
"""

from __future__ import annotations

import json
import re
import unicodedata
from importlib import resources
from typing import Any

from rapidfuzz import fuzz as rf_fuzz
from rapidfuzz import process as rf_process

__all__ = ["RANKS", "RULES", "PHASES", "PHASE_NAMES", "GLOSSARY", "LOCALES", "search",
           "ids", "anchor", "score", "fold", "for_phase", "rule", "rank", "texts"]

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
_NAME_KEYS = ("title", "name", "term")


def fold(text: Any) -> str:
    """Text as the search compares it: no accents, no case ("Maréchal" → "marechal",
    "Kapitän" → "kapitan", "ß" → "ss").

    >>> fold("  MARÉCHAL Täuschung ")
    '  marechal tauschung '
    """
    decomposed = unicodedata.normalize("NFKD", str(text))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W_]+", text))


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


class _Entry:
    """One rule, soldier or word, as the search knows it: its words in all four
    languages, folded (a screen in any language finds it under any of its names)."""

    def __init__(self, key: str, versions: list[dict[str, Any]]) -> None:
        self.key = key
        self.ids = {fold(v[k]) for v in versions for k in ("id", "rule") if k in v}
        self.is_rule = "id" in versions[0]
        self.names = " | ".join(fold(v[k]) for v in versions for k in _NAME_KEYS if k in v)
        self.text = " | ".join(fold(v[k]) for v in versions for k in _SEARCH_KEYS if k in v)
        self.name_words = _words(self.names)
        self.text_words = _words(self.text)


def _index() -> list[_Entry]:
    """Every entry in page order (rules, soldiers, words), built once."""
    if not _INDEX:
        by = {loc: texts(loc) for loc in LOCALES}
        for kind in ("rules", "ranks", "glossary"):
            for i, e in enumerate(by["en"][kind]):
                key = e["id"] if kind == "rules" else (
                    f"rank-{e['rank']}" if kind == "ranks" else f"word-{i}")
                _INDEX.append(_Entry(key, [by[loc][kind][i] for loc in LOCALES]))
        _VOCAB.extend(sorted({w for e in _INDEX for w in e.text_words}))
    return _INDEX


_INDEX: list[_Entry] = []
_VOCAB: list[str] = []
#: how close a typed word must be to a word of the texts to count as it (0-100)
_TYPO = 80


def _near(word: str) -> set[str]:
    """The words of the texts a typed word may mean: itself, or one a typo away."""
    if len(word) < 4:
        return {word}
    found = rf_process.extract(word, _VOCAB, scorer=rf_fuzz.ratio, score_cutoff=_TYPO,
                               limit=None)
    return {w for w, _, _ in found} | {word}


def _tier(e: _Entry, needle: str, near: list[set[str]] | None) -> int | None:
    """How well entry ``e`` answers ``needle`` (lower is better, ``None``: not at all):
    0 its exact id, 1 a soldier's own rule or a title, name or term in any language,
    2 anything in its text; with ``near`` (the words a typo may mean) 3 its names,
    4 its text."""
    if needle in e.ids:
        return 0 if e.is_rule else 1
    if needle in e.names:
        return 1
    if needle in e.text:
        return 2
    if near is None:
        return None
    if all(ws & e.name_words for ws in near):
        return 3
    if all(ws & e.text_words for ws in near):
        return 4
    return None


def _needle(query: Any) -> str:
    needle = " ".join(fold(query or "").split())[:_QUERY_MAX]
    return needle if re.search(r"[^\W_]", needle) else ""


_QUERY_MAX = 200


def _found(query: Any) -> tuple[str, list[tuple[int, int, _Entry]]]:
    needle = _needle(query)
    if not needle:
        return needle, []
    index = _index()
    hits = [(t, i, e) for i, e in enumerate(index) if (t := _tier(e, needle, None)) is not None]
    if not hits:          # nothing as typed: the words a typo away (never noise beside hits)
        near = [_near(w) for w in _words(needle)]
        if near:
            hits = [(t, i, e) for i, e in enumerate(index)
                    if (t := _tier(e, needle, near)) is not None]
    return needle, sorted(hits, key=lambda h: (h[0], h[1]))


def score(entry: dict[str, Any], query: str) -> int | None:
    """How well ``entry`` (in any language) answers ``query``: 0 its exact id ("r45"),
    1 its title, name or term, or a soldier's own rule, 2 anything in its text, 3-4 the
    same a typo away; ``None``: not at all."""
    needle = _needle(query)
    if not needle:
        return None
    key = anchor(entry)
    e = next(x for x in _index() if x.key == key)
    tier = _tier(e, needle, None)
    if tier is None:
        tier = _tier(e, needle, [_near(w) for w in _words(needle)])
    return tier


def ids(query: Any) -> list[str]:
    """The /rules page's anchors of what :func:`search` finds, best first (the same
    in every language: each entry is searched in all four)."""
    return [e.key for _, _, e in _found(query)[1]]


def search(query: Any, locale: str = "en") -> list[dict[str, Any]]:
    """Rules, ranks and glossary entries that answer ``query``, in ``locale``'s words:
    an exact id first ("R45" opens the Captain's rule), then titles, names and terms
    ("bomb" finds the Bomb and its rule before every soldier whose text mentions a
    Bomb), then text. Accents and case do not count ("marechal" finds the Maréchal),
    every entry is known under its words in all four languages ("Marshal" on a German
    screen finds the Feldmarschall), and when the words as typed find nothing, a word
    one typo away does ("captian"). A blank query finds nothing.

    The entries are shallow copies, so a caller cannot change the help data.
    """
    shown = texts(locale)
    by_key = {**{e["id"]: e for e in shown["rules"]},
              **{f"rank-{e['rank']}": e for e in shown["ranks"]},
              **{f"word-{i}": e for i, e in enumerate(shown["glossary"])}}
    return [dict(by_key[e.key]) for _, _, e in _found(query)[1]]


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
