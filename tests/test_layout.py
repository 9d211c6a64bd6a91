"""The package's layout: modules import one way only and never another's private names;
only the modules that answer HTTP read Flask's ``request``; no module of the companion or
the benchmarks is over 450 lines.

Every module under ``companion/`` is parsed (imports inside functions count: a
late import is a cycle put off, not removed). An edge goes from a module to
each ``companion`` module it imports: ``from . import x`` to the submodule ``x``
when there is one, else to the package.
"""

from __future__ import annotations

import ast
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "companion"


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _base(module: str, path: pathlib.Path, node: ast.ImportFrom) -> str:
    """The absolute module name an ``ImportFrom`` reads from."""
    if node.level == 0:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def _imports(module: str) -> list[tuple[str, str | None, int]]:
    """(imported companion module, name taken from it or None, line) for each import."""
    path = MODULES[module]
    out: list[tuple[str, str | None, int]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(a.name, None, node.lineno) for a in node.names
                    if a.name.split(".")[0] == "companion"]
        elif isinstance(node, ast.ImportFrom):
            base = _base(module, path, node)
            if base.split(".")[0] != "companion":
                continue
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.append((sub, None, node.lineno) if sub in MODULES
                           else (base, a.name, node.lineno))
    return out


GRAPH = {m: {t for t, _, _ in _imports(m) if t in MODULES and t != m} for m in MODULES}


def _cycles() -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return found


def test_the_layout_sees_the_engine_chain():
    engine = {m.rpartition(".")[2]: m for m in MODULES if m.startswith("companion.engine.")}
    # scoring <- abilities <- referee <- preview, and expect <- referee: never back
    chain = ["scoring", "abilities", "referee", "preview"]
    for lower, upper in zip(chain, chain[1:], strict=False):
        assert engine[lower] in GRAPH[engine[upper]], (lower, upper)
    assert engine["expect"] in GRAPH[engine["referee"]]
    for lower in ("scoring", "abilities", "expect"):
        assert engine["referee"] not in GRAPH[engine[lower]], lower
    assert engine["abilities"] not in GRAPH[engine["scoring"]]


def _rule_ids(text: str) -> set[str]:
    """The ids in a rule list such as ``R3, R15`` or ``R40-R49``, ranges expanded."""
    ids: set[str] = set()
    for a, b in re.findall(r"R(\d+)(?:-R(\d+))?", text):
        ids |= {f"R{n}" for n in range(int(a), int(b or a) + 1)}
    return ids


def test_a_rule_is_found_by_its_id():
    """Every rule id names the engine function that implements it, first thing in its
    docstring (``R45, R49: ...``), or marks the branch or constant that does
    (``# R51 ...``, ``rule = "R61"``), so ``grep -rn R45 companion/engine/`` shows
    where it lives."""
    rules = json.loads((PACKAGE / "help" / "en.json").read_text(encoding="utf-8"))["rules"]
    wanted = {r["id"] for r in rules}
    found: dict[str, set[str]] = {}
    for m, path in MODULES.items():
        if not m.startswith("companion.engine"):
            continue
        text = path.read_text()
        for node in ast.walk(ast.parse(text, str(path))):
            doc = isinstance(node, ast.FunctionDef) and ast.get_docstring(node)
            lead = re.match(r"(R\d+(?:-R\d+)?(?:, R\d+(?:-R\d+)?)*)\b", doc or "")
            for rid in _rule_ids(lead.group(1)) if lead else ():
                found.setdefault(rid, set()).add(f"{m}.{node.name}")
            if isinstance(node, ast.Constant) and re.fullmatch(r"R\d+", str(node.value)):
                found.setdefault(str(node.value), set()).add(m)   # the rule a reveal names
        for line in text.splitlines():
            for rid in re.findall(r"\bR\d+\b", line.partition("  # ")[2]):
                found.setdefault(rid, set()).add(m)
    assert wanted and wanted <= set(found), f"rules found nowhere: {sorted(wanted - set(found))}"
    assert {"companion.engine.abilities.parse_choice",
            "companion.engine.abilities.use_ability"} <= found["R45"]


def test_the_engine_imports_nothing_outside_itself():
    for m in MODULES:
        if m.startswith("companion.engine"):
            assert all(t.startswith("companion.engine") for t in GRAPH[m]), (m, GRAPH[m])


def test_no_import_cycle_at_all():
    assert _cycles() == []


def test_no_private_name_is_imported_from_another_module():
    bad = [f"{MODULES[m].relative_to(ROOT)}:{line}: from {src} import {name}"
           for m in MODULES for src, name, line in _imports(m)
           if name is not None and name.startswith("_") and src != m]
    bad += [f"{MODULES[m].relative_to(ROOT)}:{line}: {src}"
            for m in MODULES for src, name, line in _imports(m)
            if name is None and any(p.startswith("_") and not p.startswith("__")
                                    for p in src.split("."))]
    assert bad == []


# the modules that answer HTTP: the blueprints, the response middleware, the server's edges
HTTP_MODULES = {"companion.api.base", "companion.api.errors", "companion.api.tables",
                "companion.api.group", "companion.pages.routes", "companion.live.stream",
                "companion.edge.compress", "companion.edge.hosts"}


def test_only_http_modules_import_request():
    readers = {
        m for m, path in MODULES.items()
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.ImportFrom) and node.module == "flask"
        and any(a.name == "request" for a in node.names)}
    assert readers <= HTTP_MODULES, f"request read outside the HTTP layer: {readers - HTTP_MODULES}"
    assert {"companion.api.base", "companion.pages.routes"} <= readers   # it looks right


# Issue 51: no module of the companion or of the benchmarks is over LONGEST lines (the
# rules' words may live in data files beside the code that reads them: only .py counts).
LONGEST = 450
# Modules other engineers are still splitting for issue 51, allowed over LONGEST until
# their split lands; the integrator empties this set. A module on it that is split (or
# gone) fails the test below until it is taken off: the list only shrinks.
STILL_SPLITTING: set[str] = set()


def test_no_module_is_over_450_lines():
    lines = {str(p.relative_to(ROOT)): len(p.read_text().splitlines())
             for folder in ("companion", "benchmarks")
             for p in sorted((ROOT / folder).rglob("*.py"))}
    assert len(lines) > 100 and "benchmarks/server.py" in lines    # it reads the modules
    over = {p: n for p, n in lines.items() if n > LONGEST and p not in STILL_SPLITTING}
    assert over == {}, f"split these by concern (issue 51): {over}"
    done = {p for p in STILL_SPLITTING if lines.get(p, 0) <= LONGEST}
    assert done == set(), f"split already: take them off STILL_SPLITTING: {done}"
