"""Text answers go out gzipped when the client accepts it; the live stream never does."""

from __future__ import annotations

import gzip

import pytest

# gzip and the scripts' comment lines: the HTTP edge, the same on any database
pytestmark = pytest.mark.anydb


def test_pages_scripts_and_json_are_gzipped_for_a_client_that_accepts_it(table, client):
    host = table()
    for path in [f"/t/{host.code}", "/static/live.js", "/static/base.css", "/rules.json",
                 f"/qr/{host.code}.svg"]:
        plain = client.get(path)
        packed = client.get(path, headers={"Accept-Encoding": "gzip, deflate"})
        assert packed.status_code == 200, path
        assert packed.headers["Content-Encoding"] == "gzip", path
        assert "Accept-Encoding" in packed.headers["Vary"], path
        assert gzip.decompress(packed.data) == plain.data, path
        assert len(packed.data) < len(plain.data), path
        assert "Content-Encoding" not in plain.headers, path
        plain.close()
        packed.close()


def test_the_live_stream_is_gzipped_message_by_message(table, app):
    """Issue 15: each message is flushed whole, so it decodes the moment it arrives."""
    import zlib
    host = table()
    with app.test_client() as c:
        r = c.get(f"/api/tables/{host.code}/stream", headers={"Accept-Encoding": "gzip"},
                  buffered=False)
        assert r.status_code == 200
        assert r.headers["Content-Encoding"] == "gzip"
        d = zlib.decompressobj(31)
        assert d.decompress(next(r.response)) == b": connected\n\n"
        assert b"event: state" in d.decompress(next(r.response))       # whole, at once
        r.close()
        plain = c.get(f"/api/tables/{host.code}/stream", buffered=False)
        assert "Content-Encoding" not in plain.headers
        assert next(plain.response) == b": connected\n\n"
        plain.close()


def test_style_sheets_go_out_without_their_comments(client):
    """The comments of a style sheet are for whoever edits it: they went out with it and
    were a third of the first load's CSS over the wire (a phone's first load 39.8 KB of
    its 40). Every client gets the sheet without them, the same bytes gzipped or not, and
    its rules whole (the browser suite draws every page with them)."""
    from pathlib import Path
    for sheet in sorted((Path(__file__).parents[2] / "static").glob("*.css")):
        source = sheet.read_bytes()
        plain = client.get(f"/static/{sheet.name}")
        packed = client.get(f"/static/{sheet.name}", headers={"Accept-Encoding": "gzip"})
        again = client.get(f"/static/{sheet.name}", headers={"Accept-Encoding": "gzip"})
        assert b"/*" in source and b"/*" not in plain.data, sheet.name
        assert len(plain.data) < len(source), sheet.name
        assert gzip.decompress(packed.data) == plain.data == gzip.decompress(again.data)
        assert plain.data.count(b"{") == plain.data.count(b"}") > 5, sheet.name
        for r in (plain, packed, again):
            r.close()


# a script with what a scanner of comments can stumble on: a template literal's lines that
# begin with "//" or "/*", a nested ${…} with a comment in it, a regular expression with a
# backtick and a quote, a division, a string continued by a backslash, a block comment's
# "//" line, block comments with code before or after them on their lines
TRICKY = rb"""/* the file's own words,
   on lines of their own */
const page = `
  // this is text on the page
  /* and this too */
  ${items.map(x => {
    // a comment inside the template's code
    return `<li>${x}</li>`;
  }).join("")}
`;
const re = /[`'"]\/\/x/g, half = total / 2; // after code: kept
  // an indented comment
const s = "a string \
// continued on this line";
/* a block comment
// its line is not a comment of its own

*/
const url = "http://example.org"; const t = `a ${ {b: 1}.b } c`;
  /* code after it: kept */ const k = 1;
const m = 2; /* code before it: kept
   and its next line too */
/* its end has code after it:
   kept */ const n = 3;
    // the last comment
"""


def _comment_lines(source: bytes) -> set[int]:
    """The lines that are wholly comment and not yet empty: one line comment, or a block
    comment on lines of its own, as a JavaScript parser reads the file (tree-sitter's
    grammar of the language, not the scanner under test)."""
    import tree_sitter as ts
    import tree_sitter_javascript as tsjs
    tree = ts.Parser(ts.Language(tsjs.language())).parse(source)
    assert not tree.root_node.has_error
    lines = source.split(b"\n")
    out, todo = set(), [tree.root_node]
    while todo:
        node = todo.pop()
        todo.extend(node.children)
        (row, col), (last, end) = node.start_point, node.end_point
        if node.type != "comment":
            continue
        if node.text.startswith(b"//") and lines[row].strip() == node.text.strip():
            out.add(row)
        elif not lines[row][:col].strip() and not lines[last][end:].strip():
            out |= {r for r in range(row, last + 1) if lines[r]}
    return out


def test_scripts_go_out_without_their_comment_lines_and_nothing_else(client):
    """A script's whole-line comments are for whoever edits it: a fifth of the first load's
    scripts over the wire (the phone's first load stood at 39.1 KB of its 40), and each
    file's opening words (a block comment: 2.6 KB of the big screen's first load once its
    script was split by what it draws, issue 51). Every client gets each script without
    them, each such line left empty (an error's line number is the file's), and every
    other line as it is — checked against a JavaScript parser's reading of every script of
    the pages and of one written to trip a scanner up."""
    from pathlib import Path

    from companion.edge.compress import lean_js
    scripts = sorted((Path(__file__).parents[2] / "static").glob("*.js"))
    for name, source in [("tricky.js", TRICKY), *((p.name, p.read_bytes()) for p in scripts)]:
        lean = lean_js(source)
        before, after = source.split(b"\n"), lean.split(b"\n")
        assert len(before) == len(after), name
        emptied = {i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b}
        assert all(after[i] == b"" for i in emptied), name
        assert emptied == _comment_lines(source), name
    kept = lean_js(TRICKY)
    for text in (b"  // this is text on the page", b"  /* and this too */",
                 b"// continued on this line", b"// after code: kept",
                 b"/* code after it: kept */", b"/* code before it: kept",
                 b"and its next line too */", b"/* its end has code after it:", b"kept */ const n"):
        assert text in kept, text
    for text in (b"the file's own", b"on lines of their own", b"// a comment inside",
                 b"// an indented", b"/* a block comment", b"// its line is not",
                 b"// the last"):
        assert text not in kept, text
    for script in scripts:
        source = script.read_bytes()
        plain = client.get(f"/static/{script.name}")
        packed = client.get(f"/static/{script.name}", headers={"Accept-Encoding": "gzip"})
        assert plain.data == lean_js(source) == gzip.decompress(packed.data), script.name
        if _comment_lines(source):
            assert len(packed.data) < len(gzip.compress(source, 9)), script.name
        for r in (plain, packed):
            r.close()
