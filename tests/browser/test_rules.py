"""The rules search on the screens (issue 22 item 4): the phone's rules panel and the
/rules page ask the server, which folds accents and case, knows every rule and rank
under its names in all four languages and forgives a typo; each screen shows what it
found in its own language, best first. The /rules page names the phases, not their
code words."""

from __future__ import annotations

from companion import help as rules_help

from .conftest import LEAST_WORD, audit, shot
from .table import Table

# what each query must bring first (the anchors of /rules/search)
FIRST = {"marechal": ["R49", "rank-10"], "Marshal": ["R49", "rank-10"],
         "deception": ["R14", "R50", "R51"], "captian": ["R45", "rank-6"],
         "que fait l'espion ?": ["R40", "rank-1"],          # a question, as it is asked
         "wie mache ich etwas rückgängig?": ["word-16"]}    # the companion's own button


def _heading(locale: str, anchor: str) -> str:
    """The heading a screen in ``locale`` shows for the entry at ``anchor``."""
    if anchor.startswith("rank-"):
        r = rules_help.texts(locale)["ranks"][int(anchor[5:]) - 1]
        return f"{r['rank']} {r['name']}"
    if anchor.startswith("word-"):
        return str(rules_help.texts(locale)["glossary"][int(anchor[5:])]["term"])
    r = next(x for x in rules_help.texts(locale)["rules"] if x["id"] == anchor)
    return f"{r['id']} {r['title']}"


def test_a_french_phone_finds_the_marshal_and_deception_in_any_language(screens, live):
    table = Table(screens, live, wall=4)
    phone = table.join("red", "Anne", locale="fr-FR")
    phone.set_viewport_size({"width": 360, "height": 640})
    phone.click("#b-rules")
    phone.locator("#rl .rule").first.wait_for()
    # the search box says what it is, in the phone's language, once a word is typed too
    assert phone.locator("#q").get_attribute("aria-label") == "chercher dans les règles"
    for q, first in FIRST.items():
        phone.fill("#q", q)
        phone.wait_for_function("q => document.getElementById('rl').dataset.searched === q",
                                arg=q)
        heads = [h.strip() for h in phone.locator("#rl .rule h3 a").all_inner_texts()]
        want = [_heading("fr", a) for a in first]
        assert heads[:len(want)] == want, (q, heads[:4])
        shot(phone, f"rules-phone-fr-360-{q}")
    # who won last week: the group's games one tap away, in a tab beside the game's
    q = "qui a gagné la semaine dernière ?"
    phone.fill("#q", q)
    phone.wait_for_function("q => document.getElementById('rl').dataset.searched === q", arg=q)
    found = phone.locator("#rl .rule").first
    assert found.locator("h3 a").inner_text().strip() == "nos parties"
    pages = found.locator(".opens a")
    assert pages.all_inner_texts() == ["Nos parties", "Statistiques"]
    assert pages.nth(1).bounding_box()["height"] >= 44
    shot(phone, "rules-phone-fr-360-our-games")
    with phone.context.expect_page() as opened:
        pages.nth(1).click()
    opened.value.wait_for_url("**/stats")
    opened.value.close()
    assert phone.url.startswith(f"{live.url}/j/")             # the seat's page stays open
    phone.fill("#q", "")
    phone.wait_for_function("() => document.getElementById('rl').dataset.searched === ''")
    assert phone.locator("#rl .rule").count() > 40            # everything back


def test_a_german_rules_page_finds_in_every_language_and_names_the_phases(screens, live):
    page = screens("tv", locale="de-DE")
    page.goto(live.url + "/rules")
    page.wait_for_selector('html[lang="de"]', state="attached")
    titles = {k: p["title"] for k, p in rules_help.texts("de")["phases"].items()}
    tags = page.locator("[data-phase-tag]")
    assert tags.count() > 40
    for i in range(tags.count()):
        t = tags.nth(i)
        assert t.inner_text() == titles[t.get_attribute("data-phase-tag")]
    assert not set(tags.all_inner_texts()) & set(rules_help.PHASE_NAMES) - set(titles.values())
    shot(page, "rules-page-de-1920")
    # read on the shared screen: no word under 16 px (its rule ids were 13, its text 18)
    assert page.evaluate(LEAST_WORD) >= 16
    assert audit(page) == []         # the rules' links told apart by more than colour
    total = page.locator("main .rule[id]").count()
    for q, first in FIRST.items():
        page.fill("#q", q)
        page.wait_for_function("q => document.body.dataset.searched === q", arg=q)
        shown = page.locator("main .rule[id]:visible")
        ids = [shown.nth(i).get_attribute("id") for i in range(shown.count())]
        assert ids[:len(first)] == first, (q, ids[:4])
        assert ids == page.locator("#found > .rule").evaluate_all("els => els.map(e => e.id)")
        heads = [h.strip() for h in page.locator("#found .rule h3 a").all_inner_texts()]
        assert heads[:len(first)] == [_heading("de", a) for a in first], q
        # the sections step aside; what it found stands under its own heading
        assert page.locator("main > h2:visible").all_inner_texts() == ["Was die Suche fand"]
        shot(page, f"rules-page-de-1920-{q}")
        assert audit(page) == []        # (its entries' headings came right after the h1)
    page.fill("#q", "zzzzqqq")                      # nothing: said under the heading
    page.wait_for_function("() => document.body.dataset.searched === 'zzzzqqq'")
    assert page.locator("#found-none").inner_text() == "Nichts gefunden."
    page.fill("#q", "")
    page.wait_for_function("() => document.body.dataset.searched === ''")
    assert page.locator("#found-none").is_hidden()
    assert page.locator("main .rule[id]:visible").count() == total
    assert page.locator("#found > *").count() == 0
    # every entry back in its place: the soldiers first, in rank order
    assert page.locator("main .rule[id]").first.get_attribute("id") == "rank-1"
    page.locator("#R70").scroll_into_view_if_needed()
    assert page.locator('#R71 [data-phase-tag="capture_check"]').inner_text() == \
        "Eroberungsprüfung"
    shot(page, "rules-page-de-1920-phases")
    page.locator('[data-phase="mission"]').click()
    page.locator("#phase-note .rule").wait_for()
    assert audit(page) == []        # the phase's note under the h1: a heading of its level
    # on a 360 px phone the search stays at the top in one short block (the phases one
    # row that scrolls sideways: four rows of German phases took half the screen), and
    # a question's answers follow it at once (a search looks in every phase)
    page.set_viewport_size({"width": 360, "height": 640})
    page.evaluate("() => scrollTo(0, 0)")
    assert page.evaluate("() => document.querySelector('.search').offsetHeight") <= 130
    page.fill("#q", "Was macht die Spionin?")
    page.wait_for_function("q => document.body.dataset.searched === q",
                           arg="Was macht die Spionin?")
    assert not page.locator(".phases").is_visible()
    page.locator("#q").scroll_into_view_if_needed()
    assert page.evaluate("""() => document.querySelector('#found > .rule')
        .getBoundingClientRect().top < innerHeight - 100""")
    shot(page, "rules-page-de-360-question")
    # a phase chosen further along that row is scrolled into sight
    page.goto(live.url + "/rules?phase=capture_check")
    page.wait_for_selector(".phases .sel", state="attached")
    assert page.evaluate("""() => { const r = document.querySelector('.phases .sel')
        .getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth; }""")
    # with its whole ring (3 px outside it, 1 px apart), which the row clipped at its top
    # and at its end
    for phase in ("capture_check", ""):
        page.goto(live.url + f"/rules?phase={phase}")
        page.wait_for_selector(".phases .sel", state="attached")
        assert page.evaluate("""() => { const sel = document.querySelector('.phases .sel');
            const r = sel.getBoundingClientRect(), row = sel.parentNode;
            const box = row.getBoundingClientRect(), ring = 4;
            return r.top - ring >= box.top && r.bottom + ring <= box.bottom
                && r.left - ring >= box.left && r.right + ring <= box.right; }"""), phase
    # who won last week: the group's games one tap away from what the search found, on
    # that phone (the entry only said where the first page links to them)
    page.fill("#q", "wer hat letzte Woche gewonnen?")
    page.wait_for_function("q => document.body.dataset.searched === q",
                           arg="wer hat letzte Woche gewonnen?")
    assert page.locator("#found > .rule").first.get_attribute("id") == "word-23"
    stats = page.locator("#found .opens a", has_text="Statistik")
    stats.scroll_into_view_if_needed()
    assert stats.bounding_box()["height"] >= 44
    shot(page, "rules-page-de-360-our-games")
    stats.click()
    page.wait_for_url("**/stats")
