"""The wheel is the companion: built with ``pip wheel . --no-deps`` and installed
(not editable) into a fresh virtual environment, its ``spies-lies serve`` serves
every page and every asset those pages use, from the package alone.

The checkout is copied before the build and the server's instance folder and
database live in a temporary folder: nothing is written into the checkout.
Runs once, in the SQLite pass (it tests packaging, not the database).
"""

from __future__ import annotations

import mimetypes
import os
import shutil
import subprocess
import sys
import urllib.request
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harness.server import ROOT, Server

pytestmark = pytest.mark.skipif(os.environ.get("DATABASE_URL", "").startswith("postgresql"),
                                reason="packaging is checked once, in the SQLite pass")

NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "venv", ".ci", "instance", "build",
                                    "dist", "*.egg-info", "__pycache__", ".pytest_cache",
                                    ".hypothesis", "test-output", "node_modules")
TYPES = {".css": "text/css", ".js": "javascript", ".svg": "image/svg+xml"}


class _Links(HTMLParser):
    """Every src and href of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [v for k, v in attrs if k in ("src", "href") and v]


def get(origin: str, path: str) -> tuple[str, str]:
    """(Content-Type, body) of a 200 answer (anything else raises)."""
    with urllib.request.urlopen(origin + path, timeout=30) as r:
        assert r.status == 200, (path, r.status)
        return r.headers.get("Content-Type", ""), r.read().decode(errors="replace")  # icons too


def build_and_install(tmp: Path) -> Path:
    """The wheel, built from a copy of the checkout, installed into a new venv."""
    src, dist, venv = tmp / "src", tmp / "dist", tmp / "venv"
    shutil.copytree(ROOT, src, ignore=NOT_SOURCE)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    built = subprocess.run([*pip, "wheel", str(src), "--no-deps", "-w", str(dist)], check=True,
                           capture_output=True, text=True)
    # a newcomer's first ./scripts/serve printed setuptools' warnings, a screenful for
    # each folder of data files that pyproject.toml did not list as a package
    said = built.stdout + built.stderr
    assert "BuildBackendWarning" not in said and "would be ignored" not in said, said[-2000:]
    (wheel,) = dist.glob("*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    for folder, into in (("companion", "companion"), ("templates", "companion/templates"),
                         ("static", "companion/static")):
        for f in (ROOT / folder).rglob("*"):
            if f.is_file() and "__pycache__" not in f.parts:
                assert f"{into}/{f.relative_to(ROOT / folder)}" in shipped, f"not in the wheel: {f}"
    assert not any(n.startswith(("benchmarks/", "harness/", "tests/")) for n in shipped)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    # the wheel alone, its dependencies those of the tests' own environment (a path in a .pth
    # file: that folder's own .pth files, the editable checkout among them, are not read);
    # pip check then proves the wheel's declared dependencies are all there. Installing them
    # again from the index took a minute of the suite.
    python = str(venv / "bin" / "python")
    subprocess.run([*pip, "--python", python, "install", "--no-deps", str(wheel)], check=True)
    (here,) = {p for p in sys.path if p.endswith("site-packages") and p.startswith(sys.prefix)}
    ours = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(ours, "tests-dependencies.pth").write_text(here + "\n")
    checked = subprocess.run([*pip, "--python", python, "check"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import companion; print(companion.__file__)"],
                           cwd=tmp, capture_output=True, text=True, check=True).stdout
    assert where.startswith(str(venv)), where            # the wheel, not the checkout
    return venv


def test_the_installed_wheel_serves_every_page_and_asset(tmp_path):
    venv = build_and_install(tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    server = Server(f"sqlite:///{run / 'companion.sqlite'}", run / "server.log", threads=8,
                    command=[str(venv / "bin" / "spies-lies"), "serve"], cwd=run,
                    env={"SPIES_LIES_INSTANCE": str(run / "instance"), "PYTHONPATH": ""})
    server.start()
    try:
        st, made = server.call("POST", "/api/tables", {"wall_distance": 4, "teams": True})
        assert st == 201, made
        code = made["code"]
        assets: set[str] = set()
        for path in ("/", f"/t/{code}", f"/j/{code}", "/rules"):
            ctype, html = get(server.origin, path)
            assert ctype.startswith("text/html"), (path, ctype)
            links = _Links()
            links.feed(html)
            assets |= {u.split("#")[0] for u in links.urls if u.startswith("/static/")}
        assert get(server.origin, "/rules.json")[0].startswith("application/json")
        assert get(server.origin, f"/qr/{code}.svg")[0].startswith("image/svg+xml")
        # the installable app: its manifest, and the worker read from the packaged static files
        assert get(server.origin, "/manifest.webmanifest")[0] == "application/manifest+json"
        ctype, worker = get(server.origin, "/sw.js")
        assert ctype.startswith("text/javascript") and "/static/phone.js" in worker, ctype
        assert len(assets) >= 6, assets            # base, index, host, phone css; live, ... js
        for url in sorted(assets):
            ext = Path(url.split("?")[0]).suffix
            want = TYPES.get(ext) or mimetypes.guess_type(url.split("?")[0])[0] or "?"
            assert want in get(server.origin, url)[0], (url, want)
        assert (run / "instance" / "secret_key").is_file()      # the instance folder asked for
    finally:
        server.stop()
    assert "Traceback" not in server.output(), server.output()
