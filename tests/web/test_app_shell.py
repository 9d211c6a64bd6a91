"""The installable app over HTTP (issue 14): the manifest, the service worker served from the
root, the page shown when the server cannot be reached, and every page linking them."""

from __future__ import annotations

import io
import json
import re

import pytest
from PIL import Image

from companion.edge.hosts import CSP

# the manifest, the service worker and the pages' links: the same on any database,
# checked once, in the SQLite pass
pytestmark = pytest.mark.anydb


def test_the_manifest_names_the_app_and_its_icons(client):
    r = client.get("/manifest.webmanifest")
    assert r.status_code == 200
    assert r.mimetype == "application/manifest+json"
    assert r.headers["Cache-Control"] == "no-cache"
    m = json.loads(r.get_data(as_text=True))
    assert m["name"] and m["short_name"] and len(m["short_name"]) <= 12
    assert (m["start_url"], m["scope"], m["display"]) == ("/", "/", "standalone")
    assert re.fullmatch(r"#[0-9a-f]{6}", m["theme_color"])
    assert re.fullmatch(r"#[0-9a-f]{6}", m["background_color"])
    purposes = set()
    for icon in m["icons"]:
        img = client.get(icon["src"])
        assert img.status_code == 200 and img.mimetype == "image/png", icon
        with Image.open(io.BytesIO(img.get_data())) as pic:
            assert f"{pic.width}x{pic.height}" == icon["sizes"], icon
        img.close()
        purposes.add((icon["sizes"], icon["purpose"]))
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= purposes


def test_the_service_worker_is_served_from_the_root_with_its_list(client):
    r = client.get("/sw.js")
    assert r.status_code == 200
    assert r.mimetype == "text/javascript"
    assert r.headers["Cache-Control"] == "no-cache"          # a new version is seen at once
    assert r.headers["Service-Worker-Allowed"] == "/"
    assert r.headers["Content-Security-Policy"] == CSP
    text = r.get_data(as_text=True)
    assert "__VERSION__" not in text and "__ASSETS__" not in text
    version = re.search(r'const VERSION = "([0-9a-f]{16})"', text)
    assets = json.loads(re.search(r"const ASSETS = (\[.*?\]);", text).group(1))
    assert version, text[:400]
    assert {"/static/phone.js", "/static/live.js", "/static/host.js", "/static/base.css",
            "/static/screen.js", "/static/offline.js", "/static/icons/icon-192.png"} <= set(assets)
    assert "/static/sw.js" not in assets
    assert not [a for a in assets if not a.startswith("/static/")]     # never the API
    for a in assets:
        got = client.get(a)
        assert got.status_code == 200, a
        got.close()
    assert client.get("/sw.js").get_data(as_text=True) == text          # stable between asks


def test_the_reconnecting_page_and_every_page_links_the_app(table, client):
    r = client.get("/offline")
    assert r.status_code == 200 and r.mimetype == "text/html"
    assert r.headers["Cache-Control"] == "no-cache"
    html = r.get_data(as_text=True)
    assert "Reconnecting" in html and 'data-testid="offline"' in html
    host = table()
    for path in ["/", "/j", f"/j/{host.code}", f"/t/{host.code}", f"/t/{host.code}/story",
                 "/rules", "/offline"]:
        html = client.get(path).get_data(as_text=True)
        assert '<link rel="manifest" href="/manifest.webmanifest">' in html, path
        assert '<script src="/static/screen.js"></script>' in html, path
        assert 'name="theme-color"' in html, path


def test_every_page_and_a_tables_state_name_the_version_of_the_scripts(table, client):
    """A page opened before an upgrade learns of it from the table's state (X-Assets) and
    loads again (static/live.js): the version is the worker's, on every page."""
    host = table()
    version = re.search(r'const VERSION = "([0-9a-f]{16})"',
                        client.get("/sw.js").get_data(as_text=True)).group(1)
    for path in ("/", "/j", f"/j/{host.code}", f"/t/{host.code}", f"/w/{host.code}",
                 "/rules", "/history", "/stats", "/offline"):
        page = client.get(path).get_data(as_text=True)
        assert f'<meta name="sl-assets" content="{version}">' in page, path
    assert client.get(f"/api/tables/{host.code}/state").headers["X-Assets"] == version
    assert client.get(f"/api/tables/{host.code}/state?since=9").headers["X-Assets"] == version
