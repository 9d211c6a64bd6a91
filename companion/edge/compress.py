"""Gzip for text answers: pages, styles, scripts, JSON and SVG, and the live stream.

A phone on a café's Wi-Fi loads the page in a fraction of the bytes. Static
files are compressed once per file version and kept (level 9: it is paid once); other
answers are compressed as they go (level 6: most of the gain for little CPU). The live stream
is compressed message by message (:func:`gzip_stream`): each one is flushed whole, so
it arrives at once, and the deltas of one game share the stream's dictionary (the same
keys and words again and again cost a few bytes each: issue 15).
"""

from __future__ import annotations

import bisect
import gzip
import itertools
import re
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator

from flask import Flask, Response, request

TYPES = {"text/html", "text/css", "text/javascript", "application/javascript",
         "application/json", "application/manifest+json", "image/svg+xml", "text/plain"}
MIN_SIZE = 500
_static: dict[tuple[str, str], bytes] = {}
_static_lock = threading.Lock()


def wants_gzip() -> bool:
    """Whether this request's client accepts gzip."""
    return _wants_gzip()


def stream_packer() -> Callable[[bytes], bytes]:
    """One gzip stream, a message at a time: each flushed whole (Z_SYNC_FLUSH) so the
    client can decode it as soon as it arrives (the first carries the gzip header)."""
    comp = zlib.compressobj(6, zlib.DEFLATED, 31)
    return lambda data: comp.compress(data) + comp.flush(zlib.Z_SYNC_FLUSH)


def gzip_stream(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """``chunks`` as one gzip stream (:func:`stream_packer`)."""
    pack = stream_packer()
    try:
        for chunk in chunks:
            yield pack(chunk)
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()


def _wants_gzip() -> bool:
    for part in request.headers.get("Accept-Encoding", "").split(","):
        name, _, q = part.strip().partition(";")
        if name.strip().lower() in ("gzip", "*"):
            return q.strip().replace(" ", "") not in ("q=0", "q=0.0")
    return False


#: a CSS string (kept as it is) or a comment (left out)
_CSS_PARTS = re.compile(rb'("(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\')|/\*.*?\*/', re.S)


def lean_css(data: bytes) -> bytes:
    r"""A style sheet without its comments and the blank lines they leave (a comment
    makes no token in CSS: nothing stands in its place); strings are kept whole.

    >>> lean_css(b'a { content: "/* x */"; }  /* why */\n\n/* more */\nb{}')
    b'a { content: "/* x */"; }  \nb{}'
    """
    out = _CSS_PARTS.sub(lambda m: m.group(1) or b"", data)
    return re.sub(rb"\n[ \t]*(?=\n)", b"", out)


#: what a script's line starts inside: code, or the middle of a template literal, a block
#: comment or a string continued by a backslash (a line there is text, never a comment)
_KEYWORDS_BEFORE_REGEX = frozenset((
    "return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw",
    "instanceof", "yield", "await"))


def _code_lines(text: str) -> list[bool]:
    """For each line of a script: whether it starts in code (not inside a template
    literal, a block comment or a string continued onto it). A small scanner of the
    language's strings, templates (with their nested ``${…}``), comments and regular
    expressions; a regular expression is told from a division by what comes before it."""
    starts = [True]
    stack: list[int] = []        # for each template literal open: "${" braces open inside
    state, i, n = "code", 0, len(text)
    last = ""                    # the last character (or word) of code that was not a space
    while i < n:
        c = text[i]
        if c == "\n":
            if state in ("'", '"', "/", "[", "//"):
                state = "code"   # a string or regex ends with its line (an unclosed one too)
            starts.append(state == "code")
            i += 1
            continue
        if state == "code":
            if c in "'\"":
                state = c
            elif c == "`":
                state = "`"
            elif c == "/" and text.startswith("//", i):
                state = "//"
            elif c == "/" and text.startswith("/*", i):
                state, i = "*", i + 1
            elif c == "/" and (not last or last in "(,=:[!&|?{};+-*%<>~^"
                               or last in _KEYWORDS_BEFORE_REGEX):
                state = "/"
            elif c == "{" and stack:
                stack[-1] += 1
            elif c == "}" and stack:
                if stack[-1] == 0:
                    stack.pop()
                    state = "`"
                else:
                    stack[-1] -= 1
            if not c.isspace() and state == "code":
                if c.isalnum() or c in "_$":
                    j = i
                    while j < n and (text[j].isalnum() or text[j] in "_$"):
                        j += 1
                    last, i = text[i:j], j
                    continue
                last = c
        elif state in ("'", '"', "`"):
            if c == "\\":
                i += 1           # (a backslash before the line's end continues the string)
                if i < n and text[i] == "\n":
                    starts.append(False)
            elif c == state:
                state, last = "code", c
            elif state == "`" and c == "$" and text.startswith("${", i):
                stack.append(0)
                state, last, i = "code", "{", i + 1
        elif state == "*":
            if text.startswith("*/", i):
                state, i = "code", i + 1
        elif state == "/":
            if c == "\\":
                i += 1
            elif c == "[":
                state = "["
            elif c == "/":
                state, last = "code", "/x"       # (a regex is a value: "/" after it divides)
        elif state == "[":
            if c == "\\":
                i += 1
            elif c == "]":
                state = "/"
        i += 1
    return starts


def lean_js(data: bytes) -> bytes:
    r"""A script without its whole-line comments (a line comment, or a block comment on
    lines of its own, such as a file's opening words), each such line left empty (so an
    error's line number is the file's); a line inside a template literal, a block comment
    or a continued string is kept as it is (it is text, not a comment), and so is a block
    comment with code on its first or last line.

    >>> lean_js(b"  // why\nconst a = 1; // kept\nconst t = `\n// text\n`;\n")
    b'\nconst a = 1; // kept\nconst t = `\n// text\n`;\n'
    >>> lean_js(b"/* what\n   and why */\nconst b = 2; /* kept */\n/* kept */ b;\n")
    b'\n\nconst b = 2; /* kept */\n/* kept */ b;\n'
    """
    text = data.decode("utf-8")
    lines = text.split("\n")
    starts = _code_lines(text)
    at = list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        bare = line.lstrip()
        if starts[i] and bare.startswith("/*"):
            # its end: the first "*/" after the opening (a block comment holds no other)
            end = text.find("*/", at[i] + len(line) - len(bare) + 2)
            last = bisect.bisect_right(at, end) - 1
            if end >= 0 and not lines[last][end + 2 - at[last]:].strip():
                out.extend([""] * (last - i + 1))
                i = last + 1
                continue
        out.append("" if starts[i] and bare.startswith("//") else line)
        i += 1
    return "\n".join(out).encode("utf-8")


_lean: dict[tuple[str, str], bytes] = {}
_LEAN = {"text/css": lean_css, "text/javascript": lean_js,
         "application/javascript": lean_js}


def _lean_static(resp: Response, key: tuple[str, str], lean_of: Callable[[bytes], bytes]) -> None:
    """A static style sheet goes out without its comments, a script without its
    whole-line comments (for any client): they are for whoever edits the file, and were
    a third of the first load's CSS and a fifth of its scripts over the wire (a phone's
    first load: 3 KB and 4 KB of 40). Made once per file version (``key``)."""
    with _static_lock:
        lean = _lean.get(key)
    source = resp.response
    resp.direct_passthrough = False
    if lean is None:
        lean = lean_of(resp.get_data())
        with _static_lock:
            _lean[key] = lean
    close = getattr(source, "close", None)
    if close is not None:
        close()
    resp.set_data(lean)


def compress(resp: Response) -> Response:
    """Gzip ``resp`` in place when the client accepts it and it is worth it."""
    if (resp.status_code != 200 or resp.mimetype not in TYPES or resp.is_streamed
            and not resp.direct_passthrough or "Content-Encoding" in resp.headers):
        return resp
    # a static file: its version's path and ETag (its lean CSS and gzip made once each)
    static_key = ((request.path, resp.headers.get("ETag", "")) if resp.direct_passthrough
                  else None)
    lean_of = _LEAN.get(resp.mimetype or "")
    if static_key is not None and lean_of is not None:
        _lean_static(resp, static_key, lean_of)
    resp.vary.add("Accept-Encoding")
    if not _wants_gzip() or resp.headers.get("Content-Range"):
        return resp
    if static_key is not None:
        with _static_lock:
            cached = _static.get(static_key)
        if cached is not None:
            if resp.direct_passthrough:  # the file it would have sent
                close = getattr(resp.response, "close", None)
                if close is not None:
                    close()
            resp.direct_passthrough = False
            return _packed(resp, cached)
        resp.direct_passthrough = False
    source = resp.response
    data = resp.get_data()
    close = getattr(source, "close", None)
    if close is not None and source is not resp.response:   # a file read whole: close it now
        close()
    if len(data) < MIN_SIZE:
        return resp
    packed = gzip.compress(data, compresslevel=9 if static_key else 6, mtime=0)
    if static_key is not None:
        with _static_lock:
            _static[static_key] = packed
    return _packed(resp, packed)


def _packed(resp: Response, packed: bytes) -> Response:
    resp.set_data(packed)
    resp.headers["Content-Encoding"] = "gzip"
    etag = resp.headers.get("ETag")
    if etag and not etag.startswith("W/"):
        resp.headers["ETag"] = "W/" + etag     # the bytes differ from the plain file's
    return resp


def init_app(app: Flask) -> None:
    app.after_request(compress)
