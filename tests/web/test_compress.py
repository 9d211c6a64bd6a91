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
