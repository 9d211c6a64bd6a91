"""``spies-lies serve``: the companion on the local network (:mod:`companion.server`).

The address printed (and put in the QR code) is the one phones can open
(:mod:`companion.address`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .address import base_url


def loopback_only(args: argparse.Namespace) -> bool:
    """Whether the server listens on this machine only (``--host 127.0.0.1``)."""
    host = str(getattr(args, "host", "0.0.0.0"))
    return host in ("localhost", "::1") or host.startswith("127.")


def public_url(args: argparse.Namespace) -> str:
    """The address printed and put in the QR: ``--public-url``, else the LAN address
    (this machine's own address when the server listens on loopback only: phones could
    not reach the LAN address, so no QR promises them a way in)."""
    if loopback_only(args) and not args.public_url:
        return f"http://127.0.0.1:{args.port}"
    return base_url(args.public_url, f"http://127.0.0.1:{args.port}")


def client_cap(args: argparse.Namespace) -> int | None:
    """Connections one address may hold (``--client-connections``; 0: no cap). Behind
    ``--trust-proxy`` every visitor has the proxy's address: no cap here, the proxy caps
    connections per client (nginx: ``limit_conn``); the global cap and the deadlines for
    a request to arrive still hold.

    >>> import argparse
    >>> client_cap(argparse.Namespace(client_connections=128, trust_proxy=0))
    128
    >>> [client_cap(argparse.Namespace(client_connections=n, trust_proxy=t))
    ...  for n, t in ((0, 0), (128, 1))]
    [None, None]
    """
    if getattr(args, "trust_proxy", 0) or not getattr(args, "client_connections", 1):
        return None
    n: int = args.client_connections
    return n


def own_url(args: argparse.Namespace) -> str:
    """The address of this server for a browser on this machine."""
    host = str(getattr(args, "host", "0.0.0.0"))
    if host in ("0.0.0.0", "::", "") or loopback_only(args):
        host = "127.0.0.1"
    return f"http://{f'[{host}]' if ':' in host else host}:{args.port}"


def keeper(args: argparse.Namespace) -> int:
    """``spies-lies keeper``: print the keeper link again (the key in the instance folder)."""
    from .web import instance_folder
    from .web.keeper import keeper_key, link
    sys.stdout.write(link(own_url(args), keeper_key(instance_folder())) + "\n")
    return 0


def qr_ascii(text: str) -> str:
    import io

    import qrcode
    qr = qrcode.QRCode(border=1)
    qr.add_data(text)
    buf = io.StringIO()
    qr.print_ascii(out=buf, invert=True)
    return buf.getvalue()


def engine_config(threads: int) -> dict[str, object]:
    """Database connections for ``threads`` server threads.

    A connection is held only while a request runs on one of the server's threads
    (an open stream holds none), but SQLAlchemy's default pool (5 + 10 overflow) made
    the 16th concurrent request wait up to 30 s for one. Allow one per thread; most
    stay unopened.
    """
    import os
    url = os.environ.get("DATABASE_URL", "")
    options: dict[str, object] = {"pool_size": 10, "max_overflow": max(10, threads - 10),
                                  "pool_timeout": 10}
    if not url or url.startswith("sqlite"):
        options["connect_args"] = {"timeout": 15}
    return {"SQLALCHEMY_ENGINE_OPTIONS": options}


def serve(args: argparse.Namespace) -> int:
    from .server import Server
    from .web import create_app
    from .web.keeper import keeper_key, link

    url = public_url(args)
    app = create_app({"PUBLIC_URL": url, "ALLOWED_HOSTS": list(args.allow_host or ()),
                      "TRUST_PROXY": getattr(args, "trust_proxy", 0) or 0,
                      **engine_config(args.threads)})
    server = Server(app, host=args.host, port=args.port, threads=args.threads,
                    per_client=client_cap(args))
    out = sys.stdout
    out.write("\nSpies & Lies table companion\n\n")
    out.write(f"  Open on the big screen:  {url}/\n")
    out.write(f"  On this machine:         http://127.0.0.1:{args.port}/\n")
    out.write(f"  Keeper link (in this machine's browser only: it may delete games and forget\n"
              f"  players; the key is in {app.instance_path}/keeper_key):\n"
              f"    {link(own_url(args), keeper_key(Path(app.instance_path)))}\n")
    if loopback_only(args) and not args.public_url:
        out.write(f"  Listening on {args.host} only: phones on the network cannot join.\n"
                  "  Start without --host (or with --host 0.0.0.0) to let them in.\n\n")
    else:
        out.write(f"  Phones join at:          {url}/j  (or scan the QR on the big screen)\n\n")
        out.write(qr_ascii(url + "/"))
    out.write("\nPress Ctrl+C to stop.\n")
    out.flush()
    from . import gcfreeze
    gcfreeze.start(app)      # no long garbage-collector pause with the caches full
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0
