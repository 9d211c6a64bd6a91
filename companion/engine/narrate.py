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

from .events import other
from .results import RevealResult
from .words import N_, Msg, join, plural, rank, side

_EFFECT_WORDS = {
    "spy": N_("{enemy}'s Marshal is powerless against {side} this round"),
    "miner": N_("{enemy}'s Bomb is powerless against {side} this round"),
    "scout": N_("{side}'s identifications score 4 this round"),
    "bomb": N_("{side}'s next reveal retreats whatever the guess"),
}


def effect_words(e: Mapping[str, Any]) -> Msg | None:
    """The words the narration uses for one effect of a reveal (``None``: it goes unsaid)."""
    who = side(e["side"])
    kind = e["kind"]
    if kind == "ip":
        if e.get("carried"):
            return Msg("{side} carries the other {n} IP over", side=who, n=e["amount"])
        if e.get("source") == "deception":
            return Msg("{side} +{n} IP for the deception token", side=who, n=e["amount"])
        return Msg("{side} +{n} IP", side=who, n=e["amount"])
    if kind == "infiltrate":
        return Msg("{side} infiltrates", side=who)
    if kind == "da":
        if e["steps"] == 0:
            if not e.get("asked"):
                return None
            return Msg("the double agent cannot move (it stands on the wall)")
        steps = plural("{n} step", "{n} steps", e["steps"])
        if e.get("asked") and e["steps"] < e["asked"]:
            return Msg("the double agent moves {steps} toward {enemy}'s fort to the wall",
                       steps=steps, enemy=side(other(e["side"])))
        return Msg("the double agent moves {steps} toward {enemy}'s fort", steps=steps,
                   enemy=side(other(e["side"])))
    if kind == "flag":
        return Msg("{side} captures the flag", side=who)
    if kind == "dt":
        return Msg("a deception token")
    if kind == "effect":
        key = _EFFECT_WORDS[e["effect"]]
        return Msg(key, side=who, enemy=side(other(e["side"])))
    if kind == "use":
        return Msg("{side} uses the exhausted {name}", side=who, name=rank(e["rank"]))
    if kind == "fizzle":
        return Msg("which has no effect this round")
    if kind == "drain":
        if not e["amount"]:     # the Marshal's drain on a side at 0 IP (R33): not "-0 IP"
            return Msg("{side} has no IP to lose", side=who)
        return Msg("{side} -{n} IP", side=who, n=e["amount"])
    if kind == "double_damage":
        return Msg("{side} will lose two soldiers to exhaustion (double damage)", side=who)
    if kind == "order_broken":
        broke = Msg("{side}'s cards are out of order: {side} drops to 0 IP", side=who)
        if e.get("da_undone"):
            return Msg("{first} and {last}", first=broke,
                       last=Msg("the double agent walks back {n}", n=e["da_undone"]))
        return broke
    return None


def narrate_effect(e: Mapping[str, Any]) -> str | None:
    """The English words for one effect of a reveal (``None``: it goes unsaid)."""
    m = effect_words(e)
    return None if m is None else str(m)


_NEUTRALISED = {
    "R46": N_("it was the {name}, made to retreat by {guesser}'s Bomb"),
    "R40": N_("it was the {name}, made to retreat by {guesser}'s Spy"),
    "R42": N_("it was the {name}, made to retreat by {guesser}'s Miner"),
}


def reveal_words(r: RevealResult | Mapping[str, Any]) -> Msg:
    """One sentence for one reveal, from its outcome data, as words to render.

    ``r`` is a :class:`RevealResult` (``state.reveals[-1]``) or its JSON dict (a
    reveal of the replay output): both give the same sentence.
    """
    if isinstance(r, RevealResult):
        r = r.to_dict()
    g, o = side(r["guesser"]), side(r["owner"])
    name = rank(r["actual"])
    rule = r["rule"]
    broke = any(e["kind"] == "order_broken" for e in r["effects"])
    head: Msg
    if rule == "R60" and not broke:     # the order broke earlier: no guess was needed
        head = Msg("{owner!c}'s mission {mission} needed no guess", owner=o,
                   mission=r["mission"])
    else:
        head = Msg("{guesser!c} guessed {guess} on {owner}'s mission {mission}", guesser=g,
                   guess=rank(r["guess"]), owner=o, mission=r["mission"])
    if r.get("deception"):
        head = Msg("{head} (deception token played)", head=head)
    what: Msg
    if r["outcome"] == "identified":
        if rule == "R30":
            what = Msg("right, the {name}", name=name)
        elif rule == "R61":
            what = Msg("it was the {name}, but its intel token was wrong", name=name)
        elif broke:                     # the effect says what happened (R60)
            what = Msg("it was the {name}", name=name)
        else:
            what = Msg("it was the {name}, identified: {owner}'s order broke this round",
                       name=name, owner=o)
    elif r["outcome"] == "neutralised":
        what = Msg(_NEUTRALISED[rule], name=name, guesser=g)
    else:
        what = Msg("it was the {name}", name=name)
    # R47: no double damage after the last day, whatever the Bomb did
    shown = [e for e in r["effects"] if not (e["kind"] == "double_damage" and r["day"] >= 3)]
    effects = [w for w in (effect_words(e) for e in shown) if w]
    lost = r["outcome"] == "neutralised" and r.get("deception")
    if effects and lost:
        return Msg("{head} — {what}: {effects}; the deception token is lost.", head=head,
                   what=what, effects=join(effects))
    if effects:
        return Msg("{head} — {what}: {effects}.", head=head, what=what, effects=join(effects))
    if lost:
        return Msg("{head} — {what}; the deception token is lost.", head=head, what=what)
    return Msg("{head} — {what}.", head=head, what=what)


def narrate_reveal(r: RevealResult | Mapping[str, Any]) -> str:
    """One English sentence for one reveal (:func:`reveal_words` in English)."""
    return str(reveal_words(r))


def end_words(state_dict: Mapping[str, Any]) -> Msg | None:
    """One sentence for the end of the game (R70-R72), or ``None`` while it goes on."""
    w, reason = state_dict.get("winner"), state_dict.get("reason")
    if w is None:
        return None
    if w == "draw":
        return Msg("After day 3 the double agent is at the centre and IP are equal: "
                   "a draw.")
    win, lose = side(w), side(other(w))
    if reason == "flag":
        if state_dict.get("phase") == "capture_check":
            return Msg("{side!c} captured the flag — waiting for the capture check.",
                       side=win)
        return Msg("{side!c} captured the flag and wins.", side=win)
    if reason == "flag_cancelled":
        return Msg("{loser!c} captured the flag, but its cards were out of order: "
                   "{side} wins.", loser=lose, side=win)
    if reason == "territory":
        return Msg("After day 3 the double agent stands in {loser}'s territory: "
                   "{side} wins.", loser=lose, side=win)
    if reason == "ip":
        return Msg("After day 3 the double agent is at the centre and {side} has more IP: "
                   "{side} wins.", side=win)
    return Msg("After day 3 the double agent is at the centre and IP are equal: "
               "a draw.")


def narrate_end(state_dict: Mapping[str, Any]) -> str | None:
    """One English sentence for the end of the game, or ``None`` while it goes on."""
    m = end_words(state_dict)
    return None if m is None else str(m)
