"""The screens' languages: English, Nederlands, Français, Deutsch.

Words reach this layer as data (:class:`~companion.engine.Msg`: a message key, the
English text, and its parameters) and are put into a screen's language only when
they are sent: :func:`dumps` encodes a view for one language, the app's JSON
provider (:class:`JSONProvider`) for the language of the request. The catalogs are
gettext's (``companion/translations/<locale>/LC_MESSAGES``): ``messages`` for the
server's words (Python and templates, compiled ``.mo``, read by Flask-Babel and by
:func:`translations`), ``js`` for the pages' scripts (sent to the page as data by
:func:`script_words`).

>>> from companion.engine import Msg, side
>>> dumps({"next": Msg("{side!c} starts day {day}", side=side("blue"), day=2)}, "de")
'{"next": "Blau beginnt Tag 2"}'
>>> best(["fr-CA", "de"]), best(["pt"]), best([])
('fr', 'en', 'en')
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.pofile import read_po
from babel.numbers import format_decimal, format_percent
from babel.support import NullTranslations, Translations
from flask.json.provider import DefaultJSONProvider

from ..engine import Msg, Translator

#: The languages every screen can be read in (English is the catalogs' source).
LOCALES: tuple[str, ...] = ("en", "nl", "fr", "de")
#: Each language by its own name, for the switch.
NAMES = {"en": "English", "nl": "Nederlands", "fr": "Français", "de": "Deutsch"}
DEFAULT = "en"
#: The cookie a screen's language is remembered in (one per browser: per phone, per TV).
COOKIE = "sl-lang"
TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"


def best(wanted: list[str]) -> str:
    """The first of ``wanted`` (language tags, best first) we speak, else English."""
    for tag in wanted:
        code = tag.replace("_", "-").split("-")[0].lower()
        if code in LOCALES:
            return code
    return DEFAULT


@cache
def translations(locale: str) -> Translator:
    """The compiled ``messages`` catalog of ``locale`` (English: the keys themselves)."""
    if locale not in LOCALES or locale == DEFAULT:
        return NullTranslations()
    return Translations.load(str(TRANSLATIONS), [locale], "messages")


@cache
def script_words(locale: str) -> dict[str, Any]:
    """The pages' scripts' words in ``locale``: key → text (a list of forms for a plural);
    English is ``{}`` (a script's key is its English text)."""
    path = TRANSLATIONS / locale / "LC_MESSAGES" / "js.po"
    if locale == DEFAULT or not path.is_file():
        return {}
    with path.open("rb") as f:
        catalog = read_po(f, locale=locale)
    out: dict[str, Any] = {}
    for m in catalog:
        if not m.id or not m.string:
            continue
        key = str(m.id[0] if isinstance(m.id, list | tuple) else m.id)
        out[key] = list(m.string) if isinstance(m.string, tuple) else m.string
    return out


def say(value: Any, locale: str) -> Any:
    """``value`` with every message in it put into ``locale`` (dicts and lists too)."""
    tr = translations(locale)
    return _put(value, tr)


def _put(value: Any, tr: Translator) -> Any:
    if isinstance(value, Msg):
        return value.render(tr)
    if isinstance(value, dict):
        return {k: _put(v, tr) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_put(v, tr) for v in value]
    return value


def dumps(value: Any, locale: str) -> str:
    """JSON of ``value`` with its messages in ``locale`` (one encoding per language)."""
    tr = translations(locale)

    def default(o: Any) -> Any:
        if isinstance(o, Msg):
            return o.render(tr)
        raise TypeError(f"{type(o).__name__} is not JSON")
    return json.dumps(value, default=default)


def stored(value: Any) -> str:
    """JSON to keep in the database: a message as its dict, so it is read later in the
    language of whoever reads it (:func:`revive`)."""
    def default(o: Any) -> Any:
        if isinstance(o, Msg):
            return {"__msg__": o.to_dict()}
        raise TypeError(f"{type(o).__name__} is not JSON")
    return json.dumps(value, default=default)


def revive(text: str) -> Any:
    """The value :func:`stored` kept, its messages messages again."""
    def hook(d: dict[str, Any]) -> Any:
        return Msg.from_dict(d["__msg__"]) if set(d) == {"__msg__"} else d
    return json.loads(text, object_hook=hook)


def current() -> str:
    """The language of the request being answered (English outside a request)."""
    from flask_babel import get_locale
    loc = get_locale()
    return str(loc.language) if loc is not None and loc.language in LOCALES else DEFAULT


def number(value: float, digits: int = 0, locale: str | None = None) -> str:
    """``value`` with ``digits`` decimals as ``locale`` writes it (the request's language:
    the pages' ``|number`` filter).

    >>> number(2.8, 1, "en"), number(2.8, 1, "fr"), number(1234, 0, "de")
    ('2.8', '2,8', '1.234')
    """
    return format_decimal(value, format="#,##0" + ("." + "0" * digits if digits else ""),
                          locale=locale or current())


def percent(value: float, locale: str | None = None) -> str:
    r"""``value`` (a share out of 100) as a percentage in ``locale`` (the request's
    language: the pages' ``|percent`` filter).

    >>> percent(33, "en"), percent(33, "nl"), percent(33, "de")
    ('33%', '33%', '33\xa0%')
    """
    return format_percent(value / 100, locale=locale or current())


def colon(label: str, locale: str | None = None) -> str:
    r"""``label`` before its value, as ``locale`` writes it (the request's language: the
    pages' ``|colon`` filter): French puts a narrow space before the colon.

    >>> colon("29 games", "en"), colon("29 parties", "fr")
    ('29 games:', '29 parties\u202f:')
    """
    return label + ("\u202f:" if (locale or current()) == "fr" else ":")


def sentence(text: str) -> str:
    """A refusal's words (said in lower case, to go after "error:" or in a toast) as a
    sentence of its own on a page: a capital first, a full stop last.

    >>> sentence("there is no table with the code 'ZZZZZ'; check the code on the big screen")
    "There is no table with the code 'ZZZZZ'; check the code on the big screen."
    >>> sentence("Trop d'essais."), sentence("")
    ("Trop d'essais.", '')
    """
    if not text:
        return text
    return text[0].upper() + text[1:] + ("" if text[-1] in ".!?…" else ".")


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON, with every message put into the language of the request."""

    @staticmethod
    def default(o: Any) -> Any:
        """A message in the request's language; anything else as Flask does it."""
        if isinstance(o, Msg):
            return o.render(translations(current()))
        return DefaultJSONProvider.default(o)


_SCRIPT_CALL = re.compile(r'\b(TN?)\(\s*"((?:[^"\\]|\\.)*)"(?:\s*,\s*"((?:[^"\\]|\\.)*)")?')


def extract_scripts(fileobj: Any, keywords: Any, comment_tags: Any,
                    options: Any) -> Iterator[tuple[int, str, Any, list[str]]]:
    """``pybabel extract`` for the pages' scripts (``babel-js.cfg``): every
    ``T("key", …)`` and ``TN("one", "many", n, …)``, also inside template literals
    (which Babel's own JavaScript reader does not always enter).

    >>> import io
    >>> src = b'x = `<b>${esc(T("Day {n}", {n}))}</b>`; TN("{n} step", "{n} steps", k)'
    >>> [m[2] for m in extract_scripts(io.BytesIO(src), None, None, None)]
    ['Day {n}', ('{n} step', '{n} steps')]
    """
    text = fileobj.read().decode("utf-8")
    for m in _SCRIPT_CALL.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        one = json.loads(f'"{m.group(2)}"')
        if m.group(1) == "TN" and m.group(3) is not None:
            yield line, "TN", (one, json.loads(f'"{m.group(3)}"')), []
        elif m.group(1) == "T":
            yield line, "T", one, []
