"""The HTML pages: create a table, the host screen, the phone, the rules; QR images;
each screen's language (its own choice, remembered in a cookie, else its browser's);
what makes the pages an installable app (the manifest, the service worker, the page it
shows when the server cannot be reached)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any
from urllib.parse import urlsplit

from babel import Locale
from flask import Blueprint, Response, current_app, jsonify, redirect, render_template, request

from .. import help as rules_help
from ..edge import assets, lang, when
from ..edge.address import base_url
from ..edge.fields import CODE_RE
from ..edge.hosts import client, is_loopback_address
from ..edge.limits import code_wait
from ..engine import Msg
from ..engine import rank as rank_word
from ..group import games, history, space
from ..memory.ratings import PROVISIONAL
from ..play.tables import load
from ..table.lessons import LESSONS
from .qr import qr_svg

bp = Blueprint("pages", __name__)
YEAR = 365 * 24 * 3600


def screen_language() -> Locale:
    """This screen's language: the one it chose (a cookie, per browser: each phone and
    the TV its own), else the best of its browser's (Accept-Language), else English.
    As a Babel locale made once per language (Babel would parse the code again, and
    look for its data file, at every request: issue 24), and known by the two headers it
    comes from as they were sent (parsing them cost 25-60 µs of every request)."""
    env = request.environ
    sent = (env.get("HTTP_COOKIE"), env.get("HTTP_ACCEPT_LANGUAGE"))
    found = _BY_HEADERS.get(sent)
    if found is None:
        chosen = request.cookies.get(lang.COOKIE)
        if chosen not in lang.LOCALES:
            chosen = lang.best([tag for tag, _ in request.accept_languages])
        found = _LOCALES.get(chosen) or _LOCALES.setdefault(chosen, Locale.parse(chosen))
        # kept for a browser's headers, not a stranger's (lines of up to 64 KiB, made up
        # anew each time): at most 1,024 pairs of at most 512 characters (~1 MB)
        if sum(len(h or "") for h in sent) <= _HEADERS_LONGEST:
            if len(_BY_HEADERS) >= _HEADERS_KEPT:
                _BY_HEADERS.clear()
            _BY_HEADERS[sent] = found
    return found


_LOCALES: dict[str, Locale] = {}
_BY_HEADERS: dict[tuple[str | None, str | None], Locale] = {}
_HEADERS_KEPT, _HEADERS_LONGEST = 1024, 512


@bp.app_context_processor
def _language() -> dict[str, Any]:
    """What every page needs of its language: the code, the switch, the scripts' words."""
    code = lang.current()
    here = request.full_path.rstrip("?") if request else "/"
    return {"lang": code, "lang_names": lang.NAMES, "lang_here": here,
            "script_words": lang.script_words(code), "assets_version": assets.version()}


@bp.get("/lang/<code>")
def choose_language(code: str) -> Any:
    """Switch this screen's language (one tap) and go back to the page it came from."""
    resp = redirect(local_path(request.args.get("next")), 303)
    if code in lang.LOCALES:
        resp.set_cookie(lang.COOKIE, code, max_age=YEAR, samesite="Lax", path="/")
    return resp


LOCAL_PATH = re.compile(r"/(?![/\\])[!-~]*")     # printable ASCII, no space, not // or /\


def local_path(asked: str | None) -> str:
    r"""``asked`` when it is a path on this server, else ``/`` (issue 20: no scheme, no
    ``//`` or ``/\``, no space or control character a browser would drop to make one).

    >>> [local_path(p) for p in ("/t/ABCDE?x=1", "//evil.example", "/\t/evil.example")]
    ['/t/ABCDE?x=1', '/', '/']
    >>> [local_path(p) for p in ("/\\evil.example", "https://evil.example", "/a\nb", None)]
    ['/', '/', '/', '/']
    """
    return asked if asked and LOCAL_PATH.fullmatch(asked) else "/"


def public_url() -> str:
    """The address phones can reach: --public-url, else this machine's LAN address."""
    return base_url(current_app.config.get("PUBLIC_URL"), request.host_url)


@dataclass(frozen=True)
class Unlooked:
    """What a page shows of a table it did not look up: the code as asked (teams: the
    page learns them from the view its key brings)."""

    code: str
    teams: bool = False


def _load(code: str) -> Any:
    """The table a page or a QR code is of. A client refused table look-ups (too many
    wrong codes: :func:`.tables.load`) gets the page of any well-formed code without it
    looked up, the same for a table that exists and one that does not: a browser loads
    a page and its QR codes without a key, and the TV or phone whose address a hostile
    page spent still opens its own table that way (issue 50); its requests that carry
    the key are served, a stranger's are refused as before."""
    who = client()
    if CODE_RE.fullmatch(code.upper()) and code_wait(who):
        return Unlooked(code.upper())
    return load(code, who)


def join_url(code: str) -> str:
    return f"{public_url()}/j/{code}"


def _help_language() -> str:
    asked = request.args.get("lang")         # the page's own language (cached per language)
    return asked if asked in lang.LOCALES else lang.current()


def _helptext() -> dict[str, Any]:
    return rules_help.texts(_help_language())


#: the companion's own pages a glossary word is about, by the word's English term: its
#: entry opens them, on /rules and in a phone's rules panel ("who won last week?" finds
#: "our games": the games one tap away, not only words saying where they are)
_WORD_PAGES = {"join": (("/j", Msg("Join a table")),),
               "story": (("/history", Msg("Our games")),),
               "our games": (("/history", Msg("Our games")), ("/stats", Msg("Statistics"))),
               "new table": (("/", Msg("Open a new table")),)}


@cache
def _opens(locale: str) -> dict[str, list[list[str]]]:
    """The pages each glossary word opens, by its /rules anchor ("word-23"): each an
    address and its label in ``locale`` (made once per language, not per request)."""
    terms = [g["term"] for g in rules_help.texts("en")["glossary"]]
    return {f"word-{i}": [[href, lang.say(label, locale)] for href, label in _WORD_PAGES[t]]
            for i, t in enumerate(terms) if t in _WORD_PAGES}


@bp.get("/")
def index() -> str:
    """Create a table: wall distance, team play, the aids, a learning game (chosen first
    while the group has finished no game here: issue 53)."""
    group = space.current(request.cookies.get(space.COOKIE))
    return render_template("index.html", learning=games.none_finished(group),
                           group=space.name_of(group))


@bp.get("/setup-walk")
def setup_walk() -> str:
    """A learning game's set-up, step by step, in the screen's language: the big screen
    fetches it only when it shows it (static/walk.js), so no other page carries it. The
    board drawn with the table's wall distance (``wall``, 2-8; 4 otherwise)."""
    wall = request.args.get("wall", "4")
    n = int(wall) if wall.isdigit() and 2 <= int(wall) <= 8 else 4
    return render_template("setup_walk.html", wall=n)


@bp.get("/t/<code>")
def host(code: str) -> str:
    """The shared screen for the TV."""
    table = _load(code)
    public = public_url()
    return render_template("host.html", code=table.code, join_url=join_url(table.code),
                           public=public, no_network=_no_network(public))


def _no_network(public: str) -> bool:
    """Whether the address phones would open is this computer's own because it is on no
    network yet (not because the server was started for this machine alone): the page
    says so, and its next load after the Wi-Fi shows the new address."""
    return not current_app.config.get("PUBLIC_URL") and is_loopback_address(
        urlsplit(public).hostname or "")


@bp.get("/t/<code>/story")
def story(code: str) -> str:
    """The story of the game, step by step, with a chart and the key moments."""
    table = _load(code)
    # opened from a phone at the end of its game: the way back is to that phone's page
    # (the table's is the big screen's); nothing else of the address is used
    back = f"/j/{table.code}" if request.args.get("from") == "phone" else f"/t/{table.code}"
    return render_template("story.html", code=table.code, back=back)


@bp.get("/j/<code>")
def phone(code: str) -> str:
    """A phone at the table: join, then only what it can do now."""
    table = _load(code)
    return render_template("phone.html", code=table.code, teams=table.teams)


@bp.get("/w/<code>")
def watch(code: str) -> str:
    """A watcher (issue 14): the board and the narration on a phone or a second screen,
    no seat, no buttons."""
    table = _load(code)
    return render_template("phone.html", code=table.code, teams=table.teams, watch=True)


@bp.get("/j")
def phone_enter() -> str:
    """Type the table code by hand."""
    # as read off the big screen: "nudt 7" or "NUD-T7" is NUDT7
    code = re.sub(r"[\s\-.]", "", request.args.get("code") or "").upper()
    if code:
        table = _load(code)
        return render_template("phone.html", code=table.code, teams=table.teams)
    return render_template("enter.html")


@bp.get("/rules")
def rules() -> str:
    """Every rank and every rule by id, searchable; a word about one of the companion's
    own pages opens it."""
    return render_template("rules.html", help=_helptext(), opens=_opens(lang.current()))


@bp.get("/rules/search")
def rules_search() -> Response:
    """The rules search of the /rules page and the phone's panel (issue 22): the anchors
    of what answers ``q``, best first, whatever language it is typed in (accents and
    case folded, a typo forgiven). A long query is cut, never refused."""
    q = (request.args.get("q") or "")[:1000]
    resp = jsonify({"q": q, "ids": rules_help.ids(q)})    # the same in every language
    resp.headers["Cache-Control"] = "public, max-age=300"
    return resp


@bp.get("/rules.json")
def rules_json() -> Response:
    """The rules as data, for the phone's rules panel (``opens``: the pages a word opens)."""
    resp = jsonify({**_helptext(), "opens": _opens(_help_language())})
    resp.headers["Cache-Control"] = "private, max-age=300"
    resp.headers["Vary"] = "Cookie, Accept-Language"
    return resp


@bp.get("/lessons.json")
def lessons_json() -> Response:
    """A learning game's lessons in the screen's language (``lang``: the page's own), each
    ``title``, ``text`` and ``rules``, and the words around them: fetched by a screen
    once its table names one (static/lessons.js)."""
    locale = _help_language()
    resp = jsonify({"lessons": {key: rules_help.lesson(key, locale) for key in LESSONS},
                    "words": rules_help.lesson_words(locale)})
    resp.headers["Cache-Control"] = "private, max-age=300"
    resp.headers["Vary"] = "Cookie, Accept-Language"
    return resp


@bp.get("/qr/<code>.svg")
def qr(code: str) -> Response:
    """The join QR code of a table as SVG, drawn on the server."""
    return _qr(join_url(_load(code).code))


@bp.get("/qr/<code>/watch.svg")
def qr_watch(code: str) -> Response:
    """The watch QR code of a table (issue 14): a read-only view, no seat."""
    return _qr(f"{public_url()}/w/{_load(code).code}")


def _qr(url: str) -> Response:
    resp = Response(qr_svg(url), mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "no-cache"
    return resp


# --- the group's history (issue 14) ---------------------------------------------------


def _group_required() -> int:
    """The request's group (:mod:`..group.space`), or a page that says there is none."""
    return space.required(request.cookies.get(space.COOKIE))


def _kept_page(name: str, make: Callable[[], str], *more: Any) -> str:
    """A page of the group's memory, rendered once per version of the memory, address
    and language (``more``: what else it shows), then served as it was (issue 21: a
    page that renders hundreds of words costs every table the time it takes)."""
    page: str = games.kept(name, _group_required(), (request.full_path, lang.current(), *more),
                           make)
    return page


@bp.get("/history")
def history_page() -> str:
    """A page of the finished games, newest first, each with its story and its record."""
    wanted = history.wanted(request.args, request.cookies)
    zone = wanted["zone"]
    group = _group_required()

    def make() -> str:
        found = history.listing(group, **wanted)
        here = lang.current()
        games = [{**g, "shown": when.shown(datetime.fromisoformat(g["finished"]), zone, here)}
                 for g in lang.say(found.pop("games"), here)]
        return render_template("history.html", games=games, found=found,
                               group_name=space.name_of(group),
                               players=history.players_with_games(group),
                               zone=str(zone) if zone is not None else "")
    return _kept_page("history-page", make, str(zone))


@bp.get("/stats")
def stats_page() -> str:
    """The group's statistics, with small charts drawn on the server."""
    group = _group_required()
    in_play = history.in_play(group)

    def make() -> str:
        s = {**history.group(group), "in_play": in_play}
        here = lang.current()
        soldiers = [(f"{r} {lang.say(rank_word(r), here)}", s["soldiers"][r], "")
                    for r in range(1, 11)]
        return render_template("stats.html", s=s, soldiers=soldiers,
                               group_name=space.name_of(group),
                               provisional_games=PROVISIONAL)
    return _kept_page("stats-page", make, in_play)


@bp.get("/stats/players/<int:player_id>")
def player_page(player_id: int) -> str:
    """One player's statistics and head-to-head records."""
    group = _group_required()

    def make() -> str:
        return render_template("player.html", p=history.player(player_id, group),
                               rank_names={r: lang.say(rank_word(r), lang.current())
                                           for r in range(1, 11)},
                               provisional_games=PROVISIONAL)
    return _kept_page("player-page", make)


@bp.get("/keeper")
def keeper_page() -> str:
    """The keeper link's page (issue 20): the screen that opens it keeps the keeper key
    (from the link's fragment, never sent to the server but by the page's own check)."""
    return render_template("keeper.html", group_name=space.name_of(
        space.current(request.cookies.get(space.COOKIE))))


# --- a group's link (issue 54) ---------------------------------------------------------

@bp.get("/g")
def group_link() -> str:
    """A group's link (``/g#group=…``; its keeper link adds ``&key=…``): the page trades
    the secret in its fragment — which a browser never sends to a server, in a request
    line or a Referer, so it stays out of every log — for the group's cookie
    (``POST /api/group/enter``), then goes on to the first page (or the keeper's)."""
    return render_template("group_link.html")


# --- the installable app ---------------------------------------------------------------

# what the phone's home screen and app switcher call the companion
APP_NAME, APP_SHORT_NAME = "Spies & Lies companion", "Spies & Lies"


def _icon(name: str, size: int, purpose: str = "any") -> dict[str, str]:
    return {"src": f"/static/icons/{name}", "sizes": f"{size}x{size}", "type": "image/png",
            "purpose": purpose}


@bp.get("/manifest.webmanifest")
def manifest() -> Response:
    """The web app manifest: name, start page, standalone display, colours, icons."""
    data = {"name": APP_NAME, "short_name": APP_SHORT_NAME, "id": "/", "start_url": "/",
            "scope": "/", "display": "standalone", "orientation": "any",
            "background_color": "#0f1512", "theme_color": "#0f1512",
            "icons": [_icon("icon-192.png", 192), _icon("icon-512.png", 512),
                      _icon("maskable-512.png", 512, "maskable")]}
    resp = Response(json.dumps(data), mimetype="application/manifest+json")
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.get("/sw.js")
def service_worker() -> Response:
    """The service worker, from the site's root so that its scope covers every page."""
    version, urls = assets.assets()
    with open(os.path.join(current_app.static_folder or "", "sw.js"), encoding="utf-8") as f:
        text = f.read()
    text = (text.replace('"__VERSION__"', json.dumps(version))
                .replace('["__ASSETS__"]', json.dumps(urls)))
    resp = Response(text, mimetype="text/javascript")
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["Service-Worker-Allowed"] = "/"
    return resp


@bp.get("/offline")
def offline() -> Response:
    """What a page shows when the server cannot be reached (kept by the service worker)."""
    resp = Response(render_template("offline.html"), mimetype="text/html")
    resp.headers["Cache-Control"] = "no-cache"
    return resp
