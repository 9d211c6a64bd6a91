"""Going on with a saved game: the create page imports a record file through the referee."""

from __future__ import annotations

import json
import pathlib

from .conftest import shot

RECORDS = pathlib.Path(__file__).resolve().parents[1] / "records"


def test_a_saved_game_opens_on_the_big_screen(screens, live):
    tv = screens("tv")
    tv.goto(live.url + "/")
    tv.set_input_files('[data-testid="import-file"]', str(RECORDS / "worked-colonel-at-7.json"))
    tv.wait_for_url("**/t/*")
    expected = json.loads((RECORDS / "worked-colonel-at-7.expected.json").read_text())
    for side in ("red", "blue"):
        ip = tv.locator(f'[data-testid="ip-{side}"]')
        ip.wait_for()
        assert ip.get_attribute("data-value") == str(expected["ip"][side])
    assert tv.locator('[data-testid="da"]').get_attribute("data-pos") == str(expected["da"])
    shot(tv, "import-tv-opened")


def test_a_bad_record_is_refused_with_the_event_and_the_reason(screens, live):
    tv = screens("tv")
    tv.goto(live.url + "/")
    tv.set_input_files('[data-testid="import-file"]', str(RECORDS / "bad-no-deception-token.json"))
    problem = tv.locator("#import-problem")
    problem.filter(has_text="event 8").wait_for()
    assert "blue holds no deception token" in problem.inner_text()
    assert tv.url.rstrip("/") == live.url
    shot(tv, "import-tv-refused")
