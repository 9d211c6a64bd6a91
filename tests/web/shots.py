"""Screenshots of every surface at TV (1920x1080) and phone (390x844) size.

Run: ``.venv/bin/python -m tests.web.shots`` (needs ``playwright`` in the venv and
/usr/bin/chromium). Writes PNGs into ``test-output/shots/``. It plays a short
scripted game through the API on a live local server and photographs the host
screen and both phones at each interesting step.
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
import urllib.request
from pathlib import Path

from werkzeug.serving import make_server

from companion.web import create_app

OUT = Path(__file__).resolve().parents[2] / "test-output" / "shots"
ARGS = ["--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost"]


class Api:
    def __init__(self, base: str) -> None:
        self.base = base
        self.n = 0

    def call(self, method: str, path: str, body: dict | None = None, secret: str | None = None):
        self.n += 1
        data = None
        headers = {"Origin": self.base, "Content-Type": "application/json"}
        if secret:
            headers["Authorization"] = f"Bearer {secret}"
        if body is not None:
            data = json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            raise SystemExit(f"{method} {path}: {e.code} {e.read()!r}") from None

    def post(self, code: str, path: str, body: dict, secret: str) -> dict:
        v = self.call("GET", f"/api/tables/{code}/state")["view"]["version"]
        return self.call("POST", f"/api/tables/{code}{path}",
                         {"version": v, "idempotency_key": f"shot-{self.n:05d}", **body}, secret)


def day_two(app, api: Api) -> str:
    """A table whose events are a random legal game cut in the middle of day 2."""
    import random

    from companion.engine import expected, replay
    from companion.engine.simulate import random_record
    from companion.store.models import Event, Table, db

    rng = random.Random(11)
    while True:
        rec = random_record(rng, wall_distance=4)
        events = list(rec.events)
        for n in range(len(events)):
            s = replay(rec.options, events[:n])
            if s.day == 2 and s.phase == "mission" and s.round_reveals == 5:
                break
        else:
            continue
        if expected(s).type == "reveal":
            break
    made = api.call("POST", "/api/tables", {"wall_distance": 4})
    with app.app_context():
        t = db.session.query(Table).filter_by(code=made["code"]).one()
        for i, e in enumerate(events[:n], 1):
            db.session.add(Event(table_id=t.id, seq=i, data=json.dumps(e.to_dict())))
        t.version += 1
        db.session.commit()
    return made["code"]


def main() -> int:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.mkdtemp()
    app = create_app({"SECRET_KEY": "shots", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/s.sqlite",
                      "PUBLIC_URL": "http://192.168.1.20:8000"})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    base = f"http://127.0.0.1:{server.server_port}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    api = Api(base)
    made = api.call("POST", "/api/tables", {"wall_distance": 2, "teams": False})
    code, host_secret = made["code"], made["host_secret"]
    red = api.post(code, "/seats", {"side": "red", "name": "Ann"}, None)
    blue = api.post(code, "/seats", {"side": "blue", "name": "Bob"}, None)
    rs, bs = red["secret"], blue["secret"]

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        tv = browser.new_context(viewport={"width": 1920, "height": 1080})
        tv.add_init_script(f"localStorage.setItem('sl-host-{code}', {json.dumps(host_secret)})")

        def phone(seat: dict, secret: str):
            ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                      is_mobile=True, has_touch=True)
            ctx.add_init_script(f"localStorage.setItem('sl-seat-{code}', "
                                f"{json.dumps(json.dumps({'seat': seat, 'secret': secret}))})")
            return ctx.new_page()

        page = tv.new_page()
        page.goto(base + "/")
        page.screenshot(path=OUT / "tv-create.png")
        host = tv.new_page()
        host.goto(f"{base}/t/{code}")
        rp, bp = phone(red["seat"], rs), phone(blue["seat"], bs)
        rp.goto(f"{base}/j/{code}")
        bp.goto(f"{base}/j/{code}")
        join = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                   has_touch=True).new_page()
        join.goto(f"{base}/j/{code}")

        def shot(name: str) -> None:
            for pg, who in ((host, "tv"), (rp, "red"), (bp, "blue")):
                pg.wait_for_timeout(250)
                pg.screenshot(path=OUT / f"{name}-{who}.png")

        join.wait_for_timeout(400)
        join.screenshot(path=OUT / "phone-join.png")
        shot("01-setup")
        api.post(code, "/events", {"event": {"type": "exhaust", "side": "red", "ranks": [1]}}, rs)
        api.post(code, "/events", {"event": {"type": "exhaust", "side": "blue", "ranks": [10]}}, bs)
        shot("02-intel")
        api.post(code, "/events", {"event": {"type": "intel", "ranks": [3, 5, 8, 9]}}, host_secret)
        tokens = {"type": "tokens", "missions": [2, 4]}
        api.post(code, "/events", {"event": {**tokens, "side": "red"}}, rs)
        shot("03-tokens")
        api.post(code, "/events", {"event": {**tokens, "side": "blue"}}, bs)
        shot("04-start")
        api.post(code, "/events", {"event": {"type": "start", "side": "red"}}, host_secret)
        shot("05-deception")
        api.post(code, "/draft", {"step": "deception", "value": True}, bs)
        shot("06-guess")
        api.post(code, "/draft", {"step": "guess", "value": 4}, rs)
        shot("07-actual")
        api.post(code, "/draft", {"step": "actual", "value": 1}, bs)
        for who, step, value in [(rs, "deception", False), (bs, "guess", 2), (rs, "actual", 2),
                                 (bs, "deception", False), (rs, "guess", 3), (bs, "actual", 3),
                                 (rs, "deception", False), (bs, "guess", 9), (rs, "actual", 5),
                                 (bs, "deception", False), (rs, "guess", 7), (bs, "actual", 7),
                                 (rs, "deception", False), (bs, "guess", 3), (rs, "actual", 6)]:
            api.post(code, "/draft", {"step": step, "value": value}, who)
        shot("08-captain")
        api.post(code, "/draft", {"step": "choice", "value": "ip"}, rs)
        for who, step, value in [(bs, "deception", False), (rs, "guess", 8), (bs, "actual", 8),
                                 (rs, "deception", False), (bs, "guess", 1), (rs, "actual", 9)]:
            api.post(code, "/draft", {"step": step, "value": value}, who)
        # (red's four cards are face up: its empty capture check is recorded with the
        # capture, R71)
        shot("10-over")
        rp.click("#b-rules")
        rp.wait_for_timeout(400)
        rp.screenshot(path=OUT / "phone-rules.png")
        rp.click("#panel-close")
        rp.click("#b-calc")
        rp.click("[data-calc='6']")
        rp.wait_for_timeout(400)
        rp.screenshot(path=OUT / "phone-calc.png")
        # a game well into day 2, written straight into the database from a random record
        code2 = day_two(app, api)
        host2 = tv.new_page()
        host2.goto(f"{base}/t/{code2}")
        host2.wait_for_timeout(500)
        host2.screenshot(path=OUT / "tv-day2.png")
        # team play: a second phone asks for an occupied seat; the host decides
        team = api.call("POST", "/api/tables", {"wall_distance": 4, "teams": True})
        api.post(team["code"], "/seats", {"side": "red", "name": "Ann", "part": 1}, None)
        api.post(team["code"], "/seats", {"side": "red", "name": "Eve", "part": 1}, None)
        tv.add_init_script(f"localStorage.setItem('sl-host-{team['code']}', "
                           f"{json.dumps(team['host_secret'])})")
        host3 = tv.new_page()
        host3.goto(f"{base}/t/{team['code']}")
        host3.wait_for_timeout(500)
        host3.screenshot(path=OUT / "tv-takeover.png")
        tj = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                 has_touch=True).new_page()
        tj.goto(f"{base}/j/{team['code']}")
        tj.wait_for_timeout(400)
        tj.screenshot(path=OUT / "phone-join-teams.png")
        rules = tv.new_page()
        rules.goto(base + "/rules#R45")
        rules.screenshot(path=OUT / "tv-rules.png")
        browser.close()
    server.shutdown()
    print(f"screenshots in {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
