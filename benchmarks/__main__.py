"""``python -m benchmarks engine | post | server | pages | screen | history | groups | chances
| heads [options]``
(from the checkout)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    b = argparse.ArgumentParser(prog="python -m benchmarks",
                                description="performance figures (docs/PERFORMANCE.md)")
    b.add_argument("what", choices=["engine", "post", "server", "pages", "screen", "history",
                                     "groups", "chances", "heads"])
    b.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    b.add_argument("--tables", type=int, default=50, help="tables (server)")
    b.add_argument("--threads", type=int, default=None,
                   help="server request threads (server; default 32, as spies-lies serve)")
    b.add_argument("--pace", default="1-2", metavar="LO-HI",
                   help="server: seconds between one table's posts at a human pace (1-2)")
    b.add_argument("--burst", type=float, default=None,
                   help="server: seconds of the burst phase (default: a third of --seconds, "
                        "at least 5)")
    b.add_argument("--workers", type=int, default=1,
                   help="server: also N worker processes (spies-lies serve --workers N, "
                        "PostgreSQL) against one, side by side")
    b.add_argument("--block", type=float, default=5.0,
                   help="server: seconds of each block; floor, durable floor and ours "
                        "take turns (default 5)")
    b.add_argument("--chances", action="store_true",
                   help="server: every table opted in to the live chance to win, its host "
                        "screen asking for it; with --against PATH, that checkout's server "
                        "and this one's side by side")
    b.add_argument("--anatomy", action="store_true",
                   help="server: also where ours' human-pace posts spend their time on the "
                        "server, step by step (fast and slow ones), and the collector's pauses")
    b.add_argument("--idle", type=int, default=0,
                   help="server: connections held open idle or half-sent throughout")
    b.add_argument("--soak", type=float, default=None, metavar="SECONDS",
                   help="server: open and close tables for SECONDS, sample for leaks")
    b.add_argument("--database-url", default=None,
                   help="server, post: run on this database (e.g. PostgreSQL) instead of SQLite")
    b.add_argument("--against", default=None, metavar="PATH",
                   help="engine, post, server, server --chances: also time the "
                        "checkout at PATH (A B A B…) and print the ratio; heads: that "
                        "checkout's server first")
    b.add_argument("--statements", action="store_true",
                   help="post: count each post's statements, round trips and commits "
                        "instead of timing it")
    b.add_argument("--instructions", action="store_true",
                   help="post: count each post's CPU instructions under valgrind's "
                        "callgrind instead of timing it (they do not move with the load)")
    b.add_argument("--rounds", type=int, default=None,
                   help="engine --against, post, screen: timings of each checkout "
                        "(default 7, 5, 3)")
    b.add_argument("--connections", type=int, default=300,
                   help="heads: strangers' connections sending big heads (default 300)")
    b.add_argument("--addresses", type=int, default=3,
                   help="heads: loopback addresses they come from, 127.0.3.1 … (default 3)")
    b.add_argument("--sizes", default="100,1000,10000",
                   help="history: finished games in each run (default 100,1000,10000)")
    b.add_argument("--blocks", type=int, default=4,
                   help="history, groups: alone / loaded blocks of --seconds each (default 4)")
    b.add_argument("--groups", type=int, default=1000,
                   help="groups: groups on the server, each with --games finished games "
                        "(default 1000 x 100)")
    b.add_argument("--games", type=int, default=None,
                   help="chances: simulated games to grade the estimates on (default 2000; 0: "
                        "only time the live figure); "
                        "post: games per timing (default 6); groups: each group's finished "
                        "games (default 100)")
    b.add_argument("--events", type=int, default=40,
                   help="screen: the game's events entered (default 40)")
    b.add_argument("--size", default="1920x1080", metavar="WxH",
                   help="screen: the host screen's size (default 1920x1080)")
    b.add_argument("--playouts", type=int, default=100,
                   help="chances: playouts per estimate while grading (default 100)")
    return b


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.what == "chances":
        from .chances import run as chances
        # --games 0 is asked for (only the live figure), not a missing option
        return chances(games=2000 if args.games is None else args.games,
                       playouts=args.playouts)
    if args.what == "engine":
        from .engine import run
        return run(seconds=args.seconds, against=args.against, rounds=args.rounds or 7)
    if args.what == "post":
        from .post import run as post
        return post(games=args.games or 6, rounds=args.rounds or 5,
                    against=args.against, database_url=args.database_url,
                    statements=args.statements, instructions=args.instructions)
    if args.what == "screen":
        from .screen import run as screen
        return screen(events=args.events, rounds=args.rounds or 3, against=args.against,
                      size=args.size)
    if args.what == "history":
        from . import history
        return history.main(args)
    if args.what == "groups":
        from . import groups
        return groups.main(args)
    if args.what == "heads":
        from . import heads
        return heads.main(args)
    if args.what == "server":
        from . import server
        return server.main(args)
    from . import pages
    return pages.main(args)


if __name__ == "__main__":
    raise SystemExit(main())
