"""A small HTTP/1.1 client on asyncio streams, as the benchmarks' phones and screens: one
keep-alive connection for posts (:class:`Conn`), one live stream that notes when each
version arrives (:class:`Screen`). Raw sockets, one loop in the benchmark's process: its
own cost stays small and is printed."""

from __future__ import annotations

import asyncio
import bisect
import json
import time
from typing import Any


class Conn:
    """One keep-alive connection for ordinary requests."""

    def __init__(self, port: int, source: str = "127.0.0.1") -> None:
        self.port, self.source = port, source
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: Any = None,
                      headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        """One request; on a kept connection the server closed while it was idle (a
        driver waits while the other kinds take their turn), once more on a new one."""
        reused = self.writer is not None
        try:
            return await self._request(method, path, body, headers)
        except (ConnectionError, asyncio.IncompleteReadError):
            if not reused:
                raise
            self.close()
            return await self._request(method, path, body, headers)

    async def _request(self, method: str, path: str, body: Any = None,
                       headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(
                "127.0.0.1", self.port, limit=1 << 22, local_addr=(self.source, 0))
        payload = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}",
                f"Origin: http://127.0.0.1:{self.port}", f"Content-Length: {len(payload)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        head += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        assert self.reader is not None
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("closed")
        status = int(status_line.split()[1])
        length, close, chunked = 0, False, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            k, _, v = line.decode().partition(":")
            k = k.strip().lower()
            if k == "content-length":
                length = int(v)
            elif k == "connection" and v.strip().lower() == "close":
                close = True
            elif k == "transfer-encoding" and "chunked" in v:
                chunked = True
        if chunked:
            data = b""
            while True:
                n = int((await self.reader.readline()).strip(), 16)
                chunk = await self.reader.readexactly(n + 2)
                if n == 0:
                    break
                data += chunk[:-2]
        else:
            data = await self.reader.readexactly(length)
        if close:
            self.close()
        return status, data

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


class Screen:
    """One live stream; notes the time each version arrives."""

    def __init__(self, port: int, path: str, source: str = "127.0.0.1") -> None:
        self.port, self.path, self.source = port, path, source
        self.versions: list[int] = []
        self.times: list[float] = []
        self.connected = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.refused = ""            # the status line of a stream the server refused

    def start(self) -> None:
        self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        reader, self.writer = await asyncio.open_connection(
            "127.0.0.1", self.port, limit=1 << 22, local_addr=(self.source, 0))
        self.writer.write(f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                          f"Accept: text/event-stream\r\n\r\n".encode())
        try:
            status = await reader.readline()
            if b" 200 " not in status:         # refused (a cap, a limit): say so, never hang
                self.refused = status.decode(errors="replace").strip() or "closed"
                self.connected.set()
                return
            while True:
                line = await reader.readline()
                if not line:
                    return
                if line.startswith(b"id: "):
                    self.versions.append(int(line[4:]))
                    self.times.append(time.perf_counter())
                elif line.startswith(b": connected"):
                    self.connected.set()
        except (ConnectionError, asyncio.CancelledError):
            return

    def received(self, version: int) -> float | None:
        """When this screen first had ``version`` or a later one."""
        i = bisect.bisect_left(self.versions, version)
        return self.times[i] if i < len(self.times) else None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if self.task is not None:
            self.task.cancel()
