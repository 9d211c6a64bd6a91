"""A question typed as a sentence ("what does the spy do?", "que fait l'espion ?").

When the words as typed find nothing, the words that only shape a question (in the
four languages, folded) are set aside, and each word left may also be a longer or
shorter form of a word of the texts ("win" finds "winning", "captures" finds
"capture": the search's ``_forms``, :mod:`companion.help.ranking`). The words of the
four languages are data beside this module (``companion/help/words.json``, read
once); this module reads them:

- ``question_words``: the words that only shape a question (:data:`QUESTION_WORDS`);
- ``ability``: a soldier's "ability", "power" (:data:`ABILITY`);
- ``same``: a question's word for what the texts say otherwise (:data:`SAME`), each
  group with why it is there;
- ``idioms``: whole questions said with words that each only shape a question, and
  what they ask for (:func:`idiom`);
- ``scoring``: points won, earned, scored (R30's scoring, not R72's winning);
- ``phrases``: phrases said again in the texts' own words ("take back" is "undo").

>>> meaningful("que fait l'espion ?"), meaningful("who"), meaningful("what is r45")
(['espion'], ['who'], ['r45'])
>>> idiom("what s the score"), idiom("comment on gagne des points")
('ip', 'scoring ip')
>>> idiom("how do i take back a tap")
'how do i undo a tap'
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from .entries import LOCALES, load, texts

_WORDS: dict[str, Any] = load("words")

#: the words that only shape a question, in the four languages, folded
QUESTION_WORDS = frozenset(" ".join(_WORDS["question_words"]).split())

#: a soldier's "ability", "power", in the four languages, folded
ABILITY = frozenset(_WORDS["ability"].split())


def _same(groups: list[Any]) -> dict[str, tuple[str, ...]]:
    """Each question word → the texts' words it means; a word of two languages
    ("verloren") means both languages' words. (A plain string among the groups is a
    note on those that follow.)"""
    out: dict[str, tuple[str, ...]] = {}
    for group in groups:
        if isinstance(group, str):
            continue
        means = tuple(group["means"].split())
        for w in group["asked"].split():
            out[w] = out.get(w, ()) + means
    return out


#: a question's word for what the texts say otherwise ("wrong" for the rules' "incorrect",
#: "lose" for "win", "tie" for "draw"), in the four languages, folded: looked for as well
SAME = _same(_WORDS["same"])

#: the most words of a question looked for
_WORDS_MAX = 8


def meaningful(needle: str) -> list[str]:
    """The words of ``needle`` that carry its meaning (all of them if every one only
    shapes a question), each once, the first :data:`_WORDS_MAX` of them."""
    words = list(dict.fromkeys(re.findall(r"[^\W_]+", needle)))
    # the first few: a question names few things, and each word is looked for among
    # every word of the texts (a stranger's page of words costs no more than a question)
    return ([w for w in words if w not in QUESTION_WORDS] or words)[:_WORDS_MAX]


#: whole questions said with words that each only shape a question: what they ask for
#: (the game told again; the score, on the IP markers). Only a question that is all of
#: one of these ("what is the score of a Spy?" asks for the Spy)
_IDIOMS = tuple((re.compile(i["pattern"]), str(i["means"])) for i in _WORDS["idioms"])


def _either(words: str) -> str:
    """A pattern matching any of ``words`` (apart by spaces)."""
    return "(?:" + "|".join(map(re.escape, words.split())) + ")"


_SCORING_WORDS = {k: _either(v) for k, v in _WORDS["scoring"].items()}
_GET, _WIN = _SCORING_WORDS["get"], _SCORING_WORDS["win"]
_BETWEEN, _POINTS = _SCORING_WORDS["between"], _SCORING_WORDS["points"]
#: points (IP) won, earned, scored, got: R30's scoring, not R72's winning the game
#: ("comment on gagne des points ?", "how do you win points?", "wie gewinnt man Punkte?",
#: "hoe verdien je punten?"), when the question asks nothing else ("does the bomb get
#: points?" asks for the Bomb). Between the verb and the points only a pronoun, an article
#: or a "more" ("qui gagne aux points ?" is R72's); the points before the verb only for
#: verbs that never mean winning the game ("Punkte bekommen", "punten scoren": "the side
#: with more points wins" is R72's)
_SCORING = re.compile(rf"\b(?:{_GET}|{_WIN})(?:\s+{_BETWEEN}){{0,2}}\s+{_POINTS}\b"
                      rf"|\b{_POINTS}\s+{_GET}\b")

def _fold(text: str) -> str:
    """``text`` as a query is folded (no accents, no case; the search's ``fold``)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


#: a soldier's name in any of the four languages, and the other names a question may
#: give it (:data:`SAME`'s "Hauptmann", "Spion"), as a pattern
_SOLDIER = _either(" ".join(
    sorted({_fold(r["name"]) for loc in LOCALES for r in texts(loc)["ranks"]}
           | {w for w, means in SAME.items()
              if {_fold(r["name"]) for loc in LOCALES for r in texts(loc)["ranks"]}
              .intersection(means)})))

#: phrases said in the texts' own words (a question keeps the rest of its words); in a
#: pattern, ``{win}`` is the scoring's words for winning, ``{soldier}`` a soldier's name
_PHRASES = tuple((re.compile(p["pattern"].replace("{win}", _WIN)
                             .replace("{soldier}", _SOLDIER)), str(p["said"]))
                 for p in _WORDS["phrases"])


def idiom(needle: str) -> str:
    """``needle``, its phrases said in the texts' words ("take back a tap" is "undo a
    tap"), or what it asks for if it is a whole question of the idioms ("qu'est-ce qui
    s'est passé ?" is "récit", "what's the score?" "IP", "how do I earn points?" R30's
    "scoring" IP)."""
    words = " ".join(re.findall(r"[^\W_]+", needle))
    for phrase, said in _PHRASES:
        words, n = phrase.subn(said, words)
        if n:
            needle = words
    means = next((means for phrase, means in _IDIOMS if phrase.fullmatch(words)), None)
    if means is None and (m := _SCORING.search(words)):
        rest = re.findall(r"[^\W_]+", words[:m.start()] + " " + words[m.end():])
        if all(w in QUESTION_WORDS for w in rest):     # nothing else asked: "the bomb"
            means = "scoring ip"
    return means or needle
