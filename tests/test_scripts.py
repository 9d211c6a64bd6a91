"""The two set-up commands meet a machine that cannot run the companion with one line
saying what is missing, before pip starts (``scripts/venv.sh``).

Each runs from a copy of the scripts beside ``pyproject.toml`` (no ``.venv`` there, so
the script sets one up), with a stand-in ``python3`` first on ``PATH``.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _fake(folder: pathlib.Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def _checkout(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "scripts").mkdir(parents=True)
    for name in ("serve", "test", "venv.sh"):
        shutil.copy2(ROOT / "scripts" / name, tmp_path / "scripts" / name)
    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


@pytest.mark.parametrize("script", ["serve", "test"])
def test_an_old_python_or_a_missing_venv_module_is_named_before_pip(tmp_path, script):
    checkout = _checkout(tmp_path / "checkout")
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    env = {**os.environ, "PATH": f"{bin_}:{os.environ['PATH']}"}
    # Ubuntu 22.04's Python
    _fake(bin_, "python3", 'case "$*" in *python_version*) echo 3.10.12;; *) exit 1;; esac')
    out = subprocess.run([f"scripts/{script}"], cwd=checkout, env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2, out
    assert "error: the companion needs Python 3.11 or newer; python3 here is 3.10.12" in out.stderr
    assert not (checkout / ".venv").exists()
    # Debian's Python without python3-venv, for a user who is not root
    _fake(bin_, "python3", 'case "$*" in *ensurepip*) exit 1;; *) exit 0;; esac')
    _fake(bin_, "id", "echo 1000")
    out = subprocess.run([f"scripts/{script}"], cwd=checkout, env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2, out
    assert out.stderr.strip().endswith("error: Python's venv module is missing: install it "
                                       "(sudo apt install python3-venv) and run this again")


def test_serve_installs_quietly_and_shows_pip_only_when_it_fails(tmp_path):
    """A newcomer's first ./scripts/serve printed a screenful of setuptools' notices
    before the address; they go to .venv/install.log, shown when the install fails."""
    checkout = _checkout(tmp_path / "checkout")
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    env = {**os.environ, "PATH": f"{bin_}:{os.environ['PATH']}"}
    env.pop("DATABASE_URL", None)
    # a python3 whose venv holds a pip that talks (and fails when asked) and a server
    _fake(bin_, "python3", """case "$*" in
  *python_version*) echo 3.11.9;;
  *"-m venv"*) mkdir -p .venv/bin
    printf '#!/bin/sh\necho "BuildBackendWarning: Editable installation." >&2\n'\
'[ -n "$PIP_FAILS" ] && { echo "ERROR: no matching distribution" >&2; exit 1; }\n'\
'case "$*" in *-e*) echo "Collecting flask>=3.0 (from spies-lies-companion)"\n'\
'  echo "  Downloading flask-3.1.0-py3-none-any.whl (102 kB)"\n'\
'  echo "Collecting qrcode>=7 (from spies-lies-companion)"\n'\
'  echo "Installing collected packages: qrcode, flask";; esac\nexit 0\n' \
      > .venv/bin/pip
    printf '#!/bin/sh\necho served "$@"\n' > .venv/bin/spies-lies
    chmod +x .venv/bin/pip .venv/bin/spies-lies;;
  *) exit 0;;
esac""")
    out = subprocess.run(["scripts/serve", "--port", "8123"], cwd=checkout, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out
    assert "Warning" not in out.stdout + out.stderr
    # what it is doing, step by step (issue 52: nothing for ~55 s after "Installing…"
    # looked like a hang), and how many packages pip fetched; not pip's own words
    said = [line.strip() for line in out.stdout.strip().splitlines()]
    assert said[0].startswith("Installing the companion into .venv")
    assert [x[:4] for x in said if x[:1].isdigit()] == ["1/3 ", "2/3 ", "3/3 "], said
    assert "fetched: 2 packages; installing them…" in said, said
    assert "Downloading" not in out.stdout
    assert said[-2:] == ["installed: starting the companion", "served serve --port 8123"]
    log = (checkout / ".venv" / "install.log").read_text()
    assert "Editable" in log and "Collecting flask" in log and "Downloading" in log
    shutil.rmtree(checkout / ".venv")
    out = subprocess.run(["scripts/serve"], cwd=checkout, env={**env, "PIP_FAILS": "1"},
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1, out
    assert "ERROR: no matching distribution" in out.stderr
    assert "error: installing the companion failed" in out.stderr
    assert "served" not in out.stdout
