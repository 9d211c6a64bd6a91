"""Plain-language narration, built only from the data a reveal left in the state.

>>> from companion.engine import Record, replay, Reveal
>>> narrate_reveal({"guesser": "blue", "owner": "red", "mission": 1, "guess": 2,
...     "actual": 1, "deception": False, "outcome": "activated", "rule": "R24",
...     "effects": [{"kind": "ip", "side": "red", "amount": 1, "source": "abilities"},
...                 {"kind": "dt", "side": "red", "amount": 1}]})
"Blue guessed Scout on red's mission 1 — it was the Spy: red +1 IP and a deception token."
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .events import RANK_NAMES, other
from .results import RevealResult

_EFFECT_WORDS = {
    "spy": "{enemy}'s Marshal is powerless against {side} this round",
    "miner": "{enemy}'s Bomb is powerless against {side} this round",
    "scout": "{side}'s identifications score 4 this round",
    "bomb": "{side}'s next reveal retreats whatever the guess",
}


def _join(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def narrate_effect(e: Mapping[str, Any]) -> str | None:
    """The words the narration uses for one effect of a reveal (``None``: it goes unsaid)."""
    side = e["side"]
    kind = e["kind"]
    if kind == "ip":
        if e.get("carried"):
            return f"{side} carries the other {e['amount']} IP over (R48)"
        extra = " for the deception token" if e.get("source") == "deception" else ""
        return f"{side} +{e['amount']} IP{extra}"
    if kind == "infiltrate":
        return f"{side} infiltrates"
    if kind == "da":
        if e["steps"] == 0:
            if not e.get("asked"):
                return None
            return "the double agent cannot move (it stands on the wall)"
        steps = "1 step" if e["steps"] == 1 else f"{e['steps']} steps"
        wall = " to the wall" if e.get("asked") and e["steps"] < e["asked"] else ""
        return f"the double agent moves {steps} toward {other(side)}'s fort{wall}"
    if kind == "flag":
        return f"{side} captures the flag"
    if kind == "dt":
        return "a deception token"
    if kind == "effect":
        return _EFFECT_WORDS[e["effect"]].format(side=side, enemy=other(side))
    if kind == "use":
        return f"{side} uses the exhausted {RANK_NAMES[e['rank']]}"
    if kind == "fizzle":
        return "which has no effect this round"
    if kind == "drain":
        return f"{side} -{e['amount']} IP"
    if kind == "double_damage":
        return f"{side} will lose two soldiers to exhaustion (double damage)"
    if kind == "order_broken":
        bits = [f"{side}'s cards are out of order: {side} drops to 0 IP"]
        if e.get("da_undone"):
            bits.append(f"the double agent walks back {e['da_undone']}")
        return _join(bits)
    if kind == "deception_pays":
        return None
    return None


def narrate_reveal(r: RevealResult | Mapping[str, Any]) -> str:
    """One sentence for one reveal, from its outcome data.

    ``r`` is a :class:`RevealResult` (``state.reveals[-1]``) or its JSON dict (a
    reveal of the replay output): both give the same sentence.
    """
    if isinstance(r, RevealResult):
        r = r.to_dict()
    g, o = r["guesser"], r["owner"]
    name = RANK_NAMES[r["actual"]]
    rule = r["rule"]
    broke = any(e["kind"] == "order_broken" for e in r["effects"])
    if rule == "R60" and not broke:     # the order broke earlier: no guess was needed
        head = f"{o.capitalize()}'s mission {r['mission']} needed no guess"
    else:
        head = (f"{g.capitalize()} guessed {RANK_NAMES[r['guess']]} on {o}'s "
                f"mission {r['mission']}")
    if r.get("deception"):
        head += " (deception token played)"
    if r["outcome"] == "identified":
        if rule == "R30":
            what = f"right, the {name}"
        elif rule == "R61":
            what = f"it was the {name}, but its intel token was wrong (R61)"
        elif broke:                     # the effect says what happened (R60)
            what = f"it was the {name}"
        else:
            what = f"it was the {name}, identified: {o}'s order broke this round (R60)"
    elif r["outcome"] == "neutralised":
        by = {"R46": "Bomb", "R40": "Spy", "R42": "Miner"}[rule]
        what = f"it was the {name}, made to retreat by {g}'s {by} ({rule})"
    else:
        what = f"it was the {name}"
    # R47: no double damage after the last day, whatever the Bomb did
    shown = [e for e in r["effects"] if not (e["kind"] == "double_damage" and r["day"] >= 3)]
    effects = [w for w in (narrate_effect(e) for e in shown) if w]
    tail = f": {_join(effects)}" if effects else ""
    if r["outcome"] == "neutralised" and r.get("deception"):
        tail += "; the deception token is lost"
    return f"{head} — {what}{tail}."


def narrate_end(state_dict: Mapping[str, Any]) -> str | None:
    """One sentence for the end of the game (R70-R72), or ``None`` while it goes on."""
    w, reason = state_dict.get("winner"), state_dict.get("reason")
    if w is None:
        return None
    if reason == "flag":
        pending = state_dict.get("phase") == "capture_check"
        return f"{w.capitalize()} captured the flag" + (
            " — waiting for the capture check (R71)." if pending else " and wins (R70).")
    if reason == "flag_cancelled":
        return (f"{other(w).capitalize()} captured the flag, but its cards were out of order: "
                f"{w} wins (R71).")
    if reason == "territory":
        return f"After day 3 the double agent stands in {other(w)}'s territory: {w} wins (R72)."
    if reason == "ip":
        return f"After day 3 the double agent is at the centre and {w} has more IP: {w} wins (R72)."
    return "After day 3 the double agent is at the centre and IP are equal: a draw (R72)."
