"""``python -m benchmarks screen [--against PATH]``: the big screen's own work per change.

The host screen at 1920 x 1080 (``--size``) in Debian's Chromium, a game's events entered
over HTTP by two seated phones, each change waited for on the screen before the next
(``benchmarks/screen_worker.py``). Printed per change: the page's main-thread time as
Chromium counts it (all of it, its scripts, its layouts and style, and how many layouts),
and the CPU time of the browser's processes (the page's renderer, the GPU process). A
TV's browser is slower than a laptop's: what costs 30 ms here may take a second there,
and every browser test pays it at each change.

``--against PATH`` also times another checkout (a worktree of an older commit): both run
as child processes in turn, A B B A…, on the same game, and the medians and their ratio
are printed, so the noise of a shared machine falls on both alike.
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
WORKER = pathlib.Path(__file__).with_name("screen_worker.py")
# (figure, unit, what it is)
SHOWN = (("TaskDuration", "ms", "main thread, all"), ("ScriptDuration", "ms", "its scripts"),
         ("LayoutDuration", "ms", "its layouts"), ("RecalcStyleDuration", "ms", "its style"),
         ("LayoutCount", "", "layouts"), ("cpu_renderer", "ms", "renderer process CPU"),
         ("cpu_gpu", "ms", "GPU process CPU"))


def _child(root: pathlib.Path, events: int, seed: int, size: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, str(WORKER), str(events), str(seed), size],
                         env=env, check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    if not pathlib.Path(result["companion"]).resolve().is_relative_to(root):
        raise SystemExit(f"error: the worker imported {result['companion']}, not {root}")
    return result


def run(events: int = 40, rounds: int = 3, against: str | None = None,
        size: str = "1920x1080", seed: int = 1) -> int:
    """Print the figures; the exit code."""
    roots = {"A": ROOT}
    if against is not None:
        other = pathlib.Path(against).resolve()
        if not (other / "companion").is_dir() or not (other / "static" / "host.js").is_file():
            print(f"error: {against} is not a checkout of the companion", file=sys.stderr)
            return 2
        roots["B"] = other
    load = os.getloadavg()
    print(f"screen benchmark: the host screen at {size}, the first {events} events of a "
          f"random game (seed {seed}), {rounds} timings each; load average before: "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    for who, root in roots.items():
        print(f"  {who} = {root}")
    keys = [k for k, _, _ in SHOWN]
    if "B" not in roots:
        runs = [_child(ROOT, events, seed, size) for _ in range(rounds)]
        print(f"  per change ({runs[0]['changes']} changes), median of {rounds} "
              f"(min, max):")
        for key, unit, what in SHOWN:
            v = [float(r[key]) for r in runs]
            print(f"    {what:24s} {statistics.median(v):8.2f} {unit:2s}  "
                  f"({min(v):.2f}, {max(v):.2f})")
    else:
        times = ab.collect(rounds, keys, lambda who: _child(roots[who], events, seed, size))
        for key, unit, what in SHOWN:
            print(f"  {what}, per change:")
            ab.report(times["A"][key], times["B"][key], unit or "layouts", 2, "    ")
    load = os.getloadavg()
    print(f"  load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0
