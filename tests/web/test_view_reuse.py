"""Issue 15: a post's view reuses what the view before it said (the narration of earlier
reveals, the earlier log lines) instead of building them again. Whatever was reused, the
view must be exactly the one built from nothing: checked after every event of random
games, across an undo and a seat taken over by a new phone."""

from __future__ import annotations

import random
import threading

import pytest

from companion.edge import lang
from companion.engine import Reveal
from companion.engine.simulate import random_record
from companion.play.tables import load
from companion.table import states, views

from .conftest import Player, enter, sit


def fresh_view(app, code: str) -> str:
    """The view built with nothing remembered (no state, no earlier words)."""
    with app.test_request_context():
        saved_states, saved_said = dict(states._cache), dict(views._said)
        states._cache.clear()
        views._said.clear()
        try:
            return lang.dumps(views.public_view(load(code)), "fr")
        finally:
            states._cache.update(saved_states)
            views._said.update(saved_said)


def kept_view(app, code: str) -> str:
    with app.test_request_context():
        return lang.dumps(views.public_view(load(code)), "fr")


def test_a_view_built_from_the_last_one_is_the_view_built_from_nothing(table, app):
    for seed in (3, 11):
        rec = random_record(random.Random(seed), wall_distance=3)
        host = table(wall_distance=3)
        seats = {"red": sit(host, "red", "Ann"), "blue": sit(host, "blue", "Bob")}
        checked = 0

        def seen(event, view, code=host.code):
            nonlocal checked
            assert kept_view(app, code) == fresh_view(app, code)
            checked += 1

        half = len(rec.events) // 2
        enter(host, seats, rec.events[:half], seen)
        host.undo()                               # the last event taken back ...
        assert kept_view(app, host.code) == fresh_view(app, host.code)
        annie = sit(host, "red", "Annie")         # ... a new phone takes over red's seat
        r = host.post(f"/seats/{annie.seat['id']}/decision", {"approve": True})
        assert r.status_code == 200, r.get_json()
        seats["red"] = annie
        enter(host, seats, rec.events[half - 1:], seen)   # ... and the game goes on
        assert kept_view(app, host.code) == fresh_view(app, host.code)
        assert checked == len(rec.events) + 1


def test_a_reveal_undone_and_told_otherwise_is_narrated_again(table, app):
    """The words of a reveal are reused only for the very same reveal: one undone and
    entered again with another guess gets its own words."""
    for seed in range(40):
        rec = random_record(random.Random(seed), wall_distance=3)
        at = next((i for i, e in enumerate(rec.events) if isinstance(e, Reveal)
                   and e.guess not in (None, e.actual) and not e.deception), None)
        if at is not None:
            break
    assert at is not None
    host = table(wall_distance=3)
    seats = {"red": sit(host, "red", "Ann"), "blue": sit(host, "blue", "Bob")}
    enter(host, seats, rec.events[:at + 1])
    wrong = kept_view(app, host.code)
    last_seen = dict(views._said)         # what this process said with the wrong guess
    host.undo()
    right = rec.events[at]
    assert isinstance(right, Reveal)
    enter(host, seats, [Reveal(right.guesser, right.mission, right.actual, right.actual)])
    assert kept_view(app, host.code) == fresh_view(app, host.code) != wrong
    # as if another process had taken the reveal back and entered it again: this one
    # last said the wrong guess's words, and must not reuse them for the right guess
    views._said.update(last_seen)
    states._cache.clear()
    assert kept_view(app, host.code) == fresh_view(app, host.code) != wrong


def test_a_state_kept_from_versions_ago_is_brought_up_to_date_or_replayed(table, app,
                                                                         monkeypatch):
    """Issue 24 (``serve --workers``): a process whose kept state is a few versions old
    (another worker took the posts) applies only the new events to it, and replays the
    game when the events it was made of changed (an undo): the same state either way."""
    rec = random_record(random.Random(7), wall_distance=3)
    host = table(wall_distance=3)
    seats = {"red": sit(host, "red", "Ann"), "blue": sit(host, "blue", "Bob")}
    kept: list = []
    replays: list[int] = []
    real = states.replay
    monkeypatch.setattr(states, "replay", lambda *a: replays.append(1) or real(*a))
    stale_replays = 0

    def stale(event, view, code=host.code):
        nonlocal stale_replays
        with app.test_request_context():
            t = load(code)
            if kept:                              # as another process left it: older
                states._cache.keep(t.id, kept[-1])
            before = len(replays)
            states.derive(t)
            stale_replays += len(replays) - before
            assert lang.dumps(views.public_view(t), "fr") == fresh_view(app, code)
            if len(kept) % 3 == 0:                # keep one state in three: 1-3 behind
                kept.append(list(states._cache.recall(t.id)))
            else:
                kept.append(kept[-1])

    half = len(rec.events) // 2
    enter(host, seats, rec.events[:half], stale)
    assert stale_replays == 0                     # each brought up to date, none replayed
    with app.test_request_context():
        latest = list(states._cache.recall(load(host.code).id))
    host.undo()                                   # the kept rows no longer begin the game
    with app.test_request_context():
        t = load(host.code)
        states._cache.keep(t.id, latest)
        rows = states.event_rows(t)
        assert len(rows) < len(latest[3])             # nothing kept to apply to: replayed
        before = len(replays)
        assert states.derive(t).event_count == len(rows)
        assert len(replays) == before + 1
        assert lang.dumps(views.public_view(t), "fr") == fresh_view(app, host.code)


def test_a_change_sent_as_its_delta_makes_the_next_view_exactly(table, app):
    """Issue 24, ``serve --workers``: another process gets a change as the operations from
    the view before (through a NOTIFY, messages kept as data) and applies them to the view
    it keeps: the result is the new view exactly (in every language), and the view it
    kept is left as it was (its streams may still need it)."""
    import copy
    import json

    from companion.live.delta import diff, patched

    rec = random_record(random.Random(5), wall_distance=3)
    host = table(wall_distance=3)
    seats = {"red": sit(host, "red", "Ann"), "blue": sit(host, "blue", "Bob")}
    views_seen: list[dict] = []

    def seen(event, view, code=host.code):
        with app.test_request_context():
            views_seen.append(views.public_view(load(code)))

    seen(None, None)
    enter(host, seats, rec.events, seen)
    assert len(views_seen) == len(rec.events) + 1
    for before, after in zip(views_seen, views_seen[1:], strict=False):
        kept = copy.deepcopy(before)
        sent = lang.revive(lang.stored(diff(before, after)))   # as the NOTIFY carries it
        made = patched(before, sent)
        for locale in ("en", "de"):     # (a key set again may come last: JSON has no order)
            assert json.loads(lang.dumps(made, locale)) == json.loads(lang.dumps(after, locale))
        assert before == kept


def test_a_change_told_by_another_process_is_applied_or_read(table, app):
    """Issue 24: what a process does with another's NOTIFY. Operations from the view it
    shows: applied and published, no read. From a view it does not show, or that cannot
    be applied: the table is read (a load is due). Its own change: nothing."""
    import json

    from companion import live
    from companion.live.delta import diff

    host = table(wall_distance=3)
    sit(host, "red", "Ann")
    with app.test_request_context():
        before = views.public_view(load(host.code))
    sit(host, "blue", "Bob")
    with app.test_request_context():
        after = views.public_view(load(host.code))
    v0, v1 = before["version"], after["version"]
    ops = lang.stored(diff(before, after))
    fanout = live.PgFanout(app)          # not started: only what it does with a payload
    ch = live.hub.subscribe(host.code)
    try:
        ch.publish(v0, before)
        fanout._changed(f"{host.code}:{v1}:{live.WORKER}:{v0}|{ops}")   # its own: nothing
        assert ch.version == v0 and not fanout._due
        fanout._changed(f"{host.code}:{v1}:elsewhere:{v0 - 1}|{ops}")   # not its view
        assert ch.version == v0 and fanout._due == {host.code: v1}
        fanout._due.clear()
        fanout._changed(f"{host.code}:{v1}:elsewhere:{v0}|[[\"set\", [\"nope\", 1], 2]]")
        assert ch.version == v0 and fanout._due == {host.code: v1}     # cannot be applied
        fanout._due.clear()
        fanout._changed(f"{host.code}:{v1}:elsewhere:{v0}|{ops}")       # applied
        assert ch.version == v1 and not fanout._due
        assert json.loads(lang.dumps(ch.data, "fr")) == json.loads(lang.dumps(after, "fr"))
        assert ch.views[v0] is before                                  # kept as it was
    finally:
        live.hub.unsubscribe(ch)


def test_rows_read_after_another_post_committed_are_not_kept_as_the_older_version(table, app):
    """A request reads a table (version v); another post commits an event before the
    request reads its events, and before that post has kept its own state: the events
    read then are version v+1's, and kept as v's, the post added its event a second time
    to the rows it kept (v's and its own), and the story of the game could not be told
    ("event 41: it is blue's turn", a CI run). Whatever is kept for a version is that
    version's events."""
    rec = random_record(random.Random(3), wall_distance=3)
    host = table(wall_distance=3)
    seats = {"red": sit(host, "red", "Ann"), "blue": sit(host, "blue", "Bob")}
    enter(host, seats, rec.events[:8])
    with app.test_request_context():
        t = load(host.code)                   # this request's table: version v
        v = t.version
        kept = states._cache.recall(t.id)
        assert kept is not None and kept[1] == v
        before = [kept[0], kept[1], kept[2], None]      # its state kept, not (yet) its rows
        other = threading.Thread(target=enter, args=(host, seats, rec.events[8:9]))
        other.start()                         # another post (its own session) commits v + 1
        other.join()
        states._cache.keep(t.id, before)      # ... and has not kept its own state yet
        rows = states.event_rows(t)           # read now: version v + 1's events
        assert len(rows) == 9
        mine = states.kept_rows(t, v)
        assert mine is None or len(mine) == 8, len(mine)
        # a state made from them is not kept as version v's either
        states._cache.keep(t.id, [kept[0], v - 1, None, None])
        assert states.derive(t).event_count == 9
        assert states.kept_rows(t, v) is None
    with app.test_request_context():           # and the game's story is told
        story = host.client.get(f"/api/tables/{host.code}/story")
        assert story.status_code == 200


@pytest.mark.parametrize("kept", [False, True])
def test_a_view_read_while_another_post_commits_is_of_one_version(table, app, kept):
    """A screen's request reads the table, then another post commits the game's first
    reveal before the request reads the events: the state was the older version's and the
    events the newer's, and the view (its undo: "Undo: <the last reveal>" of a state with no
    reveal) failed with a 500. The view is now of one version, the newest, and is the view
    built from nothing."""
    rec = random_record(random.Random(3), wall_distance=3)
    first = next(i for i, e in enumerate(rec.events) if isinstance(e, Reveal))
    host = table(wall_distance=3)
    seats = {"red": sit(host, "red", "Ann"), "blue": sit(host, "blue", "Bob")}
    enter(host, seats, rec.events[:first])
    with app.test_request_context():
        t = load(host.code)                   # the screen's request: version v
        v = t.version
        state = states.derive(t)
        other = threading.Thread(target=enter, args=(host, seats, rec.events[first:first + 1]))
        other.start()                         # another post commits the first reveal
        other.join()
        states._cache.clear()                 # nothing kept: the view reads the events,
        if kept:                              # or version v's state kept, not its events
            states._cache.keep(t.id, [t.code, v, state, None])
        view = views.public_view(t)
        assert view["version"] > v and len(view["state"]["reveals"]) == 1
        got = lang.dumps(view, "fr")
    assert got == fresh_view(app, host.code)


def test_a_view_given_its_state_is_not_told_another_versions_events_of_the_same_count(
        table, app):
    """A refusal's view is given the state its request read (version v); between that
    read and the events', another screen takes the last event back and the next one is
    entered: the events are as many as the state's, but not its. Counting them let the
    view tell version v + 2's log beside version v's board; the events are read with the
    version they belong to, and the view is of one version, the newest."""
    rec = random_record(random.Random(3), wall_distance=3)
    host = table(wall_distance=3)
    seats = {"red": sit(host, "red", "Ann"), "blue": sit(host, "blue", "Bob")}
    enter(host, seats, rec.events[:4])      # up to red's intel tokens
    with app.test_request_context():
        t = load(host.code)                   # the refusal's request: version v
        v = t.version
        state = states.derive(t)

        def undo_and_enter() -> None:
            host.undo()
            enter(host, seats, rec.events[4:5])     # blue's tokens instead

        other = threading.Thread(target=undo_and_enter)
        other.start()                         # version v + 2: 4 events, the last another
        other.join()
        states._cache.clear()                 # the events are read, not recalled
        states._cache.keep(t.id, [t.code, v, state, None])
        view = views.public_view(t, state)
        assert view["version"] == v + 2, view["version"]
        got = lang.dumps(view, "fr")
    assert got == fresh_view(app, host.code)


def test_a_change_makes_the_table_s_view_once(table, app, monkeypatch):
    """Issue 51: the view of a table is made in one place (``views.public_view``), and a
    change makes it once — its answer, the live push and the receipt share that one view
    (no second view from another module on the way back). Every post of a game entered
    from the phones is counted: events, each tap of a reveal, an ability's choice, an
    undo, a seat taken."""
    from harness.steps import steps

    made = 0
    real = views.words

    def counted(*args, **kwargs):
        nonlocal made
        made += 1
        return real(*args, **kwargs)
    monkeypatch.setattr(views, "words", counted)
    rec = random_record(random.Random(5), wall_distance=2)
    host = table()
    seats = {}
    for side, name in (("red", "Ann"), ("blue", "Bob")):
        phone = Player(host.client, host.code, None, name)
        phone.refresh()
        made = 0
        d = phone.post("/seats", {"side": side, "name": name}, 201).get_json()
        assert made == 1, made                  # a seat taken: one view
        phone.secret, phone.seat = d["secret"], d["seat"]
        seats[side] = phone
    screens = {**seats, "host": host}
    posts = 0
    for e in rec.events[:40]:
        todo, status = steps(e, host.refresh()), None
        try:
            while True:
                who, path, body = todo.send(status)
                screens[who].refresh()          # caught up, as the live push would have
                made = 0
                r = screens[who].post(path, body, fresh=False)
                assert r.status_code in (200, 201), r.get_json()
                assert made == 1, (path, body, made)
                posts += 1
                status = r.status_code
        except StopIteration:
            pass
    host.refresh()
    made = 0
    host.post("/undo", {}, 200, fresh=False)
    assert made == 1, made
    assert posts > 20
