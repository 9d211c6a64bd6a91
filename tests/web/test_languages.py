"""Each screen in its own language: pages, the view's words, refusals, the live push."""

from __future__ import annotations

import json
import re

import pytest

from companion import live

from .conftest import ORIGIN, sit

# the words each screen reads in its language: the same on any database
pytestmark = pytest.mark.anydb


def seated(table):
    host = table()
    return host, sit(host, "red", "Ann"), sit(host, "blue", "Bob")


def test_a_wrong_tap_from_a_french_phone_is_refused_in_french_with_the_same_code(table):
    host, red, blue = seated(table)
    english = blue.event({"type": "exhaust", "side": "red", "ranks": [1]}, expect=403).get_json()
    blue.client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "fr-FR,fr;q=0.9,en;q=0.5"
    try:
        french = blue.event({"type": "exhaust", "side": "red", "ranks": [1]},
                            expect=403).get_json()
        assert french["code"] == english["code"] == "wrong_seat"
        assert french["error"] != english["error"]
        assert french["error"].startswith("c'est au téléphone de Rouge de le saisir")
        # the referee's own refusals too, with their machine-readable code and field
        r = red.draft("guess", 3, expect=409).get_json()
        assert r["code"] == "out_of_turn" and "aucune révélation" in r["error"]
        r = red.post("/events", {"event": {"type": "nope"}}, expect=400).get_json()
        assert (r["code"], r["field"]) == ("malformed", "event")
        assert r["error"] == 'type d\'événement inconnu "nope"'
    finally:
        del blue.client.environ_base["HTTP_ACCEPT_LANGUAGE"]


def test_the_chosen_language_outranks_the_browser_and_is_remembered(client, table):
    host = table()
    r = client.get(f"/j/{host.code}", headers={"Accept-Language": "de-DE,de;q=0.9"})
    assert b'<html lang="de">' in r.data and "Rückgängig".encode() in r.data
    r = client.get(f"/lang/nl?next=/j/{host.code}")
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/j/{host.code}")
    assert "sl-lang=nl" in r.headers["Set-Cookie"] and "Max-Age" in r.headers["Set-Cookie"]
    r = client.get(f"/j/{host.code}", headers={"Accept-Language": "de"})
    assert b'<html lang="nl">' in r.data and b"Herstel" in r.data
    # the page's scripts get their words as data, in the page's language
    words = r.data.split(b'<script type="application/json" id="words">')[1].split(b"</script>")[0]
    assert json.loads(words)["Sit down"] == "Ga zitten"
    # the view's words follow the screen too; codes and numbers do not
    v = client.get(f"/api/tables/{host.code}/state").get_json()["view"]
    assert v["words"]["ranks"]["10"] == "Maarschalk" and v["taps"]["step"] == "exhaust"
    assert v["state"]["next"]["text"].startswith("Noteer de uitgeputte soldaat van Rood en Blauw")


def test_the_switch_only_goes_back_to_this_server(client):
    for bad in ("https://evil.example/", "//evil.example/", "/\\evil.example"):
        r = client.get("/lang/fr", query_string={"next": bad})
        assert r.status_code == 303 and r.headers["Location"].endswith("/")
    r = client.get("/lang/xx?next=/rules")
    assert "Set-Cookie" not in r.headers


def test_html_lang_is_right_on_every_page(client, table):
    host = table()
    for path in ("/", "/j", f"/j/{host.code}", f"/t/{host.code}", f"/t/{host.code}/story",
                 "/rules", "/j/NOPE1"):
        for tag, code in (("fr-CA,fr", "fr"), ("de", "de"), ("nl-BE", "nl"), ("pt", "en")):
            r = client.get(path, headers={"Accept-Language": tag})
            assert re.search(f'<html lang="{code}"[ >]'.encode(), r.data), (path, tag)


def test_each_request_s_own_headers_give_its_language_however_many_were_seen(client):
    """The language is known by the two headers it comes from (issue 24: parsed once per
    pair); each request still gets the one its own headers say, a cookie before the
    browser's list, after a flood of made-up headers has filled what is kept."""
    from companion.pages import routes as pages

    def spoken(headers):
        for name in ("sl-lang", "other"):
            client.delete_cookie(name)
        for pair in filter(None, headers.get("Cookie", "").split("; ")):
            client.set_cookie(*pair.split("="))
        page = client.get("/j", headers={k: v for k, v in headers.items()
                                         if k != "Cookie"}).data
        return re.search(rb'<html lang="(\w+)"', page).group(1).decode()

    asked = [({"Accept-Language": "fr-CA,fr"}, "fr"), ({"Accept-Language": "de"}, "de"),
             ({"Accept-Language": "fr-CA,fr", "Cookie": "sl-lang=nl"}, "nl"),
             ({"Accept-Language": "fr-CA,fr", "Cookie": "sl-lang=xx"}, "fr"),
             ({"Cookie": "sl-lang=de; other=1"}, "de"), ({}, "en")]
    for _ in range(2):
        assert [spoken(h) for h, _ in asked] == [code for _, code in asked]
    pages._BY_HEADERS.clear()
    for i in range(pages._HEADERS_KEPT):       # a stranger's flood of made-up headers
        pages._BY_HEADERS[(f"x={i}", None)] = pages._LOCALES["de"]
    assert [spoken(h) for h, _ in asked] == [code for _, code in asked]
    assert len(pages._BY_HEADERS) <= len(asked)          # the flood was let go
    # a header as long as a request may carry is read, never kept (1,024 of them held
    # 64 MB)
    long = {"Accept-Language": "de," + "x" * 60_000}
    assert spoken(long) == "de" and spoken(long) == "de"
    assert all(len(a or "") + len(b or "") <= 512 for a, b in pages._BY_HEADERS)


def test_the_rules_help_in_each_language(client):
    for code, name in (("de", "Feldmarschall"), ("fr", "Maréchal"), ("nl", "Maarschalk"),
                       ("en", "Marshal")):
        d = client.get("/rules.json", query_string={"lang": code}).get_json()
        assert d["ranks"][9]["name"] == name and d["ranks"][9]["rule"] == "R49"


def test_a_notice_is_read_in_each_screens_language(table, client):
    host, red, blue = seated(table)
    red.event({"type": "exhaust", "side": "red", "ranks": [1]})
    red.undo()
    en = client.get(f"/api/tables/{host.code}/state").get_json()["view"]["notice"]
    de = client.get(f"/api/tables/{host.code}/state",
                    headers={"Accept-Language": "de"}).get_json()["view"]["notice"]
    assert en == "Ann undid: Red's exhausted soldier: Spy"
    assert de == "Ann nahm zurück: Erschöpfter Soldat von Rot: Spionin"


def test_the_live_push_encodes_each_change_once_per_language_in_use(table, app):
    host, red, blue = seated(table)
    ch = live.hub.subscribe(host.code)
    try:
        with app.test_request_context():
            from companion.play.tables import load
            from companion.table.views import public_view
            view = public_view(load(host.code))
        ch.publish(view["version"], view)
        with ch.cond:
            fr = ch.message("fr")
            assert ch.message("fr") is fr           # a second French screen: the same bytes
            de = ch.message("de")
        assert set(ch.messages) == {"fr", "de"}
        data = lambda m: json.loads(m.decode().split("data: ", 1)[1])   # noqa: E731
        assert data(fr)["words"]["ranks"]["2"] == "Éclaireur"
        assert data(de)["words"]["ranks"]["2"] == "Aufklärer"
        assert data(fr)["taps"] == data(de)["taps"]
    finally:
        live.hub.unsubscribe(ch)


def test_the_stream_speaks_the_screens_language(client, table):
    host = table()
    r = client.get(f"/api/tables/{host.code}/stream", headers={"Accept-Language": "fr"},
                   buffered=False)
    chunks = r.response
    first = next(chunks)
    assert b"connected" in first
    msg = b""
    while b"event: state" not in msg:
        msg += next(chunks)
    view = json.loads(msg.decode().split("data: ", 1)[1])
    assert view["words"]["next"].startswith("Saisissez le soldat épuisé de Rouge et Bleu")
    r.close()


def test_refusals_keep_their_codes_for_machines(client):
    r = client.post("/api/tables", json={"wall_distance": 99},
                    headers={"Origin": ORIGIN, "Accept-Language": "de"})
    d = r.get_json()
    assert (r.status_code, d["code"], d["field"]) == (400, "bad_field", "wall_distance")
    assert d["error"] == "das Feld 'wall_distance' muss eine ganze Zahl 2-8 sein"
