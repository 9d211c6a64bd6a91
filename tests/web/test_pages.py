"""The pages render, carry no outside resources, and the QR code points at the LAN."""

from __future__ import annotations

import gzip
import re

import pytest

from .conftest import ORIGIN, read_qr

# pages, their assets and the QR code's address: the same on any database (what a
# page shows of a table comes from the view, whose making tests/web/test_views.py checks on both)
pytestmark = pytest.mark.anydb


def test_pages_render_without_outside_resources(table, client):
    host = table()
    for path in ["/", f"/t/{host.code}", f"/j/{host.code}", "/j", "/rules",
                 f"/j?code={host.code.lower()}"]:
        r = client.get(path)
        assert r.status_code == 200, path
        html = r.get_data(as_text=True)
        for ref in re.findall(r'(?:src|href)="([^"]+)"', html):
            assert not ref.startswith(("http:", "https:", "//")), (path, ref)
        for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
            a = client.get(asset)
            assert a.status_code == 200, asset
            if a.mimetype == "image/png":      # the app's icons
                a.close()
                continue
            body = a.get_data(as_text=True)
            a.close()
            # an SVG names its own vocabulary by a URI (xmlns): a name, never fetched
            body = body.replace('xmlns="http://www.w3.org/2000/svg"', "")
            assert "http://" not in body and "https://" not in body, asset


def test_rules_page_lists_every_rule_by_id(client):
    from companion import help as rules_help
    html = client.get("/rules").get_data(as_text=True)
    for r in rules_help.RULES:
        assert f'id="{r["id"]}"' in html
    data = client.get("/rules.json").get_json()
    assert len(data["ranks"]) == 10 and data["rules"]


def test_host_page_shows_code_and_lan_address(table, client):
    host = table()
    html = client.get(f"/t/{host.code}").get_data(as_text=True)
    assert host.code in html
    assert "localhost" not in html and "127.0.0.1" not in html
    svg = client.get(f"/qr/{host.code}.svg")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml"
    # drawn as the dark runs of each row: a camera reads the table's join address from it,
    # in a third of the bytes qrcode's module-by-module path took (3 KB over the wire)
    public = re.search(r'<div class="url">(\S+)/j</div>', html).group(1)
    assert read_qr(svg.data) == f"{public}/j/{host.code}"
    assert len(gzip.compress(svg.data)) < 1200


def test_public_url_overrides_the_lan_address(tmp_path):
    from companion.web import create_app
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "PUBLIC_URL": "https://table.example.org",
                      "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'x.sqlite'}"})
    c = app.test_client()
    code = c.post("/api/tables", json={}, headers={"Origin": ORIGIN}).get_json()["code"]
    html = c.get(f"/t/{code}").get_data(as_text=True)
    assert "https://table.example.org/j" in html
    # a page served through the tunnel may post from the public origin
    r = c.post("/api/tables", json={}, headers={"Origin": "https://table.example.org"})
    assert r.status_code == 201


def test_ability_calculator(table, client):
    host = table()
    r = client.get(f"/api/tables/{host.code}/preview?side=red&rank=10")
    opts = r.get_json()["options"]
    assert [o["choice"] for o in opts] == ["ip", "drain"]
    assert opts[0]["ip"]["red"] == 0 and opts[0]["da"] == 1    # +10 infiltrates on day 1
    r = client.get(f"/api/tables/{host.code}/preview?side=green&rank=10")
    assert r.status_code == 400 and r.get_json()["field"] == "side"


def test_a_page_that_cannot_be_shown_is_a_page_in_the_screens_language(client, monkeypatch,
                                                                       caplog):
    """A mistyped address (/histroy, an old link) was the server's bare English "Not
    Found", a page refused its method bare "Method Not Allowed", and a page that failed
    answered JSON: each is now a page in the screen's language with the ways on. The API
    still answers JSON."""
    from companion.group import history

    r = client.get("/histroy", headers={"Accept-Language": "de"})
    text = r.get_data(as_text=True)
    assert r.status_code == 404 and r.mimetype == "text/html"
    assert "Nichts unter dieser Adresse" in text and '<html lang="de">' in text
    for way in ('href="/"', 'href="/j"', 'href="/history"', 'href="/rules"'):
        assert way in text, way
    assert client.get("/api/histroy").get_json()["code"] == "not_found"
    r = client.post("/history", headers={"Origin": ORIGIN, "Accept-Language": "nl"})
    assert r.status_code == 405 and r.mimetype == "text/html"
    assert "Dit adres kan niet zo worden geopend" in r.get_data(as_text=True)
    assert "GET" in r.headers["Allow"]

    def boom(*a, **k):
        raise RuntimeError("the disk is on fire")
    monkeypatch.setattr(history, "players_with_games", boom)
    r = client.get("/history", headers={"Accept-Language": "fr"})
    text = r.get_data(as_text=True)
    assert r.status_code == 500 and r.mimetype == "text/html"
    assert "Un problème est survenu" in text and "est conservé" in text
    assert "Traceback" not in text
    assert "fire" not in text and "unexpected error" in caplog.text


def test_a_code_typed_with_a_space_or_a_dash_opens_its_table(table, client):
    """A code read aloud and typed in two halves ("NUD T7", "nud-t7") is still the code."""
    code = table().code
    for typed in (f"{code[:3]} {code[3:]}", f"{code[:3].lower()}-{code[3:]}", f" {code}\t"):
        r = client.get("/j", query_string={"code": typed})
        assert r.status_code == 200 and f'data-code="{code}"' in r.get_data(as_text=True), typed


def test_a_code_or_a_name_is_typed_as_it_is(client):
    """A phone's keyboard leaves a table code and a player's name as typed: no
    autocorrection ("KFQW6", "Bram" made "Bran"), no spelling underline; a code in
    capitals, a name with a capital."""
    for path in ("/", "/j"):
        html = client.get(path).get_data(as_text=True)
        code = re.search(r'<input[^>]*name="code"[^>]*>', html)
        assert code, path
        for attr in ('autocorrect="off"', 'spellcheck="false"', 'autocapitalize="characters"',
                     'autocomplete="off"'):
            assert attr in code.group(0), (path, attr)
    script = client.get("/static/phone.js")
    name = re.search(r'<input[^>]*id="name"[^>]*>', script.get_data(as_text=True))
    script.close()
    assert name
    for attr in ('autocorrect="off"', 'spellcheck="false"', 'autocapitalize="words"'):
        assert attr in name.group(0), attr

