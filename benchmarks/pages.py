"""``python -m benchmarks pages``: bytes over the wire for the phone page and the host page.

Starts the production server on loopback (fresh SQLite), opens a table, and
loads each page as a browser would on first visit, with ``Accept-Encoding:
gzip``: the HTML, every stylesheet, script and image it links, and what its
scripts fetch on load (the table's state JSON; the rules JSON the phone's rules
panel loads). Bytes over the wire = status line + headers + body as sent.
"""

from __future__ import annotations

import argparse
import http.client
import json
from html.parser import HTMLParser

from harness.server import COMPANION

from .server import running_server

TARGETS = {"phone": 60 * 1024, "host": 150 * 1024}


class _Assets(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "link" and (a.get("rel") or "") in ("stylesheet", "icon", "preload",
                                                      "manifest"):
            self.urls.append(a.get("href") or "")
        elif tag in ("script", "img") and a.get("src"):
            self.urls.append(a["src"] or "")


def fetch(port: int, path: str, method: str = "GET", body: dict | None = None,
          gzip: bool = True) -> tuple[int, int, int, bytes, str]:
    """(status, bytes over the wire, body bytes, body, encoding)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    h = {"Origin": f"http://127.0.0.1:{port}"}
    if gzip:
        h["Accept-Encoding"] = "gzip, deflate"
    if body is not None:
        h["Content-Type"] = "application/json"
    c.request(method, path, json.dumps(body) if body is not None else None, h)
    r = c.getresponse()
    data = r.read()
    head = len(f"HTTP/1.1 {r.status} {r.reason}\r\n") + sum(
        len(k) + len(v) + 4 for k, v in r.getheaders()) + 2
    enc = r.getheader("Content-Encoding") or "identity"
    c.close()
    return r.status, head + len(data), len(data), data, enc


def _plain(data: bytes, enc: str) -> bytes:
    import gzip
    return gzip.decompress(data) if enc == "gzip" else data


def weigh(port: int, page: str, extra: list[str]) -> tuple[int, int, list[str]]:
    st, wire, _, html, enc = fetch(port, page)
    assert st == 200, (page, st)
    parser = _Assets()
    parser.feed(_plain(html, enc).decode())
    lines = [f"    {wire:7} B  {enc:8} {page}"]
    total, plain_total = wire, len(_plain(html, enc))
    for url in [*parser.urls, *extra]:
        if not url or url.startswith(("http:", "https:", "data:")):
            continue
        st, w, _, data, e = fetch(port, url)
        total += w
        plain_total += len(_plain(data, e))
        lines.append(f"    {w:7} B  {e:8} {url}" + ("" if st == 200 else f"  ({st})"))
    return total, plain_total, lines


def main(args: argparse.Namespace) -> int:
    with running_server(threads=8, database_url=None, command=COMPANION) as (srv, _):
        port = srv.port
        st, _, _, data, enc = fetch(port, "/api/tables", "POST",
                                    {"wall_distance": 4, "teams": True}, gzip=False)
        code = json.loads(data)["code"]
        state = f"/api/tables/{code}/state"
        pages = {"phone": (f"/j/{code}", [state, "/rules.json"]),
                 "host": (f"/t/{code}", [state])}
        print("page weights: first visit, Accept-Encoding: gzip, bytes over the wire "
              "(headers + body)")
        worst = 0
        for name, (path, extra) in pages.items():
            total, plain, lines = weigh(port, path, extra)
            print(f"  {name} page: {total / 1024:.1f} KB over the wire ({plain / 1024:.1f} KB "
                  f"uncompressed); target <= {TARGETS[name] // 1024} KB")
            print("\n".join(lines))
            worst = max(worst, int(total > TARGETS[name]))
        return worst
