"""The browser tests wait with functions, never with bare expressions.

Playwright polls a bare expression (``"document.title === 'x'"``) with ``eval`` inside the
page, which the companion's Content-Security-Policy (``script-src 'self'``) refuses: such a
wait passes when the state is already there and fails with an EvalError when it has to
wait, so it fails only on a slow machine (CI's run of 2026-11-26 met it). A function
(``"() => …"``, ``"n => …"``) is called without ``eval`` and waits as meant.
"""

from __future__ import annotations

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
FUNCTION = re.compile(r"\s*(async\s+)?(\([^)]*\)|[A-Za-z_$][\w$]*)\s*=>|\s*(async\s+)?function\b")


def _text(node: ast.expr, names: dict[str, ast.expr]) -> str | None:
    if isinstance(node, ast.Name) and node.id in names:
        return _text(names[node.id], names)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        return _text(node.values[0], names) or ""
    return None


def test_every_wait_for_function_is_given_a_function():
    waits, bare = 0, []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        names = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign)
                 for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "wait_for_function" and node.args):
                waits += 1
                text = _text(node.args[0], names)
                if text is None or not FUNCTION.match(text):
                    bare.append(f"{path.relative_to(ROOT)}:{node.lineno}: {text!r}")
    assert waits > 30                   # the scan sees the browser tests' waits
    assert bare == [], "\n".join(bare)


def test_the_check_tells_a_function_from_an_expression():
    assert FUNCTION.match("() => document.body.dataset.ready === '1'")
    assert FUNCTION.match("([k, after]) => { return 1 }")
    assert FUNCTION.match("n => n > 1")
    assert not FUNCTION.match("document.querySelectorAll('[data-testid=game]').length === 5")
    assert not FUNCTION.match("window.ready")
