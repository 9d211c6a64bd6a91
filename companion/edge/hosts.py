"""The edges of the server: which names it answers to, which pages may post to it,
and the security headers of every answer.

- Host: a request must name this server the way players reach it: an IP address of
  this machine (loopback 127.0.0.0/8 and ::1, its LAN addresses), ``localhost``, the
  machine's names, the ``--public-url`` host, names given with ``--allow-host`` —
  each an exact match, never a prefix (issue 20: ``127.rebind.example`` is a name, not
  an address). A DNS-rebinding page in a player's browser, which reaches the server
  under its own name, is refused (421).
- Behind a reverse proxy (``--trust-proxy N``, ``TRUST_PROXY``): the client's address,
  scheme and host come from the forwarded headers of ``N`` trusted hops (werkzeug's
  ``ProxyFix``); without it those headers are ignored.
- Origin: a state-changing request must come from a page of this server, scheme
  included.
- Every answer forbids framing, sniffing and referrers, and allows scripts, styles,
  images and connections only from the server itself (no inline script).
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, request
from werkzeug.middleware.proxy_fix import ProxyFix

from ..engine import Msg
from .address import interface_addresses
from .errors import ApiError

CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
# what only a document (a page, an SVG opened on its own, a worker) obeys: a style sheet,
# a script or a PNG fetched by a page follows the page's policy, not its own, so these
# ~300 bytes are left off them (a first visit fetches a dozen: issue 24)
DOCUMENT_ONLY = frozenset({"Content-Security-Policy", "X-Frame-Options"})
PLAIN_ASSETS = frozenset({"text/css", "text/javascript", "image/png"})
LOCAL_NAMES = frozenset({"localhost"})
# which of ``serve --workers N`` answered (1..N; absent with one process): for whoever
# runs the service, reading a proxy's log, and for the tests of the workers
WORKER_NO = os.environ.get("SPIES_LIES_WORKER", "")


def _hostname(netloc: str) -> str:
    """The host part of ``host[:port]`` (IPv6 without its brackets), lower-cased."""
    try:
        return (urlsplit(f"//{netloc}").hostname or "").lower()
    except ValueError:
        return ""


def allowed_hosts(app: Flask) -> frozenset[str]:
    """The names this server answers to (computed once per app)."""
    names = set(LOCAL_NAMES) | {ip for _, ip in interface_addresses()}
    machine = socket.gethostname().lower()       # the machine's own name, and its mDNS one
    names |= {machine, f"{machine}.local", machine.split(".")[0]}
    public = app.config.get("PUBLIC_URL")
    if public:
        names.add(_hostname(urlsplit(public).netloc))
    extra: Iterable[str] = app.config.get("ALLOWED_HOSTS") or ()
    names |= {h.strip().lower() for h in extra if h.strip()}
    return frozenset(names)


def is_loopback_address(host: str) -> bool:
    """Whether ``host`` is written as a loopback IP address (127.0.0.0/8, ::1): an
    address, parsed as one, never a name that merely starts like one.

    >>> [is_loopback_address(h) for h in ("127.0.0.1", "127.3.2.1", "::1", "localhost")]
    [True, True, True, False]
    >>> [is_loopback_address(h) for h in ("127.rebind.example", "127.1", "127.0.0.1.nip.io")]
    [False, False, False]
    """
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _new_address(host: str) -> bool:
    """Whether ``host`` is an IP address this machine has gained since the names were
    made (the laptop joined the Wi-Fi after the start, or got a new address); if so it
    joins them. Only an address is looked up, never a name."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    if host not in {ip for _, ip in interface_addresses()}:
        return False
    names = current_app.extensions["companion.hosts"]
    current_app.extensions["companion.hosts"] = names | {host}
    return True


def check_host() -> None:
    """Refuse a request whose Host header names another server (DNS rebinding)."""
    names = current_app.extensions.get("companion.hosts")
    if names is None:
        names = current_app.extensions["companion.hosts"] = allowed_hosts(current_app)
    host = _hostname(request.host)
    if host not in names and not is_loopback_address(host) and not _new_address(host):
        raise ApiError(421, Msg("this server does not answer to the name {host}; open the "
                                "address shown on the big screen (or start the server with "
                                "--allow-host NAME)", host=repr(host[:60])), code="unknown_host")


def _origin(url: str) -> tuple[str, str] | None:
    """(scheme, host[:port]) of an Origin or Referer header; None when it is not a URL."""
    try:
        parts = urlsplit(url)
        parts.port                      # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return parts.scheme, parts.netloc.lower()


def check_origin() -> None:
    """Refuse a state-changing request that another site's page could have sent."""
    sent = request.headers.get("Origin") or request.headers.get("Referer")
    if not sent:
        raise ApiError(403, Msg("the request does not say which page sent it (Origin header)"),
                       code="cross_origin")
    origin = _origin(sent)
    allowed = {(request.scheme, request.host.lower())}
    public = current_app.config.get("PUBLIC_URL")
    if public:
        mine = _origin(public)
        if mine:
            allowed.add(mine)
    if origin not in allowed:
        raise ApiError(403, Msg("requests from another site are refused"), code="cross_origin")


def add_headers(resp: Response) -> Response:
    """The security headers of every answer (a style sheet's, a script's or an image's
    from ``/static/``: those that apply to them)."""
    plain = request.path.startswith("/static/") and resp.mimetype in PLAIN_ASSETS
    for k, v in HEADERS.items():
        if not (plain and k in DOCUMENT_ONLY):
            resp.headers.setdefault(k, v)
    if plain:
        resp.headers.pop("Content-Disposition", None)   # a page's asset is never saved
    if WORKER_NO:
        resp.headers["X-Companion-Worker"] = WORKER_NO
    return resp


def init_app(app: Flask) -> None:
    """Check the Host of every request and add the security headers to every answer;
    behind ``TRUST_PROXY`` hops, read the client from their forwarded headers."""
    hops = int(app.config.get("TRUST_PROXY") or 0)
    if hops > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops,  # type: ignore[method-assign]
                                x_host=hops, x_port=hops)
    app.before_request(check_host)
    app.after_request(add_headers)


def client() -> str:
    """The client as this server sees it: the peer's address, or behind trusted proxies
    the address they forwarded. Rate limits and caps are kept per client."""
    return request.remote_addr or "unknown"
