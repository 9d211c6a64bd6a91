"""``python -m benchmarks post [--against PATH]``: the app's CPU time per post, in-process.

Random games are posted through the Flask test client as the phones post them (see
``benchmarks/post_worker.py``), so the figure is the companion's own work per post
(the authority, the referee, the view, its delta, the pushes, Flask): no HTTP server,
no client, no network. ``python -m benchmarks server`` measures the whole server.

``--database-url URL`` posts on that database (PostgreSQL) instead of a fresh SQLite
file. ``--against PATH`` also times another checkout (e.g. a worktree of an older commit):
both run as child processes in turn, A B A B…, on the same games, and the medians
and their ratio are printed, so the noise of a shared machine falls on both alike.
``--statements`` counts what each post asks of the database instead of timing it
(statements, round trips, commits: ``benchmarks/statements.py``), once for each checkout;
``--instructions`` counts its CPU instructions (``benchmarks/instructions.py``).
"""

from __future__ import annotations

import json
import os
import pathlib
import statistics
import subprocess
import sys
from typing import Any

from . import ab

ROOT = pathlib.Path(__file__).resolve().parents[1]
WORKER = pathlib.Path(__file__).with_name("post_worker.py")


def _child(root: pathlib.Path, games: int, seed: int,
           database_url: str | None, statements: bool = False) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    if database_url:
        env["DATABASE_URL"] = database_url
    if statements:
        env["POST_WORKER_STATEMENTS"] = "1"
    out = subprocess.run([sys.executable, str(WORKER), str(games), str(seed)], env=env,
                         check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    if not pathlib.Path(result["companion"]).resolve().is_relative_to(root):
        raise SystemExit(f"error: the worker imported {result['companion']}, not {root}")
    if statements:
        return {"counts": result["counts"], "pg": result["pg"]}
    return {"ms": float(result["app_cpu_ms"]), "wall": float(result["app_wall_ms"])}


def run(games: int = 6, rounds: int = 5, against: str | None = None,
        database_url: str | None = None, statements: bool = False,
        instructions: bool = False) -> int:
    """Print the figures; the exit code. ``database_url``: PostgreSQL instead of a fresh
    SQLite file for each timing (the same database for A and B: their schema must be
    the same). ``statements``: what each post asks of the database, counted
    (:mod:`.statements`), instead of its time; ``instructions``: its CPU instructions
    (:mod:`.instructions`)."""
    roots = {"A": ROOT}
    if against is not None:
        other = pathlib.Path(against).resolve()
        if not (other / "companion" / "web").is_dir():
            print(f"error: {against} is not a checkout of the companion", file=sys.stderr)
            return 2
        roots["B"] = other
    load = os.getloadavg()
    what = ("what each post asks of the database, counted" if statements else
            "the CPU instructions of each post, counted" if instructions else
            f"the app's CPU time per post, {rounds} timings each, in turn")
    print(f"post benchmark: {what}, {games} random team games per "
          f"timing; load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    for who, root in roots.items():
        print(f"  {who} = {root}")
    print(f"  database: {database_url.split('@')[-1] if database_url else 'SQLite, a fresh file'}")
    if instructions:            # counted by callgrind: they do not move with the load
        from .instructions import run as counted
        return counted(roots, games, database_url)
    if statements:              # counts, not timings: one run each, on the same games
        from .statements import show
        for who, root in roots.items():
            got = _child(root, games, 1000, database_url, statements=True)
            show(who, got["counts"], got["pg"])
    elif "B" not in roots:
        runs = [_child(ROOT, games, 1000 + i, database_url) for i in range(rounds)]
        for key, what in (("ms", "CPU"), ("wall", "wall-clock time")):
            v = [r[key] for r in runs]
            print(f"  A: median {statistics.median(v):.3f} ms per post  "
                  f"(min {min(v):.3f}, max {max(v):.3f}), {what}")
    else:
        seeds = {"A": iter(range(1000, 2000)), "B": iter(range(1000, 2000))}
        times = ab.collect(rounds, ["ms", "wall"], lambda who: _child(
            roots[who], games, next(seeds[who]), database_url))
        for key, what in (("ms", "the app's CPU"), ("wall", "its wall-clock time")):
            print(f"  {what}:")
            ab.report(times["A"][key], times["B"][key], "ms per post", 3, "    ")
    load = os.getloadavg()
    print(f"  load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0
