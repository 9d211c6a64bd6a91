"""What a field of a request may hold: the patterns of keys and codes, text that is text,
a person's name. The request bodies that use them are declared in
:mod:`companion.api.bodies` (issue 51), which refuses a field that breaks them.

>>> bool(KEY_RE.match("retry-key-1")), bool(CODE_RE.match("AB12")), bool(SECRET_RE.match("x"))
(True, True, False)
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

KEY_RE = re.compile(r"^[A-Za-z0-9_.:-]{8,64}$")
CODE_RE = re.compile(r"^[A-Za-z0-9]{1,12}$")


# Characters no name needs: controls (NUL among them), lone surrogates, unassigned and
# private-use code points, and the bidirectional overrides that would reorder a name.
_NOT_TEXT = frozenset({"Cc", "Cs", "Cn", "Co"})
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
NAME_MAX = 40


def clean_text(value: Any) -> bool:
    """Whether every string in ``value`` (nested too) is text that can be stored and sent:
    no NUL or other control character but the usual whitespace, no lone surrogate.

    >>> clean_text({"name": "Zoë", "ranks": [1, 2]}), clean_text({"name": "a" + chr(0) + "b"})
    (True, False)
    """
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            for ch in v:
                if ch in "\t\n\r":
                    continue
                cat = unicodedata.category(ch)
                if cat == "Cc" or cat == "Cs":
                    return False
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return True


# Invisible characters a name loses (zero-width space, soft hyphen, BOM, direction marks,
# tags: Unicode's "format" characters), but for the two joiners emoji and some scripts
# need between two characters; and more marks stacked on one letter than a language needs
# ("Zalgo" text spills over the lines above and below it on the big screen).
_JOINERS = "\u200c\u200d"
_LOOSE_JOINER = re.compile(r"(?<!\S)[\u200c\u200d]+|[\u200c\u200d]+(?!\S)")
MARKS_MAX = 4


def _stacked(text: str) -> int:
    """The most combining marks in a row in ``text``."""
    most = run = 0
    for ch in text:
        run = run + 1 if unicodedata.combining(ch) else 0
        most = max(most, run)
    return most


def person_name(v: Any) -> str | None:
    """``v`` as a person's name: printable text, invisible characters dropped, spaces
    folded, trimmed, 1-40 characters of which at least one can be seen; ``None`` if it
    cannot be one.

    >>> person_name(" Zo\u200be  van\u00adDijk "), person_name("👩\u200d💻 Ann")
    ('Zoe vanDijk', '👩\u200d💻 Ann')
    >>> person_name("\u200b"), person_name("x\u202ey"), person_name(7)
    (None, None, None)
    """
    if not isinstance(v, str) or any(ch in _BIDI for ch in v):
        return None
    seen = "".join(ch for ch in v if ch in _JOINERS or unicodedata.category(ch) != "Cf")
    text = unicodedata.normalize("NFC", " ".join(_LOOSE_JOINER.sub("", seen).split()))
    if (not 1 <= len(text) <= NAME_MAX
            or any(unicodedata.category(ch) in _NOT_TEXT for ch in text)
            or not any(unicodedata.category(ch)[0] in "LNPS" for ch in text)
            or _stacked(text) > MARKS_MAX):
        return None
    return text


SECRET_RE = re.compile(r"^[A-Za-z0-9_-]{32,128}$")
HASH_RE = re.compile(r"^[0-9a-f]{64}$")       # the SHA-256 of a key, as it is stored
