"""The browser's files (static/): each small enough to read whole, split by what it draws
(issue 51), one source of the steps for the phone and the big screen, and each page's
scripts plain scripts in an order that works (no modules, no bundler: the TV browsers of
test_old_browsers.py run them as they are).

Plain scripts share one global scope: a name two scripts of a page both declare at their
top stops the second one ("already been declared"), and a script that takes names from
another's object as it loads (``const {screenSeats} = Entry;``) needs that one before it.
"""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
STATIC, TEMPLATES = ROOT / "static", ROOT / "templates"
MAX_LINES = 400

SCRIPT = re.compile(r"<script[^>]*\bsrc=\"\{\{ url_for\('static', filename='([\w./-]+)'\)")
TOP_NAME = re.compile(r"^(?:const|let|var|class|function|async function)\s+(\w+)", re.M)
TAKEN_AT_LOAD = re.compile(r"\} = ([A-Z]\w*)[,;]")


def _page_scripts(template: str) -> list[str]:
    """The static scripts a page runs, in order: base.html's own around its ``scripts``
    block, the page's in it."""
    base = (TEMPLATES / "base.html").read_text()
    head, _, tail = base.partition("{% block scripts %}")
    page = (TEMPLATES / template).read_text()
    if template == "base.html":
        return SCRIPT.findall(base)
    return SCRIPT.findall(head) + SCRIPT.findall(page) + SCRIPT.findall(tail)


def _declared(name: str) -> set[str]:
    return set(TOP_NAME.findall((STATIC / name).read_text()))


def test_every_file_in_static_is_at_most_400_lines() -> None:
    files = [p for p in sorted(STATIC.iterdir()) if p.suffix in (".js", ".css")]
    assert len(files) > 20
    long = {p.name: n for p in files if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"over {MAX_LINES} lines: {long}"


def test_the_pages_scripts_are_plain_scripts_in_an_order_that_works() -> None:
    pages = sorted(p.name for p in TEMPLATES.glob("*.html"))
    scripts = {p: _page_scripts(p) for p in pages}
    assert len(scripts["host.html"]) >= 10 and "host.js" in scripts["host.html"]
    # the steps a seat enters: one description, shared by the phone and the big screen
    assert "steps.js" in scripts["phone.html"] and "steps.js" in scripts["host.html"]
    assert [p.name for p in STATIC.glob("*.js") if "Steps" in _declared(p.name)] == ["steps.js"]
    owner = {n: p.name for p in STATIC.glob("*.js") for n in _declared(p.name)}
    for page, names in scripts.items():
        html = (TEMPLATES / page).read_text()
        assert 'type="module"' not in html and "nomodule" not in html, page
        seen: dict[str, str] = {}
        for name in names:
            text = (STATIC / name).read_text()
            assert not re.search(r"^\s*(?:import|export)\b", text, re.M), (page, name)
            for n in _declared(name):
                assert n not in seen, f"{page}: {n} declared by {seen.get(n)} and {name}"
                seen[n] = name
            # what a script takes from another as it loads: that one is on the page before it
            for other in TAKEN_AT_LOAD.findall(text):
                if other in owner:
                    assert other in seen, f"{page}: {name} takes {other} before {owner[other]}"
