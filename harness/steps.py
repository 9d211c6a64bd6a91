"""The requests the phones send to enter one recorded event, as tests and benchmarks
replay random games through the API: one description of the table's flow for all.

A reveal is the guesser's guess (none once R60 broke the owner's order) and the card
turned up, both from the guesser's phone; before them the owner's deception token when
the record has one; after them, when the answer is 200 (not yet recorded), the owner's
choice. A day's start after day 1 is recorded by the server with the tokens (R12), and
an empty capture check with the reveal that took the flag (R71: nothing face down).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from companion.engine import Event, Reveal

Step = tuple[str, str, dict[str, Any]]     # who ("red", "blue" or "host"), path, body


def steps(event: Event, view: dict[str, Any]) -> Iterator[Step]:
    """The requests for ``event`` at a table showing ``view``; for a reveal, send the
    answer's status back into the generator after the card: 200 asks for the choice."""
    d = event.to_dict()
    if isinstance(event, Reveal):
        draft = view["draft"]
        if event.deception:
            yield event.owner, "/draft", {"step": "deception", "value": True}
        if draft.get("guess_needed", True):
            yield event.guesser, "/draft", {"step": "guess", "value": event.guess}
        status = yield event.guesser, "/draft", {"step": "actual", "value": event.actual}
        if status == 200:
            yield event.owner, "/draft", {"step": "choice", "value": event.choice}
    elif d["type"] == "start":
        nxt = view["state"]["next"]
        if nxt["type"] == "start":          # day 1 (later days were started by R12)
            yield (nxt["sides"][0] if nxt["sides"] else "host"), "/events", {"event": d}
    elif d["type"] == "check" and not d["ranks"]:
        if view["state"]["next"]["type"] == "check":    # (recorded with the capture, R71)
            yield d["side"], "/events", {"event": d}
    else:
        yield d.get("side") or "host", "/events", {"event": d}
