"""The chance to win at the table (issue 25), over HTTP: the live figure of a table that
opted in, worked out off the request path; a finished game's chances in its story, its
turning points, and the history's decisive moment."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from companion.engine import Options, event_from_dict, replay
from companion.engine.chances import OUTCOMES, estimate, rounded
from companion.group.chances import LIVE_PLAYOUTS

from .conftest import ORIGIN, Player, sit

RECORDS = Path(__file__).resolve().parents[1] / "records"


def _until(get: Any, ok: Any, seconds: float = 60) -> Any:
    """Ask ``get()`` until ``ok(answer)`` (the work is done in a background thread)."""
    end = time.monotonic() + seconds
    while True:
        got = get()
        if ok(got) or time.monotonic() > end:
            return got
        time.sleep(0.1)


def test_a_table_that_opted_in_gets_a_live_figure_for_each_state(client):
    r = client.post("/api/tables", json={"wall_distance": 3, "chances": True},
                    headers={"Origin": ORIGIN})
    d = r.get_json()
    host = Player(client, d["code"], d["host_secret"])
    assert host.refresh()["chances"] is True
    red, blue = sit(host, "red", "Ann"), sit(host, "blue", "Bo")
    url = f"/api/tables/{host.code}/chances"

    def live() -> Any:
        return client.get(url).get_json()["live"]

    def now(got: Any) -> bool:          # a figure of the game as it stands
        return got is not None and got["version"] == host.refresh()["version"]

    got = _until(live, now)
    assert got["events"] == 0 and got["playouts"] == LIVE_PLAYOUTS
    # issue 52: shares that sum to exactly 1 and 100 % (largest remainder), and before
    # any event (nothing seen, the sides alike) an even chance for both
    assert sum(round(got[k] * 10_000) for k in OUTCOMES) == 10_000
    assert sum(got["percent"].values()) == 100
    assert got["percent"]["red"] == got["percent"]["blue"] and got["red"] == got["blue"]
    assert got["basis"] == "nothing"        # what the screens' line says it rests on
    # a post is answered without it; the next figure is of the game after the post
    red.event({"type": "exhaust", "side": "red", "ranks": [3]})
    answer = blue.event({"type": "exhaust", "side": "blue", "ranks": [5]}).get_json()
    assert "chances" not in json.dumps(answer["view"].get("live", {}))
    got = _until(live, now)
    assert got["events"] == 2 and sum(got["percent"].values()) == 100
    assert got["basis"] == "exhausted"
    # the engine's estimate of that public state, seeded by it: the same figure
    record = client.get(f"/api/tables/{host.code}/record").get_json()
    state = replay(Options(3), [event_from_dict(e) for e in record["events"]])
    assert {k: got[k] for k in OUTCOMES} == rounded(estimate(state, LIVE_PLAYOUTS))
    # an undo and the same event again: the same public state, the same figure, at once
    # (not worked out again with other random numbers: it moved 2-4 points)
    blue.undo()
    assert _until(live, now)["events"] == 1
    blue.event({"type": "exhaust", "side": "blue", "ranks": [5]})
    again = live()
    assert now(again) and {k: again[k] for k in (*OUTCOMES, "percent", "state")} == {
        k: got[k] for k in (*OUTCOMES, "percent", "state")}
    # strangers read it as they read the board (public information only)
    assert client.get(url, environ_base={"REMOTE_ADDR": "127.0.3.2"}).status_code == 200


def test_a_figure_of_a_game_the_table_has_left_is_not_worked_out(client, monkeypatch):
    """On a busy server the figures asked for queue up; one whose game moved on before its
    turn came is skipped, not worked out (0.3 s of a core each) while the table waits for
    the figure of the game as it is."""
    from companion.group import chances
    gate, worked = threading.Event(), []
    real = chances.helper.call

    def held(job: str, state: Any, *args: Any) -> Any:
        worked.append(state.event_count)
        gate.wait(60)            # the first figure holds the worker while the game goes on
        return real(job, state, *args)
    monkeypatch.setattr(chances.helper, "call", held)
    d = client.post("/api/tables", json={"wall_distance": 3, "chances": True},
                    headers={"Origin": ORIGIN}).get_json()
    host = Player(client, d["code"], d["host_secret"])
    red, blue = sit(host, "red", "Ann"), sit(host, "blue", "Bo")
    url = f"/api/tables/{host.code}/chances"

    def live() -> Any:
        return client.get(url).get_json()["live"]
    live()
    assert _until(lambda: worked, lambda w: w == [0], 30) == [0]
    red.event({"type": "exhaust", "side": "red", "ranks": [3]})
    live()                                      # asked for the game after 1 event ...
    blue.event({"type": "exhaust", "side": "blue", "ranks": [5]})
    live()                                      # ... and after 2, while the first is held
    gate.set()
    got = _until(live, lambda x: x is not None and x["events"] == 2)
    assert got["events"] == 2
    assert worked == [0, 2]


def test_a_table_without_it_asks_for_nothing(client, table):
    host = table()
    r = client.get(f"/api/tables/{host.code}/chances").get_json()
    assert r == {"on": False, "live": None} and host.view["chances"] is False
    assert client.get("/api/tables/NOPE1/chances").status_code == 404


def test_a_finished_game_tells_its_chances_turning_points_and_decisive_moment(client):
    record = json.loads((RECORDS / "random-flag-1.json").read_text())
    r = client.post("/api/tables/import", json={"record": record}, headers={"Origin": ORIGIN})
    code = r.get_json()["code"]
    first = client.get(f"/api/tables/{code}/story").get_json()
    assert first["over"] and first["chances"] in ({"pending": True}, first["chances"])
    story = _until(lambda: client.get(f"/api/tables/{code}/story").get_json(),
                   lambda s: not s["chances"].get("pending"), 120)
    c = story["chances"]
    assert len(c["steps"]) == len(story["steps"]) == len(record["events"]) + 1
    assert c["steps"][-1][["red", "blue", "draw"].index(story["winner"])] == 1.0
    assert 1 <= len(c["turning"]) <= 3
    steps = [t["step"] for t in c["turning"]]
    assert steps == sorted(steps)
    for t in c["turning"]:          # each with the words of its step, in the page's language
        assert t["text"] == story["steps"][t["step"]]["text"] and t["toward"] in ("red", "blue")
    # issue 52: a turning point is a reveal, never a random draw (the opening's exhausted
    # soldiers were turning point no. 1): the biggest swings among the reveals
    assert all(story["steps"][t["step"]]["type"] == "reveal" for t in c["turning"])
    swing = [abs(a[0] - b[0]) for a, b, d in zip(c["steps"][1:], c["steps"], story["steps"][1:],
                                                 strict=False) if d["type"] == "reveal"]
    assert max(t["swing"] for t in c["turning"]) == round(max(swing), 3)
    # the history names the story's decisive reveal: the same step, the same words (it
    # named the chance's biggest swing, another step than the story's)
    decisive = next(m for m in story["moments"] if "decisive" in m["kinds"])
    page = client.get("/history?apart=1").get_data(as_text=True)         # (imported)
    assert page.count('data-testid="decisive"') == 1
    assert f'/t/{code}/story#step={decisive["step"]}">' in page
    listed = client.get("/api/history?apart=1").get_json()["games"][0]["decisive"]
    assert listed["step"] == decisive["step"]          # the reveal's own words, as told
    assert story["steps"][decisive["step"]]["text"].startswith(listed["text"])
    fr = client.get(f"/api/tables/{code}/story", headers={"Accept-Language": "fr"}).get_json()
    assert fr["chances"]["turning"][0]["text"] == fr["steps"][steps[0]]["text"]


def test_a_dropped_app_s_stories_are_not_worked_out(app, tmp_path, monkeypatch):
    """An app dropped (a test's, or a server stopping) leaves its finished games' chances
    unworked: the background worker skipped nothing before and spent seconds of a core
    on each, long after, while the next tests ran (16 series in tests/web/test_memory.py
    alone, 35 s of CPU)."""
    from companion import live
    from companion.group import chances
    from companion.store.models import db
    from companion.web import create_app

    worked: list[int] = []
    real = chances.series_of

    def counted(options: Any, events: Any, seed: int) -> Any:
        worked.append(len(events))
        return real(options, events, seed)
    monkeypatch.setattr(chances, "series_of", counted)
    record = json.loads((RECORDS / "random-flag-1.json").read_text())

    def finished(a: Any) -> str:
        client = a.test_client()
        code = client.post("/api/tables/import", json={"record": record},
                           headers={"Origin": ORIGIN}).get_json()["code"]
        return str(code)

    gone = create_app({"TESTING": True, "SECRET_KEY": "test", "SQLALCHEMY_DATABASE_URI":
                       f"sqlite:///{tmp_path / 'gone.sqlite'}"}, instance_path=str(tmp_path))
    code = finished(gone)
    live.close(gone)                # dropped, with its game's story asked for: queued
    gone.test_client().get(f"/api/tables/{code}/story")
    with gone.app_context():
        db.session.remove()
        db.engine.dispose()
    # then a game of an app still here: its story comes, after the other in the queue
    mine = finished(app)
    client = app.test_client()
    story = _until(lambda: client.get(f"/api/tables/{mine}/story").get_json(),
                   lambda s: not s["chances"].get("pending"), 120)
    assert not story["chances"].get("pending")
    assert worked == [len(record["events"])]       # its own, not the dropped app's


def test_an_app_is_dropped_only_once_the_worker_has_left_its_database(app, monkeypatch):
    """Dropping an app waits while the background worker reads or writes its database:
    the connection it has checked out is given back before the engine is disposed
    (CI on PostgreSQL: a story's worker read the table while its test's app was dropped,
    and the connection left open met the garbage collector in the next test)."""
    from companion import live
    from companion.group import chances
    from companion.store.models import db

    inside, leave = threading.Event(), threading.Event()
    real = db.session.scalar

    def held(*args: Any, **kwargs: Any) -> Any:
        inside.set()
        leave.wait(30)
        return real(*args, **kwargs)
    monkeypatch.setattr(db.session, "scalar", held)
    reader = threading.Thread(target=chances._stored, args=(app, 1, 1))
    reader.start()
    assert inside.wait(30)
    dropper = threading.Thread(target=live.close, args=(app,))
    dropper.start()
    dropper.join(0.5)
    assert dropper.is_alive()                   # waits for the worker's read
    leave.set()
    dropper.join(30)
    reader.join(30)
    assert not dropper.is_alive() and not reader.is_alive()
    assert chances._stored(app, 1, 1) is True   # dropped: nothing more read or written
