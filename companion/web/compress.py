"""Gzip for text answers: pages, styles, scripts, JSON and SVG, and the live stream.

A phone on a café's Wi-Fi loads the page in a fraction of the bytes. Static
files are compressed once per file version and kept (level 9: it is paid once); other
answers are compressed as they go (level 6: most of the gain for little CPU). The live stream
is compressed message by message (:func:`gzip_stream`): each one is flushed whole, so
it arrives at once, and the deltas of one game share the stream's dictionary (the same
keys and words again and again cost a few bytes each: issue 15).
"""

from __future__ import annotations

import gzip
import re
import threading
import zlib
from collections.abc import Iterable, Iterator

from flask import Flask, Response, request

TYPES = {"text/html", "text/css", "text/javascript", "application/javascript",
         "application/json", "application/manifest+json", "image/svg+xml", "text/plain"}
MIN_SIZE = 500
_static: dict[tuple[str, str], bytes] = {}
_static_lock = threading.Lock()


def wants_gzip() -> bool:
    """Whether this request's client accepts gzip."""
    return _wants_gzip()


def gzip_stream(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """``chunks`` as one gzip stream, each chunk flushed whole (Z_SYNC_FLUSH) so the
    client can decode it as soon as it arrives."""
    comp = zlib.compressobj(6, zlib.DEFLATED, 31)
    try:
        for chunk in chunks:
            yield comp.compress(chunk) + comp.flush(zlib.Z_SYNC_FLUSH)
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


_lean: dict[tuple[str, str], bytes] = {}


def _lean_static_css(resp: Response, key: tuple[str, str]) -> None:
    """A static style sheet goes out without its comments (for any client): they are
    for whoever edits the file, and were a third of the first load's CSS over the wire
    (a phone's first load: 3 KB of 40). Made once per file version (``key``)."""
    with _static_lock:
        lean = _lean.get(key)
    source = resp.response
    resp.direct_passthrough = False
    if lean is None:
        lean = lean_css(resp.get_data())
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
    if static_key is not None and resp.mimetype == "text/css":
        _lean_static_css(resp, static_key)
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
