"""Many groups on one server (issue 54): each group's players, games, ratings, intel cards
and keeper key are its own; a stranger, or a member of another group, reads, changes,
takes and deletes nothing of it — and is answered as if it were not there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.engine import event_from_dict

from .conftest import ORIGIN, Player, enter, sit

RECORDS = Path(__file__).resolve().parents[1] / "records"
STRANGER = {"REMOTE_ADDR": "127.0.3.2"}         # another device on the network
RECORD = json.loads((RECORDS / "random-flag-1.json").read_text())


class Member:
    """A browser of a group: its own cookie jar (the group's link opened), its address."""

    def __init__(self, app: Any, addr: str = "127.0.0.1") -> None:
        self.client = app.test_client()
        self.env = {"REMOTE_ADDR": addr}
        self.keeper: str | None = None
        self.link: str | None = None

    def get(self, url: str, key: str | None = None) -> Any:
        head = {"Authorization": f"Bearer {key}"} if key else {}
        return self.client.get(url, headers=head, environ_base=self.env)

    def post(self, url: str, body: dict[str, Any] | None = None, key: str | None = None) -> Any:
        head = {"Origin": ORIGIN, **({"Authorization": f"Bearer {key}"} if key else {})}
        return self.client.post(url, json=body if body is not None else {}, headers=head,
                                environ_base=self.env)

    def start(self, name: str) -> Member:
        r = self.post("/api/groups", {"name": name})
        assert r.status_code == 201, r.get_json()
        d = r.get_json()
        assert d["name"] == name and "/g#group=" in d["link"] and "&key=" in d["keeper"]
        self.link = d["link"].split("#group=", 1)[1]
        self.keeper = d["keeper"].split("&key=", 1)[1]
        assert len(self.link) >= 22 and d["keeper"].startswith(d["link"])  # >= 128 bits
        return self

    def play(self, app: Any, players: tuple[str, str]) -> str:
        """A whole game at a table this browser opens, two remembered phones seated."""
        r = self.post("/api/tables", {"wall_distance": RECORD["options"]["wall_distance"]})
        assert r.status_code == 201, r.get_json()
        host = Player(self.client, r.get_json()["code"], r.get_json()["host_secret"])
        seats = {side: sit(host, side, name, player=f"phone-of-{name}-" + "k" * 24)
                 for side, name in zip(("red", "blue"), players, strict=True)}
        enter(host, seats, [event_from_dict(e) for e in RECORD["events"]])
        assert host.refresh()["state"]["phase"] == "over"
        return host.code


def hosted(app: Any) -> Any:
    app.config["MANY_GROUPS"] = True       # --many-groups: no default group
    app.config["TABLE_PACE"] = 0.0         # the tests' games count however fast
    return app


def test_a_stranger_reads_changes_takes_and_deletes_nothing_of_a_group(app):
    hosted(app)
    ann = Member(app).start("Tuesday club")
    code = ann.play(app, ("Ann", "Bob"))
    history = ann.get("/api/history").get_json()
    assert [g["code"] for g in history["games"]] == [code]
    ladder = ann.get("/api/stats").get_json()["ladder"]
    assert sorted(p["name"] for p in ladder) == ["Ann", "Bob"]
    bob = ladder[0]["id"] if ladder[0]["name"] == "Bob" else ladder[1]["id"]
    assert ann.get(f"/api/players/{bob}/stats").status_code == 200
    assert ann.get("/api/group").get_json() == {"name": "Tuesday club", "default": False}
    for page in ("/history", "/stats", "/keeper"):          # each page names the group
        assert "· Tuesday club" in ann.get(page).get_data(as_text=True), page

    for who in (Member(app, "127.0.3.2"), Member(app)):    # another address, or this one
        if who.env["REMOTE_ADDR"] == "127.0.0.1":          # a made-up group cookie
            who.client.set_cookie("sl_group", "x" * 32)
        no_group = [who.get(u) for u in ("/api/history", "/api/stats", "/api/group",
                                         f"/api/players/{bob}/stats", "/api/players/999/stats")]
        assert {(r.status_code, r.get_json()["code"]) for r in no_group} == {(404, "no_group")}
        for page in ("/history", "/stats", f"/stats/players/{bob}"):
            r = who.get(page)
            assert r.status_code == 404 and r.mimetype == "text/html"
            assert "Ann" not in r.get_data(as_text=True)
        # changes, with no key and with a made-up one: nothing there
        for key in (None, "k" * 43):
            for url, body in ((f"/api/history/{code}/delete", {}),
                              (f"/api/history/{code}/count", {"count": False}),
                              (f"/api/players/{bob}/delete", {"games": True}),
                              ("/api/history/imported/delete", {}),
                              ("/api/group/export", {}), ("/api/group/delete", {}),
                              ("/api/keeper", {})):
                r = who.post(url, body, key)
                assert r.status_code == 404, (url, key, r.get_json())
            # the server's backup (every group's) is the server keeper's alone
            assert who.post("/api/keeper/backup", {}, key).status_code == 403
        # a player's own key renames nothing without the group's link
        r = who.post("/api/players/me", {"player": "phone-of-Bob-" + "k" * 24, "name": "Mallory"})
        assert r.status_code == 404 and r.get_json()["code"] == "no_group"
        # a group's link the stranger makes up: the same answer as any
        for link in ("x" * 32, ann.link[:-1] + ("A" if ann.link[-1] != "A" else "B"), ""):
            r = who.post("/api/group/enter", {"link": link})
            assert r.status_code in (400, 404) and r.get_json()["code"] in ("not_found",
                                                                            "missing_field")
            assert "set-cookie" not in {k.lower() for k in r.headers.keys()}
        # the first page offers to start a group, and names none
        page = who.get("/").get_data(as_text=True)
        assert 'data-testid="no-group"' in page and "Tuesday club" not in page
    # the group's games, players and ratings are as they were
    assert ann.get("/api/history").get_json() == history
    assert ann.get("/api/stats").get_json()["ladder"] == ladder
    # a stranger's table counts nowhere: no player remembered, in no group's history
    stranger = Member(app, "127.0.3.2")
    lone = stranger.play(app, ("Eve", "Mal"))
    assert lone not in [g["code"] for g in ann.get("/api/history").get_json()["games"]]
    assert len(ann.get("/api/stats").get_json()["ladder"]) == 2
    # starting groups is limited per address: the sixth within the hour waits
    for n in range(5):
        assert stranger.post("/api/groups", {"name": f"Spam {n}"}).status_code == 201
    r = stranger.post("/api/groups", {"name": "Spam 6"})
    assert r.status_code == 429 and "Retry-After" in r.headers


def test_a_member_of_one_group_sees_and_changes_nothing_of_another(app):
    hosted(app)
    ann = Member(app).start("Tuesday club")
    cyd = Member(app, "127.0.3.5").start("Family")
    a_code = ann.play(app, ("Ann", "Bob"))
    c_code = cyd.play(app, ("Cyd", "Dan"))
    # each group's history, ladder and players are its own
    assert [g["code"] for g in ann.get("/api/history").get_json()["games"]] == [a_code]
    assert [g["code"] for g in cyd.get("/api/history").get_json()["games"]] == [c_code]
    a_ladder = ann.get("/api/stats").get_json()["ladder"]
    assert {p["name"] for p in cyd.get("/api/stats").get_json()["ladder"]} == {"Cyd", "Dan"}
    a_player = a_ladder[0]["id"]
    theirs, nobody = cyd.get(f"/api/players/{a_player}/stats"), cyd.get("/api/players/9999/stats")
    assert theirs.status_code == nobody.status_code == 404
    assert theirs.get_json() == nobody.get_json()            # the same whether it exists
    assert "Ann" not in cyd.get("/history").get_data(as_text=True)
    # Ann's phone key in the other group's browser names no player there
    r = cyd.post("/api/players/me", {"player": "phone-of-Ann-" + "k" * 24, "name": "Mallory"})
    assert r.status_code == 404 and r.get_json()["code"] == "not_found"
    assert "Mallory" not in json.dumps(ann.get("/api/stats").get_json())
    # Family's keeper changes nothing of the club's, with its own key or with none
    for key in (cyd.keeper, None):
        for url, body in ((f"/api/history/{a_code}/delete", {}),
                          (f"/api/history/{a_code}/count", {"count": False})):
            r = cyd.post(url, body, key)
            assert r.status_code in (403, 404), (url, r.get_json())
            if key:
                assert r.status_code == 404 and r.get_json()["code"] == "not_found"
        r = cyd.post(f"/api/players/{a_player}/delete", {"games": True}, key)
        assert r.status_code == 404
    # the club's keeper key in Family's browser keeps Family nothing
    for url in ("/api/group/export", "/api/group/delete", "/api/keeper"):
        assert cyd.post(url, {}, ann.keeper).status_code == 403, url
    assert ann.get("/api/history").get_json()["games"][0]["code"] == a_code
    # the intel cards: each group learns its own
    cards = {}
    for who in (ann, cyd, Member(app, "127.0.3.9").start("New")):
        r = who.post("/api/tables", {"wall_distance": RECORD["options"]["wall_distance"]})
        host = Player(who.client, r.get_json()["code"], r.get_json()["host_secret"])
        seats = {side: sit(host, side, side) for side in ("red", "blue")}
        enter(host, seats, [event_from_dict(e) for e in RECORD["events"][:2]])
        view = host.refresh()
        assert view["taps"]["step"] == "intel"
        cards[who.link] = view["taps"].get("cards", [])
    played = {tuple(sorted(e["ranks"])) for e in RECORD["events"] if e["type"] == "intel"}
    assert cards[ann.link] == cards[cyd.link] and {tuple(c) for c in cards[ann.link]} == played
    assert list(cards.values())[2] == []            # a new group has seen no card
    # Family's export holds its game only; its records replay into a new group as the same
    out = cyd.post("/api/group/export", {}, cyd.keeper)
    assert out.status_code == 200 and "attachment" in out.headers["Content-Disposition"]
    data = out.get_json()
    assert data["group"] == "Family" and data["games"][0]["code"] == c_code
    assert len(data["games"]) == 2 and data["games"][1]["finished"] is None   # (in play)
    assert len(data["games"][1]["record"]["events"]) == 2
    assert {p["name"] for p in data["players"]} == {"Cyd", "Dan"}
    record = data["games"][0]["record"]
    assert record["format"] == "spies-and-lies-record/1"
    assert record["events"] == cyd.get(f"/api/tables/{c_code}/record").get_json()["events"]
    assert record["options"]["players"] == {"red": ["Cyd"], "blue": ["Dan"]}
    eve = Member(app, "127.0.3.7").start("Elsewhere")
    r = eve.post("/api/tables/import", {"record": record}, eve.keeper)
    assert r.status_code == 201
    assert [g["code"] for g in eve.get("/api/history").get_json()["games"]] == [
        r.get_json()["code"]]
    # the club's keeper deletes the club wholly; Family keeps everything
    gone = ann.post("/api/group/delete", {}, ann.keeper)
    assert gone.status_code == 200 and gone.get_json()["deleted"]["players"] == 2
    assert gone.get_json()["gone"] is True
    assert ann.get("/api/history").get_json()["code"] == "no_group"
    assert ann.get(f"/api/tables/{a_code}/state").status_code == 404
    assert Member(app).post("/api/group/enter", {"link": ann.link}).status_code == 404
    assert [g["code"] for g in cyd.get("/api/history").get_json()["games"]] == [c_code]
    assert len(cyd.get("/api/stats").get_json()["ladder"]) == 2


def test_a_lan_install_keeps_one_group_at_its_address_and_groups_apart(app, keeper_key):
    """Without --many-groups the plain address is the default group (every earlier row is
    its): no link, the server's keeper key. A group started there keeps its own apart."""
    app.config["TABLE_PACE"] = 0.0
    lan = Member(app)
    code = lan.play(app, ("Ann", "Bob"))
    assert lan.get("/api/group").get_json() == {"name": "", "default": True}
    assert 'data-testid="lan-group"' in lan.get("/").get_data(as_text=True)
    club = Member(app, "127.0.3.3").start("Club")
    assert club.get("/api/history").get_json()["games"] == []
    assert 'Club' in club.get("/").get_data(as_text=True)
    other = club.play(app, ("Cyd", "Dan"))
    assert [g["code"] for g in lan.get("/api/history").get_json()["games"]] == [code]
    assert [g["code"] for g in club.get("/api/history").get_json()["games"]] == [other]
    # the server's keeper keeps every group; the club's keeper only the club
    assert lan.post("/api/keeper", {}, keeper_key).status_code == 200
    assert lan.post("/api/keeper", {}, club.keeper).status_code == 403
    assert club.post("/api/keeper", {}, club.keeper).get_json()["backup"] is False
    # the whole server's backup is the server keeper's alone
    assert club.post("/api/keeper/backup", {}, club.keeper).status_code == 403
    # the same phone is a player of its own in each group
    assert {p["name"] for p in lan.get("/api/stats").get_json()["ladder"]} == {"Ann", "Bob"}
    # the default group emptied by its keeper stays, empty
    r = lan.post("/api/group/delete", {}, keeper_key)
    assert r.status_code == 200 and r.get_json()["gone"] is False
    assert lan.get("/api/history").get_json()["games"] == []
    assert lan.post("/api/keeper", {}, keeper_key).status_code == 200     # still its keeper
    assert [g["code"] for g in club.get("/api/history").get_json()["games"]] == [other]


@pytest.mark.anydb("the command's flags, on the SQLite file it makes")
def test_serve_many_groups_reaches_every_worker(tmp_path, monkeypatch):
    """``serve --many-groups`` sets the app's ``MANY_GROUPS``, and each worker it starts
    is told so (``--workers N``): no worker keeps a default group."""
    from companion.cli import build_parser
    from companion.run import serve, workers

    args = build_parser().parse_args(["serve", "--many-groups", "--workers", "2"])
    assert "--many-groups" in workers.worker_command(args, 8000, "http://x", 3)
    plain = build_parser().parse_args(["serve", "--workers", "2"])
    assert "--many-groups" not in workers.worker_command(plain, 8000, "http://x", 3)
    monkeypatch.setenv("SPIES_LIES_INSTANCE", str(tmp_path))
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'c.sqlite'}")
    made = serve._app(args, "http://127.0.0.1:8000")
    assert made.config["MANY_GROUPS"] is True
    from companion import live
    from companion.store.models import db
    live.close(made)
    with made.app_context():
        db.engine.dispose()
