"""Text answers go out gzipped when the client accepts it; the live stream never does."""

from __future__ import annotations

import gzip


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
        assert plain.data.count(b"{") == plain.data.count(b"}") > 10, sheet.name
        for r in (plain, packed, again):
            r.close()
