"""The JSON API under ``/api``, one blueprint whose routes live by concern:
:mod:`.tables` (open, import, read a table), :mod:`.seats` (seats, screens, the game's
changes), :mod:`.group` (history, players, the keeper); :mod:`.base` what they share,
:mod:`.errors` how refusals are answered, :mod:`.bodies` every request body, declared
once (issue 51), from which :mod:`.openapi` describes them.
"""

from __future__ import annotations

from . import group, seats, tables
from .base import bp, is_keeper
from .errors import register_errors

__all__ = ["bp", "is_keeper", "register_errors", "group", "seats", "tables"]
