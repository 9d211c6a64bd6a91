"""The table companion as a Flask application: its factory, which puts the packages below
together (the edge, the API and the pages, live push), opens the database and upgrades it.

May import: every package below it; only ``run`` and the command import it.

>>> import tempfile
>>> app = create_app({"TESTING": True, "SECRET_KEY": "doctest",
...                   "SQLALCHEMY_DATABASE_URI": "sqlite://"}, instance_path=tempfile.mkdtemp())
>>> app.name
'companion.web'
"""

from __future__ import annotations

import errno
import os
import secrets
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, Request, Response
from flask.sessions import SessionInterface, SessionMixin
from flask_babel import Babel
from flask_migrate import Migrate, upgrade

from ..edge import lang
from ..store import database
from ..store.models import db

PACKAGE = Path(__file__).resolve().parent.parent            # companion/
MIGRATIONS = PACKAGE / "migrations"
migrate = Migrate()
babel = Babel()


def _secret_key(instance: Path) -> str:
    """The session key: generated once into ``instance/secret_key`` and reused."""
    path = instance / "secret_key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        key = secrets.token_hex(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(key + "\n")
        return key


def _pages_folder(name: str) -> str:
    """``templates`` or ``static``: inside the package when installed from a wheel
    (pyproject.toml maps them there), else the checkout's top-level folder."""
    inside = PACKAGE / name
    return str(inside if inside.is_dir() else PACKAGE.parent / name)


def instance_folder(instance_path: str | None = None) -> Path:
    """The instance folder :func:`create_app` uses (``instance_path``, else
    ``$SPIES_LIES_INSTANCE``, else Flask's default), made if missing."""
    instance_path = instance_path or os.environ.get("SPIES_LIES_INSTANCE")
    app = Flask(__name__, instance_relative_config=True,
                instance_path=os.path.abspath(instance_path) if instance_path else None)
    folder = Path(app.instance_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class NewerDatabase(RuntimeError):
    """The database was brought up to date by a newer version of the companion: this
    version knows none of its revisions (``revisions``), so it leaves it as it is."""

    def __init__(self, revisions: list[str]) -> None:
        super().__init__(", ".join(revisions))
        self.revisions = revisions


def _before_migrating() -> None:
    """Before the migrations run: refuse a database a newer companion brought up to date
    (they would stop with "Can't locate revision" and end the process), and keep a copy
    of an SQLite database they are about to change (``companion.sqlite.before-<head>``,
    beside it, as the earlier release left it: a safety net, whatever release that was;
    the copy's summary reads any earlier schema, issue 50)."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    script = ScriptDirectory(str(MIGRATIONS))
    with db.engine.connect() as c:
        have = MigrationContext.configure(c).get_current_heads()
    known = {s.revision for s in script.walk_revisions()}
    unknown = sorted(set(have) - known)
    if unknown:
        raise NewerDatabase(unknown)
    head = script.get_current_head()
    path = database.sqlite_path(db.engine.url)
    if not have or head in have or path is None:
        return             # nothing kept yet, up to date, or PostgreSQL (pg_dump's)
    kept = path.with_name(f"{path.name}.before-{head}")
    if not kept.exists():  # (a first attempt that failed kept it as it was before)
        try:
            database.copy(path, kept)
        except sqlite3.Error as err:        # (a full disk: said in one line, nothing changed)
            raise OSError(errno.EIO, f"no copy of the games could be kept before bringing "
                                     f"them up to date ({err})", str(kept)) from err


class NoCookieSession(SessionInterface):
    """The companion keeps nothing in a cookie session (a screen's keys live in its
    own storage): no cookie is read or signed on any request (issue 24: ~0.05 ms each),
    and anything that tried to write one would fail loudly (Flask's null session)."""

    def open_session(self, app: Flask, request: Request) -> None:
        return None

    def save_session(self, app: Flask, session: SessionMixin, response: Response) -> None:
        return None


def create_app(test_config: Mapping[str, Any] | None = None,
               instance_path: str | None = None) -> Flask:
    """Build the application; the database is brought up to date before it serves.

    The instance folder (database, secret key) is ``instance_path``, else
    ``$SPIES_LIES_INSTANCE``, else Flask's default (``instance/`` in a checkout).
    """
    instance_path = instance_path or os.environ.get("SPIES_LIES_INSTANCE")
    app = Flask(__name__, instance_relative_config=True,
                instance_path=os.path.abspath(instance_path) if instance_path else None,
                template_folder=_pages_folder("templates"), static_folder=_pages_folder("static"))
    app.session_interface = NoCookieSession()
    app.json = lang.JSONProvider(app)     # words as data leave in the request's language
    instance = Path(app.instance_path)
    instance.mkdir(parents=True, exist_ok=True)
    app.config.from_mapping(
        SQLALCHEMY_DATABASE_URI=database.url() or f"sqlite:///{instance / 'companion.sqlite'}",
        MAX_CONTENT_LENGTH=16 * 1024,
        PUBLIC_URL=None,                 # --public-url (else each page works it out)
        TRUST_PROXY=0,                   # reverse-proxy hops whose forwarded headers count
        SSE_KEEPALIVE=15.0,
        TABLE_PACE=1.0,                  # seconds a step a counted game takes at least
                                         # on average (issue 50: games.counts)
        JSON_SORT_KEYS=False,
        BABEL_TRANSLATION_DIRECTORIES=str(lang.TRANSLATIONS),
    )
    # SPIES_LIES_<KEY> in the environment sets a config key (JSON values parsed), e.g.
    # SPIES_LIES_RATE_LIMITS='{"tables": "100 per hour"}' (companion/edge/limits.py)
    app.config.from_prefixed_env("SPIES_LIES")
    if test_config is not None:
        app.config.from_mapping(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(instance)
    if app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        app.config.setdefault("SQLALCHEMY_ENGINE_OPTIONS", {"connect_args": {"timeout": 15}})

    db.init_app(app)
    migrate.init_app(app, db, directory=str(MIGRATIONS))
    with app.app_context():
        if app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
            from ..store.sqlite_writer import install
            install(db.engine)         # writers queue in-process; WAL
        else:
            from ..store.sent import install as one_at_a_time
            one_at_a_time(db.engine)   # a statement sent is answered before the next
        _before_migrating()
        upgrade(directory=str(MIGRATIONS))
        from ..group.games import backfill
        backfill()                     # summaries of games finished before they were kept

    from .. import live
    from ..api import routes as api
    from ..edge import compress, limits
    from ..edge import hosts as edges
    from ..pages import routes as pages
    from ..play import keeper
    keeper.init_app(app)
    # gettext catalogs through Flask-Babel: the pages' `_()`, the locale per request
    # (the screen's own choice, else its browser's languages)
    babel.init_app(app, locale_selector=pages.screen_language)
    # numbers as the page's language writes them (2,8 jours; 33 %)
    app.add_template_filter(lang.number, "number")
    app.add_template_filter(lang.percent, "percent")
    app.add_template_filter(lang.colon, "colon")
    app.register_blueprint(api.bp)
    app.register_blueprint(live.bp)
    app.register_blueprint(pages.bp)
    api.register_errors(app)
    live.init_app(app)
    compress.init_app(app)
    edges.init_app(app)
    limits.init_app(app, exempt=api.is_keeper)
    return app
