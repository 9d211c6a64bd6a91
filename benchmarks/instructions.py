"""``python -m benchmarks post --instructions``: the CPU instructions a post costs, counted.

The app's CPU time per post (``python -m benchmarks post``) moves by ±20 % from one run to
the next on a shared machine, so a change that saves 3 % of a post cannot be seen in it.
Counted instructions do not move with the load: the same games posted twice under
valgrind's callgrind (``valgrind --tool=callgrind``, ``apt-get install valgrind``) differ
by ~0.2 %. The worker (``benchmarks/post_worker.py``) runs twice for each checkout, with
one game and with ``GAMES``; the difference between the two counts, divided by the
difference between their posts, is a post's count: what the process does once (start,
imports, the warm-up game) falls out. It includes what the worker does as the phones
(encoding each request, applying each delta): the same in A and B, so a ratio of two
checkouts' counts understates a change's share of the app's own work a little.
``--against PATH`` counts another checkout too; the four runs go two at a time (each
takes ~1 minute at ``--games 3``: callgrind runs a program ~50 × slower).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

WORKER = pathlib.Path(__file__).with_name("post_worker.py")
SEED = 1000


def count(root: pathlib.Path, games: int, database_url: str | None) -> tuple[int, int]:
    """(posts, instructions) of one run of the worker from checkout ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    if database_url:
        env["DATABASE_URL"] = database_url
    ran = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          sys.executable, str(WORKER), str(games), str(SEED)],
                         env=env, capture_output=True, text=True, check=True)
    got = re.search(r"Collected : (\d+)", ran.stderr)
    if got is None:
        raise SystemExit(f"error: callgrind printed no count:\n{ran.stderr[-2000:]}")
    result = json.loads(ran.stdout)
    if not pathlib.Path(result["companion"]).resolve().is_relative_to(root):
        raise SystemExit(f"error: the worker imported {result['companion']}, not {root}")
    return int(result["posts"]), int(got.group(1))


def run(roots: dict[str, pathlib.Path], games: int, database_url: str | None) -> int:
    """Print each checkout's instructions per post (and B ÷ A); the exit code."""
    if shutil.which("valgrind") is None:
        print("error: --instructions needs valgrind (apt-get install valgrind)",
              file=sys.stderr)
        return 2
    if games < 2:
        print("error: --instructions needs --games 2 or more", file=sys.stderr)
        return 2
    jobs = [(who, n) for who in roots for n in (1, games)]
    with ThreadPoolExecutor(2) as pool:
        counted = dict(zip(jobs, pool.map(lambda j: count(roots[j[0]], j[1], database_url),
                                          jobs), strict=True))
    per: dict[str, float] = {}
    for who in roots:
        (p1, i1), (pn, i_n) = counted[(who, 1)], counted[(who, games)]
        per[who] = (i_n - i1) / (pn - p1)
        print(f"  {who}: {per[who] / 1e6:.3f} M instructions per post ({pn - p1} posts: "
              f"{i_n:,} - {i1:,})")
    if "B" in per:
        print(f"  B / A = {per['B'] / per['A']:.3f} x (A {100 * (per['A'] / per['B'] - 1):+.1f} %"
              " against B)")
    return 0
