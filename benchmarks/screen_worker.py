"""One timing of a checkout's big screen, run as a child by ``python -m benchmarks screen``.

``python benchmarks/screen_worker.py EVENTS SEED WIDTHxHEIGHT`` with ``PYTHONPATH`` set to
the checkout being measured: the companion served on loopback (its own server, a fresh
SQLite file), the host screen (``/t/<code>``, with its host key) opened in Debian's
Chromium at that size, two phones seated over HTTP, and the first EVENTS events of a
random game entered over HTTP as the phones enter them. Each change is waited for on the
screen (its ``body[data-version]``) before the next is sent, as at a table, so every
change is drawn on its own. It prints one JSON line: the screen's main-thread time per
change (Chromium's own figures: all of it, its scripts, its layouts and style, the
layouts counted) and the CPU time of the browser's processes per change, from /proc.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import sys
import tempfile
import time
from typing import Any

CHROMIUM = "/usr/bin/chromium"
METRICS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration",
           "LayoutCount")


def chromium_cpu() -> dict[str, float]:
    """CPU seconds of the Chromium this process started (through Playwright's driver, a
    child of it), by kind: the page's renderer, the GPU process, the rest."""
    from benchmarks.served import CLK_TCK, Proc
    from harness.server import children

    out: dict[str, float] = {}
    todo = children(os.getpid())
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            ticks = Proc(pid).cpu_ticks()
            todo.extend(children(pid))
        except OSError:             # ended meanwhile
            continue
        if "chromium" not in cmd:   # (Playwright's driver)
            continue
        kind = ("renderer" if "--type=renderer" in cmd else
                "gpu" if "--type=gpu-process" in cmd else "other")
        out[kind] = out.get(kind, 0.0) + ticks / CLK_TCK
    return out


def main(events: int, seed: int, size: str) -> None:
    from playwright.sync_api import sync_playwright

    import companion
    from companion.engine.simulate import random_record
    from companion.run.server import Server
    from companion.web import create_app
    from harness.steps import steps

    width, height = (int(x) for x in size.split("x"))
    with tempfile.TemporaryDirectory(prefix="spies-lies-screen-") as tmp:
        app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/screen.sqlite",
                          "SECRET_KEY": "bench"}, instance_path=tmp)
        server = Server(app, threads=8)
        url = f"http://127.0.0.1:{server.port}"
        app.config["PUBLIC_URL"] = url
        server.start()
        client = app.test_client()
        origin = {"Origin": "http://localhost"}
        keys = itertools.count()
        rec = random_record(random.Random(seed))
        made = client.post("/api/tables", json={"wall_distance": rec.options.wall_distance},
                           headers=origin).get_json()
        code, host = made["code"], made["host_secret"]
        api = f"/api/tables/{code}"

        def version() -> int:
            return int(client.get(api + "/state").get_json()["view"]["version"])

        def post(path: str, body: dict[str, Any], secret: str) -> Any:
            key = f"screen-{next(keys):08d}"
            r = client.post(api + path, headers={**origin, "Authorization": f"Bearer {secret}"},
                            json={"version": version(), "idempotency_key": key, **body})
            assert r.status_code in (200, 201), r.get_json()
            return r

        seats = {side: post("/seats", {"side": side, "name": side.title()}, host)
                 .get_json()["secret"] for side in ("red", "blue")}
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM)
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(url + "/static/offline.js")          # the origin, for its storage
                page.evaluate("([k, v]) => localStorage.setItem(k, v)",
                              [f"sl-host-{code}", host])
                page.goto(f"{url}/t/{code}")

                def shown(v: int) -> None:
                    page.wait_for_function("v => +(document.body.dataset.version || 0) >= v",
                                           arg=v, timeout=30_000)

                shown(version())
                cdp = page.context.new_cdp_session(page)
                cdp.send("Performance.enable")

                def metrics() -> dict[str, float]:
                    got = {m["name"]: m["value"]
                           for m in cdp.send("Performance.getMetrics")["metrics"]}
                    return {k: float(got[k]) for k in METRICS}

                time.sleep(0.5)                 # the first drawing's own work done
                before, cpu_before, first = metrics(), chromium_cpu(), version()
                for e in rec.events[:events]:
                    todo: Any = steps(e, client.get(api + "/state").get_json()["view"])
                    status = None
                    try:
                        while True:
                            who, path, body = todo.send(status)
                            secret = host if who == "host" else seats[who]
                            status = post(path, body, secret).status_code
                            shown(version())
                    except StopIteration:
                        pass
                time.sleep(0.5)                 # what a change set going (a moment) played
                after, cpu_after = metrics(), chromium_cpu()
                changes = version() - first
                browser.close()
        finally:
            server.stop()
        out: dict[str, Any] = {"companion": companion.__file__, "changes": changes}
        for k in METRICS:
            scale = 1000.0 if k.endswith("Duration") else 1.0
            out[k] = (after[k] - before[k]) * scale / changes
        for k in ("renderer", "gpu", "other"):
            out[f"cpu_{k}"] = (cpu_after.get(k, 0.0) - cpu_before.get(k, 0.0)) * 1000 / changes
        print(json.dumps(out))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
