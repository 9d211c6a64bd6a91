"""The keeper of the group's memory (issue 20): who may delete any game, forget any
player and clear out imported games.

Those powers belong to a key, never to an address: behind a tunnel or a reverse proxy
every visitor arrives from 127.0.0.1, so "the peer is loopback" says nothing about who
is asking. The key is made once and kept in the instance folder (``keeper_key``,
readable by its owner only). ``spies-lies serve`` prints a keeper link for the laptop's
own browser, and ``spies-lies keeper`` prints a new one: a link that works once
(``/keeper#once=…``; issue 50). A browser keeps every address it opened in its history,
whatever the page does after, so the link never holds the key itself: the page trades
it once for the key (``POST /api/keeper/claim``), keeps the key and sends it as its
bearer; the link left in the history opens nothing. (A page opened with the key itself,
``/keeper#key=…``, is still taken.)

A game's host key (the screen that hosted it) and a player's own key (their phone) keep
their own, smaller powers; with no key nothing destructive is allowed from any address.
"""

from __future__ import annotations

import fcntl
import hmac
import os
import secrets
from pathlib import Path
from typing import IO

from flask import Flask, current_app

from ..store.models import hash_secret

FILE = "keeper_key"
LINKS = "keeper_links"   # the hashes of the one-time links printed and not yet opened
KEPT_LINKS = 20          # the newest links kept: an older one printed and never opened lapses


def keeper_key(instance: Path) -> str:
    """The keeper key of this instance folder, made (mode 0600) the first time."""
    path = instance / FILE
    try:
        key = path.read_text().strip()
        if key:
            return key
    except FileNotFoundError:
        pass
    key = secrets.token_urlsafe(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:           # made at the same moment by another process
        return path.read_text().strip()
    with os.fdopen(fd, "w") as f:
        f.write(key + "\n")
    return key


def init_app(app: Flask) -> None:
    """Keep the hash of this instance's keeper key (``KEEPER_KEY`` in the config wins:
    several hosts of one service can share one key)."""
    app.extensions["companion.keeper"] = hash_secret(key_for(app))


def is_keeper(secret: str | None) -> bool:
    """Whether ``secret`` is this server's keeper key."""
    if not secret:
        return False
    kept: str = current_app.extensions["companion.keeper"]
    return hmac.compare_digest(hash_secret(secret), kept)


def _links(instance: Path) -> tuple[list[str], IO[str]]:
    """The one-time links' hashes not yet opened, and their file, held locked (every
    worker of ``--workers N`` and ``spies-lies keeper`` share it)."""
    fd = os.open(instance / LINKS, os.O_RDWR | os.O_CREAT, 0o600)
    f = os.fdopen(fd, "r+", encoding="utf-8")
    fcntl.flock(f, fcntl.LOCK_EX)                 # (let go when the file is closed)
    return [line.strip() for line in f if line.strip()], f


def _write(f: IO[str], hashes: list[str]) -> None:
    f.seek(0)
    f.truncate()
    f.write("".join(h + "\n" for h in hashes[-KEPT_LINKS:]))


def new_link(instance: Path) -> str:
    """A new one-time secret for a keeper link (only its hash is kept)."""
    once = secrets.token_urlsafe(32)
    hashes, f = _links(instance)
    with f:
        _write(f, [*hashes, hash_secret(once)])
    return once


def claim(instance: Path, once: str) -> bool:
    """Whether ``once`` is a keeper link printed here and not opened before; it is spent."""
    h = hash_secret(once)
    hashes, f = _links(instance)
    with f:
        if not any(hmac.compare_digest(h, k) for k in hashes):
            return False
        _write(f, [k for k in hashes if k != h])
    return True


def key_for(app: Flask) -> str:
    """The keeper key a screen that opened a keeper link keeps."""
    key: str = app.config.get("KEEPER_KEY") or keeper_key(Path(app.instance_path))
    return key


def link(base: str, once: str) -> str:
    """The keeper link for a browser: a one-time secret (:func:`new_link`) in the
    fragment, which browsers never send to a server (nor in a Referer), so it stays out
    of every log, and is worth nothing once opened.

    >>> link("http://127.0.0.1:8000/", "abc")
    'http://127.0.0.1:8000/keeper#once=abc'
    """
    return f"{base.rstrip('/')}/keeper#once={once}"
