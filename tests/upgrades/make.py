"""Make ``tests/upgrades/NNNN.json``: a group's database as each earlier release left it.

For every migration that was the schema's head at some commit of this repository, the
last such commit is checked out in a git worktree and *that release's own code* plays
a few short games through its own HTTP API (its ``create_app`` and Flask test client):
games finished and one in play, a table with an open seat and a team table with one,
remembered players, an imported record, the intel cards the server learned, a rematch,
a side on the big screen, a game gone on at another screen — whatever that release
could make. Then every table's rows are dumped as JSON (plain values, portable to
PostgreSQL), with what that release's API said about them: each table's state (phase,
day, IP, winner), its seats, and the history, statistics and ratings where the release
had them. Of the request receipts (each answer kept a while for a retried request) only
each table's last two are kept, to keep the files small.

``tests/web/test_upgrades.py`` builds the schema at that revision, puts the rows back,
starts the current companion on them and compares what it says with what the old one
said. This script is not run by the suite: run it again when a release changes what a
group's database holds (a new migration), from the checkout's top folder::

    .venv/bin/python tests/upgrades/make.py            # every earlier head
    .venv/bin/python tests/upgrades/make.py 0008 0012  # only these

It needs git and the current venv (every release so far runs on it; a release that
does not would need its own). The worktrees go to ``/tmp/spies-lies-upgrades/NNNN``
and are removed afterwards. The games are the engine's random legal games
(``companion.engine.simulate``) of the shortest seeds, entered tap by tap the way that
release's phones did (``harness/steps.py`` from 0005 on, the guess-and-card taps of
``tests/web/test_random_games.py`` before).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TOP = HERE.parent.parent
VERSIONS = "companion/migrations/versions"
ORIGIN = {"Origin": "http://localhost"}
SEEDS = (28, 46, 137, 224, 269, 97)      # the shortest random games (14-15 events)


# --- which commit left each revision as the head ----------------------------------------

def releases() -> dict[str, str]:
    """Each migration revision and the last commit whose head it was (the current
    head: ``HEAD``)."""
    out = subprocess.run(["git", "log", "--format=%H", "--diff-filter=A", "--", VERSIONS],
                         cwd=TOP, check=True, capture_output=True, text=True).stdout.split()
    added: dict[str, str] = {}
    for commit in out:
        names = subprocess.run(["git", "show", "--format=", "--name-only", "--diff-filter=A",
                                commit, "--", VERSIONS], cwd=TOP, check=True,
                               capture_output=True, text=True).stdout.split()
        for name in names:
            m = re.match(rf"{VERSIONS}/(\d{{4}})_", name)
            if m:
                added[m.group(1)] = commit
    revisions = sorted(added)
    found = {}
    for rev, nxt in zip(revisions, revisions[1:], strict=False):
        found[rev] = added[nxt] + "^"          # the commit before the next migration
    found[revisions[-1]] = "HEAD"
    return found


def make(revision: str, commit: str, keep: bool = False) -> Path:
    """Check ``commit`` out and let its own code make ``tests/upgrades/<revision>.json``."""
    sha = subprocess.run(["git", "rev-parse", commit], cwd=TOP, check=True,
                         capture_output=True, text=True).stdout.strip()
    tree = Path(tempfile.gettempdir()) / "spies-lies-upgrades" / revision
    if tree.exists():
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=TOP)
        shutil.rmtree(tree, ignore_errors=True)
    subprocess.run(["git", "worktree", "add", "-q", "--detach", str(tree), sha], cwd=TOP,
                   check=True)
    target = HERE / f"{revision}.json"
    try:
        env = {**os.environ, "PYTHONPATH": str(tree), "DATABASE_URL": ""}
        subprocess.run([sys.executable, str(Path(__file__).resolve()), "--drive", revision,
                        sha, str(target)], cwd=tree, env=env, check=True)
    finally:
        if not keep:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=TOP)
    return target


# --- inside the old release: play, then dump ----------------------------------------------

class Screen:
    """One screen of a table (the host screen or a seat's phone) over the test client."""

    n = 0

    def __init__(self, client: Any, code: str, secret: str | None) -> None:
        self.client, self.code, self.secret = client, code, secret
        self.view: dict[str, Any] = {}

    def headers(self) -> dict[str, str]:
        return {**ORIGIN, **({"Authorization": f"Bearer {self.secret}"} if self.secret else {})}

    def refresh(self) -> dict[str, Any]:
        r = self.client.get(f"/api/tables/{self.code}/state", headers=self.headers())
        assert r.status_code == 200, r.get_json()
        self.view = r.get_json()["view"]
        return self.view

    def post(self, path: str, body: dict[str, Any], expect: tuple[int, ...] = (200, 201)) -> Any:
        Screen.n += 1
        version = self.refresh()["version"]
        r = self.client.post(f"/api/tables/{self.code}{path}", headers=self.headers(),
                             json={"version": version, "idempotency_key": f"make-{Screen.n:06d}",
                                   **body})
        assert r.status_code in expect, (path, body, r.status_code, r.get_json())
        return r


def _enter_early(host: Screen, seats: dict[str, Screen], event: Any) -> None:
    """One event as the phones of releases before ``harness/steps.py`` entered it (their
    ``tests/web/test_random_games.py``)."""
    d = event.to_dict()
    if d["type"] == "reveal":
        owner, guesser = seats[event.owner], seats[event.guesser]
        if owner.refresh()["draft"]["step"] == "deception":
            owner.post("/draft", {"step": "deception", "value": event.deception})
        guesser.post("/draft", {"step": "guess", "value": event.guess})
        r = owner.post("/draft", {"step": "actual", "value": event.actual})
        if event.choice is not None and r.status_code == 200:
            owner.post("/draft", {"step": "choice", "value": event.choice})
    elif d["type"] == "start":
        sides = host.refresh()["state"]["next"]["sides"]
        (seats[sides[0]] if sides else host).post("/events", {"event": d})
    else:
        (seats[d["side"]] if d.get("side") else host).post("/events", {"event": d})


def enter(host: Screen, seats: dict[str, Screen], events: Any) -> None:
    """Enter recorded events tap by tap, as that release's phones did."""
    try:
        from harness.steps import steps
    except ImportError:
        for e in events:
            _enter_early(host, seats, e)
        return
    screens = {**seats, "host": host}
    for e in events:
        todo, status = steps(e, host.refresh()), None
        try:
            while True:
                who, path, body = todo.send(status)
                status = screens[who].post(path, body).status_code
        except StopIteration:
            pass


def _code(said: Any) -> str | None:
    """The table code a view's ``rematch`` or ``went_on`` names (a code, or an object
    with one, depending on the release)."""
    return said.get("code") if isinstance(said, dict) else said


def drive(revision: str, commit: str, target: Path) -> None:
    """Play the group's evening on this release and write what it left."""
    import random

    from companion.engine.simulate import random_record
    from companion.web import create_app

    folder = Path(tempfile.mkdtemp())
    url = f"sqlite:///{folder / 'companion.sqlite'}"
    config = {"TESTING": True, "SECRET_KEY": "upgrades", "SQLALCHEMY_DATABASE_URI": url}
    try:
        app = create_app(config, instance_path=str(folder))
    except TypeError:                        # 0001-0003: no instance_path yet
        app = create_app(config)
    client = app.test_client()
    routes = {r.rule for r in app.url_map.iter_rules()}
    can = {"import": "/api/tables/import" in routes,
           "players": "/api/players/me" in routes,
           "rematch": "/api/tables/<code>/rematch" in routes,
           "screen": "/api/tables/<code>/screen" in routes,
           "chances": revision >= "0012", "went_on": revision >= "0013"}
    records = [random_record(random.Random(s)) for s in SEEDS]
    players = {name: f"player-{name.lower()}-" + "k" * 32 for name in ("Ann", "Bob", "Cy")}
    tables: dict[str, dict[str, Any]] = {}

    def open_table(role: str, wall: int, **options: Any) -> Screen:
        r = client.post("/api/tables", headers=ORIGIN, json={"wall_distance": wall, **options})
        assert r.status_code == 201, r.get_json()
        d = r.get_json()
        tables[d["code"]] = {"role": role, "host_secret": d["host_secret"]}
        return Screen(client, d["code"], d["host_secret"])

    def sit(host: Screen, side: str, name: str, part: int | None = None) -> Screen:
        phone = Screen(client, host.code, None)
        body: dict[str, Any] = {"side": side, "name": name,
                                **({} if part is None else {"part": part})}
        if can["players"]:
            body["player"] = players[name]
        d = phone.post("/seats", body).get_json()
        phone.secret = d["secret"]
        return phone

    # two games played to the end by remembered players (the second with the chance bar)
    first = open_table("finished", records[0].options.wall_distance)
    enter(first, {"red": sit(first, "red", "Ann"), "blue": sit(first, "blue", "Bob")},
          records[0].events)
    second = open_table("finished", records[1].options.wall_distance,
                        **({"chances": True} if can["chances"] else {}))
    enter(second, {"red": sit(second, "red", "Bob"), "blue": sit(second, "blue", "Cy")},
          records[1].events)
    # a game in play, halfway through
    playing = open_table("in play", records[2].options.wall_distance)
    enter(playing, {"red": sit(playing, "red", "Cy"), "blue": sit(playing, "blue", "Ann")},
          records[2].events[:len(records[2].events) // 2])
    # a table waiting for its second player: blue's seat is open
    waiting = open_table("open seat", 3)
    sit(waiting, "red", "Ann")
    # team play, three of its four seats taken: blue's missions 3-4 are open
    team = open_table("open team seat", 4, teams=True)
    for side, part, name in (("red", 1, "Ann"), ("red", 2, "Bob"), ("blue", 1, "Cy")):
        sit(team, side, name, part)
    if can["rematch"]:                 # the second game again, colours swapped
        d = second.post("/rematch", {"swap": True,
                                     "host_secret": "rematch-host-" + "r" * 32}).get_json()
        code = d["view"]["rematch"]["code"] if "view" in d else d["rematch"]["code"]
        tables[code] = {"role": "rematch", "host_secret": "rematch-host-" + "r" * 32}
    if can["import"]:                  # a saved record opened again
        r = client.post("/api/tables/import", headers=ORIGIN,
                        json={"record": records[3].to_dict(), "idempotency_key": "make-import"})
        assert r.status_code == 201, r.get_json()
        d = r.get_json()
        tables[d["code"]] = {"role": "imported", "host_secret": d["host_secret"]}
    if can["screen"]:                  # a game entered on the big screen alone
        board = open_table("on screen", records[4].options.wall_distance)
        for side, name in (("red", "Dee"), ("blue", "Eve")):
            board.post("/screen", {"side": side, "on": True, "name": name})
        events = records[4].events
        enter(board, {"red": board, "blue": board},
              events[:len(events) // 2] if can["went_on"] else events)
        if can["went_on"]:             # ... that another screen goes on with
            rec = client.get(f"/api/tables/{board.code}/record").get_json()
            # (from 0014 on only the screen holding the table's key names it: issue 50)
            r = client.post("/api/tables/import", headers=board.headers(),
                            json={"record": rec, "from": board.code,
                                  "idempotency_key": "make-went-on"})
            assert r.status_code == 201, r.get_json()
            d = r.get_json()
            tables[d["code"]] = {"role": "went on", "host_secret": d["host_secret"]}
        else:
            tables[board.code]["role"] = "finished on screen"

    said = {"tables": {}, "players": {}}
    for code, t in tables.items():
        view = Screen(client, code, t["host_secret"]).refresh()
        s = view["state"]
        t.update(phase=s["phase"], day=s["day"], ip=s["ip"], winner=s.get("winner"),
                 reason=s.get("reason"), events=s.get("events"),
                 seats=sorted([x["side"], x.get("part", 0), x["name"], bool(x.get("screen"))]
                              for x in view["seats"] if x.get("status", "active") == "active"),
                 rematch=_code(view.get("rematch")), went_on=_code(view.get("went_on")),
                 seen_intel=sorted(json.dumps(c, sort_keys=True)
                                   for c in view.get("seen_intel") or ()))
        said["tables"][code] = t
    if can["players"]:
        said["history"] = [{"code": g["code"], "winner": g["winner"]}
                           for g in client.get("/api/history").get_json()["games"]]
        stats = client.get("/api/stats").get_json()
        said["players"] = {name: key for name, key in players.items()}
        said["stats"] = {"players": sorted([p["name"], p["games"], p["wins"]]
                                           for p in stats["players"]),
                         "games": stats.get("games"),
                         "ladder": sorted(p["name"] for p in stats.get("ladder") or ())}
    said["can"] = can

    with app.app_context():
        from companion.store.models import db
        db.session.remove()
        db.engine.dispose()
    conn = sqlite3.connect(folder / "companion.sqlite")
    names = [n for (n,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name")]
    rows = {}
    for name in names:
        cur = conn.execute(f'SELECT * FROM "{name}" ORDER BY rowid')
        cols = [c[0] for c in cur.description]
        rows[name] = [dict(zip(cols, r, strict=True)) for r in cur]
    if "receipt" in rows:    # each answer kept for a retry (full views): two a table will do
        last: dict[int, list[dict[str, Any]]] = {}
        for r in rows["receipt"]:
            last.setdefault(r["table_id"], []).append(r)
        rows["receipt"] = sorted((r for rs in last.values() for r in rs[-2:]),
                                 key=lambda r: r["id"])
    made = conn.execute("SELECT max(updated) FROM \"table\"").fetchone()[0]
    conn.close()
    shutil.rmtree(folder, ignore_errors=True)
    out = {"revision": revision, "commit": commit, "made": made, "said": said, "rows": rows}
    target.write_text(dumps(out))
    print(f"{revision}: {len(tables)} tables, {sum(len(r) for r in rows.values())} rows "
          f"-> {target}")


def dumps(out: dict[str, Any]) -> str:
    """The file's JSON: small, and one row a line (a new release's file reads as a diff)."""
    def one(v: Any) -> str:
        return json.dumps(v, sort_keys=True, separators=(",", ":"))
    rows = ",\n".join(f" {one(name)}: [\n" + ",\n".join("  " + one(r) for r in rs) + "]"
                       for name, rs in sorted(out["rows"].items()))
    head = {k: v for k, v in out.items() if k != "rows"}
    return (one(head)[:-1] + ',\n"rows": {\n' + rows + "}}\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("revisions", nargs="*", help="only these (default: every earlier head)")
    ap.add_argument("--keep", action="store_true", help="keep the worktrees")
    ap.add_argument("--drive", nargs=3, metavar=("REVISION", "COMMIT", "OUT"),
                    help=argparse.SUPPRESS)   # inside the old release's worktree
    args = ap.parse_args(argv)
    if args.drive:
        drive(args.drive[0], args.drive[1], Path(args.drive[2]))
        return 0
    found = releases()
    for revision in args.revisions or sorted(found):
        make(revision, found[revision], keep=args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
