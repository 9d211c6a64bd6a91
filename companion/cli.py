"""The ``spies-lies`` command (also ``python -m companion``).

- ``spies-lies replay FILE``: the state of a recorded game as JSON (RECORD.md).
- ``spies-lies deduce FILE``: per side, the line-ups still consistent with the
  public information of the round in play (``companion/engine/deduce.py``).
- ``spies-lies chances FILE``: each side's chance to win after every event, from
  public information (``companion/engine/chances.py``, docs/CHANCES.md).
- ``spies-lies serve``: the table companion on the LAN.
- ``spies-lies keeper``: a new keeper link, which works once (who may delete games, issues 20, 50).
- ``spies-lies ratings --rebuild``: every player's rating made again from every finished
  game (issue 21); it prints the ladder.
- ``spies-lies backup FILE`` / ``restore FILE``: the group's games in one file and back
  (``companion/run/backup.py``).
- ``spies-lies bench``: says that the benchmarks moved (``python -m benchmarks``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .engine import Record, State


def _replayed(args: argparse.Namespace) -> State | None:
    """The state at the end of the record in ``args.file``; ``None`` (after one
    ``error: …`` line on stderr) when it cannot be read or replayed."""
    got = _record(args)
    return None if got is None else got[1]


def _record(args: argparse.Namespace) -> tuple[Record, State] | None:
    """The record in ``args.file`` and its end, or ``None`` as :func:`_replayed`."""
    from .engine import Record, RecordError, replay

    try:
        if args.file == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as f:
                text = f.read()
    except OSError as err:
        print(f"error: cannot read {args.file}: {err.strerror}", file=sys.stderr)
        return None
    try:
        rec = Record.from_json(text)
        return rec, replay(rec)
    except RecordError as err:
        print(f"error: {err}", file=sys.stderr)
        return None


def _print(obj: object, pretty: bool) -> int:
    text = json.dumps(obj, indent=2 if pretty else None)
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into head: not an error of the record
        sys.stderr.close()
    return 0


def _replay(args: argparse.Namespace) -> int:
    from .engine import replay_output

    state = _replayed(args)
    return 2 if state is None else _print(replay_output(state), args.pretty)


def _deduce(args: argparse.Namespace) -> int:
    from .engine.deduce import deduce_output

    state = _replayed(args)
    return 2 if state is None else _print(deduce_output(state), args.pretty)


def _chances(args: argparse.Namespace) -> int:
    from .engine.chances import chances_output

    got = _record(args)
    if got is None:
        return 2
    if not 1 <= args.playouts <= 100_000:
        print("error: --playouts must be 1-100000", file=sys.stderr)
        return 2
    return _print(chances_output(got[0], args.playouts, args.seed), args.pretty)


def _bench(args: argparse.Namespace) -> int:
    print("error: the benchmarks are not installed with the companion; from a checkout run "
          "python -m benchmarks engine|server|pages (docs/PERFORMANCE.md)", file=sys.stderr)
    return 2


def _serve(args: argparse.Namespace) -> int:
    from .run.serve import serve
    return serve(args)


def _keeper(args: argparse.Namespace) -> int:
    from .run.serve import keeper
    return keeper(args)


def _ratings(args: argparse.Namespace) -> int:
    from .group.games import rebuild_ratings
    from .memory.ratings import Rating, provisional, shown
    from .run.serve import app_or_said
    from .store.models import DEFAULT_GROUP, Group, Player, db
    from .web import create_app

    app = app_or_said(create_app)
    if app is None:
        return 2
    with app.app_context():
        if args.rebuild:                # every group's
            for group in db.session.scalars(db.select(Group.id)).all():
                rebuild_ratings(group)
            db.session.commit()
        rows = db.session.execute(db.select(Player.id, Player.name, Player.mu, Player.sigma,
                                            Player.rated).where(
            Player.mu.is_not(None), Player.group_id == DEFAULT_GROUP))
        ladder = sorted(({"id": i, "name": n, "rating": shown(Rating(mu, sigma, k)),
                          "provisional": provisional(Rating(mu, sigma, k)),
                          "mu": round(mu, 3), "sigma": round(sigma, 3), "games": k}
                         for i, n, mu, sigma, k in rows), key=lambda p: -p["rating"])
        db.session.remove()
        db.engine.dispose()
    return _print({"players": ladder}, args.pretty)


def _backup(args: argparse.Namespace) -> int:
    from .run.backup import backup
    return backup(args)


def _restore(args: argparse.Namespace) -> int:
    from .run.backup import restore
    return restore(args)


def _number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` (to ``high``), else a clear refusal."""
    def number(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if n < low or (high is not None and n > high):
            raise argparse.ArgumentTypeError(
                f"{n} is out of range: {low} or more" if high is None
                else f"{n} is out of range: {low}-{high}")
        return n
    return number


def _site(text: str) -> str:
    """An argparse type for ``--public-url``: the site's root, ``http(s)://host[:port]``,
    which the QR codes carry and the server answers to. A bare name would put text no
    phone opens as a link in the QR and have the server refuse its own name; a path is
    refused because the pages link from the root.

    >>> _site("https://tables.example.org/")
    'https://tables.example.org/'
    >>> _site("tables.example.org")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 'tables.example.org' has no scheme: write https://tables...
    """
    from urllib.parse import urlsplit
    try:
        parts = urlsplit(text)
        parts.port                             # noqa: B018 (raises on a bad port)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{text!r} is not an address: {err}") from None
    if parts.scheme not in ("http", "https"):
        if "://" not in text:
            raise argparse.ArgumentTypeError(
                f"{text!r} has no scheme: write https://{text.strip('/')} (or http://…)")
        raise argparse.ArgumentTypeError(f"{text!r}: the address must start with https:// "
                                         "or http://")
    if not parts.hostname:
        raise argparse.ArgumentTypeError(f"{text!r} names no host")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise argparse.ArgumentTypeError(
            f"{text!r}: the companion is served at the root of its address "
            f"({parts.scheme}://{parts.netloc}/), not under a path")
    return text


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="spies-lies", description="Spies & Lies table companion")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("replay", help="print the state of a recorded game as JSON")
    r.add_argument("file", help="a spies-and-lies-record/1 JSON file, or - for stdin")
    r.add_argument("--pretty", action="store_true", help="indent the JSON")
    r.set_defaults(func=_replay)

    d = sub.add_parser("deduce", help="print, per side, the line-ups the table's public "
                                      "information still allows this round, as JSON")
    d.add_argument("file", help="a spies-and-lies-record/1 JSON file, or - for stdin")
    d.add_argument("--pretty", action="store_true", help="indent the JSON")
    d.set_defaults(func=_deduce)

    c = sub.add_parser("chances", help="print each side's chance to win after every event "
                                       "of a record, from public information, as JSON")
    c.add_argument("file", help="a spies-and-lies-record/1 JSON file, or - for stdin")
    c.add_argument("--playouts", type=int, default=600,
                   help="games played on from each event (default 600: standard error "
                        "at most 2 points)")
    c.add_argument("--seed", type=int, default=0, help="the same seed, the same numbers")
    c.add_argument("--pretty", action="store_true", help="indent the JSON")
    c.set_defaults(func=_chances)

    b = sub.add_parser("bench", help="moved: python -m benchmarks, from a checkout")
    b.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    b.set_defaults(func=_bench)

    s = sub.add_parser("serve", help="start the companion on the local network")
    s.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all)")
    s.add_argument("--port", type=_number(0, 65535), default=8000,
                   help="port to listen on (default 8000; 0: any free one)")
    s.add_argument("--public-url", type=_site, default=None,
                   help="address phones should open (default: this machine's LAN address)")
    s.add_argument("--allow-host", action="append", metavar="NAME", default=[],
                   help="a further name phones reach this server by (repeatable); the LAN "
                        "addresses, localhost and the --public-url host are always allowed")
    s.add_argument("--threads", type=_number(1, 1024), default=32,
                   help="threads that run requests (default 32); open screens hold none")
    s.add_argument("--client-connections", type=_number(0), default=128, metavar="N",
                   help="connections one address may hold at once (default 128; 0: no "
                        "cap; none behind --trust-proxy, where the proxy caps them)")
    s.add_argument("--trust-proxy", type=_number(0, 16), default=0, metavar="N",
                   help="behind N reverse proxies: take the client's address, scheme and "
                        "host from their X-Forwarded-* headers (default 0: ignore them)")
    s.add_argument("--workers", type=_number(1, 256), default=1, metavar="N",
                   help="server processes on the one port (default 1; more need PostgreSQL "
                        "through DATABASE_URL)")
    s.add_argument("--many-groups", action="store_true",
                   help="a hosted server for many groups (issue 54): each group keeps its "
                        "games apart behind its own link, and a table opened without one "
                        "counts nowhere (default: one group at the plain address, as on a LAN)")
    s.add_argument("--listen-fd", type=int, default=None, help=argparse.SUPPRESS)
    s.set_defaults(func=_serve)

    k = sub.add_parser("keeper", help="print a new keeper link, which works once (for this "
                                      "machine's browser: it may delete games and forget "
                                      "players)")
    k.add_argument("--host", default="127.0.0.1", help=argparse.SUPPRESS)
    k.add_argument("--port", type=_number(1, 65535), default=None,
                   help="the port the companion serves on (default: the port of the one "
                        "serving these games now, else 8000)")
    k.set_defaults(func=_keeper)

    g = sub.add_parser("ratings", help="print every remembered player's rating as JSON "
                                       "(--rebuild: make them again from every finished game)")
    g.add_argument("--rebuild", action="store_true", help="rebuild from scratch first")
    g.add_argument("--pretty", action="store_true", help="indent the JSON")
    g.set_defaults(func=_ratings)

    u = sub.add_parser("backup", help="copy the group's games, players and ratings into a "
                                      "new file (also while the companion serves)")
    u.add_argument("file", help="the new file, e.g. games-2026-11-27.sqlite")
    u.set_defaults(func=_backup)
    o = sub.add_parser("restore", help="put the games of a backup back (the companion "
                                       "stopped; the games it replaces are kept beside them)")
    o.add_argument("file", help="a file spies-lies backup wrote")
    o.set_defaults(func=_restore)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)
