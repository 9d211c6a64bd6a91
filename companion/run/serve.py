"""``spies-lies serve``: the companion on the local network (:mod:`companion.run.server`).

The address printed (and put in the QR code) is the one phones can open
(:mod:`companion.edge.address`).
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING
from urllib.parse import urlsplit

from ..edge.address import base_url
from ..store import database

if TYPE_CHECKING:
    from collections.abc import Callable

    from flask import Flask
    from sqlalchemy.exc import DBAPIError


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
    """``spies-lies keeper``: print a new keeper link, which works once (it opens the key in
    the instance folder)."""
    from ..play.keeper import keeper_key, link, new_link
    from ..web import instance_folder
    if args.port is None:             # the companion running now on these games, or 8000
        args.port = serving_port() or 8000
    keeper_key(instance_folder())     # made now, if no companion started here yet
    sys.stdout.write(link(own_url(args), new_link(instance_folder())) + "\n")
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
    url = database.url() or ""
    options: dict[str, object] = {"pool_size": 10, "max_overflow": max(10, threads - 10),
                                  "pool_timeout": 10}
    if not url or url.startswith("sqlite"):
        options["connect_args"] = {"timeout": 15}
    return {"SQLALCHEMY_ENGINE_OPTIONS": options}


def _app(args: argparse.Namespace, url: str) -> Flask:
    """The app for ``serve``. The address phones open is fixed only when it was given
    (``--public-url``) or the server listens on this machine alone; else each page works
    it out from the address it was opened at, so a laptop that joins the Wi-Fi (or gets
    a new address) after the start shows the new one in its QR on the next load."""
    from ..web import create_app
    fixed = url if args.public_url or loopback_only(args) else None
    return create_app({"PUBLIC_URL": fixed, "ALLOWED_HOSTS": list(args.allow_host or ()),
                       "TRUST_PROXY": getattr(args, "trust_proxy", 0) or 0,
                       "MANY_GROUPS": bool(getattr(args, "many_groups", False)),
                       **engine_config(args.threads)})


def _banner(args: argparse.Namespace, url: str, instance: Path, workers: int = 1) -> None:
    from ..play.keeper import keeper_key, link, new_link
    out = sys.stdout
    out.write("\nSpies & Lies table companion\n\n")
    out.write(f"  Open on the big screen:  {url}/\n")
    out.write(f"  On this machine:         http://127.0.0.1:{args.port}/\n")
    if loopback_only(args) and not args.public_url:
        out.write(f"  Listening on {args.host} only: phones on the network cannot join.\n"
                  "  Start without --host (or with --host 0.0.0.0) to let them in.\n\n")
    elif not args.public_url and urlsplit(url).hostname == "127.0.0.1":   # lan_ipv4: none
        out.write("  This computer is on no network yet: phones cannot reach it. Join the Wi-Fi\n"
                  "  the phones use, then reload the big screen: its QR shows the new address.\n")
    else:
        out.write(f"  Phones join at:          {url}/j  (or scan the QR on the big screen)\n\n")
        # the QR holds the big screen's address: said so, or phones scanned it to join
        # (issue 52)
        out.write("  For the big screen (a tablet, a laptop with a camera): this QR opens the\n"
                  "  first page there. Phones join with the QR the big screen then shows.\n")
        out.write(qr_ascii(url + "/"))
    if workers > 1:
        out.write(f"\n  {workers} worker processes on port {args.port} (PostgreSQL)\n")
    if getattr(args, "many_groups", False):
        out.write("\n  Many groups: each group starts its own on the first page and keeps its\n"
                  "  two links; games opened without a group's link count nowhere.\n")
    keeper_key(instance)                 # made now, if this is the first start
    out.write("\n  Keeper link: for the browser of this machine only, not the big screen.\n"
              "  It works once: that browser may then delete games, forget players and\n"
              "  count or set apart games. `spies-lies keeper` prints a new link.\n"
              f"    {link(own_url(args), new_link(instance))}\n")
    out.write("\nPress Ctrl+C to stop.\n")
    out.flush()


def cannot_listen(host: str, port: int, err: OSError) -> str:
    """What to do when the port cannot be opened: most often a companion (or something
    else) already runs on it (``tests/web/test_serve.py``)."""
    if err.errno == errno.EADDRINUSE:
        return (f"error: port {port} is already in use: is the companion already running? "
                f"Stop it (Ctrl+C where it runs), or start on another port: "
                f"--port {port + 1 if port < 65535 else 8000}\n")
    if err.errno == errno.EACCES:
        return (f"error: port {port} is reserved for the system's administrator here; "
                f"start on a port from 1024 up (--port 8000), or behind a reverse proxy "
                f"(README)\n")
    if err.errno == errno.EADDRNOTAVAIL or isinstance(err, socket.gaierror):
        return (f"error: {host} is not an address of this machine (--host); leave --host "
                f"out to listen on all of them\n")
    return f"error: cannot listen on {host} port {port}: {err.strerror or err}\n"


def cannot_open(err: DBAPIError | OSError) -> str:
    """What to say when the instance folder or the database cannot be opened at start."""
    if isinstance(err, OSError):
        return (f"error: cannot use the instance folder {err.filename}: {err.strerror} "
                f"(set SPIES_LIES_INSTANCE to a folder this user may write)\n")
    url = database.url()
    where = database.shown(url) if url else "companion.sqlite in the instance folder"
    why = " ".join(line.strip() for line in str(err.orig).strip().splitlines())
    return f"error: cannot open the database ({where}): {why}\n"


def app_or_said(make: Callable[[], Flask]) -> Flask | None:
    """The app ``make`` builds (the database brought up to date), or ``None`` after one
    line on stderr saying why the database or the instance folder cannot be used."""
    from sqlalchemy.exc import DBAPIError
    said = database.problem()
    if said:
        sys.stderr.write(said)
        return None
    from ..web import NewerDatabase
    try:
        return make()
    except (DBAPIError, OSError) as err:
        sys.stderr.write(cannot_open(err))
        return None
    except NewerDatabase as err:
        url = database.url()
        where = database.shown(url) if url else "companion.sqlite in the instance folder"
        sys.stderr.write(f"error: the database ({where}) was brought up to date by a newer "
                         f"version of the companion (revision {err}), which this one does not "
                         "know: update this copy of the companion, or use another instance "
                         "folder or database\n")
        return None


def sqlite_file() -> Path | None:
    """The SQLite file the games are kept in (``None`` on PostgreSQL, or in memory)."""
    from sqlalchemy.engine import make_url

    from ..web import instance_folder
    url = database.url()
    if url and not url.startswith("sqlite"):
        return None
    path = Path(make_url(url).database or "") if url else instance_folder() / "companion.sqlite"
    return None if not path.name or path.name == ":memory:" else path


def serving_port() -> int | None:
    """The port of the companion that serves this SQLite file now (its lock file says),
    or ``None`` when none does."""
    import fcntl
    import re
    path = sqlite_file()
    if path is None or not Path(f"{path}.serving").exists():
        return None
    with open(f"{path}.serving", encoding="utf-8") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)    # free: nobody serves it
        except BlockingIOError:
            said = re.search(r"at http://127\.0\.0\.1:(\d+)/", f.read())
            return int(said.group(1)) if said else None
    return None


STOPPED = "\nStopped. Every recorded tap is kept: start it again to play on.\n"


_HELD: list[IO[str]] = []      # the SQLite file's serving lock, held while the process lives


def hold_sqlite_file(port: int) -> str | None:
    """Take the lock that says a companion serves this SQLite file (``<file>.serving``,
    beside it), or say which one already does. Two servers on one file would each show
    only their own taps: a phone on one would not see what the other recorded. The lock
    goes with the process, however it ends (``flock``)."""
    import fcntl
    if os.environ.get("SPIES_LIES_SHARE_SQLITE_FILE") == "1":
        return None        # tests of the database's own guarantees (test_concurrency.py)
    path = sqlite_file()
    if path is None:
        return None
    f = open(f"{path}.serving", "a+", encoding="utf-8")      # held open: the lock
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        other = f.read().strip() or "another process"
        f.close()
        return (f"error: a companion already serves the games in {path} ({other}): open that "
                f"one, or stop it first (two servers on one SQLite file would not show each "
                f"other's taps)\n")
    f.seek(0)
    f.truncate()
    f.write(f"process {os.getpid()} at http://127.0.0.1:{port}/")
    f.flush()
    _HELD.append(f)
    return None


def serve(args: argparse.Namespace) -> int:
    from .server import listening_socket

    if getattr(args, "listen_fd", None) is not None:
        return _worker(args)
    workers = getattr(args, "workers", None) or 1     # 1 or more (the command's parser)
    if workers > 1:
        from .workers import REFUSED_ON_SQLITE
        if not database.on_postgresql():
            sys.stderr.write(REFUSED_ON_SQLITE)
            return 2
    said = database.problem()
    if said:
        sys.stderr.write(said)
        return 2
    try:
        sock = listening_socket(args.host, args.port)
    except OSError as err:
        sys.stderr.write(cannot_listen(args.host, args.port, err))
        return 2
    args.port = sock.getsockname()[1]        # --port 0: the one the system gave
    try:
        said = hold_sqlite_file(args.port)         # (None on PostgreSQL: no file)
    except OSError as err:
        said = cannot_open(err)
    if said:
        sock.close()
        sys.stderr.write(said)
        return 2
    url = public_url(args)
    app = app_or_said(lambda: _app(args, url))    # the database brought up to date, once
    if app is None:
        sock.close()
        return 2
    try:
        _banner(args, url, Path(app.instance_path), workers)
        if workers > 1:
            return _supervise(args, url, sock, app, workers)
        return _run(args, app, sock)
    except KeyboardInterrupt:             # Ctrl+C before it was serving
        sys.stdout.write(STOPPED)
        return 0


def _run(args: argparse.Namespace, app: Flask, sock: socket.socket) -> int:
    """Serve ``app`` on the listening ``sock`` until Ctrl+C (one process, or a worker)."""
    import signal

    from . import gcfreeze
    from .server import Server
    server = Server(app, host=args.host, port=args.port, threads=args.threads,
                    per_client=client_cap(args), listener=sock, between=True)
    stopped: list[int] = []

    def ctrl_c(_sig: int, _frame: object) -> None:
        """Ctrl+C is how a group stops it: the loop is told to stop, as a test's server
        is (a KeyboardInterrupt raised inside gevent's loop could be printed, or lost)."""
        stopped.append(1)
        server.stop(timeout=0)

    signal.signal(signal.SIGINT, ctrl_c)
    gcfreeze.start(app)      # no long garbage-collector pause with the caches full
    server.serve_forever()
    if stopped and getattr(args, "listen_fd", None) is None:
        sys.stdout.write(STOPPED)
    return 0


def _supervise(args: argparse.Namespace, url: str, sock: socket.socket, app: Flask,
               workers: int) -> int:
    """The parent of ``--workers N``: the app it made is dropped (its workers make their
    own), the socket is shared with them (:mod:`companion.run.workers`)."""
    from .. import live
    from ..store.models import db
    from .workers import Supervisor, worker_command
    with app.app_context():
        db.engine.dispose()
    live.close(app)
    sock.set_inheritable(True)
    done = Supervisor(worker_command(args, args.port, url, sock.fileno()), workers, sock).run()
    sys.stdout.write(STOPPED)
    return done


def _worker(args: argparse.Namespace) -> int:
    """One worker of ``--workers N``: a whole server on the parent's socket, silent (the
    parent printed the addresses)."""
    import socket as _socket

    from .workers import watch_parent
    watch_parent()
    return _run(args, _app(args, public_url(args)), _socket.socket(fileno=args.listen_fd))
