"""docs/PERFORMANCE.md is a reference a reader can use (issue 51): today's figures, each
with the command that measures it again, in at most 250 lines.

Every ``python -m benchmarks …`` command written in backticks in it, in the other docs and
in the README is one the benchmarks' own parser takes (``PATH`` and ``URL`` stand for
what the reader fills in), so a renamed or removed option fails here and not at a
reader's first try; and a command does what it says (``chances --games 0`` times the
live figure alone, it does not grade 2,000 games first).
"""

from __future__ import annotations

import pathlib
import re

import pytest

import benchmarks.chances
from benchmarks import __main__ as bench

ROOT = pathlib.Path(__file__).resolve().parents[1]
PERFORMANCE = ROOT / "docs" / "PERFORMANCE.md"
# `python -m benchmarks server --seconds 30`, `.venv/bin/python -m benchmarks.same_output PATH`
COMMAND = re.compile(r"`(?:\.venv/bin/)?python -m benchmarks(\.\w+)?((?: [^`]*)?)`")


def commands(text: str) -> list[tuple[str, list[str]]]:
    """Each benchmark command in backticks in ``text``: its module after ``benchmarks``
    ('' for the package's own parser) and the words after it. ``python -m benchmarks …``
    (a mention, not a command) is left out."""
    return [(module.lstrip("."), rest.split()) for module, rest in COMMAND.findall(text)
            if rest.strip() not in ("…", "...")]


def test_performance_doc_is_short_and_every_benchmark_command_in_the_docs_runs():
    text = PERFORMANCE.read_text()
    lines = text.splitlines()
    assert len(lines) <= 250, f"docs/PERFORMANCE.md has {len(lines)} lines (at most 250)"
    parser = bench.build_parser()
    what = next(a for a in parser._actions if a.dest == "what")
    written = set()
    for path in [PERFORMANCE, ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for module, words in commands(path.read_text()):
            if module:
                assert (ROOT / "benchmarks" / f"{module}.py").is_file(), (path.name, module)
                continue
            try:
                args = parser.parse_args(words)
            except SystemExit:
                pytest.fail(f"{path.name}: python -m benchmarks {' '.join(words)} is refused")
            if path == PERFORMANCE:
                written.add(args.what)
    # each benchmark the parser offers is written out, with its options, in the reference
    assert written == set(what.choices), set(what.choices) - written


def test_a_command_the_parser_refuses_is_caught():
    (module, words), = commands("run `python -m benchmarks server --no-such-option 3` here")
    assert (module, words) == ("", ["server", "--no-such-option", "3"])
    with pytest.raises(SystemExit):
        bench.build_parser().parse_args(words)
    assert commands("`python -m benchmarks …` and `python -m benchmarks.same_output PATH`") \
        == [("same_output", ["PATH"])]


def test_chances_games_zero_times_the_live_figure_alone(monkeypatch):
    asked: dict[str, int] = {}

    def run(games: int, playouts: int) -> int:
        asked.update(games=games, playouts=playouts)
        return 0

    monkeypatch.setattr(benchmarks.chances, "run", run)
    assert bench.main(["chances", "--games", "0"]) == 0
    assert asked == {"games": 0, "playouts": 100}
    assert bench.main(["chances"]) == 0
    assert asked == {"games": 2000, "playouts": 100}
