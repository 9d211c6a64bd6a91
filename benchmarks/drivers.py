"""What the tables do: a table's clients (a host screen and four phones playing random
games through the JSON API, :class:`TableDriver`; or the floor's five streams and bare
posts, :class:`FloorDriver`), and the :class:`Run` they share: who posts now, at what
pace, and every accepted post (:class:`Post`)."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

from companion.engine.simulate import random_record
from companion.live.delta import patch
from harness.steps import steps

from .client import Conn, Screen

_keys = itertools.count(1)


@dataclass
class Post:
    kind: str            # "ours", "floor" or "durable"
    phase: str
    screens: list[Screen]
    version: int
    sent: float
    answered: float = 0.0     # when the post's own answer arrived


KINDS = ("floor", "durable", "ours")     # what is measured, side by side


@dataclass
class Run:
    """Shared between drivers: who posts now and at what pace, and every accepted post.

    ``mode`` is ``(kind, phase)``: only the drivers of that kind post (the others wait),
    at a human pace or back-to-back; ``None``: nobody posts.
    """

    mode: tuple[str, str] | None = None
    every: tuple[float, float] = (1.0, 2.0)    # seconds between a table's posts (human)
    posts: list[Post] = field(default_factory=list)
    refused: int = 0
    games: int = 0
    kinds: tuple[str, ...] = KINDS
    active: dict[str, asyncio.Event] = field(default_factory=dict)
    paced: set[int] = field(default_factory=set)   # drivers that posted in this block
    # each block taken: (kind, phase, start, end) on this machine's monotonic clock
    blocks: list[tuple[str, str, float, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.active = {k: asyncio.Event() for k in self.kinds}

    def switch(self, mode: tuple[str, str] | None) -> None:
        """Let ``mode``'s drivers post (a new block: each spreads its first post over
        the pace's whole interval, so the tables do not all post in the same second)."""
        self.mode = mode
        self.paced.clear()
        for kind, ev in self.active.items():
            if mode is not None and mode[0] == kind:
                ev.set()
            else:
                ev.clear()

    async def pace(self, who: object, kind: str) -> str:
        """Wait for ``who``'s next post; the phase it is posted in."""
        while True:
            await self.active[kind].wait()
            assert self.mode is not None
            phase = self.mode[1]
            if phase != "human":
                return phase
            lo, hi = self.every
            first = id(who) not in self.paced
            self.paced.add(id(who))
            await asyncio.sleep(random.uniform(0.0 if first else lo, hi))
            if self.mode == (kind, "human"):
                return "human"


class Driver:
    """One table's worth of clients: a connection for posts and five open screens."""

    port: int
    conn: Conn
    screens: list[Screen]
    source = "127.0.0.1"      # the address its connections come from

    async def setup(self) -> None:
        """Open the table (or the floor's channel) and its five screens."""
        raise NotImplementedError

    async def play(self) -> None:
        """Post, at the run's pace, until cancelled."""
        raise NotImplementedError

    async def open_screens(self, paths: list[str]) -> None:
        self.screens = [Screen(self.port, path, self.source) for path in paths]
        for s in self.screens:
            s.start()
        await asyncio.gather(*(s.connected.wait() for s in self.screens))
        refused = [f"{s.path}: {s.refused}" for s in self.screens if s.refused]
        if refused:
            raise RuntimeError("the server refused a screen's stream: " + refused[0])

    def close(self) -> None:
        for s in self.screens:
            s.close()
        self.conn.close()


class TableDriver(Driver):
    """One physical table: a host screen and four phones, playing random games."""

    opened = "tables seated"
    options: dict[str, Any] = {}     # more of the table's options (e.g. the live chance)

    def __init__(self, port: int, run: Run, seed: int, kind: str = "ours",
                 source: str = "127.0.0.1") -> None:
        self.port, self.run, self.kind, self.source = port, run, kind, source
        self.rng = random.Random(seed)
        self.conn = Conn(port, source)
        self.screens: list[Screen] = []
        self.view: dict[str, Any] = {}

    async def setup(self) -> None:
        self.rec = random_record(self.rng)
        st, data = await self.conn.request("POST", "/api/tables",
                                           {"wall_distance": self.rec.options.wall_distance,
                                            "teams": True, **self.options})
        assert st == 201, data
        made = json.loads(data)
        self.code, self.view = made["code"], made["view"]
        self.host = made["host_secret"]
        self.seats: dict[tuple[str, int], str] = {}
        ids = []
        for side in ("red", "blue"):
            for part in (1, 2):
                st, body = await self._post(None, "/seats", {"side": side, "part": part,
                                                             "name": f"{side}{part}"}, None)
                assert st == 201, body
                self.seats[(side, part)] = body["secret"]
                ids.append(str(body["seat"]["id"]))
        v = self.view["version"]
        await self.open_screens([f"/api/tables/{self.code}/stream?since={v}&seat={w}"
                                 for w in ["host", *ids]])

    async def _post(self, secret: str | None, path: str, body: dict[str, Any],
                    phase: str | None) -> tuple[int, dict[str, Any]]:
        for _ in range(5):
            # the answer brings what changed since the version sent, as a page without
            # its stream asks (one with its stream open asks "none" and reads the change
            # there): since 502d977 that answer is the text the streams were sent, so the
            # server's work is the same either way, and the driver keeps its view from it
            full = {"version": self.view["version"], "answer": "delta",
                    "idempotency_key": f"bench-{next(_keys):09d}", **body}
            headers = {"Authorization": f"Bearer {secret}"} if secret else None
            sent = time.perf_counter()
            st, data = await self.conn.request("POST", f"/api/tables/{self.code}{path}",
                                               full, headers)
            out = json.loads(data)
            if "delta" in out:
                self.view = patch(self.view, out["delta"]["ops"])
            elif "view" in out:
                self.view = out["view"]
            if st in (200, 201):
                if phase is not None:
                    self.run.posts.append(Post(self.kind, phase, self.screens,
                                               self.view["version"], sent,
                                               time.perf_counter()))
                return st, out
            self.run.refused += 1
            if st != 409 or out.get("code") != "stale":
                raise RuntimeError(f"{path} {body} refused: {st} {out}")
        raise RuntimeError(f"{path} stayed stale")

    async def act(self, secret: str | None, path: str, body: dict[str, Any]) -> int:
        phase = await self.run.pace(self, self.kind)
        st, _ = await self._post(secret, path, body, phase)
        return st

    async def play(self) -> None:
        """Random legal games, one after the other, entered as the phones would."""
        while True:
            for e in self.rec.events:
                draft = self.view["draft"]
                part = (draft.get("part") if draft else None) or 1
                todo, status = steps(e, self.view), None
                try:
                    while True:
                        who, path, body = todo.send(status)
                        secret = self.host if who == "host" else self.seats[(who, part)]
                        status = await self.act(secret, path, body)
                except StopIteration:
                    pass
            assert self.view["state"]["phase"] == "over", self.view["state"]["phase"]
            self.run.games += 1
            await asyncio.sleep(2.0)       # the last push reaches the screens before they close
            self.close()
            self.conn = Conn(self.port, self.source)
            await self.setup()


class FloorDriver(Driver):
    """The floor: five streams on ``/_floor/<n>`` and posts that push a tiny message
    (``durable``: after one single-row durable commit, ``/_floor/<n>/durable``)."""

    opened = "floor channels"

    def __init__(self, port: int, run: Run, n: int, durable: bool = False) -> None:
        self.port, self.run, self.n = port, run, n
        self.kind = "durable" if durable else "floor"
        self.path = f"/_floor/{n}/durable" if durable else f"/_floor/{n}"
        self.conn = Conn(port)

    async def setup(self) -> None:
        await self.open_screens([f"/_floor/{self.n}/stream?seat={i}" for i in range(5)])

    async def play(self) -> None:
        while True:
            phase = await self.run.pace(self, self.kind)
            sent = time.perf_counter()
            st, data = await self.conn.request("POST", self.path, {})
            assert st == 200, data
            self.run.posts.append(Post(self.kind, phase, self.screens,
                                       json.loads(data)["version"], sent,
                                       time.perf_counter()))
