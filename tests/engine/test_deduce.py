"""Deduction from public information (companion/engine/deduce.py, `spies-lies deduce`).

Hand-made cases name the rule they lean on (R3/R15 exhausted, R10 order and the
Sergeant, R11 intel tokens, R60 broken order); the properties replay thousands of
random games and check that a side that deployed legally and placed its tokens
honestly is always among the line-ups the table can still deduce.
"""

from __future__ import annotations

import itertools
import json
import os
import pathlib
import random
import subprocess
import sys

import pytest

from companion.engine import Exhaust, Intel, Record, Start, Tokens, apply, new_game, replay
from companion.engine.deduce import (
    check_lineup,
    consistent_lineups,
    deduce_output,
    deduce_side,
    lineups_fitting,
)
from companion.engine.simulate import random_record

from .builder import Table

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECORDS = ROOT / "tests" / "records"


def _intel_phase(red_tokens, blue_tokens, intel=(1, 2, 3, 5), red_ex=4, blue_ex=4):
    """A state in the intel phase with both sides' tokens recorded (no start yet)."""
    events = [Exhaust("red", (red_ex,)), Exhaust("blue", (blue_ex,)), Intel(intel),
              Tokens("red", tuple(red_tokens)), Tokens("blue", tuple(blue_tokens))]
    s = new_game()
    for e in events:
        s = apply(s, e)
    return s, events


# --- hand-made cases ---------------------------------------------------------------

def test_R11_sergeant_may_carry_a_token_though_4_is_not_on_the_card():
    # intel without 4; token on mission 1 only; 1, 2, 3, 5 exhausted/revealed cannot fit there
    d = lineups_fitting(exhausted=(1,), revealed={2: 6, 3: 7, 4: 8}, intel=(1, 2, 3, 5),
                        tokens={1})
    # mission 1 must be on the card (2, 3, 5) or the Sergeant lying with a token
    assert d.possible(1) == {2, 3, 4, 5}
    assert d.lineups == 4


def test_R11_sergeant_may_go_without_a_token_though_4_is_on_the_card():
    d = lineups_fitting(exhausted=(10,), revealed={1: 1, 2: 2, 3: 3}, intel=(1, 2, 3, 4),
                        tokens={1, 2, 3})
    # mission 4 has no token: any rank off the card above 3, or the Sergeant hiding
    assert d.possible(4) == {4, 5, 6, 7, 8, 9}
    assert d.missions[4][4] == 1


def test_R11_a_non_sergeant_rank_follows_its_token_exactly():
    d = lineups_fitting(exhausted=(), revealed={}, intel=(2, 5, 7, 9), tokens={2})
    assert d.possible(2) <= {2, 5, 7, 9, 4}
    for m in (1, 3, 4):
        assert not d.possible(m) & {2, 5, 7, 9}


def test_R3_an_exhausted_rank_is_on_no_mission():
    with_8 = lineups_fitting(exhausted=(), revealed={}, intel=(1, 2, 3, 5), tokens=set())
    without = lineups_fitting(exhausted=(8,), revealed={}, intel=(1, 2, 3, 5), tokens=set())
    assert any(8 in with_8.possible(m) for m in range(1, 5))
    assert not any(8 in without.possible(m) for m in range(1, 5))
    assert without.lineups < with_8.lineups


def test_R15_two_exhausted_ranks_after_double_damage_are_both_excluded():
    d = lineups_fitting(exhausted=(6, 9), revealed={}, intel=(1, 2, 3, 5), tokens=set())
    assert not any({6, 9} & d.possible(m) for m in range(1, 5))


def test_R10_a_turned_up_rank_fixes_its_mission_and_bounds_the_others():
    d = lineups_fitting(exhausted=(1,), revealed={2: 6}, intel=(1, 2, 3, 5), tokens={1})
    assert d.missions[2] == {6: d.lineups}
    assert d.possible(1) <= {2, 3, 4, 5}           # below 6 (or the Sergeant)
    assert all(r > 6 or r == 4 for r in d.possible(3) | d.possible(4))
    # a Sergeant turned up fixes its mission but constrains nobody's order
    s = lineups_fitting(exhausted=(1,), revealed={1: 4}, intel=(7, 8, 9, 10), tokens=set())
    assert s.missions[1] == {4: s.lineups}
    # off the card: 2, 3, 5, 6 rising over missions 2-4, whatever stands on mission 1
    assert (s.possible(2), s.possible(4), s.lineups) == ({2, 3}, {5, 6}, 4)


def test_R10_order_with_the_sergeant_anywhere():
    # only 4, 8, 9, 10 fit four tokens on a card of 4, 8, 9, 10: 8-9-10 in order, 4 anywhere
    lineups = consistent_lineups((1, 2, 3, 5, 6, 7), {}, (4, 8, 9, 10), {1, 2, 3, 4})
    assert sorted(lineups) == [(4, 8, 9, 10), (8, 4, 9, 10), (8, 9, 4, 10), (8, 9, 10, 4)]


def test_R11_tokens_that_contradict_every_line_up_give_zero():
    # token only on mission 4, card 1 2 3 5, Sergeant exhausted: missions 1-3 are from
    # 6-10 and mission 4 must be lower: no honest line-up
    state, _ = _intel_phase(red_tokens=[4], blue_tokens=[], red_ex=4)
    d = deduce_side(state, "red")
    assert d is not None and d.lineups == 0
    assert deduce_output(state)["red"] == {
        "lineups": 0, "missions": {"1": {}, "2": {}, "3": {}, "4": {}}}
    assert deduce_side(state, "blue").lineups > 0


def test_R61_a_card_caught_against_its_token_is_fixed_and_the_rest_still_deduced():
    """D3 (as ruled since issue 22): a card R61 caught is fixed on its mission like any
    turned-up card; its token is not held against the line-ups, and the face-down
    missions are still deduced from their own tokens. (It used to give N = 0.)"""
    t = Table(red_exhausted=10, blue_exhausted=10)
    # red's mission 1 is a 7 without a token, but 7 is on the card: R61
    t.day([7, 8, 9, 6], [1, 2, 3, 5], start="blue", intel=(7, 1, 2, 3),
          tokens={"red": set(), "blue": {1, 2, 3}})
    t.reveal()                           # blue guesses red's mission 1
    assert t.last().rule == "R61"
    d = deduce_side(t.state, "red")
    assert d is not None and d.lineups > 0
    assert d.missions[1] == {7: d.lineups}
    # missions 2-4 carry no token: no 1, 2, 3 there (the 7 is used); above 7 by R10,
    # or the Sergeant anywhere; the 10 is exhausted
    assert d.possible(2) | d.possible(3) | d.possible(4) == {4, 8, 9}
    assert d.lineups == len(consistent_lineups((10,), {1: 7}, (7, 1, 2, 3), set())) == 3


def test_counts_sum_to_the_number_of_line_ups_and_match_brute_force():
    d = lineups_fitting(exhausted=(3,), revealed={2: 5}, intel=(1, 5, 6, 9), tokens={2, 4})
    for m in range(1, 5):
        assert sum(d.missions[m].values()) == d.lineups
    brute = [p for p in itertools.permutations([r for r in range(1, 11) if r != 3], 4)
             if p[1] == 5 and _legal(p) and _honest(p, (1, 5, 6, 9), {2, 4})]
    assert d.lineups == len(brute)


# --- when there is something to deduce ---------------------------------------------

def test_nothing_to_deduce_before_both_tokens_nor_after_the_eighth_reveal():
    s = new_game()
    assert deduce_output(s) == {"red": None, "blue": None}
    for e in (Exhaust("red", (1,)), Exhaust("blue", (1,)), Intel((2, 3, 5, 6)),
              Tokens("red", ())):
        s = apply(s, e)
        assert deduce_output(s) == {"red": None, "blue": None}
    s = apply(s, Tokens("blue", ()))
    assert deduce_output(s)["red"]["lineups"] > 0        # intel phase, before the start
    s = apply(s, Start("red"))
    assert deduce_output(s)["blue"]["lineups"] > 0

    t = Table(red_exhausted=1, blue_exhausted=1)
    t.day([2, 3, 5, 6], [2, 3, 5, 6], intel=(2, 3, 5, 6))
    for _ in range(7):
        t.right()
    out = deduce_output(t.state)          # after the 7th reveal: still in play
    assert out["blue"] == {"lineups": 1, "missions": {     # all four turned up
        "1": {"2": 1}, "2": {"3": 1}, "3": {"5": 1}, "4": {"6": 1}}}
    assert out["red"] == {"lineups": 2, "missions": {      # mission 4: the 6 or the Sergeant
        "1": {"2": 2}, "2": {"3": 2}, "3": {"5": 2}, "4": {"4": 1, "6": 1}}}
    t.right()
    assert t.state.phase == "round_end"
    assert deduce_output(t.state) == {"red": None, "blue": None}


def test_R60_a_side_whose_order_broke_is_null():
    t = Table(red_exhausted=1, blue_exhausted=1)
    t.day([8, 3, 5, 6], [2, 3, 5, 6], start="blue")
    t.reveal()        # red's 8 on mission 1
    t.reveal()
    t.reveal()        # red's 3 on mission 2 breaks the order: R60
    assert t.state.broken["red"]
    out = deduce_output(t.state)
    assert out["red"] is None and out["blue"] is not None


def test_check_lineup_tells_order_and_tokens():
    assert check_lineup([2, 7, 4, 10], (1, 7, 9, 10)) == {
        "legal": True, "complete": True, "tokens": [2, 4], "either": [3]}
    assert check_lineup([3, 2, 5, 6], (1, 7, 9, 10))["legal"] is False
    assert check_lineup([3, 3, None, None], None)["legal"] is False


CASES = json.loads((ROOT / "tests" / "cases" / "lineups.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_R10_R11_shared_lineup_cases_match_the_engine(case):
    """The same file drives the phone's JS check in tests/browser/test_lineup.py."""
    assert check_lineup(case["ranks"], case["intel"]) == case["expect"]


# --- the command -------------------------------------------------------------------

def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(list(args), capture_output=True, text=True, env=env, timeout=60)


def _commands(*args: str) -> list[list[str]]:
    script = pathlib.Path(sys.executable).with_name("spies-lies")
    cmds = [[sys.executable, "-m", "companion", "deduce", *args]]
    if script.exists():
        cmds.append([str(script), "deduce", *args])
    return cmds


def test_deduce_command_prints_both_sides_and_exits_0(tmp_path):
    t = Table(red_exhausted=1, blue_exhausted=10)
    t.day([2, 3, 5, 6], [7, 8, 4, 9], intel=(2, 3, 4, 9))
    t.reveal()                                  # red guesses blue's mission 1: 7
    f = tmp_path / "r.json"
    f.write_text(t.record.to_json())
    for cmd in _commands(str(f)):
        run = _cli(*cmd)
        assert (run.returncode, run.stderr) == (0, "")
        out = json.loads(run.stdout)
        assert out == deduce_output(t.state)
        assert set(out) == {"red", "blue"}
        blue = out["blue"]
        assert blue["missions"]["1"] == {"7": blue["lineups"]}
        assert "10" not in json.dumps(blue["missions"]) or blue["missions"] == {}
        for m in "1234":
            assert sum(blue["missions"][m].values()) == blue["lineups"]
    assert json.loads(_cli(*_commands(str(f), "--pretty")[0]).stdout) == out


def test_deduce_command_prints_nulls_for_a_finished_game():
    path = RECORDS / "random-ip-27.json"
    run = _cli(*_commands(str(path))[0])
    assert run.returncode == 0 and json.loads(run.stdout) == {"red": None, "blue": None}


def test_deduce_command_refuses_a_bad_record_like_replay():
    path = RECORDS / "bad-no-deception-token.json"
    line = (RECORDS / "bad-no-deception-token.error.txt").read_text()
    for cmd in _commands(str(path)):
        run = _cli(*cmd)
        assert (run.returncode, run.stdout, run.stderr) == (2, "", line)


# bad files: tests/engine/test_records.py::test_the_commands_refuse_bad_files


def _first_r61_catch(record: Record):
    """The record cut just after the first reveal that R61 catches while the owner
    still has face-down missions, with the owner, the mission and the card."""
    s = new_game(record.options)
    for i, e in enumerate(record.events):
        s = apply(s, e)
        if e.type == "reveal" and s.reveals[-1].rule == "R61" and len(s.revealed[e.owner]) < 4:
            return Record(record.options, record.events[:i + 1]), e.owner, e.mission, e.actual
    raise AssertionError("no R61 catch mid-round in this game")


@pytest.mark.rule("R61")
def test_R61_caught_mid_round_in_a_random_game_the_api_and_the_command_still_deduce(tmp_path):
    """D3: after R61 catches a side, N > 0 and every counted line-up holds the caught
    card where it was turned up; the side's true face-down ranks are among them."""
    whole = random_record(random.Random(1), lie=0.5)
    cut, side, mission, card = _first_r61_catch(whole)
    state = replay(cut)
    assert state.phase == "mission" and not state.broken[side]
    down = [m for m in range(1, 5) if m not in state.revealed[side]]
    assert down, "the catch must leave face-down missions"

    d = deduce_side(state, side)
    assert d is not None and d.lineups > 0
    assert d.missions[mission] == {card: d.lineups}          # fixed where it turned up
    for m in range(1, 5):
        assert sum(d.missions[m].values()) == d.lineups
    # the truth, from the rest of the round's reveals: still possible
    rest: dict[int, int] = {}
    for e in whole.events[len(cut.events):]:
        if e.type != "reveal":
            break                                            # the round is over
        if e.owner == side:
            rest[e.mission] = e.actual
    assert set(rest) == set(down)
    for m, r in rest.items():
        assert r in d.missions[m]

    f = tmp_path / "caught.json"
    f.write_text(cut.to_json())
    for cmd in _commands(str(f)):
        run = _cli(*cmd)
        assert (run.returncode, run.stderr) == (0, "")
        out = json.loads(run.stdout)
        assert out == deduce_output(state)
        assert out[str(side)]["lineups"] == d.lineups > 0
        assert out[str(side)]["missions"][str(mission)] == {str(card): d.lineups}


# --- properties over random games ----------------------------------------------------

def _legal(lineup) -> bool:
    rest = [r for r in lineup if r != 4]
    return rest == sorted(rest) and len(set(rest)) == len(rest)


def _honest(lineup, intel, tokens, turned_up=()) -> bool:
    """R11 on every mission but those in ``turned_up`` (D3: a card already turned up is
    fixed as it is, even against its token)."""
    return all(r == 4 or ((m in tokens) == (r in intel)) for m, r in enumerate(lineup, 1)
               if m not in turned_up)


def _rounds(record: Record):
    """Yield, per round and side, (the states in play that round, the side's true
    line-up when all four cards are known from the reveals or the capture check)."""
    s = new_game(record.options)
    states: list = []
    cards: dict[str, dict[int, int]] = {"red": {}, "blue": {}}
    for e in record.events:
        before = s
        s = apply(s, e)
        if e.type == "check":
            cards[e.side].update(dict(e.ranks))
        if s.phase in ("intel", "mission") and None not in s.tokens.values():
            states.append(s)
        if e.type == "reveal":
            cards[e.owner][e.mission] = e.actual
        if s.phase in ("round_end", "over") and before.phase in ("mission", "capture_check"):
            for side in ("red", "blue"):
                if len(cards[side]) == 4:
                    yield side, states, tuple(cards[side][m] for m in range(1, 5))
            states, cards = [], {"red": {}, "blue": {}}


def test_properties_the_truth_is_always_possible_and_counts_sum_to_n():
    """In every round where a side deployed in order and placed its tokens honestly,
    N >= 1 and its true rank on every mission is among the possible ones, at every
    step of the round (after the tokens, after each reveal); counts sum to N. So too
    at every step where the tokens of the missions still face down are honest, though
    a token already turned up lied (R61, D3: a caught card is fixed, N stays >= 1)."""
    rng = random.Random(int(os.environ.get("DEDUCE_SEED", "13")))
    games = int(os.environ.get("DEDUCE_GAMES", "1500"))
    honest_rounds = steps = caught_steps = 0
    for _ in range(games):
        record = random_record(random.Random(rng.getrandbits(32)),
                               disorder=rng.choice([0.0, 0.1, 0.3]),
                               lie=rng.choice([0.0, 0.1, 0.3]))
        for side, states, truth in _rounds(record):
            first = states[0]
            honest = _legal(truth) and _honest(truth, first.intel, first.tokens[side])
            for st in states:
                d = deduce_side(st, side)
                if d is None:
                    assert st.broken[side] and not _legal(truth)
                    continue
                for m in range(1, 5):
                    assert sum(d.missions[m].values()) == d.lineups
                down_honest = _legal(truth) and _honest(truth, st.intel, st.tokens[side],
                                                         st.revealed[side])
                if honest or down_honest:
                    steps += 1
                    caught_steps += not honest
                    assert d.lineups >= 1
                    for m in range(1, 5):
                        assert truth[m - 1] in d.missions[m], (side, truth, m, d)
            honest_rounds += honest
    assert honest_rounds > games          # the property was not vacuous
    assert steps > 5 * honest_rounds
    assert caught_steps > games // 20     # nor its part after an R61 catch


def test_property_the_search_equals_brute_force_over_all_orderings():
    rng = random.Random(99)
    for _ in range(150):
        ex = tuple(rng.sample(range(1, 11), rng.choice([1, 2])))
        hand = [r for r in range(1, 11) if r not in ex]
        intel = tuple(rng.sample(range(1, 11), 4))
        tokens = set(rng.sample(range(1, 5), rng.randint(0, 4)))
        shown = rng.sample(range(1, 5), rng.randint(0, 3))
        ranks = rng.sample(hand, len(shown))
        revealed = dict(zip(shown, ranks, strict=True))
        brute = sorted(p for p in itertools.permutations(hand, 4)
                       if all(p[m - 1] == r for m, r in revealed.items())
                       and _legal(p) and _honest(p, intel, tokens, revealed))
        assert sorted(consistent_lineups(ex, revealed, intel, tokens)) == brute


def test_the_replayed_state_and_the_step_by_step_state_deduce_alike():
    record = random_record(random.Random(5))
    s = new_game(record.options)
    for i, e in enumerate(record.events):
        s = apply(s, e)
        if i % 5 == 0:
            assert deduce_output(s) == deduce_output(replay(record.options, record.events[:i + 1]))
