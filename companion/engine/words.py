"""Words as data: a message key with its parameters, put into words at the edge.

The engine never chooses a language. A narration, a refusal or the line saying what
comes next is a :class:`Msg`: its ``key`` is the English text with ``{name}``
placeholders (gettext's msgid, so ``pybabel extract`` finds it and a translator sees
a whole sentence) and its ``params`` fill them in. The English words are the key
itself (``str(msg)``); a screen in another language renders it with that
language's catalog (``msg.render(translations)``), in the spirit of python-chess's
``Outcome`` and lichess's translation keys.

A parameter that is itself a :class:`Msg` (a rank's name, a side, a list of
effects) is put into words in the same language; ``{side!c}`` starts the word with
a capital letter.

>>> m = Msg("{guesser!c} guesses {owner}'s mission {m}", guesser=side("blue"),
...         owner=side("red"), m=2)
>>> str(m)
"Blue guesses red's mission 2"
>>> class German:
...     words = {"{guesser!c} guesses {owner}'s mission {m}":
...              "{guesser!c} rät Mission {m} von {owner}", "red": "Rot", "blue": "Blau"}
...     def gettext(self, s): return self.words.get(s, s)
...     def ngettext(self, s, p, n): return s if n == 1 else p
>>> m.render(German())
'Blau rät Mission 2 von Rot'
>>> str(join([rank(1), rank(2), rank(3)]))
'Spy, Scout and Miner'
>>> str(plural("{n} step", "{n} steps", 2))
'2 steps'
>>> Msg.from_dict(m.to_dict()) == m
True
"""

from __future__ import annotations

import gettext
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, cast


class Translator(Protocol):
    """A catalog of one language: ``gettext.NullTranslations`` and Babel's
    ``Translations`` are translators."""

    def gettext(self, message: str) -> str: ...  # noqa: D102

    def ngettext(self, singular: str, plural: str, n: int) -> str: ...  # noqa: D102


#: English: every key is its own English text.
ENGLISH: Translator = gettext.NullTranslations()


def N_(text: str) -> str:
    """Mark ``text`` as a message key for ``pybabel extract`` and return it unchanged."""
    return text


class _Formatter(string.Formatter):
    """``str.format`` with one more conversion: ``!c`` starts the value with a capital."""

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        if conversion == "c":
            text = str(value)
            return text[:1].upper() + text[1:]
        return super().convert_field(value, conversion)


_FORMAT = _Formatter()

#: a field with the ``!c`` conversion and nothing else (as every message writes it)
_CAPITAL = re.compile(r"\{(\w+)!c\}")
_OTHER = re.compile(r"\{[^{}]*!")      # any other conversion


def _compiled(template: str) -> tuple[str, tuple[str, ...]] | None:
    """``template`` for ``str.format_map`` (each ``{name!c}`` made ``{name-c}``, a field of
    its own filled with the capitalised word) and the names it capitalises; ``None`` for a
    template with another conversion (``{text!r}``) or a brace written twice, left to the
    full :class:`_Formatter`.
    Made once per template: ``string.Formatter`` parses it in Python on every call, and
    rendering messages was ~5 % of a post's CPU (issue 24)."""
    got = _TEMPLATES.get(template, _UNSEEN)
    if got is _UNSEEN:
        names = tuple(_CAPITAL.findall(template))
        plain = _CAPITAL.sub(r"{\1-c}", template)
        got = None if _OTHER.search(plain) or "{{" in template else (plain, names)
        if len(_TEMPLATES) < 10_000:        # (keys and translations: a few thousand)
            _TEMPLATES[template] = got
    return cast("tuple[str, tuple[str, ...]] | None", got)


_TEMPLATES: dict[str, tuple[str, tuple[str, ...]] | None] = {}
_UNSEEN = object()


@dataclass(frozen=True, slots=True, eq=True)
class Msg:
    """A message key and its parameters (``plural``/``count``: a plural message whose
    form follows the parameter named ``count``)."""

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)
    plural: str | None = None
    count: str | None = None

    def __init__(self, key: str, /, **params: Any) -> None:
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "params", params)
        object.__setattr__(self, "plural", None)
        object.__setattr__(self, "count", None)

    __hash__ = None  # type: ignore[assignment]

    def render(self, tr: Translator = ENGLISH) -> str:
        """The message in the language of ``tr`` (English by default)."""
        if self.plural is not None and self.count is not None:
            template = tr.ngettext(self.key, self.plural, int(self.params[self.count]))
        else:
            template = tr.gettext(self.key)
        values = {k: put(v, tr) for k, v in self.params.items()}
        fast = _compiled(template)
        if fast is None:
            return _FORMAT.vformat(template, (), values)
        plain, capitals = fast
        for name in capitals:
            text = str(values[name])
            values[name + "-c"] = text[:1].upper() + text[1:]
        return plain.format_map(values)

    def __str__(self) -> str:
        return self.render()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"key", "params"}`` (and ``plural``, ``count``), nested too."""
        d: dict[str, Any] = {"key": self.key,
                             "params": {k: _to_json(v) for k, v in self.params.items()}}
        if self.plural is not None:
            d.update(plural=self.plural, count=self.count)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Msg:
        """The message :meth:`to_dict` gave."""
        params = {k: cls.from_dict(v) if isinstance(v, Mapping) else v
                  for k, v in dict(d.get("params") or {}).items()}
        m = cls(str(d["key"]), **params)
        if d.get("plural") is not None:
            object.__setattr__(m, "plural", str(d["plural"]))
            object.__setattr__(m, "count", str(d["count"]))
        return m


def _to_json(v: Any) -> Any:
    if isinstance(v, Msg):
        return v.to_dict()
    if isinstance(v, str) and type(v) is not str:      # a Side: keep it a word to translate
        return Msg(str(v)).to_dict()
    return v


def put(value: Any, tr: Translator = ENGLISH) -> Any:
    """A parameter in words: a message rendered, a side translated, anything else as it is."""
    if isinstance(value, Msg):
        return value.render(tr)
    if isinstance(value, str) and type(value) is not str:   # Side, a StrEnum: a word
        return tr.gettext(str(value))
    return value


def plural(singular: str, plural_key: str, n: int, /, **params: Any) -> Msg:
    """A message with a singular and a plural key; ``{n}`` is the number."""
    m = Msg(singular, n=n, **params)
    object.__setattr__(m, "plural", plural_key)
    object.__setattr__(m, "count", "n")
    return m


SIDE_WORDS = {"red": N_("red"), "blue": N_("blue")}


def side(name: str) -> Msg:
    """A side's name as a word of the screen's language (``"red"`` or ``"blue"``)."""
    return Msg(SIDE_WORDS[str(name)])


RANK_NAMES = {
    1: N_("Spy"), 2: N_("Scout"), 3: N_("Miner"), 4: N_("Sergeant"), 5: N_("Lieutenant"),
    6: N_("Captain"), 7: N_("Bomb"), 8: N_("Colonel"), 9: N_("General"), 10: N_("Marshal"),
}


def rank(r: int) -> Msg:
    """A rank's name (1 Spy … 10 Marshal) as a word of the screen's language."""
    return Msg(RANK_NAMES[r])


def join(parts: Iterable[Any], last: str = N_("{first} and {last}")) -> Any:
    """``a``, ``a and b``, ``a, b and c`` in the screen's language (``""`` for none)."""
    items = list(parts)
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    head: Any = items[0]
    for x in items[1:-1]:
        head = Msg(N_("{first}, {next}"), first=head, next=x)
    return Msg(last, first=head, last=items[-1])


def listing(parts: Iterable[Any]) -> Any:
    """``a, b, c`` in the screen's language (``""`` for none)."""
    items = list(parts)
    if not items:
        return ""
    head: Any = items[0]
    for x in items[1:]:
        head = Msg(N_("{first}, {next}"), first=head, next=x)
    return head


def numbers(ns: Iterable[int]) -> Msg | str:
    """Numbers for a refusal: ``1, 2, 3``, or "none"."""
    return ", ".join(map(str, ns)) or Msg("none")
