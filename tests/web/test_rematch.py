"""A rematch over HTTP (issue 14): only the host screen asks, only after the game; the
seats move with their keys (colours swapped or not), the old table says where the game
went on and takes no more changes; a retry gets the same new table."""

from __future__ import annotations

import random

from companion.engine.simulate import random_record

from .conftest import Player, enter, sit

HOST2 = "n" * 43                          # the key the TV makes for the new table


def test_a_rematch_moves_the_seats_with_their_keys(table, client):
    host = table(wall_distance=2)
    seats = {"red": sit(host, "red", "Ann", player="a" * 40), "blue": sit(host, "blue", "Bob")}
    early = host.post("/rematch", {"swap": False, "host_secret": HOST2}, 409)
    assert early.get_json()["code"] == "out_of_turn"            # the game is not over
    enter(host, seats, random_record(random.Random(7), wall_distance=2).events)
    assert host.refresh()["state"]["phase"] == "over"
    assert seats["red"].post("/rematch", {"swap": True, "host_secret": HOST2},
                             403).get_json()["code"] == "not_host"
    assert host.post("/rematch", {"swap": "yes", "host_secret": HOST2}, 400).get_json()[
        "field"] == "swap"
    r = host.post("/rematch", {"swap": True, "host_secret": HOST2}, 201, key="rematch-key-1")
    again = host.post("/rematch", {"swap": True, "host_secret": HOST2}, 201, key="rematch-key-1",
                      fresh=False)
    assert again.get_json()["rematch"] == r.get_json()["rematch"]
    moved = r.get_json()["rematch"]
    new = moved["code"]
    assert host.post("/rematch", {"swap": False, "host_secret": HOST2},
                     409).get_json()["code"] == "rematch"
    # each phone carries on at the new table with the key it holds, colours swapped
    for side, p in seats.items():
        mine = moved["seats"][str(p.seat["id"])]
        assert mine["side"] == ("blue" if side == "red" else "red") and mine["name"] == p.name
        q = Player(client, new, p.secret, p.name)
        me = client.get(f"/api/tables/{new}/me", headers=q.headers()).get_json()
        assert (me["role"], me["id"]) == ("seat", mine["id"]), me
    assert moved["seats"][str(seats["red"].seat["id"])]["player"] == seats["red"].seat["player"]
    # the new table belongs to the TV's new key; the old keys no longer act at the old one
    v = Player(client, new, HOST2).refresh()
    assert v["state"]["phase"] == "setup" and len(v["seats"]) == 2
    assert v["notice"] == "Rematch: everyone is seated, colours swapped"
    old = client.get(f"/api/tables/{host.code}/state").get_json()["view"]
    assert old["rematch"]["code"] == new
    assert host.undo(409).get_json()["code"] == "rematch"     # the old table is closed
