"""The four languages are complete and nothing in them is dead.

Every message key the code uses (the server's: Python and templates; the pages'
scripts': the ``js`` domain) has a translation in nl, fr and de, with the same
placeholders; no catalog holds a key nothing uses; each compiled ``.mo`` is its
``.po``; the help texts hold the same entries in every language. English is the
catalogs' source language: a key is its English text.
"""

from __future__ import annotations

import io
import json
import pathlib
import re

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from companion import help as rules_help
from companion.edge import lang

ROOT = pathlib.Path(__file__).resolve().parents[1]
CATALOGS = ROOT / "companion" / "translations"
LOCALES = [x for x in lang.LOCALES if x != lang.DEFAULT]
PLACEHOLDER = re.compile(r"\{(\w+)(?:![a-z])?\}|%\((\w+)\)s")


def _used(domain: str) -> set[str]:
    """The keys the code uses now, extracted as scripts/translations does."""
    if domain == "messages":
        method_map = [("companion/**.py", "python"), ("templates/**.html", "jinja2")]
        keywords = {"_": None, "gettext": None, "ngettext": (1, 2), "Msg": None, "N_": None,
                    "plural": (1, 2)}
    else:
        method_map = [("static/**.js", "companion.edge.lang:extract_scripts")]
        keywords = {"T": None, "TN": (1, 2)}
    found = set()
    for _, _, message, _, _ in extract_from_dir(str(ROOT), method_map, keywords=keywords):
        found.add(message[0] if isinstance(message, tuple) else message)
    return found


def _catalog(locale: str, domain: str):
    with open(CATALOGS / locale / "LC_MESSAGES" / f"{domain}.po", "rb") as f:
        return read_po(f, locale=locale)


def _names(text: str) -> set[str]:
    return {a or b for a, b in PLACEHOLDER.findall(text)}


@pytest.mark.parametrize("domain", ["messages", "js"])
@pytest.mark.parametrize("locale", LOCALES)
def test_every_key_is_translated_and_every_translation_is_used(locale, domain):
    used = _used(domain)
    cat = _catalog(locale, domain)
    held = {}
    for m in cat:
        if m.id:
            held[m.id[0] if isinstance(m.id, tuple) else m.id] = m
    assert sorted(used - set(held)) == [], f"keys without a {locale} translation"
    assert sorted(set(held) - used) == [], f"{locale} {domain}.po holds keys nothing uses"
    for key, m in held.items():
        forms = m.string if isinstance(m.string, tuple) else (m.string,)
        assert all(forms) and not m.fuzzy, f"{locale}: {key!r} is untranslated or fuzzy"
        want = _names(key)
        for form in forms:
            assert _names(form) == want, f"{locale}: {key!r} → {form!r} changes the placeholders"


@pytest.mark.parametrize("locale", LOCALES)
def test_each_compiled_catalog_is_its_po(locale):
    cat = _catalog(locale, "messages")
    with open(CATALOGS / locale / "LC_MESSAGES" / "messages.mo", "rb") as f:
        compiled = {str(m.id): str(m.string) for m in read_mo(f) if m.id}
    buf = io.BytesIO()
    write_mo(buf, cat)
    buf.seek(0)
    fresh = {str(m.id): str(m.string) for m in read_mo(buf) if m.id}
    assert compiled == fresh, "run ./scripts/translations compile"


def _shape(value):
    """The help data without its words: ids, numbers, phases, links."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()
                if k not in ("name", "ability", "text", "title", "term")}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return value


def _words(value, path=""):
    if isinstance(value, dict):
        for k, v in value.items():
            if k in ("name", "ability", "text", "title", "term"):
                yield f"{path}.{k}", v
            else:
                yield from _words(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _words(v, f"{path}[{i}]")


@pytest.mark.parametrize("locale", LOCALES)
def test_the_help_texts_hold_the_same_entries_in_every_language(locale):
    en, other = rules_help.texts("en"), rules_help.texts(locale)
    assert _shape(other) == _shape(en)
    mine = dict(_words(other))
    assert set(mine) == set(dict(_words(en))), "a help text missing or extra"
    assert all(isinstance(v, str) and v.strip() for v in mine.values())
    # each text is written in that language (names and short ids such as "IP" may match)
    english = dict(_words(en))
    same = [p for p, v in mine.items() if v == english[p] and len(v.split()) > 2]
    assert same == [], f"{locale}: still in English: {same[:3]}"
    for r, e in zip(other["rules"], en["rules"], strict=True):   # rule ids stay the same
        assert sorted(re.findall(r"R\d+", r["text"])) == sorted(re.findall(r"R\d+", e["text"]))


def test_rank_names_follow_the_language():
    """The box's own rank names per language; numbers stay."""
    names = {loc: [r["name"] for r in rules_help.texts(loc)["ranks"]] for loc in lang.LOCALES}
    assert names["de"][9] == "Feldmarschall" and names["fr"][1] == "Éclaireur"
    assert names["nl"][5] == "Kapitein"
    for loc in LOCALES:
        tr = lang.translations(loc)
        from companion.engine import RANK_NAMES
        assert [tr.gettext(RANK_NAMES[r]) for r in range(1, 11)] == names[loc]


def test_the_help_files_are_json_a_translator_can_edit():
    for loc in lang.LOCALES:
        text = (ROOT / "companion" / "help" / f"{loc}.json").read_text("utf-8")
        assert json.loads(text)


# French sets its high punctuation apart with a space that never breaks: "faux : Bleu", not
# a colon left alone at the start of a line ("faux" | ": Bleu") on a narrow phone
LOOSE = re.compile(r" [:;?!%»]|« ")


def _french_texts():
    for domain in ("messages", "js"):
        for m in _catalog("fr", domain):
            if m.id:
                yield from (m.string if isinstance(m.string, tuple) else (m.string,))

    def strings(x):
        if isinstance(x, str):
            yield x
        elif isinstance(x, dict):
            for v in x.values():
                yield from strings(v)
        elif isinstance(x, list):
            for v in x:
                yield from strings(v)
    yield from strings(json.loads((ROOT / "companion" / "help" / "fr.json").read_text()))


def test_french_punctuation_keeps_to_its_word():
    """Every French text (the catalogs and the help) puts a narrow no-break space, never
    a plain one, before : ; ? ! % and » and after «."""
    loose = [t for t in _french_texts() if LOOSE.search(t)]
    assert loose == [], loose[:5]


class _Words(dict):
    """Any placeholder's value: a word of its own name, in small letters."""

    def __missing__(self, key: str) -> str:
        return f"é{key}-word"


@pytest.mark.parametrize("locale", LOCALES)
def test_every_message_renders_as_the_full_formatter_renders_it(locale):
    """A message's template is read once and filled by ``str.format_map`` (issue 24:
    ``string.Formatter`` parsed it in Python at every render); every key and every
    translation of it in this language come out as the full formatter makes them,
    ``{side!c}`` with its capital."""
    from companion.engine import words
    from companion.engine.words import Msg

    class One:                  # a catalog that answers with one template
        def __init__(self, template: str) -> None:
            self.template = template

        def gettext(self, s: str) -> str:
            return self.template

        def ngettext(self, s: str, p: str, n: int) -> str:
            return self.template

    checked = capitals = 0
    for m in _catalog(locale, "messages"):
        if not m.id:
            continue
        for template in (m.id if isinstance(m.id, tuple) else (m.id,)) + (
                m.string if isinstance(m.string, tuple) else (m.string,)):
            names = _names(template)
            msg = Msg("k", **{n: f"é{n}-word" for n in names})
            want = words._FORMAT.vformat(template, (), _Words())
            assert msg.render(One(template)) == want, template
            assert words._compiled(template) is not None, template     # the fast path
            checked += 1
            capitals += "!c}" in template
    assert checked > 500 and capitals > 30
    # a template the fast path leaves to the formatter renders as before
    assert Msg("{a!r} {{b}} {c!c}", a="x", c="y").render() == "'x' {b} Y"
