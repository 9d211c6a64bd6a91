"""Per-client limits (issue 20), kept with the ``limits`` package (through its
Flask-Limiter app extension), in memory, per client as the server sees it
(:func:`edges.client`: the peer's address, or behind ``--trust-proxy`` hops the
forwarded one).

What is limited, and why (each figure is a config key of ``RATE_LIMITS``; a real group
never meets them):

- ``tables``, ``imports``: opening a table or importing a saved game. The keeper's
  screen is exempt.
- ``players``: new remembered players (a phone makes one once).
- ``groups``: starting a group (issue 54: a hosted server's groups).
- ``seat_asks``: asking to take over a taken seat, per client.
- ``screen_asks``: a screen asking to be a table's screen (issue 50), per client.
- ``codes``: table codes that do not exist. A code that is found costs nothing, and a
  client is refused only for its *own* misses: a client that tried too many wrong codes
  is refused every look-up, found or not, so trying cannot tell a hit from a miss
  (a key sent with it that is not the table's counts as no key).

Whose budget a stranger can spend (issue 50): each of these is first a budget of the
client's own; a script that opens thousands is told to wait (429 with ``Retry-After``).
All clients together share a budget as well (``tables_all``, ``imports_all``,
``players_all``, ``codes_all``), but it stops only the clients that themselves spent
that budget at least a few times lately (``*_clean``): once strangers have spent it,
they are slowed down, while a new guest who scans the table's QR code, the TV that
opens the next table and a phone that types a right code are served as ever.

And nobody is refused their own table: a request that carries a key of the table it
asks about (its host key or an active seat's key as the bearer, the keeper key, or a
live stream's proof of one: :func:`.tables.load`) is served even when its address is
refused look-ups (a hostile page open in the TV's browser that loaded 61 images of
unknown tables spends the TV's address; the TV's own table still answers). The pages
and QR codes of a table, which a browser loads without a key, are drawn for any
well-formed code for such a client (:mod:`.pages`): they hold nothing of the table,
and hit and miss look the same.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any

from flask import Flask, current_app
from flask_limiter import Limiter
from limits import RateLimitItem, parse_many
from limits.strategies import RateLimiter

from ..engine import Msg
from .errors import ApiError
from .hosts import client

LIMITS = {
    "tables": "10 per minute; 60 per hour",           # per client
    "tables_all": "600 per hour",                      # all clients together ...
    "tables_clean": "5 per 10 minutes",     # ... stop only the clients that spent this
    "imports": "20 per minute; 120 per hour",
    "imports_all": "1000 per hour",
    "imports_clean": "10 per 10 minutes",
    "players": "20 per hour",
    "players_all": "300 per hour",
    "players_clean": "3 per 10 minutes",
    "groups": "5 per hour; 20 per day",
    "groups_all": "300 per hour",
    "groups_clean": "2 per 10 minutes",
    "seat_asks": "3 per minute",
    "screen_asks": "6 per minute",
    "codes": "10 per minute; 60 per hour",
    "codes_all": "600 per hour",
    "codes_clean": "3 per 10 minutes",    # fewer misses than this: never stopped by codes_all
}
EVERYONE = "*"          # the key of a budget all clients share


def limit(name: str) -> str:
    """The limit ``name`` in force (``RATE_LIMITS`` in the config overrides)."""
    own: dict[str, str] = current_app.config.get("RATE_LIMITS") or {}
    return own.get(name, LIMITS[name])


def _items(name: str) -> list[RateLimitItem]:
    return parse_many(limit(name))


def _limiter() -> Limiter:
    found: Limiter = current_app.extensions["companion.limiter"]
    return found


def _strategy() -> RateLimiter:
    strategy: RateLimiter = _limiter().limiter
    return strategy


def _wait(items: Iterable[RateLimitItem], *keys: str) -> int:
    """Seconds until every one of ``items`` allows one more hit for ``keys`` (0: now)."""
    strategy, wait = _strategy(), 0.0
    for item in items:
        if not strategy.test(item, *keys):
            reset, _ = strategy.get_window_stats(item, *keys)
            wait = max(wait, reset - time.time(), 1)
    return math.ceil(wait)


def _hit(items: Iterable[RateLimitItem], *keys: str) -> None:
    strategy = _strategy()
    for item in items:
        strategy.hit(item, *keys)


def too_many(msg: Msg, secs: int) -> ApiError:
    return ApiError(429, msg, code="rate_limited", retry_after=max(1, secs))


def spend(name: str, refusal: Callable[[int], Msg], who: str | None = None) -> None:
    """Count one more ``name`` for this client, or refuse with 429 (``refusal(seconds)``
    says why) when its own budget is spent, or when the budget of all clients together
    (``name_all``) is spent and this client itself spent ``name_clean`` of it lately:
    strangers who drained the shared budget wait, a client that spent little never
    does (issue 50: 15 addresses spent the 300 new players of an hour in 13 s, and no
    new guest could sit down for an hour)."""
    who = who or client()
    wait = _wait(_items(name), name, who)
    everyone = f"{name}_all" in LIMITS
    if everyone and not wait and _wait(_items(f"{name}_clean"), f"{name}_clean", who):
        wait = _wait(_items(f"{name}_all"), name, EVERYONE)
    if wait:
        raise too_many(refusal(wait), wait)
    _hit(_items(name), name, who)
    if everyone:
        _hit(_items(f"{name}_all"), name, EVERYONE)
        _hit(_items(f"{name}_clean"), f"{name}_clean", who)


# --- table codes ----------------------------------------------------------------------

class Misses:
    """When each client last tried a code that does not exist: the fast path of every
    look-up (a client that never missed is asked nothing more), bounded in size."""

    def __init__(self, keep: float = 3600.0, max_keys: int = 20_000) -> None:
        self.keep, self.max_keys = keep, max_keys
        self._lock = threading.Lock()
        self._last: dict[str, float] = {}

    def recent(self, who: str) -> bool:
        at = self._last.get(who)
        return at is not None and time.time() - at < self.keep

    def add(self, who: str) -> None:
        with self._lock:
            if len(self._last) >= self.max_keys:
                cut = time.time() - self.keep
                self._last = {k: t for k, t in self._last.items() if t >= cut}
                while len(self._last) >= self.max_keys:      # all recent: forget the oldest
                    del self._last[min(self._last, key=self._last.__getitem__)]
            self._last[who] = time.time()


def _misses() -> Misses:
    found: Misses = current_app.extensions["companion.misses"]
    return found


def code_wait(who: str) -> int:
    """Seconds this client must wait before looking a table code up (0: now)."""
    if not _misses().recent(who):
        return 0
    wait = _wait(_items("codes"), "codes", who)
    if not wait and _wait(_items("codes_clean"), "codes_clean", who):
        wait = _wait(_items("codes_all"), "codes", EVERYONE)
    return wait


def code_missed(who: str) -> None:
    """This client tried a code that does not exist."""
    _misses().add(who)
    _hit(_items("codes"), "codes", who)
    _hit(_items("codes_all"), "codes", EVERYONE)
    _hit(_items("codes_clean"), "codes_clean", who)


# --- the routes' limits ----------------------------------------------------------------

ROUTES = {"api.create_table": "tables", "api.import_record": "imports"}


def _refused(secs: int) -> Msg:
    return Msg("too many tables were opened or imported from here lately; wait {n} "
               "seconds and try again", n=secs)


def _route_limits(app: Flask, exempt: Callable[[], bool]) -> None:
    """Wrap each limited view in its budgets (:func:`spend`, read from the app's config
    at each request), counted before the view runs: a refused record costs as much as
    an accepted one."""
    for endpoint, name in ROUTES.items():
        view: Any = app.view_functions[endpoint]

        @wraps(view)
        def limited(*args: Any, _view: Any = view, _name: str = name, **kwargs: Any) -> Any:
            if not exempt():
                spend(_name, _refused)
            return _view(*args, **kwargs)
        app.view_functions[endpoint] = limited


def init_app(app: Flask, exempt: Callable[[], bool]) -> None:
    """This app's limiter (its own memory: apps made in one process share nothing) and
    the routes' limits; ``exempt``: whether the request comes from the keeper."""
    limiter = Limiter(client, app=app, storage_uri="memory://", strategy="moving-window",
                      headers_enabled=False)
    app.extensions["companion.limiter"] = limiter
    app.extensions["companion.misses"] = Misses()
    _route_limits(app, exempt)
    # Flask-Limiter also checks default and application-wide limits before every
    # request; the companion declares none (the routes above check their own, in their
    # wrappers), and that check cost every post ~0.1 ms for nothing (issue 24)
    app.before_request_funcs[None].remove(limiter._check_request_limit)
