"""The story of a game (issue 13, part 3): GET /api/tables/<code>/story replays the
record step by step exactly as the engine does, finds the key moments, and fits the
OpenAPI document; the "first game" switch is stored on the table and in the view."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema_rs
import pytest

from companion.engine import Record, replay, replay_output

from .conftest import ORIGIN, Player, sit

RECORDS = Path(__file__).resolve().parents[1] / "records"
GOOD = sorted(p for p in RECORDS.glob("*.json")
              if not p.name.startswith("bad-") and not p.name.endswith(".expected.json"))


def _import(client, path: Path, **extra) -> tuple[str, dict]:
    rec = json.loads(path.read_text())
    r = client.post("/api/tables/import", json={"record": rec, **extra},
                    headers={"Origin": ORIGIN})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["code"], rec


def _story(client, code: str) -> dict:
    r = client.get(f"/api/tables/{code}/story")
    assert r.status_code == 200, r.get_json()
    return r.get_json()


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_each_step_is_the_engines_replay_of_that_prefix(client, path):
    code, raw = _import(client, path)
    story = _story(client, code)
    rec = Record.from_dict(raw)
    assert len(story["steps"]) == len(rec.events) + 1
    for n, step in enumerate(story["steps"]):
        out = replay_output(replay(rec.options, rec.events[:n]))
        assert step["step"] == n and step["event"] == (n - 1 if n else None)
        for key in ("day", "phase", "ip", "da", "dt", "winner", "reason", "intel", "tokens"):
            assert step[key] == out[key], (n, key)
        assert {s: {m: c["rank"] for m, c in v.items()} for s, v in step["revealed"].items()} \
            == out["revealed"], n
        if n and raw["events"][n - 1]["type"] == "reveal":
            # a reveal's words are the engine's narration of it
            assert step["text"].startswith(out["reveals"][-1]["narration"])
            mine = [c for c in step["revealed"][out["reveals"][-1]["owner"]].values()
                    if c["rank"] == out["reveals"][-1]["actual"]]
            assert mine and mine[0]["outcome"] == out["reveals"][-1]["outcome"]
        assert step["text"]
    final = replay_output(replay(rec))
    assert (story["winner"], story["reason"], story["end"]) == \
        (final["winner"], final["reason"], final["end"])
    if final["end"] and final["phase"] == "over":
        assert story["steps"][-1]["text"].endswith(final["end"])


def _moments(story: dict, kind: str) -> list[dict]:
    return [m for m in story["moments"] if kind in m["kinds"]]


def test_the_key_moments_come_from_the_reveals_results(client):
    code, raw = _import(client, RECORDS / "random-flag-cancelled-33.json")
    story = _story(client, code)
    out = replay_output(replay(Record.from_dict(raw)))
    by_step = {r["index"] + 1: r for r in out["reveals"]}
    for kind in ("infiltrate", "order_broken", "flag"):
        want = sorted(n for n, r in by_step.items() if any(e["kind"] == kind for e in r["effects"]))
        assert want and [m["step"] for m in _moments(story, kind)] == want, kind
    want = sorted(n for n, r in by_step.items() if r["rule"] == "R61")
    assert want and [m["step"] for m in _moments(story, "R61")] == want
    moved = sorted(n for n, r in by_step.items()
                   if any(e["kind"] == "da" and e["steps"] for e in r["effects"]))
    assert [m["step"] for m in _moments(story, "da")] == moved
    # the flag's capture decided it; the capture check (R71) cancelled it: the end
    flag = _moments(story, "flag")[0]
    assert "decisive" in flag["kinds"]
    end = _moments(story, "end")
    assert [m["step"] for m in end] == [len(raw["events"])]
    assert "blue wins." in end[0]["text"]
    assert [m["step"] for m in story["moments"]] == sorted(m["step"] for m in story["moments"])
    for m in story["moments"]:
        assert m["day"] == story["steps"][m["step"]]["day"] and m["text"]


def test_after_day_3_the_decisive_reveal_is_the_last_change_of_the_result(client):
    code, _ = _import(client, RECORDS / "random-territory-2.json")
    story = _story(client, code)
    decisive = _moments(story, "decisive")
    assert len(decisive) == 1 and story["steps"][decisive[0]["step"]]["type"] == "reveal"
    # from that step on blue (the winner) holds the double agent in red's territory
    assert all(s["da"] < 0 for s in story["steps"][decisive[0]["step"]:])
    assert story["steps"][decisive[0]["step"] - 1]["da"] >= 0
    assert _moments(story, "end")[0]["step"] == len(story["steps"]) - 1


def test_days_mark_the_steps_of_each_day(client):
    code, _ = _import(client, RECORDS / "random-draw-98.json")
    story = _story(client, code)
    assert [d["day"] for d in story["days"]] == [1, 2, 3]
    assert story["days"][0]["first"] == 0 and story["days"][-1]["last"] == len(story["steps"]) - 1
    for d in story["days"]:
        assert all(s["day"] == d["day"] for s in story["steps"][d["first"]:d["last"] + 1])


def test_a_game_in_play_has_a_story_so_far(client):
    r = client.post("/api/tables", json={"wall_distance": 3}, headers={"Origin": ORIGIN})
    host = Player(client, r.get_json()["code"], r.get_json()["host_secret"])
    story = _story(client, host.code)
    assert len(story["steps"]) == 1 and story["moments"] == [] and not story["over"]
    red = sit(host, "red", "Ann")
    red.event({"type": "exhaust", "side": "red", "ranks": [1]})
    story = _story(client, host.code)
    assert len(story["steps"]) == 2 and story["steps"][1]["text"].startswith("Red's exhausted")
    assert story["winner"] is None and story["end"] is None


def test_the_story_matches_the_openapi_document(client):
    doc = client.get("/api/openapi.json").get_json()
    schema = doc["paths"]["/api/tables/{code}/story"]["get"]["responses"]["200"]
    v = jsonschema_rs.Draft202012Validator({**schema["content"]["application/json"]["schema"],
                                            "components": doc["components"]})
    for path in GOOD:
        code, _ = _import(client, path)
        v.validate(_story(client, code))
    assert client.get("/api/tables/QQQQQ/story").status_code == 404


def test_the_first_game_switch_is_stored_and_in_the_view(client, app):
    from companion.store.models import Table, db
    r = client.post("/api/tables", json={"first_game": True}, headers={"Origin": ORIGIN})
    assert r.status_code == 201 and r.get_json()["view"]["first_game"] is True
    on = r.get_json()["code"]
    r = client.post("/api/tables", json={}, headers={"Origin": ORIGIN})
    assert r.get_json()["view"]["first_game"] is False
    code, _ = _import(client, GOOD[0], first_game=True)
    assert client.get(f"/api/tables/{code}/state").get_json()["view"]["first_game"] is True
    with app.app_context():
        assert db.session.query(Table).filter_by(code=on).one().first_game is True
    for url, body in (("/api/tables", {"first_game": "yes"}),
                      ("/api/tables/import", {"record": json.loads(GOOD[0].read_text()),
                                              "first_game": 1})):
        r = client.post(url, json=body, headers={"Origin": ORIGIN})
        assert r.status_code == 400 and r.get_json()["field"] == "first_game"


def test_the_storys_way_back_is_the_phones_page_or_the_tables_and_nothing_else(table, client):
    """Opened from a phone at the end of its game the story leads back to that phone's
    page; otherwise to the table's (the big screen's). No other address is taken from the
    request: a stranger's link cannot make the story's way back lead off the server."""
    code = table().code

    def back(query: str) -> str:
        page = client.get(f"/t/{code}/story{query}").get_data(as_text=True)
        return re.search(r'class="btn back" href="([^"]*)"', page).group(1)

    assert back("") == f"/t/{code}"
    assert back("?from=phone") == f"/j/{code}"
    for odd in ("?from=https://evil.example/", "?from=//evil.example", "?from=/j/ZZZZZ",
                "?back=https://evil.example/", "?from=PHONE"):
        assert back(odd) == f"/t/{code}", odd
