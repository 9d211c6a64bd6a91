"""The rules search asked of the server (issue 22 item 4): one search, in
companion/help/ranking.py, for the /rules page and the phone's rules panel; and the rules
page's phase tags in the screen's language."""

from __future__ import annotations

import re

import pytest

from companion import help as rules_help

# the rules' texts and their search: no database in it
pytestmark = pytest.mark.anydb


def _ids(client, q, lang: str | None = None) -> list[str]:
    r = client.get("/rules/search", query_string={"q": q, **({"lang": lang} if lang else {})})
    assert r.status_code == 200 and r.mimetype == "application/json"
    data = r.get_json()
    assert data["q"] == q
    return data["ids"]


def test_the_search_route_answers_the_anchors_in_rank_order(client):
    assert _ids(client, "R45", "fr")[:2] == ["R45", "rank-6"]        # an exact id first
    assert _ids(client, "marechal", "fr")[:2] == ["R49", "rank-10"]  # accents folded
    assert _ids(client, "Marshal", "de")[:2] == ["R49", "rank-10"]   # another language
    assert _ids(client, "deception", "nl")[:3] == ["R14", "R50", "R51"]
    assert _ids(client, "captian", "de")[:2] == ["R45", "rank-6"]    # a typo
    for q in ("bomb", "wall", "Täuschung", "double agent"):
        assert _ids(client, q) == rules_help.ids(q)


def test_the_search_route_answers_the_end_and_the_spy_in_every_language(client):
    """Issue 53: a new group asks when the game ends and whether the Spy beats the
    Marshal, each in its screen's language. The end is both ends, the flag (R70) and day
    3 over (R72), among the first three (R72 was never found); the Spy's rule answers the
    Spy (who starts, R12, came first in German: "Spion" was a typo of "spin")."""
    for q, lang in (("when does the game end?", "en"), ("wann endet das Spiel?", "de"),
                    ("quand finit la partie ?", "fr"),
                    ("wanneer is het spel afgelopen?", "nl"), ("Spielende", "de")):
        assert {"R70", "R72"} <= set(_ids(client, q, lang)[:3]), q
    for q, lang in (("can the spy capture the marshal?", "en"),
                    ("kann der Spion den Marschall schlagen?", "de"),
                    ("l'espion peut-il capturer le maréchal ?", "fr"),
                    ("kan de spion de maarschalk slaan?", "nl")):
        assert _ids(client, q, lang)[0] == "R40", q


def test_the_search_route_finds_nothing_for_nothing(client):
    assert _ids(client, "") == [] and _ids(client, "   ") == []
    r = client.get("/rules/search")
    assert r.status_code == 200 and r.get_json()["ids"] == []


def test_a_long_query_is_cut_not_refused(client):
    q = "captain " * 200
    r = client.get("/rules/search", query_string={"q": q})
    assert r.status_code == 200
    assert r.get_json()["ids"][:2] == ["R45", "rank-6"]


def test_the_rules_page_names_the_phases_in_its_language_and_anchors_every_entry(client):
    for code in rules_help.LOCALES:
        html = client.get("/rules", query_string={"lang": code}).get_data(as_text=True)
        titles = {p["title"] for p in rules_help.texts(code)["phases"].values()}
        tags = re.findall(r'<span class="tag"[^>]*>([^<]*)</span>', html)
        phase_tags = [t for t in tags if t and not re.fullmatch(r"R\d+", t)]
        assert phase_tags, code
        assert set(phase_tags) <= titles, (code, set(phase_tags) - titles)
        assert not set(phase_tags) & set(rules_help.PHASE_NAMES) - titles, code
        for i in range(len(rules_help.GLOSSARY)):
            assert f'id="word-{i}"' in html, code
        assert "data-text=" not in html          # the page no longer searches by itself
    de = client.get("/rules", query_string={"lang": "de"}).get_data(as_text=True)
    assert 'data-phase-tag="capture_check">Eroberungsprüfung</span>' in de
    assert ">capture_check</span>" not in de


def test_a_word_about_one_of_the_companion_s_pages_opens_it(client):
    """Who won last week finds "our games": its entry on /rules opens the group's games and
    their statistics, in the screen's language (it only said where the first page links
    to them); the story, a new table and joining link to theirs. The words of the game
    link nowhere."""
    opens = {"our games": ["/history", "/stats"], "story": ["/history"], "new table": ["/"],
             "join": ["/j"]}
    en = [g["term"] for g in rules_help.texts("en")["glossary"]]
    labels = {"en": "Our games", "de": "Unsere Spiele", "fr": "Nos parties", "nl": "Onze spellen"}
    for code in rules_help.LOCALES:
        html = client.get("/rules", headers={"Accept-Language": code}).get_data(as_text=True)
        entries = dict(re.findall(r'<div class="rule" id="(word-\d+)"[^>]*>(.*?)</div>', html))
        for i, term in enumerate(en):
            links = re.findall(r'<a class="btn" href="([^"]*)">([^<]*)</a>', entries[f"word-{i}"])
            assert [href for href, _ in links] == opens.get(term, []), (code, term)
        ours = re.findall(r'<a class="btn" href="/history">([^<]*)</a>',
                          entries[f"word-{en.index('our games')}"])
        assert ours == [labels[code]], code


def test_a_phone_s_rules_panel_gets_the_same_pages_in_its_language(client):
    """The phone's rules panel reads /rules.json: it carries each word's pages, by the
    word's anchor, labelled in the language the panel asks for."""
    en = [g["term"] for g in rules_help.texts("en")["glossary"]]
    ours = f"word-{en.index('our games')}"
    for code, label in (("de", "Unsere Spiele"), ("fr", "Nos parties"), ("en", "Our games")):
        opens = client.get("/rules.json", query_string={"lang": code}).get_json()["opens"]
        assert opens[ours] == [["/history", label], ["/stats", opens[ours][1][1]]], code
        assert sorted(opens) == sorted(f"word-{en.index(t)}" for t in
                                       ("join", "story", "our games", "new table")), code
