"""The layout the code-health issue asked for, kept by tests: only the modules that
handle HTTP read Flask's ``request``; the engine never imports the web layer."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "companion"
# the modules that answer HTTP: the blueprints and the response middleware
HTTP_MODULES = {"web/api.py", "web/pages.py", "web/live.py", "web/compress.py", "web/edges.py"}


def _names_imported_from(path: Path, module: str) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {alias.name for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == module
            for alias in node.names}


def test_only_http_modules_import_request():
    readers = {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
               if "request" in _names_imported_from(p, "flask")}
    assert readers <= HTTP_MODULES, f"request read outside the HTTP layer: {readers - HTTP_MODULES}"
    assert {"web/api.py", "web/pages.py"} <= readers      # the check looks where it should
