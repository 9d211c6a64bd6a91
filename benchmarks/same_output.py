"""``python -m benchmarks.same_output PATH``: does this checkout's referee say exactly what
the one at PATH says?

For a change made for speed (docs/PERFORMANCE.md). Builds ~14,500 records: 3,000
random legal games (wall distances 2-8, a third in team play, with more or less
disorder, lies, right guesses and deception), 1,500 of them cut short, 6,000 mutated
at random into refusals of every kind, 4,000 with one well-formed event that breaks
a rule, a few broken files, and tests/records. Each checkout, in its own process
with its own engine, prints for every record what ``spies-lies replay`` prints (the
JSON of ``replay_output``, or the refusal's class, code, index and text) and, for
every tenth, the state after each event applied one by one (``apply``, checking it
leaves the state before untouched). The two outputs must be byte for byte the same.
Takes ~30 s.
"""

from __future__ import annotations

import copy
import filecmp
import json
import os
import pathlib
import random
import subprocess
import sys
import tempfile
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
VALUES: list[Any] = [
    None, True, False, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, -1, 2.0, "red", "blue", "green",
    "ip", "drain", "use:3", "use:10:ip", "use:10", "use:6", "use:x", [], [1], [1, 2], [3, 3],
    [1, 2, 3, 4], [0, 1, 2, 3], {}, {"1": 3}, {"5": 1}, {"1": 11}, "1", {"2": 5, "1": 3}]


def records() -> list[str]:
    """The record texts both checkouts replay (made with this checkout's simulator)."""
    from companion.engine.events import Options, Record
    from companion.engine.simulate import random_record

    texts = []
    for seed in range(3000):
        kw = [{}, {"disorder": 0.4, "lie": 0.3}, {"correct": 0.7, "deceive": 0.8},
              {"disorder": 0.0, "lie": 0.0, "correct": 0.1}, {}][seed % 5]
        rec = random_record(random.Random(seed), 2 + seed % 7, **kw)
        if seed % 3 == 0:
            rec = Record(Options(rec.options.wall_distance, teams=True), rec.events)
        texts.append(rec.to_json())
    rng = random.Random(99)
    base = [json.loads(t) for t in texts]
    for i in range(1500):                                   # every phase on the way
        d = copy.deepcopy(base[i])
        d["events"] = d["events"][:rng.randrange(len(d["events"]) + 1)]
        texts.append(json.dumps(d))
    for _ in range(6000):                                   # refusals of every kind
        d = copy.deepcopy(rng.choice(base))
        ev, k = d["events"], rng.randrange(10)
        j = rng.randrange(len(ev))
        if k < 5:
            key = rng.choice([*ev[j], "choice", "deception", "ranks", "side"])
            ev[j][key] = copy.deepcopy(rng.choice(VALUES))
        elif k == 5:
            del ev[j][rng.choice(list(ev[j]))]
        elif k == 6:
            del ev[j]
        elif k == 7:
            ev.insert(j, copy.deepcopy(rng.choice(ev)))
        elif k == 8 and j + 1 < len(ev):
            ev[j], ev[j + 1] = ev[j + 1], ev[j]
        else:
            ev.append(copy.deepcopy(rng.choice(ev)))
        if rng.random() < 0.3:
            d["events"] = ev[:j + 1 + rng.randrange(3)]
        texts.append(json.dumps(d))
    for _ in range(4000):                                   # well formed, against a rule
        d = copy.deepcopy(rng.choice(base))
        ev = d["events"]
        j = rng.randrange(len(ev))
        e = ev[j]
        if e["type"] == "reveal":
            key = rng.choice(["actual", "actual", "choice", "deception", "guess"])
            e[key] = {"actual": rng.randint(1, 10), "guess": rng.randint(1, 10),
                      "deception": not e["deception"],
                      "choice": rng.choice(["ip", "drain", "use:1", "use:3", "use:6", "use:7",
                                            "use:10", "use:10:ip", "use:10:drain", "use:12",
                                            "use:x", "bogus", None])}[key]
        elif e["type"] == "exhaust":
            e["ranks"] = rng.sample(range(1, 11), rng.choice([1, 1, 2, 4]))
        elif e["type"] == "intel":
            e["ranks"] = rng.sample(range(1, 11), 4)
        elif e["type"] == "tokens":
            e["missions"] = sorted(rng.sample(range(1, 5), rng.randrange(5)))
        elif e["type"] == "start":
            e["side"] = "red" if e["side"] == "blue" else "blue"
        else:
            e["ranks"] = {str(m): rng.randint(1, 10)
                          for m in rng.sample(range(1, 5), rng.randrange(5))}
        d["events"] = ev[:j + 1 + rng.randrange(2)]
        texts.append(json.dumps(d))
    fmt = "spies-and-lies-record/1"
    bad: object
    for bad in ([], 3, "x", {}, {"format": "x"}, {"format": fmt}, {"format": fmt, "events": {}},
                {"format": fmt, "events": [], "options": []},
                {"format": fmt, "events": [], "options": {"wall_distance": 9}},
                {"format": fmt, "events": [], "options": {"teams": 1}},
                {"format": fmt, "events": [3]}, {"format": fmt, "events": [{"type": 3}]},
                {"format": fmt, "events": [{"type": "nope"}]}):
        texts.append(json.dumps(bad))
    texts.append("{not json")
    texts += [p.read_text() for p in sorted((ROOT / "tests" / "records").glob("*.json"))]
    return texts


def output(texts_path: str, out_path: str) -> None:
    """Write what the engine on the path says of each record (run in a child process)."""
    import companion
    from companion.engine import Record, RecordError, apply, new_game, replay, replay_output

    print(companion.__file__)

    with open(texts_path, encoding="utf-8") as f:
        texts = json.load(f)
    with open(out_path, "w", encoding="utf-8") as out:
        for n, text in enumerate(texts):
            try:
                out.write(json.dumps(replay_output(replay(Record.from_json(text)))) + "\n")
            except RecordError as err:
                out.write(f"{type(err).__name__} {err.code} {err.index} {err}\n")
            if n % 10:
                continue
            try:
                rec = Record.from_json(text)
            except RecordError:
                continue
            s = new_game(rec.options)
            for e in rec.events:
                before = json.dumps(replay_output(s))
                try:
                    after = apply(s, e)
                except RecordError as err:
                    out.write(f"apply: {err.code} {err}\n")
                    break
                if json.dumps(replay_output(s)) != before:
                    out.write("apply changed the state it was given\n")
                s = after
                out.write(json.dumps(s.to_dict()) + "\n")


def main(against: str) -> int:
    """Compare this checkout with ``against``; 0 when both say the same."""
    other = pathlib.Path(against).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        texts = os.path.join(tmp, "records.json")
        with open(texts, "w", encoding="utf-8") as f:
            json.dump(records(), f)
        outs: list[str] = []
        for root in (ROOT, other):
            out = os.path.join(tmp, f"{len(outs)}.out")
            env = {**os.environ, "PYTHONPATH": str(root)}    # its engine, not ours
            engine = subprocess.run([sys.executable, __file__, "--output", texts, out], env=env,
                                    check=True, cwd=tmp, capture_output=True, text=True).stdout
            if not pathlib.Path(engine.strip()).resolve().is_relative_to(root):
                raise SystemExit(f"error: the child read {engine.strip()}, not {root}'s engine")
            outs.append(out)
        with open(texts, encoding="utf-8") as f:
            n = len(json.load(f))
        with open(outs[0], encoding="utf-8") as f:
            lines = sum(1 for _ in f)
        same = filecmp.cmp(outs[0], outs[1], shallow=False)
        print(f"{n} records, {lines} lines of output: "
              f"{'the same' if same else 'DIFFERENT'} ({ROOT} and {other})")
        return 0 if same else 1


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--output":     # the child
        output(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2:
        raise SystemExit(main(sys.argv[1]))
    else:
        raise SystemExit("usage: python -m benchmarks.same_output PATH-OF-OTHER-CHECKOUT")
