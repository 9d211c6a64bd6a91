"""A learning game (issue 53): the set-up page offers it first while the group has finished
no game here (the big screen knows no player before the phones sit down, so the group's
history stands for them); it is the table's ``first_game`` flag, carried as the thinking
aid is. Its set-up walk-through is fetched by the big screen only when it shows it: no
table's page carries it, and its words come in the screen's language."""

from __future__ import annotations

import json
import re
from pathlib import Path

from companion.engine import event_from_dict

from .conftest import ORIGIN, enter, sit

RECORDS = Path(__file__).resolve().parents[1] / "records"


def _offered(client) -> str:
    """Which of "We know the game" and "Learning game" the set-up page has chosen."""
    html = client.get("/").get_data(as_text=True)
    chosen = re.findall(r'<button type="button" data-first="(\d)"[^>]*class="sel"[^>]*'
                        r'aria-pressed="true"', html)
    assert len(chosen) == 1, chosen
    return {"0": "known", "1": "learning"}[chosen[0]]


def test_a_learning_game_is_offered_until_the_group_has_finished_one(client, table):
    assert _offered(client) == "learning"
    # a game opened from a saved record is not one this group finished here
    record = json.loads((RECORDS / "random-flag-1.json").read_text())
    r = client.post("/api/tables/import", json={"record": record}, headers={"Origin": ORIGIN})
    assert r.status_code == 201 and r.get_json()["view"]["state"]["phase"] == "over"
    assert _offered(client) == "learning"
    # an unfinished game here changes nothing; a finished one does
    host = table(wall_distance=record["options"]["wall_distance"])
    seats = {"red": sit(host, "red", "Ann"), "blue": sit(host, "blue", "Bob")}
    events = [event_from_dict(e) for e in record["events"]]
    enter(host, seats, events[:3])
    assert _offered(client) == "learning"
    enter(host, seats, events[3:])
    assert host.refresh()["state"]["phase"] == "over"
    assert _offered(client) == "known"


def test_the_set_up_walk_through_is_no_table_page_s_and_comes_in_the_screen_s_words(client):
    made = {}
    for learning in (False, True):
        r = client.post("/api/tables", json={"first_game": learning}, headers={"Origin": ORIGIN})
        assert r.status_code == 201 and r.get_json()["view"]["first_game"] is learning
        made[learning] = r.get_json()["code"]
    for code in made.values():          # a table's page never carries it: fetched on demand
        html = client.get(f"/t/{code}").get_data(as_text=True)
        assert "walk.js" not in html and "walk-step" not in html and "Skip the set-up" not in html
    steps = client.get("/setup-walk?wall=3").get_data(as_text=True)
    titles = re.findall(r'<h2 class="walk-title"[^>]*>([^<]*)</h2>', steps)
    assert titles == ["The game in a minute", "The board: count your wall distance",
                      "Both point markers on 0", "The double agent in the middle",
                      "Each side's soldiers", "The intel card and the intel tokens",
                      "The deception tokens"]
    assert "the wall distance, 3 at this table" in steps
    assert "the wall distance, 4 at this table" in client.get(
        "/setup-walk?wall=99").get_data(as_text=True)
    de = client.get("/setup-walk?wall=5", headers={"Accept-Language": "de"}).get_data(
        as_text=True)
    assert "Das Spiel in einer Minute" in de and "an diesem Tisch 5" in de
    assert "Aufbau überspringen" in de and "Skip the set-up" not in de
