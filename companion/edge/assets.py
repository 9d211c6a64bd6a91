"""The pages' static files as one version: a hash of their contents.

The service worker (``/sw.js``) keeps the files under that version, every page names it
(``<meta name="sl-assets">``), and a table's state answers with it (``X-Assets``): a
page that was opened before the companion was upgraded sees a new version there and
loads again, rather than run its old scripts against the new server.
"""

from __future__ import annotations

import hashlib
import os
import time

from flask import current_app

#: static files the worker does not keep (itself; the large icons only an install fetches)
NOT_PRECACHED = ("sw.js", "icons/icon-512.png", "icons/maskable-512.png")
#: seconds between two looks at the files' times (a page or a state costs no walk of them)
LOOK_EVERY = 2.0


def assets() -> tuple[str, list[str]]:
    """(version, urls): a hash of the static files' contents, and the files the worker
    keeps; worked out again when a file's time changes (a new version of any file is a
    new worker, which replaces the old cache)."""
    known = current_app.extensions.get("companion.assets")
    now = time.monotonic()
    if known and now - known[2] < LOOK_EVERY:
        kept: tuple[str, list[str]] = known[1]
        return kept
    folder = current_app.static_folder or ""
    files = sorted(os.path.relpath(os.path.join(d, f), folder).replace(os.sep, "/")
                   for d, _, names in os.walk(folder) for f in names)
    stamp = (folder, tuple((f, os.stat(os.path.join(folder, f)).st_mtime_ns) for f in files))
    if known and known[0] == stamp:
        current_app.extensions["companion.assets"] = (stamp, known[1], now)
        kept = known[1]
        return kept
    digest = hashlib.sha256()
    for f in files:
        with open(os.path.join(folder, f), "rb") as fh:
            digest.update(f.encode() + b"\0" + fh.read())
    found = (digest.hexdigest()[:16], [f"/static/{f}" for f in files if f not in NOT_PRECACHED])
    current_app.extensions["companion.assets"] = (stamp, found, now)
    return found


def version() -> str:
    """The static files' version (:func:`assets`)."""
    return assets()[0]
