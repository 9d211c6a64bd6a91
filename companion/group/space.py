"""Which group a request belongs to (issue 54), and making and finding groups (deleting
one: :func:`.changes.delete_group`).

A group is a private space: its players, finished games, ratings, learnt intel cards and
keeper key. Its link (``/g#group=<secret>``, the secret in the fragment that browsers
never send) is the only way in: opening it keeps the secret in a cookie, and from then
on that browser's pages and tables are the group's. The secret is 192 random bits and
only its hash is kept, so a link cannot be guessed or read back from the database. A
LAN install keeps one default group at its plain address (every row from before the
groups is its); a server for many groups (``--many-groups``) has none: a table opened
there without a group's link counts nowhere.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

from flask import current_app, g
from sqlalchemy import select

from ..edge.errors import ApiError
from ..engine import Msg
from ..store.models import DEFAULT_GROUP, Group, Memory, db, hash_secret

COOKIE = "sl_group"
MANY = "MANY_GROUPS"            # the config key: no default group at the plain address
KEEP_DAYS = 400                 # the cookie's life (browsers cap it there)


def many() -> bool:
    """Whether this server keeps no default group at its plain address."""
    return bool(current_app.config.get(MANY))


def current(cookie: str | None) -> int | None:
    """The request's group (``cookie``: its ``COOKIE``, read by the HTTP layer): the one
    whose link's secret the cookie holds, else the default group on a server that keeps
    one, else none (kept for the request)."""
    if "group_id" not in g:
        g.group_id = _from_cookie(cookie)
        if g.group_id is None and not many():
            g.group_id = DEFAULT_GROUP
    found: int | None = g.group_id
    return found


def required(cookie: str | None) -> int:
    """The request's group, or 404: without a group's link there is nothing to show
    (the same answer whether a group exists or not)."""
    found = current(cookie)
    if found is None:
        raise ApiError(404, Msg("this server keeps each group's games apart: open your "
                                "group's link, or start a group on the first page"),
                       code="no_group")
    return found


def _from_cookie(secret: str | None) -> int | None:
    if not secret or len(secret) > 100:
        return None
    return by_link(secret)


def by_link(secret: str) -> int | None:
    """The group whose link holds ``secret``."""
    found: int | None = db.session.scalar(select(Group.id).where(
        Group.link_hash == hash_secret(secret)))
    return found


def name_of(group_id: int | None) -> str | None:
    """A group's name ("" for the default group); ``None`` for no group."""
    if group_id is None:
        return None
    found: str | None = db.session.scalar(select(Group.name).where(Group.id == group_id))
    return found


def make(name: str) -> tuple[Group, str, str]:
    """A new group (in the caller's transaction): it, its link's secret and its keeper
    key, each said once (only their hashes are kept)."""
    link, key = secrets.token_urlsafe(24), secrets.token_urlsafe(32)
    group = Group(name=name, link_hash=hash_secret(link), keeper_hash=hash_secret(key))
    db.session.add(group)
    db.session.flush()
    db.session.add(Memory(id=group.id, version=0))
    return group, link, key


def is_keeper_of(group_id: int | None, secret: str | None, server_keeper: bool) -> bool:
    """Whether ``secret`` keeps ``group_id``: the group's keeper key, or the server's
    (``server_keeper``), which keeps the default group and every other."""
    if group_id is None or not secret:
        return False
    if server_keeper:
        return True
    kept = db.session.scalar(select(Group.keeper_hash).where(Group.id == group_id))
    return kept is not None and hmac.compare_digest(hash_secret(secret), kept)


def player_hash(key: str, group_id: int) -> str:
    """What is kept of a phone's player key in a group: its hash, with the group's id
    outside the default group, so one phone is a player of its own in each group and
    no group can tell which of its players plays in another.

    >>> player_hash("k", 1) == hash_secret("k") != player_hash("k", 2)
    True
    """
    return hash_secret(key) if group_id == DEFAULT_GROUP else hash_secret(f"{group_id}:{key}")


def set_cookie(response: Any, secret: str, secure: bool) -> None:
    """``response`` keeps this browser in the group of ``secret`` (``secure``: the
    request came over HTTPS, and so will the cookie only)."""
    response.set_cookie(COOKIE, secret, max_age=KEEP_DAYS * 86400, httponly=True,
                        samesite="Lax", secure=secure, path="/")

