"""``python -m benchmarks groups``: one hosted server of many groups (issue 54).

A fresh database (PostgreSQL through ``--database-url``, which the issue asks for with
``fsync=on``; else SQLite) gets ``--groups`` groups (default 1,000) of 8 players and
``--games`` finished games each (default 100): their tables, events, seats, summaries and
ratings written straight in, as the companion keeps them; one table in play in the
measured group for a phone to post at. The real server (``serve --many-groups``) then
serves one group (its link's cookie) and is measured:

- cold: the group's first ``/history``, ``/stats`` and ``/api/stats`` (its ladder);
- warm: each again and again, 110 ms apart (a client's pages are paced to 100 ms), median
  and p95;
- no stall: the phone's posts at the group's table, alone and while two screens of the
  group load those pages in a loop, in alternating blocks: p95 loaded / alone (and while
  two screens load a page that costs nothing, the same load without ours).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from companion.engine import replay
from companion.engine.simulate import random_record

from .history import Client, _drop_all, alone_and_loaded, server, warm

PLAYERS = 8
DISTINCT = 200               # distinct random games, reused (their content is irrelevant)
BATCH = 20                   # groups written per transaction


def populate(url: str, groups: int, games: int, instance: Path) -> dict[str, Any]:
    """The groups, their players and finished games, and the measured group's table in
    play, written in batches; what the measuring needs of them."""
    import sqlalchemy as sa

    from companion.group import games as memory
    from companion.memory.summary import FIGURES, SIDES, summarize
    from companion.store.models import (
        Event,
        Game,
        GameSide,
        Group,
        Memory,
        Player,
        Seat,
        Table,
        db,
        hash_secret,
        now,
    )
    from companion.web import create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench"},
                     instance_path=str(instance))
    rng = random.Random(groups)
    records = [random_record(random.Random(i), wall_distance=3) for i in range(DISTINCT)]
    rows = [[json.dumps(e.to_dict()) for e in r.events] for r in records]
    sums = [summarize(replay(r)) for r in records]
    measured = groups // 2 + 1
    t0 = now() - timedelta(days=400)
    with app.app_context():
        next_table = (db.session.scalar(sa.select(sa.func.max(Table.id))) or 0) + 1
        next_player = (db.session.scalar(sa.select(sa.func.max(Player.id))) or 0) + 1
        next_group = 2                                 # (1: the default group)
        for start in range(0, groups, BATCH):
            gs, ps, ts, es, ss, gms, sides, mem = [], [], [], [], [], [], [], []
            for _ in range(min(BATCH, groups - start)):
                g = next_group
                next_group += 1
                gs.append({"id": g, "name": f"Group {g}", "link_hash": hash_secret(f"link-{g}"),
                           "keeper_hash": hash_secret(f"keeper-{g}"), "created": t0})
                mem.append({"id": g, "version": 1})
                who = list(range(next_player, next_player + PLAYERS))
                next_player += PLAYERS
                ps += [{"id": p, "key_hash": hash_secret(f"player-{p}"), "name": f"P{p}",
                        "created": t0, "group_id": g, "rated": 0} for p in who]
                for i in range(games):
                    t, j = next_table, rng.randrange(DISTINCT)
                    next_table += 1
                    at = t0 + timedelta(minutes=50 * i)
                    ts.append({"id": t, "code": f"T{t:08d}", "wall_distance": 3,
                               "teams": False, "deduction": False, "first_game": False,
                               "chances": False, "practice": False, "lessons_from": 0,
                               "host_hash": hash_secret(f"host-{t}"),
                               "version": 1 + len(rows[j]), "created": at, "updated": at,
                               "finished": at, "imported": False, "accepted": True,
                               "group_id": g})
                    es += [{"table_id": t, "seq": k + 1, "data": d, "created": at,
                            "undone": False} for k, d in enumerate(rows[j])]
                    red, blue = rng.sample(who, 2)
                    ss += [{"table_id": t, "side": side, "part": 0, "name": f"P{p}",
                            "secret_hash": hash_secret(f"seat-{t}-{side}"), "status": "active",
                            "player_id": p, "created": at, "screen": False}
                           for side, p in (("red", red), ("blue", blue))]
                    s = sums[j]
                    gms.append({"table_id": t, "finished": at, "played": at,
                                "winner": s["winner"], "reason": s["reason"], "days": s["days"],
                                "ending": json.dumps(s["ending"]), "counted": True,
                                "group_id": g})
                    sides += [{"table_id": t, "side": side, "result": s["sides"][side]["result"],
                               **{k: s["sides"][side][k] for k in FIGURES},
                               **{f"s{r}": s["sides"][side]["soldiers"][r] for r in range(1, 11)}}
                              for side in SIDES]
            for model, batch in ((Group, gs), (Memory, mem), (Player, ps), (Table, ts),
                                 (Event, es), (Seat, ss), (Game, gms), (GameSide, sides)):
                db.session.execute(sa.insert(model), batch)
            db.session.commit()
        for g in range(2, next_group):                  # every group's ladder
            memory.rebuild_ratings(g)
            if g % 50 == 0:
                db.session.commit()
        # the measured group's table in play, a phone seated at it
        t = next_table
        db.session.execute(sa.insert(Table), [{
            "id": t, "code": f"T{t:08d}", "wall_distance": 3, "teams": False,
            "deduction": False, "first_game": False, "chances": False, "practice": False,
            "lessons_from": 0, "host_hash": hash_secret(f"host-{t}"), "version": 1,
            "created": now(), "updated": now(), "finished": None, "imported": False,
            "group_id": measured}])
        db.session.execute(sa.insert(Seat), [{
            "table_id": t, "side": side, "part": 0, "name": side,
            "secret_hash": hash_secret(f"seat-{t}-{side}"), "status": "active",
            "created": now(), "screen": False} for side in SIDES])
        if db.engine.dialect.name == "postgresql":     # ids written: the sequences after
            for name in ("play_group", "player", "table", "event", "seat"):
                db.session.execute(sa.text(
                    f"SELECT setval(pg_get_serial_sequence('\"{name}\"', 'id'), "
                    f"(SELECT max(id) FROM \"{name}\"))"))
            db.session.execute(sa.text("ANALYZE"))
        db.session.commit()
        player = db.session.scalar(sa.select(Player.id).where(Player.group_id == measured))
        db.session.remove()
        db.engine.dispose()
    from companion import live
    live.close(app)
    return {"link": f"link-{measured}", "probe": f"T{t:08d}", "probe_secret": f"seat-{t}-red",
            "player": player, "games": groups * games}


def run(url: str | None, groups: int, games: int, seconds: float, blocks: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        db_url = url or f"sqlite:///{tmp}/groups.sqlite"
        if url:
            _drop_all(url)
        t = time.perf_counter()
        made = populate(db_url, groups, games, tmp / "inst")
        out: dict[str, Any] = {"groups": groups, "games": made["games"],
                               "fill_s": time.perf_counter() - t}
        pages = ["/history", "/stats", "/api/stats", f"/stats/players/{made['player']}"]
        with server(db_url, tmp, "--many-groups") as (srv, _gclog):
            c = Client(srv.port, made["link"])
            cold = {p: c.call("GET", p) for p in pages}
            assert all(st == 200 for st, _, _ in cold.values()), cold
            out["cold"] = {p: ms for p, (_, _, ms) in cold.items()}
            out["warm"] = warm(c, pages, 20)
            out.update(alone_and_loaded(srv.port, made, [
                *pages, "/history?page=3", f"/history?player={made['player']}"], blocks,
                seconds, made["link"]))
            out["load"] = os.getloadavg()[0]
    return out


def main(args: argparse.Namespace) -> int:
    groups, games = args.groups, args.games or 100
    print(f"python -m benchmarks groups: {groups:,} groups x {games} finished games, "
          f"{args.blocks} blocks of {args.seconds:.0f} s alone / loaded, database "
          f"{'PostgreSQL' if args.database_url else 'SQLite'}; {os.cpu_count()} CPUs")
    r = run(args.database_url, groups, games, args.seconds, args.blocks)
    print(f"\n== {r['groups']:,} groups, {r['games']:,} finished games (database filled in "
          f"{r['fill_s']:.0f} s; load average {r['load']:.2f}); one group's pages:")
    for p, ms in r["cold"].items():
        med, p95 = r["warm"][p]
        print(f"  {p:<22} cold {ms:7.1f} ms   warm median {med:6.1f} ms, p95 {p95:6.1f} ms")
    a = r["alone"]
    print(f"  the group's table, a phone's post alone: {a[0]:4d} posts, median {a[1]:5.1f} ms, "
          f"p95 {a[2]:5.1f}")
    for kind, what in (("pages", "load the group's history, statistics and ladder"),
                       ("trivial", "load the manifest (the same load, none of our pages)")):
        lo = r[kind]
        ratio = lo[2] / a[2] if a[2] else float("nan")
        print(f"  ... while 2 screens {what} ({r['page_loads'][kind]} loads): {lo[0]:4d} "
              f"posts, median {lo[1]:5.1f} ms, p95 {lo[2]:5.1f}  -> p95 {ratio:.2f} x alone")
    return 0
