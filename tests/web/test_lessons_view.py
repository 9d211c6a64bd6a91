"""A learning table's view names the lessons due now (issue 53): each rule once in the game,
at the step that needs it, as the phones enter a whole game tap by tap; a table that is not
a learning game is sent no lessons; their words in the screen's language."""

from __future__ import annotations

import random

import pytest

from companion.engine import replay
from companion.engine.simulate import random_record
from companion.table.lessons import LESSONS, moments

from .conftest import Player, enter, sit

# the lessons come from the events and the draft, the same on any database (the view's
# making on both: tests/web/test_views.py)
pytestmark = pytest.mark.anydb


@pytest.mark.parametrize("seed", [22])   # a choice, a broken order, a lie, the flag, its check
def test_a_learning_table_names_each_lesson_once_at_the_step_that_needs_it(table, seed):
    rec = random_record(random.Random(seed))
    host = table(rec.options.wall_distance, first_game=True)
    seats = {"red": sit(host, "red", "Ann"), "blue": sit(host, "blue", "Bob")}
    told: list[tuple[int, str, str]] = []        # (events entered, the step, the lesson)

    def look() -> dict:
        view = host.refresh()
        step = (view["draft"] or {}).get("step") or view["state"]["next"]["type"] or "over"
        told.extend((view["state"]["events"], step, k) for k in view["lessons"])
        return view

    view = look()
    assert view["lessons"] == ["exhaust"]               # R3, before the first draw
    enter(host, seats, rec.events, tapped=look)          # the view read after each tap
    view = host.refresh()
    assert view["state"]["phase"] == "over"
    # once each: between two events (a view read at each tap says it again until the next
    # event: what a reveal did stays while the next reveal's guess is tapped)
    first: dict[str, tuple[int, str]] = {}
    for n, step, key in told:
        assert first.setdefault(key, (n, step))[0] == n, (key, first[key], (n, step))
    # the rules of the first steps, each at its step (R3, R10, R11, R12-R13, R14, R30)
    at = {k: step for k, (_n, step) in first.items()}
    assert {k: at[k] for k in ("exhaust", "deploy", "intel", "start", "reveal", "deception")} \
        == {"exhaust": "exhaust", "deploy": "intel", "intel": "tokens", "start": "start",
            "reveal": "guess", "deception": "guess"}
    # a Captain's or Marshal's ability at its choice, before the choice is made (R45, R49)
    acted: set[int] = set()
    for r in replay(rec).reveals:
        if r.outcome == "activated" and r.actual not in acted and r.choice:
            assert first[f"ability-{r.actual}"] == (r.index, "choice"), (r, first)
        acted |= {r.actual} if r.outcome == "activated" else set()
    # every lesson the game met, and only those: what the engine's moments say
    assert set(first) == set(moments(rec.options, rec.events))
    assert set(first) <= set(LESSONS)


def test_a_table_that_is_not_a_learning_game_is_sent_no_lessons_and_the_words_are_served(
        table, client):
    host = table()
    assert "lessons" not in host.refresh()
    de_all = client.get("/lessons.json?lang=de").get_json()
    en_all = client.get("/lessons.json?lang=xx").get_json()
    assert de_all["words"]["got"] == "Verstanden" and en_all["words"]["more"] == "More"
    de, en = de_all["lessons"], en_all["lessons"]
    assert set(de) == set(en) == set(LESSONS)
    assert de["deploy"]["title"] == "Vier Soldaten auslegen" and de["deploy"]["rules"] == ["R10"]
    assert en["ability-6"]["title"] == "Captain (6)"
    assert all(len(x["text"].split()) <= 40 for x in [*de.values(), *en.values()])


def test_remembered_players_are_not_taught_again_and_teach_again_brings_them_back(
        table, client):
    """A remembered player who saw a lesson is not shown it again; a table where every
    seated player saw it skips it; a newcomer brings it back (for the newcomer's phone
    only); "Teach again" from a seated phone brings every one back from that step on,
    a stranger cannot ask it (issue 53)."""
    rec = random_record(random.Random(22))
    ann, bob, cy = "a" * 40, "b" * 40, "c" * 40

    def play(host, seats, events) -> list[str]:
        told: list[str] = list(host.refresh().get("lessons", []))
        enter(host, seats, events, tapped=lambda: told.extend(host.refresh().get("lessons",
                                                                                  [])))
        return list(dict.fromkeys(told))

    # the first learning game: Ann and Bob are taught every lesson the game meets
    first = table(rec.options.wall_distance, first_game=True)
    taught = play(first, {"red": sit(first, "red", "Ann", player=ann),
                          "blue": sit(first, "blue", "Bob", player=bob)}, rec.events)
    assert set(taught) == set(moments(rec.options, rec.events)) and len(taught) >= 15

    # the same game again, the same two: nothing explained, the big screen says how many
    # lessons were skipped (it offers "Teach again")
    second = table(rec.options.wall_distance, first_game=True)
    seats = {"red": sit(second, "red", "Ann", player=ann),
             "blue": sit(second, "blue", "Bob", player=bob)}
    view = second.refresh()
    # (and the set-up's walk-through, which they were shown before the first game's day 1)
    assert view["lessons"] == [] and view["lessons_known"] == len(taught) + 1
    assert view["walk"] is False
    half = len(rec.events) // 2
    assert play(second, seats, rec.events[:half]) == []

    # a stranger cannot make them forget; a seated phone can: from that step on each
    # lesson comes back at its next moment (what the engine's moments from there say)
    stranger = Player(client, second.code, None)
    stranger.refresh()
    assert stranger.post("/teach", {}, 401).get_json()["code"] == "no_secret"
    seats["blue"].post("/teach", {}, 200)
    view = second.refresh()
    assert view["lessons_from"] == half and view["lessons_known"] == 0
    again = play(second, seats, rec.events[half:])
    assert set(again) == set(moments(rec.options, rec.events, start=half)) and len(again) >= 8

    # a newcomer at the table: the lessons come back on the big screen, and the phone of
    # Ann, who saw them at another table, is told to skip them
    third = table(rec.options.wall_distance, first_game=True)
    red = sit(third, "red", "Ann", player=ann)
    view = third.refresh()                  # (Ann alone: what she saw since "Teach again")
    assert view["lessons_known"] == len(again) and view["lessons"] == []
    sit(third, "blue", "Cy", player=cy)
    view = third.refresh()
    assert view["lessons_known"] == 0 and view["lessons"] == ["exhaust"] and view["walk"]
    assert view["lessons_seen"] == {str(red.seat["id"]): ["exhaust"]}
