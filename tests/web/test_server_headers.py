"""The server reads a request's headers without the e-mail parser (issue 24): it must
read them as pywsgi's own reader did, for ordinary requests and for odd ones. It also
writes an answer in one send before pywsgi's own way for any rest: all of it arrives."""

from __future__ import annotations

import io

import pytest
from gevent.pywsgi import headers_factory

from companion.run.heads import HEADER_LINE, HEADER_LINES, Headers

# the server's reading of request heads: no database in it
pytestmark = pytest.mark.anydb

BLOCKS = [
    b"Host: 127.0.0.1:5000\r\nContent-Type: application/json\r\nContent-Length: 42\r\n\r\n",
    b"host: a\r\nCONTENT-LENGTH: 7\r\nX-Two: 1\r\nx-two: 2\r\n\r\nbody",     # any case, twice
    b"Host:a\r\nAuthorization:   Bearer  k  \r\nAccept:\r\n\r\n",            # spacing, empty
    b"Host: a\nOrigin: http://a\n\n",                                        # bare LF
    b"Host: caf\xe9\r\n\r\n",                                                # Latin-1
    b"Host: a\r\nX-Fold: one\r\n  two\r\n\r\n",                              # folded
    b"Host: a\r\nnot a header\r\nCookie: x=1\r\n\r\n",                       # no colon
    b"Host: a\r\n",                                                          # cut short
    b"",
]
NAMES = ["host", "content-type", "content-length", "x-two", "authorization", "accept",
         "origin", "x-fold", "cookie", "missing"]


def _norm(value: str | None) -> str | None:
    return None if value is None else " ".join(value.split())


@pytest.mark.parametrize("block", BLOCKS)
def test_headers_as_pywsgi_read_them(block: bytes) -> None:
    ours, theirs = Headers(io.BytesIO(block)), headers_factory(io.BytesIO(block))
    assert ours.status == theirs.status == ""
    for name in NAMES:       # a folded value may differ only in its inner spaces
        assert _norm(ours.get(name)) == _norm(theirs.get(name)), name
        assert _norm(ours.getheader(name.upper())) == _norm(theirs.getheader(name.upper()))
    assert ours.typeheader == theirs.typeheader
    if b"X-Fold" not in block:
        assert list(ours.headers) == list(theirs.headers)
    del ours["content-length"], theirs["content-length"]
    assert ours.get("content-length") is None and ours.get("host") == theirs.get("host")


def test_a_line_too_long_too_many_lines_or_too_large_a_head_is_refused() -> None:
    """The head's limits (issue 50), to the byte: a line of ``HEADER_LINE`` bytes with
    its line end, ``HEADER_LINES`` lines and a head of ``budget`` bytes with its blank
    line pass; one byte or one line more is refused, and never more is read than the
    limit and one byte."""
    line = b"X-Big: " + b"a" * (HEADER_LINE - 9) + b"\r\n"          # HEADER_LINE bytes
    assert len(line) == HEADER_LINE
    assert Headers(io.BytesIO(b"Host: a\r\n" + line + b"\r\n")).status == ""
    over = io.BytesIO(b"Host: a\r\n" + line[:-2] + b"a\r\n" + b"\r\n" + b"z" * 99999)
    assert Headers(over).status == "Line too long"
    assert over.tell() == 9 + HEADER_LINE + 1                   # nothing more was read
    many = b"".join(b"X-%d: 1\r\n" % i for i in range(HEADER_LINES + 1)) + b"\r\n"
    assert Headers(io.BytesIO(many)).status == "Too many headers"
    exactly = b"".join(b"X-%d: 1\r\n" % i for i in range(HEADER_LINES)) + b"\r\n"
    assert Headers(io.BytesIO(exactly)).status == ""
    # the whole head, blank line included, within the budget
    head = line * 3 + b"Host: a\r\n\r\n"
    assert Headers(io.BytesIO(head), len(head)).status == ""
    assert Headers(io.BytesIO(head), len(head) - 1).status == "Head too large"
    seen: list[int] = []
    Headers(io.BytesIO(head), took=seen.append)                # the guard's count
    assert sum(seen) == len(head)
    # a head cut short by the end of the connection is not whole (not a request)
    assert not Headers(io.BytesIO(b"Host: a\r\nX-Cut: 1")).whole
    assert Headers(io.BytesIO(b"Host: a\r\n\r\n")).whole


def test_an_answer_larger_than_the_socket_takes_at_once_arrives_whole() -> None:
    """The server writes an answer in one ``send`` and the rest as pywsgi does (issue 24):
    an answer a slow reader's socket cannot take at once still arrives whole, in order."""
    import http.client
    import time

    from companion.run.server import Server

    body = bytes(range(251)) * (32 * 4177)     # ~32 MiB: more than a socket takes at once

    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "application/octet-stream"),
                                  ("Content-Length", str(len(body)))])
        return [body]

    server = Server(app, threads=2).start()
    try:
        c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        c.request("GET", "/")
        time.sleep(0.3)               # the socket's buffers fill: the first send is partial
        r = c.getresponse()
        assert r.status == 200 and r.read() == body
        c.close()
    finally:
        server.stop()
