"""The keeper of the group's memory (issue 20): who may delete any game, forget any
player and clear out imported games.

Those powers belong to a key, never to an address: behind a tunnel or a reverse proxy
every visitor arrives from 127.0.0.1, so "the peer is loopback" says nothing about who
is asking. The key is made once, kept in the instance folder (``keeper_key``, readable
by its owner only) and printed by ``spies-lies serve`` as a link for the laptop's own
browser (``/keeper#key=…``, the way notebook servers print a token link); a screen that
opened that link keeps the key and sends it as its bearer. ``spies-lies keeper`` prints
the link again.

A game's host key (the screen that hosted it) and a player's own key (their phone) keep
their own, smaller powers; with no key nothing destructive is allowed from any address.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

from flask import Flask, current_app

from .models import hash_secret

FILE = "keeper_key"


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
    key = app.config.get("KEEPER_KEY") or keeper_key(Path(app.instance_path))
    app.extensions["companion.keeper"] = hash_secret(key)


def is_keeper(secret: str | None) -> bool:
    """Whether ``secret`` is this server's keeper key."""
    if not secret:
        return False
    kept: str = current_app.extensions["companion.keeper"]
    return hmac.compare_digest(hash_secret(secret), kept)


def link(base: str, key: str) -> str:
    """The keeper link for a browser: the key in the fragment, which browsers never send
    to a server (nor in a Referer), so it stays out of every log.

    >>> link("http://127.0.0.1:8000/", "abc")
    'http://127.0.0.1:8000/keeper#key=abc'
    """
    return f"{base.rstrip('/')}/keeper#key={key}"
