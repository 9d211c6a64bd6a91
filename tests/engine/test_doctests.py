"""The runnable examples in the engine's docstrings stay true."""

from __future__ import annotations

import doctest
import importlib
import pathlib

import pytest

ENGINE = pathlib.Path(__file__).resolve().parents[2] / "companion" / "engine"
NAMES = sorted("companion.engine" + ("" if p.stem == "__init__" else "." + p.stem)
               for p in ENGINE.glob("*.py"))


@pytest.mark.parametrize("name", NAMES)
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
