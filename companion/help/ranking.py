"""The search of the rules at hand: which help entries answer a query, best first.

``search(query, locale)`` folds accents and case, knows every entry under its words in
all four languages, forgives a typo, and answers a question asked in a sentence (its
words: :mod:`companion.help.questions`); ``ids(query)`` gives the /rules page's anchors
of the same answer, ``score(entry, query)`` one entry's tier.

>>> any(e.get("rank") == 6 for e in search("captain"))
True
>>> ids("que fait l'espion ?")[:2], ids("captian")[:1], ids("r45")[:2]
(['R40', 'rank-1'], ['R45'], ['R45', 'rank-6'])
"""

from __future__ import annotations

import bisect
import math
import os
import re
import unicodedata
from typing import Any

from rapidfuzz import fuzz as rf_fuzz
from rapidfuzz import process as rf_process

from .entries import LOCALES, anchor, texts
from .questions import ABILITY, QUESTION_WORDS, SAME, idiom, meaningful

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
        self.terms = {fold(v["term"]) for v in versions if "term" in v}   # a glossary word's
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
        _SOLDIERS.update(w for e in _INDEX if e.key.startswith("rank-") for w in e.name_words)
        for e in _INDEX:          # a word in few entries says more than one in many
            for w in e.text_words:
                _RARITY[w] = _RARITY.get(w, 0.0) + 1.0
        for w, n in _RARITY.items():
            _RARITY[w] = math.sqrt(len(_INDEX) / n)
    return _INDEX


_INDEX: list[_Entry] = []
#: the soldiers' names in the four languages, folded (filled with the index)
_SOLDIERS: set[str] = set()
_VOCAB: list[str] = []
#: each word of the texts: the square root of how many entries there are for each that
#: has it (not the plain ratio: one word found in one entry outweighed three of the
#: answer's, "reaches" the Colonel's R48 for "the double agent reaches the wall")
_RARITY: dict[str, float] = {}
#: how close a typed word must be to a word of the texts to count as it (0-100)
_TYPO = 80


#: the shortest text found as typed inside a word ("marker" in "Täuschungsmarker")
_INFIX = 4


def _near(word: str) -> set[str]:
    """The words of the texts a typed word may mean: itself, or one a typo away."""
    if len(word) < 4 or word in _RARITY:   # a word of the texts is no typo ("gagner" is
        return {word}                       # not the German "Gegner", the opponent)
    found = rf_process.extract(word, _VOCAB, scorer=rf_fuzz.ratio, score_cutoff=_TYPO,
                               limit=None)
    # a short word's typo keeps its first letter ("tokn" is "token"; "look" is not the
    # Dutch "ook", also)
    return {w for w, _, _ in found if len(word) > 4 or w[0] == word[0]} | {word}


def _tier(e: _Entry, needle: str, near: list[set[str]] | None) -> int | None:
    """How well entry ``e`` answers ``needle`` (lower is better, ``None``: not at all):
    0 its exact id, 1 a soldier's own rule or a title, name or term in any language,
    2 anything in its text; with ``near`` (for each meaningful word, the words it may
    mean: :func:`_forms`) 3 all of them in its names, 4 all in its text."""
    if needle in e.ids:
        return 0 if e.is_rule else 1
    if len(needle) >= _INFIX:        # a short word only as a word (:func:`_found`)
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


# --- a question's words as the texts have them (which words: companion.help.questions) ---

#: the shortest word a longer form is looked for (a shorter one must match as it is)
_STEM = 3


def _forms(word: str) -> tuple[dict[str, float], set[str]]:
    """The words of the texts a word of a question may mean: as meant, each with its
    weight (itself, as rare as it is; for a word of :data:`SAME` its meanings, 0.8 of
    theirs, and itself a third; the same long word bent, or an English word with a regular
    ending, 0.9), and all of them: those, a
    word a typo away, a longer form of it ("win" → "winning",
    "wins"), or one it shares its stem with: a common beginning of five letters or more,
    most of the shorter word ("reaches" → "reach", "gewinnt" → "gewinnen",
    "Täuschungsmarker" → "Täuschungsplättchen")."""
    _index()
    same = SAME.get(word, ())
    # a word the question means otherwise than the texts' same word ("same" IP: R72's "equal",
    # not "does the same"; French "autant" d'IP, not "autant de cases") counts as its
    # meanings, itself no more than another form of it
    meant = {word: _RARITY.get(word, 0.0) * (0.3 if same else 1.0)}
    for w in same:
        meant[w] = 0.8 * _RARITY.get(w, 0.0)
    found = _near(word) | set(meant)
    if len(word) >= _STEM:        # the texts' words are sorted: those beginning alike
        # (a short word's longer form adds a few letters, "win" → "winning"; French "fin"
        # is not the English "finished" of "our games")
        found.update(w for w in _beginning(word) if len(word) > _STEM or len(w) <= 7)
        if len(word) >= 5:
            for w in _beginning(word[:5]):
                n = len(os.path.commonprefix((w, word)))
                if n >= 0.6 * min(len(w), len(word)):
                    found.add(w)
    # a word that only shapes a sentence is no form of a word asked ("comme" of "commence":
    # the Bomb's "comme d'habitude … jour suivant" came before R12 for "qui commence le jour
    # suivant ?")
    found = {w for w in found if w in meant or w not in QUESTION_WORDS}
    for w in found - meant.keys():      # the same long word bent: "Doppelagenten", "missions"
        short, long = sorted((w, word), key=len)
        if not long.startswith(short):
            continue
        if len(short) >= 7 and len(long) - len(short) <= 2:
            # no rarer than as typed, when the texts have it as typed: the one "Sergents"
            # of R20 outweighed the Sergeant's own R43 for "le sergent …"
            meant[w] = 0.9 * min(_RARITY.get(w, 0.0), _RARITY.get(word, _RARITY.get(w, 0.0)))
        elif word in _RARITY and not same and len(short) >= 4 and long[len(short):] in _ENDINGS:
            # an English word bent that the texts also have: "guessed" (the Spy's) is the
            # Bomb's "guess" too, but no rarer than as typed ("sergents" than "sergent")
            meant[w] = 0.9 * min(_RARITY[w], _RARITY[word])
    return meant, found


#: an English word's regular endings: "guessed" is "guess" bent, as "tokens" is "token"
#: (not "guesser", who guesses; a short word's "wins" is not bent: "win" is also "Gewinn")
_ENDINGS = frozenset(("s", "es", "ed", "d", "ing"))


def _beginning(start: str) -> list[str]:
    """The words of the texts that begin with ``start``."""
    i = bisect.bisect_left(_VOCAB, start)
    out = []
    while i < len(_VOCAB) and _VOCAB[i].startswith(start):
        out.append(_VOCAB[i])
        i += 1
    return out


def _asked(e: _Entry, wanted: list[tuple[dict[str, float], set[str]]]) -> float | None:
    """How much of a question entry ``e`` answers: the weight of the question's words it
    has (each as meant, and all its forms: :func:`_forms`), negative (lower is better);
    ``None``: none of them. A rare word weighs more than a common one, a word in its
    names twice, another form of a word a third (German's "gewinnt", wins, is not "Gewinn",
    a gain) unless it is a long word bent (0.9), a meaning of a word of :data:`SAME` 0.8."""
    weight = 0.0
    for meant, forms in wanted:
        if has := forms & e.text_words:
            weight += max(meant[w] if w in meant else _RARITY[w] * 0.3 for w in has) * (
                2 if forms & e.name_words else 1)
    return -weight if weight else None


#: the shortest part of a word made of two (German and Dutch join their words)
_PART = 4


def _parts(word: str) -> list[str]:
    """A word the texts do not have, made of a word they have and a word a question asks
    with (:data:`SAME`), as those two: German and Dutch join their words ("Spielende" is
    "Spiel" and "Ende", the game's end, not the verb "spielen" a typo away; "speleinde"
    "spel" and "einde"). Any other word as it is ("Geheimdienstmarker" is still the
    "Geheimdienstplättchen" it begins as).

    >>> _parts("spielende"), _parts("spielen"), _parts("geheimdienstmarker")
    (['spiel', 'ende'], ['spielen'], ['geheimdienstmarker'])
    """
    _index()
    if word in _RARITY or word in SAME or len(word) < 2 * _PART or _beginning(word[:-1]):
        return [word]     # (nor a word the texts have bent: "télécharger", "télécharge")
    for i in range(_PART, len(word) - _PART + 1):
        head, tail = word[:i], word[i:]
        if head in _RARITY and head not in QUESTION_WORDS and tail in SAME:
            return [head, tail]
    return [word]


# --- the search ---------------------------------------------------------------------------

def _needle(query: Any) -> str:
    needle = " ".join(fold(query or "").split())[:_QUERY_MAX]
    return needle if re.search(r"[^\W_]", needle) else ""


_QUERY_MAX = 200


def _found(query: Any) -> tuple[str, list[tuple[int, int, _Entry]]]:
    needle = idiom(_needle(query))
    if not needle:
        return needle, []
    index = _index()
    # a short word is looked for as a word, never inside others ("tie" is not in "partie",
    # "da" not in "dag"), with its longer forms ("win": "winning"): the word search's
    typed = [(t, i, e) for i, e in enumerate(index)
             if len(needle) >= _INFIX and (t := _tier(e, needle, None)) is not None]
    words = [p for w in meaningful(needle) for p in _parts(w)]
    if len(words) > 1 and ABILITY.intersection(words) and _SOLDIERS.intersection(words):
        # a soldier's ability is its rule ("the marshal's ability": R49, not R23's text that
        # names both); an ability asked of no soldier stays a word asked
        words = [w for w in words if w not in ABILITY]
    if typed and (len(words) < 2 or min(t for t, _, _ in typed) < 2):
        # (of those found in their text, the entries that have it as a word of their own
        # first: "rating" the statistics' rating before the "infiltrating" of IP and a day)
        whole = set(needle.split())
        return needle, sorted(typed, key=lambda h: (
            h[0], h[0] == 2 and not whole <= h[2].text_words, h[1]))
    # nothing as typed (never noise beside hits): a question's shaping words aside, each
    # word a typo away or in another form, the entries naming more of them, and rarer
    # ones, first; then what else the question names ("the colonel"). Words found as typed
    # only inside some text ("erschöpfte Soldaten", the Bomb's) are joined by what has every
    # word in another form (R3's "Erschöpfung", "Soldaten"), and nothing with fewer
    named = [(0 if e.is_rule else 1, i, e) for i, e in enumerate(index)
             if e.ids.intersection(words)]               # "what is R45": its rule first
    wanted = [_forms(w) for w in words]
    near = [forms for _, forms in wanted]
    weight = [_asked(e, wanted) for e in index]
    # the soldier a question names first is what it asks about ("can the Spy beat the
    # Marshal?" asks for the Spy): that soldier's own entries weigh its name once more
    # (the rule R23, "neutralised", that names both came before the Spy's own)
    subject = next((forms for _, forms in wanted if forms & _SOLDIERS), None)
    if subject is not None and sum(bool(forms & _SOLDIERS) for _, forms in wanted) > 1:
        for i, e in enumerate(index):
            if (w := weight[i]) is not None and subject & e.name_words:
                weight[i] = w - max(_RARITY.get(n, 0.0) for n in subject & e.name_words)
    # (as much: rules, soldiers, words in the page's order, and of two of a kind the one
    # naming a word as typed first: "beginnt" R12's "Wer beginnt" before R2's "Beginstand")
    kind = {"rank-": 1, "word-": 2}
    # (a question that is a word of the glossary and nothing else, "what is IP?", asks
    # what that word means: its entry first, before the rules with it in their titles)
    asked = " ".join(words)
    order = sorted(range(len(index)), key=lambda i: (
        asked not in index[i].terms, weight[i] or 0.0, kind.get(index[i].key[:5], 0),
        -len(index[i].name_words.intersection(words)), i))
    hits = named + [(t, i, index[i]) for i in order if index[i].ids.isdisjoint(words)
                    and (t := _tier(index[i], needle, near)) is not None]
    if typed:       # (a name with every word, R70's "capture the flag", before a text
        return needle, sorted((h for h in hits if h[0] <= 4),      # with "flag capture")
                              key=lambda h: 1.5 if h[0] == 3 else h[0])
    if hits and len(near) > 1:
        found = {e.key for _, _, e in hits}
        hits += [(5, i, e) for i, e in enumerate(index) if e.key not in found
                 and any(ws & e.name_words for ws in near)]
    if not hits:          # none has every word: those with the most of them (tier 5), at
        best = min((w for w in weight if w is not None), default=0.0)   # least half the best
        hits = [(5, i, index[i]) for i in order if (w := weight[i]) is not None and w <= best / 2]
    return needle, sorted(hits, key=lambda h: h[0])        # stable: the order made above


def score(entry: dict[str, Any], query: str) -> int | None:
    """How well ``entry`` (in any language) answers ``query``: 0 its exact id ("r45"),
    1 its title, name or term, or a soldier's own rule, 2 anything in its text, 3-4 the
    same a typo away or in another form, 5 some of a question's words (:func:`_asked`);
    ``None``: not at all."""
    key = anchor(entry)
    return next((t for t, _, e in _found(query)[1] if e.key == key), None)


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
    one typo away does ("captian"), and a question asked in a sentence finds what its
    meaningful words name ("que fait l'espion ?" finds the Spy; "how do I win" the
    rules of winning, "win" in "winning"; "is my order wrong" the incorrect order). A
    blank query finds nothing.

    The entries are shallow copies, so a caller cannot change the help data.
    """
    shown = texts(locale)
    by_key = {**{e["id"]: e for e in shown["rules"]},
              **{f"rank-{e['rank']}": e for e in shown["ranks"]},
              **{f"word-{i}": e for i, e in enumerate(shown["glossary"])}}
    return [dict(by_key[e.key]) for _, _, e in _found(query)[1]]
