"""When a game was played, in the time of whoever looks: the history's dates and its
month filter.

The database keeps every moment in UTC. A group in Amsterdam that ends a game at 22:30
should read 22:30, and find it under the month it was played in even at 00:30 on the
first: a page shows moments in the zone of the browser looking at it, which the history's
script tells the server in a cookie (:data:`COOKIE`, an IANA name such as
``Europe/Paris``). Until a browser has told it (its first visit, or a client with no
script), the zone of the computer running the companion: usually the laptop at the table.

>>> at = datetime(2026, 3, 31, 22, 30)                     # UTC, as the database keeps it
>>> shown(at, zone_named("Europe/Amsterdam"), "de")       # summer time there: UTC+2
'01.04.2026, 00:30'
>>> in_utc(datetime(2026, 4, 1), zone_named("Europe/Amsterdam"))
datetime.datetime(2026, 3, 31, 22, 0)
>>> zone_named("../../etc/passwd"), zone_named("Mars/Olympus_Mons"), zone_named("Europe")
(None, None, None)
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo

from babel.dates import format_date, format_time, get_datetime_format

__all__ = ["COOKIE", "zone_named", "shown", "in_utc"]

#: The cookie a browser's time zone is told in (set by ``static/history.js``).
COOKIE = "sl-tz"
# what an IANA zone's name looks like (``UTC``, ``Europe/Paris``,
# ``America/Argentina/Buenos_Aires``, ``Etc/GMT+5``); anything else is not looked up
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+-]{0,31}(?:/[A-Za-z0-9_+-]{1,31}){0,2}")


def zone_named(name: str | None) -> ZoneInfo | None:
    """The time zone called ``name``; ``None`` for anything that is not one."""
    if not name or not _NAME.fullmatch(name):
        return None
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError, OSError):     # unknown, malformed, a folder of zones
        return None


def local(at: datetime, zone: tzinfo | None) -> datetime:
    """``at`` (UTC, as kept) in ``zone``; ``None``: the zone of this computer."""
    aware = at.replace(tzinfo=UTC)
    try:
        return aware.astimezone(zone) if zone is not None else aware.astimezone()
    except (OverflowError, OSError, ValueError):   # the first or last day there is
        return aware


def shown(at: datetime, zone: tzinfo | None, locale: str) -> str:
    """``at`` as a person reads it in ``locale``: the date, then the time of day.

    >>> shown(datetime(2026, 11, 26, 21, 30), UTC, "en")
    'Nov 26, 2026, 9:30\\u202fPM'
    """
    there = local(at, zone)
    return str(get_datetime_format("medium", locale=locale)).format(
        format_time(there, "short", locale=locale), format_date(there, "medium", locale=locale))


def in_utc(wall: datetime, zone: tzinfo | None) -> datetime:
    """The moment a clock in ``zone`` shows ``wall`` (naive), in UTC as kept; past
    either end of the calendar, that end."""
    if wall in (datetime.min, datetime.max):
        return wall
    try:
        aware = wall.replace(tzinfo=zone) if zone is not None else wall.astimezone()
        return aware.astimezone(UTC).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):
        return datetime.min if wall.year < 2 else datetime.max
