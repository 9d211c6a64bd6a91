"""One writer per table: many phones post conflicting events at the same version at
the same instant, against two server processes on one database; exactly one is
applied, every other gets 409 and the fresh state. The guarantee comes from the
version compare-and-swap in the database transaction, not from a lock in one process.
"""

from __future__ import annotations

import threading

from companion.engine import Record, replay
from companion.engine.events import FORMAT
from harness.server import Server

THREADS = 20
ROUNDS = 6


def test_twenty_conflicting_posts_on_two_processes_apply_exactly_one(server_db):
    url, tmp = server_db
    log = tmp / "server.log"
    shared = {"SPIES_LIES_SHARE_SQLITE_FILE": "1"}     # SQLite: refused without it
    a = Server(url, log, env=shared).start()
    b = Server(url, log, env=shared).start()  # a second process on the same database
    try:
        st, d = a.call("POST", "/api/tables", {"wall_distance": 3})
        assert st == 201, d
        code, host = d["code"], d["host_secret"]
        secrets = {}
        for side in ("red", "blue"):
            v = a.call("GET", f"/api/tables/{code}/state")[1]["view"]["version"]
            st, d = a.call("POST", f"/api/tables/{code}/seats", {
                "version": v, "idempotency_key": f"join-{side}-0001", "side": side,
                "name": side.title()})
            assert st == 201, d
            secrets[side] = d["secret"]
        applied, refused = 0, 0
        for rnd in range(ROUNDS):
            view = b.call("GET", f"/api/tables/{code}/state")[1]["view"]
            version = view["version"]
            due = view["state"]["next"]
            gate = threading.Barrier(THREADS)
            answers: list[tuple[int, dict]] = [(0, {})] * THREADS

            def post(i: int, due=due, gate=gate, answers=answers, version=version,
                     rnd=rnd) -> None:
                if due["type"] == "exhaust":     # each phone its own side, a different rank
                    side = due["sides"][i % len(due["sides"])]
                    event = {"type": "exhaust", "side": side, "ranks": [1 + i % 10]}
                    secret = secrets[side]
                else:                            # intel: any screen may record it
                    ranks = sorted({1 + i % 10, 1 + (i + 3) % 10, 1 + (i + 5) % 10,
                                    1 + (i + 7) % 10})
                    event, secret = {"type": "intel", "ranks": ranks}, host
                server = (a, b)[i % 2]
                gate.wait()
                answers[i] = server.call("POST", f"/api/tables/{code}/events", {
                    "version": version, "idempotency_key": f"r{rnd}-t{i:02d}-conflict",
                    "event": event}, secret)

            threads = [threading.Thread(target=post, args=(i,)) for i in range(THREADS)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
            ok = [d for st, d in answers if 200 <= st < 300]
            stale = [d for st, d in answers if st == 409]
            assert len(ok) == 1, [st for st, _ in answers]
            assert len(stale) == THREADS - 1, [(st, d.get("error")) for st, d in answers]
            for d in stale:                       # each refusal carries the fresh state
                assert d["code"] in ("stale", "out_of_turn") and d["view"]["version"] > version
                assert d["view"]["log"][-1]["index"] == len(d["view"]["log"]) - 1
            applied += 1
            refused += len(stale)
            fresh = a.call("GET", f"/api/tables/{code}/state")[1]["view"]
            assert fresh["version"] == version + 1
            if due["type"] == "intel":           # take it back: the next round fights again
                st, d = a.call("POST", f"/api/tables/{code}/undo", {
                    "version": version + 1, "idempotency_key": f"undo-{rnd:02d}-0001"}, host)
                assert st == 200, d
        st, rec = b.call("GET", f"/api/tables/{code}/record")
        assert len(rec["events"]) == 2            # two exhausts (every intel was taken back)
        replay(Record.from_dict({"format": FORMAT, "options": rec["options"],
                                 "events": rec["events"]}))
        print(f"\nconcurrency: {applied * THREADS} conflicting posts in {applied} rounds of "
              f"{THREADS} on two processes: {applied} applied, {refused} refused with 409")
    finally:
        a.stop()
        b.stop()
