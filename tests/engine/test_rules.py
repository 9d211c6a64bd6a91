"""One or more tests per rule id of RULES.md; the id leads each test's name.

Deployments are written red then blue, mission 1 to 4. ``Table.reveal()`` makes
the next reveal in turn order with a wrong guess unless told otherwise.
"""

from __future__ import annotations

import pytest

from companion.engine import (
    Check,
    Exhaust,
    GameOver,
    IllegalEvent,
    Intel,
    Options,
    OutOfTurn,
    Record,
    RecordError,
    Reveal,
    Start,
    Tokens,
    new_game,
    replay,
)

from .builder import Table


def rule(*ids):
    return pytest.mark.rule(*ids)


# --- board and setup -------------------------------------------------------------

@rule("R1", "R2")
def test_R1_R2_start_of_game():
    s = new_game()
    assert (s.day, s.phase, s.ip, s.da) == (1, "setup", {"red": 0, "blue": 0}, 0)
    assert (s.dt, s.supply, s.wall) == ({"red": 1, "blue": 1}, 2, 4)
    assert new_game(Options(6)).wall == 6


@rule("R1")
@pytest.mark.parametrize("w", [1, 9, "4", None, 4.0, True])
def test_R1_wall_distance_must_be_2_to_8(w):
    with pytest.raises(RecordError, match="wall_distance"):
        Record.from_dict({"format": "spies-and-lies-record/1", "options": {"wall_distance": w},
                          "events": []})


@rule("R3")
def test_R3_one_exhausted_soldier_each_before_day_1():
    s = replay(Options(), [Exhaust("red", (3,))])
    assert s.phase == "setup"
    with pytest.raises(IllegalEvent, match="exactly one"):
        replay(Options(), [Exhaust("blue", (3, 4))])
    with pytest.raises(OutOfTurn, match="already recorded"):
        replay(Options(), [Exhaust("red", (3,)), Exhaust("red", (4,))])
    s = replay(Options(), [Exhaust("red", (3,)), Exhaust("blue", (10,))])
    assert s.phase == "intel" and s.exhausted == {"red": (3,), "blue": (10,)}


# --- a round -------------------------------------------------------------------

@rule("R11")
def test_R11_intel_then_both_tokens_in_either_order_then_start():
    t = Table(red_exhausted=9, blue_exhausted=9)
    with pytest.raises(OutOfTurn, match="intel tokens come after the intel card"):
        t.do(Tokens("red", (1,)))
    t.do(Intel((1, 2, 3, 5)))
    with pytest.raises(OutOfTurn, match="both sides' tokens"):
        t.do(Start("red"))
    t.do(Tokens("blue", ()))
    t.do(Tokens("red", (1, 3)))
    assert t.state.tokens == {"red": frozenset({1, 3}), "blue": frozenset()}
    with pytest.raises(OutOfTurn):
        t.do(Intel((1, 2, 3, 4)))


@rule("R12")
def test_R12_rounds_2_and_3_alternate_the_starting_side():
    t = Table()
    t.day([1, 2, 3, 5], [1, 2, 3, 5], start="blue")
    t.finish_round()
    t.do(Intel((4, 6, 7, 8)))
    t.do(Tokens("red", ()))
    t.do(Tokens("blue", ()))
    with pytest.raises(IllegalEvent, match="blue started day 1, so red starts day 2"):
        t.do(Start("blue"))
    assert t.do(Start("red")).starter == "red"


@rule("R13")
def test_R13_reveal_order_alternates_mission_by_mission():
    t = Table()
    t.day([1, 2, 3, 5], [1, 2, 3, 5], start="blue")
    order = []
    while t.state.phase == "mission":
        order.append(t.state.next_reveal())
        t.right()
    assert order == [("blue", 1), ("red", 1), ("blue", 2), ("red", 2),
                     ("blue", 3), ("red", 3), ("blue", 4), ("red", 4)]


@rule("R13")
def test_R13_a_reveal_out_of_turn_is_refused():
    t = Table()
    t.day([1, 2, 3, 5], [1, 2, 3, 5], start="red")
    with pytest.raises(OutOfTurn, match="it is red's turn to guess blue's mission 1"):
        t.do(Reveal("blue", 1, 2, 1))
    with pytest.raises(OutOfTurn, match="mission 1"):
        t.do(Reveal("red", 2, 2, 1))


@rule("R14", "R51")
def test_R14_deception_needs_a_token_and_spends_it():
    t = Table()
    t.day([1, 2, 3, 5], [2, 3, 5, 6], start="red")
    t.reveal(guess=2, deception=True)        # blue's Scout guessed right, token spent
    assert t.state.dt == {"red": 1, "blue": 0}
    assert t.last().outcome == "identified"
    t.reveal()
    with pytest.raises(IllegalEvent, match="blue holds no deception token"):
        t.reveal(deception=True)


@rule("R15")
def test_R15_round_end_draws_from_deployed_and_advances_the_day():
    t = Table()
    t.day([1, 2, 3, 5], [2, 3, 5, 6], start="red", intel=(4, 7, 8, 10))
    while t.state.phase == "mission":
        t.right()
    s = t.state
    assert (s.phase, s.day) == ("round_end", 1)
    ip, da = dict(s.ip), s.da
    with pytest.raises(IllegalEvent, match="did not deploy the Marshal"):
        t.do(Exhaust("red", (10,)))
    with pytest.raises(IllegalEvent, match="must have 1 soldier"):
        t.do(Exhaust("red", (1, 2)))
    t.do(Exhaust("blue", (6,)))
    s = t.do(Exhaust("red", (3,)))
    assert (s.phase, s.day, s.intel, s.old_intel) == ("intel", 2, None, ((4, 7, 8, 10),))
    assert s.exhausted == {"red": (3,), "blue": (6,)}
    assert (s.ip, s.da) == (ip, da)
    assert s.tokens == {"red": None, "blue": None} and s.revealed == {"red": {}, "blue": {}}


@rule("R15", "R3")
def test_R15_exhausted_soldier_cannot_be_revealed_or_revealed_twice():
    t = Table(red_exhausted=9, blue_exhausted=8)
    t.day([1, 2, 3, 5], [1, 2, 3, 5], start="red")
    with pytest.raises(IllegalEvent, match="event 6: blue's Colonel \\(8\\) is exhausted"):
        t.reveal(actual=8)
    t.right(); t.right(); t.right()
    with pytest.raises(IllegalEvent, match="red's Spy \\(1\\) was already revealed this round"):
        t.reveal(actual=1)


# --- resolution order (R20-R24) ----------------------------------------------------

@rule("R22", "R30")
def test_R22_R30_correct_guess_scores_2():
    t = Table()
    t.day([1, 2, 3, 5], [2, 3, 5, 6], start="red")
    s = t.right()
    assert s.ip == {"red": 2, "blue": 0}
    assert (t.last().outcome, t.last().rule) == ("identified", "R30")


@rule("R24", "R40")
def test_R24_R40_worked_example_spy_guessed_wrongly_gives_1_IP_and_a_token():
    t = Table()
    t.day([2, 3, 5, 6], [1, 3, 5, 6], start="red")
    s = t.reveal(guess=2)
    assert s.ip == {"red": 0, "blue": 1}
    assert s.dt == {"red": 1, "blue": 2} and s.supply == 1
    assert t.last().outcome == "activated"


@rule("R21", "R61")
def test_R21_R61_wrong_intel_token_counts_as_identified_whatever_the_guess():
    t = Table()
    # blue's mission 1 is the Miner, on the intel card, but carries no token
    t.day([1, 2, 3, 5], [3, 5, 6, 8], start="red", intel=(3, 7, 9, 10),
          tokens={"red": set(), "blue": set()})
    s = t.reveal(guess=10)
    assert (t.last().outcome, t.last().rule) == ("identified", "R61")
    assert s.ip["red"] == 2 and s.ip["blue"] == 0


@rule("R21", "R43")
def test_R21_R43_the_sergeant_may_lie_about_intel():
    t = Table()
    t.day([1, 2, 3, 5], [4, 5, 6, 8], start="red", intel=(4, 7, 9, 10),
          tokens={"red": set(), "blue": set()})
    s = t.reveal(guess=1)
    assert (t.last().outcome, s.ip["blue"]) == ("activated", 4)


@rule("R10", "R20", "R43")
def test_R10_R20_R43_the_sergeant_may_stand_anywhere():
    t = Table()
    t.day([5, 4, 6, 2], [4, 5, 6, 8], start="red")  # red's 2 after 6 is out of order
    t.reveal()
    t.reveal()
    t.reveal()
    s = t.reveal()  # red's Sergeant on mission 2, after the Lieutenant: fine
    assert t.last().outcome == "activated" and s.ip["red"] == 4


@rule("R23", "R46")
def test_R23_R46_bomb_makes_the_owners_next_reveal_retreat_and_is_used_up():
    t = Table()
    t.day([7, 8, 9, 10], [1, 2, 5, 6], start="blue")
    t.reveal()                                # blue guesses red 1: the Bomb activates
    assert t.state.effects["red"]["bomb"]
    s = t.reveal(guess=10, deception=True)    # red guesses blue's Spy wrongly: retreats
    assert (t.last().outcome, t.last().rule) == ("neutralised", "R46")
    assert s.ip == {"red": 0, "blue": 0} and s.dt["blue"] == 0   # the token is wasted
    assert not s.effects["red"]["bomb"]
    t.reveal()                                # blue guesses red 2 (Colonel): activated
    s = t.reveal(guess=10)                    # red guesses blue's Scout wrongly: activates now
    assert t.last().outcome == "activated" and s.ip["blue"] == 2


@rule("R46", "R47")
def test_R46_R47_bomb_then_identification_means_double_damage():
    t = Table()
    t.day([7, 8, 9, 10], [1, 2, 5, 6], start="blue")
    t.reveal()                                # red's Bomb activates
    t.right()                                 # red identifies blue's Spy: double damage
    assert t.state.double == {"red": False, "blue": True}
    assert "double_damage" in [e.kind for e in t.last().effects]
    while t.state.phase == "mission":
        t.right()
    with pytest.raises(IllegalEvent, match="blue must have 2 soldiers drawn \\(double damage"):
        t.do(Exhaust("blue", (1,)))
    t.do(Exhaust("blue", (1, 5)))
    s = t.do(Exhaust("red", (8,)))
    assert s.exhausted == {"red": (8,), "blue": (1, 5)}


@rule("R46", "R47")
def test_R46_a_bomb_on_the_8th_reveal_has_no_effect():
    t = Table()
    t.day([1, 2, 3, 7], [1, 2, 3, 5], start="red")
    for _ in range(7):
        t.right()
    s = t.reveal()                            # red's Bomb, on the last reveal of the round
    assert s.phase == "round_end" and s.effects["red"]["bomb"]
    from companion.engine import expected
    assert expected(s).count == {"red": 1, "blue": 1}
    t.do(Exhaust("red", (1,)))
    s = t.do(Exhaust("blue", (1,)))           # one soldier each: no double damage
    assert not any(s.effects[x]["bomb"] for x in ("red", "blue"))


@rule("R23", "R40")
def test_R23_R40_spy_owner_makes_the_enemy_marshal_retreat():
    t = Table()
    t.day([1, 3, 5, 6], [2, 3, 5, 10], start="blue")
    t.reveal()                                # red's Spy activates: spy effect for red
    t.right(); t.right(); t.right(); t.right(); t.right(); t.right()
    before = dict(t.state.ip)
    s = t.reveal(guess=9)                     # red guesses blue's Marshal wrongly
    assert (t.last().outcome, t.last().rule) == ("neutralised", "R40")
    assert s.ip == before and t.last().effects == ()


@rule("R23", "R42")
def test_R23_R42_miner_owner_makes_the_enemy_bomb_retreat():
    t = Table()
    t.day([3, 5, 6, 8], [1, 2, 7, 9], start="blue")
    t.reveal()                                # red's Miner: +3, miner effect
    assert t.state.ip["red"] == 3 and t.state.effects["red"]["miner"]
    t.right(); t.right(); t.right(); t.right()
    s = t.reveal(guess=1)                     # red guesses blue's Bomb wrongly
    assert (t.last().outcome, t.last().rule) == ("neutralised", "R42")
    assert not s.effects["blue"]["bomb"]


@rule("R20", "R22", "R60")
def test_R20_order_check_comes_before_a_correct_guess():
    t = Table()
    t.day([1, 2, 3, 5], [6, 5, 8, 9], start="red")
    t.reveal(choice="ip")                     # blue's Captain: +6
    t.reveal()                                # red's Spy: +1
    s = t.right()                             # blue's 5 after its 6: R60 despite the right guess
    assert t.last().rule == "R60"
    assert s.ip == {"red": 1 + 2, "blue": 0}


# --- scoring and the double agent (R30-R33) -----------------------------------------

@rule("R31")
def test_R31_reaching_10_infiltrates_moves_the_DA_by_the_day_and_loses_excess():
    t = Table()
    t.day([8, 9, 10, 2], [1, 2, 3, 5], start="blue", intel=(4, 6, 7, 1))
    # red deploys out of order only after mission 3; first two reveals are clean
    t.reveal()                                # red's Colonel: +8
    t.right()                                 # red identifies blue's Spy: +2 -> 10: infiltrate
    s = t.state
    assert s.ip["red"] == 0 and s.da == 1
    assert [e.kind for e in t.last().effects] == ["ip", "infiltrate", "da"]


@rule("R31", "R32")
def test_R31_day_two_infiltration_moves_two_steps():
    t = Table()
    t.day([1, 2, 3, 5], [1, 2, 3, 5], start="red")
    t.finish_round()
    t.day([6, 8, 9, 10], [1, 2, 3, 5], start="blue")
    t.reveal(choice="ip")                     # red's Captain: +6 (red had 8 from day 1)
    assert t.state.ip["red"] == 0 and t.state.da == 2


@rule("R32")
def test_R32_a_move_stops_on_the_enemy_wall_and_the_rest_is_lost():
    t = Table(wall=2)
    t.day([5, 9, 1, 2], [1, 2, 3, 5], start="blue")
    t.reveal()                                # red's Lieutenant: DA 1
    t.right()
    s = t.reveal()                            # red's General: 2 steps asked, 1 moved
    assert s.da == 2 and s.winner is None
    da = [e for e in t.last().effects if e.kind == "da"][0]
    assert (da.steps, da.asked) == (1, 2)


@rule("R32", "R70")
def test_R32_R70_a_move_starting_on_the_enemy_wall_captures_the_flag():
    t = Table(wall=2)
    t.day([5, 9, 10, 2], [1, 2, 3, 6], start="blue")
    t.reveal(); t.right(); t.reveal(); t.right()
    assert t.state.da == 2
    t.reveal(choice="ip")                     # red's Marshal +10 -> infiltrate -> capture
    s = t.state
    assert (s.winner, s.reason, s.phase, s.da) == ("red", "flag", "capture_check", 3)


@rule("R49", "R33")
def test_R49_R33_worked_example_marshal_drain_on_an_opponent_at_3_leaves_0():
    t = Table()
    t.day([5, 6, 9, 10], [3, 5, 6, 8], start="red", intel=(1, 2, 4, 7))
    t.reveal()                                # blue's Miner: blue 3
    t.reveal()                                # red's Lieutenant: DA 1
    t.right()                                 # red 2
    t.reveal(choice="ip")                     # red's Captain: red 8
    t.right()                                 # red 10: infiltrates, DA 2, red 0
    t.reveal()                                # red's General: DA 4 (the wall)
    t.right()                                 # red 2
    assert (t.state.ip, t.state.da) == ({"red": 2, "blue": 3}, 4)
    s = t.reveal(choice="drain")              # red's Marshal: +5, blue 3 -> 0
    assert (s.ip, s.da, s.phase) == ({"red": 7, "blue": 0}, 4, "round_end")
    assert t.last().effects[-1].to_dict() == {"kind": "drain", "side": "blue", "amount": 3}


# --- abilities (R40-R49) ---------------------------------------------------------

@rule("R40", "R51")
def test_R40_R51_spy_token_only_below_2_and_while_the_supply_lasts():
    t = Table()
    t.day([1, 2, 3, 5], [2, 3, 5, 6], start="blue")
    s = t.reveal(guess=2)                     # red's Spy: red 1 -> 2 DT
    assert s.dt["red"] == 2 and s.supply == 1
    t.finish_round(draw={"red": (2,), "blue": (2,)})
    t.day([1, 3, 5, 6], [1, 3, 5, 6], start="red")
    s = t.reveal(guess=2)                     # blue's Spy: blue 1 -> 2, supply 0
    assert s.dt == {"red": 2, "blue": 2} and s.supply == 0
    s = t.reveal(guess=2)                     # red's Spy: red holds 2 already
    assert s.dt == {"red": 2, "blue": 2} and s.supply == 0
    assert "dt" not in [e.kind for e in t.last().effects]
    assert s.dt["red"] + s.dt["blue"] + s.supply <= 4


@rule("R41", "R30")
def test_R41_scout_makes_the_owners_identifications_score_4():
    t = Table()
    t.day([1, 2, 3, 5], [2, 3, 5, 6], start="blue")
    t.reveal()                                # red's Spy: +1
    t.right()                                 # red identifies blue's Scout: +2 -> 3
    t.reveal(guess=1)                         # red's Scout activates: +2 -> 5, scout effect
    s = t.right()                             # red identifies blue's Miner: +4 -> 9
    assert s.ip["red"] == 9


@rule("R41", "R61")
def test_R41_R61_scout_bonus_applies_to_wrong_intel_identifications():
    t = Table()
    t.day([2, 3, 5, 6], [1, 5, 6, 8], start="blue", intel=(7, 9, 10, 4),
          tokens={"red": set(), "blue": {2}})
    t.reveal()                                # red's Scout: +2, scout effect
    t.right()                                 # red identifies blue's Spy: +4 -> 6
    t.right()                                 # blue identifies red's Miner
    s = t.reveal(guess=10)                    # blue's 5 has a lying token: R61, +4 -> 10
    assert t.last().rule == "R61" and s.ip["red"] == 0 and s.da == 1


@rule("R45")
def test_R45_captain_takes_6_IP_or_uses_an_exhausted_soldier():
    t = Table(red_exhausted=9)
    t.day([6, 7, 8, 10], [1, 2, 3, 5], start="blue")
    s = t.reveal(choice="use:9")              # red's Captain uses the exhausted General
    assert (s.ip["red"], s.da) == (0, 2)
    t2 = Table(red_exhausted=9)
    t2.day([6, 7, 8, 10], [1, 2, 3, 5], start="blue")
    assert t2.reveal(choice="ip").ip["red"] == 6


@rule("R45")
def test_R45_captain_needs_a_valid_choice():
    t = Table(red_exhausted=9)
    t.day([6, 7, 8, 10], [1, 2, 3, 5], start="blue")
    with pytest.raises(IllegalEvent, match="red's Captain was activated: its owner must choose "
                                           "one of ip, use:9"):
        t.reveal()
    with pytest.raises(IllegalEvent, match="not one of red's exhausted soldiers"):
        t.reveal(choice="use:3")
    with pytest.raises(IllegalEvent, match="must choose"):
        t.reveal(choice="use:9:ip")
    # a correct guess needs no choice, and one given is ignored
    s = t.right(choice="nonsense")
    assert t.last().choice is None and s.ip["blue"] == 2


@rule("R45", "R49")
def test_R45_captain_using_an_exhausted_marshal_follows_the_marshals_choice():
    t = Table(blue_exhausted=10)
    t.day([1, 2, 3, 5], [1, 3, 5, 6], start="blue")
    for _ in range(7):
        t.right()
    assert t.state.ip == {"red": 6, "blue": 8} and t.state.next_reveal() == ("red", 4)
    with pytest.raises(IllegalEvent, match="ip, use:10:ip / use:10:drain"):
        t.reveal(choice="use:10")
    s = t.reveal(choice="use:10:drain")       # blue's Captain: +5 (13 -> infiltrate), red -5
    assert s.ip == {"red": 1, "blue": 0} and s.da == -1


@rule("R45", "R40")
def test_R45_a_used_marshal_fizzles_against_the_enemy_spy_but_a_token_still_pays():
    t = Table(red_exhausted=10)
    t.day([1, 2, 6, 7], [1, 2, 3, 5], start="red")
    t.reveal(guess=2)                         # blue's Spy activates: spy effect for blue
    t.right()                                 # blue identifies red's Spy
    t.right(); t.right()
    t.right()
    s0 = dict(t.state.ip)
    s = t.reveal(choice="use:10:ip", deception=True)   # red's Captain uses the Marshal
    effects = [e.kind for e in t.last().effects]
    assert "fizzle" in effects and t.last().outcome == "activated"
    assert s.ip["red"] == s0["red"] + 4       # only the deception token pays


@rule("R45", "R40")
def test_R45_a_fizzled_marshal_needs_no_choice_of_its_own():
    """RECORD.md: a choice that is not needed is not asked for. Against an active enemy
    Spy the used Marshal fizzles, so "use:10" alone is accepted (issue 10)."""
    t = Table(red_exhausted=10)
    t.day([1, 2, 6, 7], [1, 2, 3, 5], start="red")
    t.reveal(guess=2)                         # blue's Spy activates: spy effect for blue
    t.right(); t.right(); t.right(); t.right()
    s0 = dict(t.state.ip)
    s = t.reveal(choice="use:10")             # red's Captain uses the Marshal: fizzles
    assert "fizzle" in [e.kind for e in t.last().effects] and s.ip == s0
    assert t.last().choice == "use:10"


@rule("R45", "R42")
def test_R45_a_used_bomb_fizzles_against_the_enemy_miner():
    t = Table(red_exhausted=7)
    t.day([1, 2, 6, 8], [3, 5, 6, 8], start="red")
    t.reveal(guess=1)                         # blue's Miner activates: miner effect for blue
    t.right(); t.right(); t.right(); t.right()
    s = t.reveal(choice="use:7")              # red's Captain uses the Bomb: fizzles
    assert not s.effects["red"]["bomb"]
    assert "fizzle" in [e.kind for e in t.last().effects]


@rule("R45", "R46")
def test_R45_a_used_bomb_works_like_an_activated_one():
    t = Table(red_exhausted=7)
    t.day([6, 8, 9, 10], [1, 2, 3, 5], start="blue")
    t.reveal(choice="use:7")
    assert t.state.effects["red"]["bomb"]
    t.reveal(guess=9)                         # red guesses blue's Spy wrongly: retreats
    assert t.last().rule == "R46"


@rule("R44", "R32")
def test_R44_lieutenant_moves_the_DA_one_step_toward_the_enemy_fort():
    t = Table()
    t.day([5, 6, 7, 8], [5, 6, 7, 8], start="red")
    assert t.reveal().da == -1                # blue's Lieutenant: toward red's fort
    assert t.reveal().da == 0                 # red's Lieutenant


@rule("R48", "R31")
def test_R48_worked_example_colonel_activated_at_7_moves_the_DA_and_leaves_5():
    t = Table()
    t.day([1, 4, 5, 8], [1, 2, 3, 5], start="blue", intel=(6, 7, 9, 10))
    t.reveal(guess=2)                         # red's Spy: 1
    t.right()                                 # red 3
    t.reveal()                                # red's Sergeant: 7
    t.reveal()                                # blue's Scout: blue 2
    t.right()                                 # blue identifies red's Lieutenant: 6 (Scout)
    t.reveal()                                # blue's Miner: blue 9
    assert t.state.ip == {"red": 7, "blue": 9} and t.state.da == 0
    s = t.reveal()                            # red's Colonel at 7: +3 to 10, DA, then +5
    assert (s.ip["red"], s.da) == (5, 1)
    kinds = [e.kind for e in t.last().effects]
    assert kinds == ["ip", "infiltrate", "da", "ip"]


@rule("R49")
def test_R49_marshal_takes_10_or_drains_and_needs_a_choice():
    t = Table()
    t.day([10, 1, 2, 3], [1, 2, 3, 5], start="blue")
    with pytest.raises(IllegalEvent, match="Marshal was activated: its owner must choose "
                                           "\"ip\" or \"drain\""):
        t.reveal()
    s = t.reveal(choice="ip")
    assert s.ip["red"] == 0 and s.da == 1    # 10 reached: infiltration, excess lost


# --- deception (R50-R51) -----------------------------------------------------------

@rule("R50", "R43")
def test_R50_worked_example_sergeant_under_a_deception_token_gives_4_plus_4():
    t = Table()
    t.day([1, 2, 3, 5], [4, 5, 6, 7], start="red")
    s = t.reveal(guess=10, deception=True)
    assert s.ip["blue"] == 8 and s.dt["blue"] == 0 and s.supply == 2
    kinds = [e.kind for e in t.last().effects]
    assert kinds == ["ip", "deception_pays", "ip"]


@rule("R50")
def test_R50_a_token_on_an_identified_card_is_simply_spent():
    t = Table()
    t.day([1, 2, 3, 5], [4, 5, 6, 7], start="red")
    s = t.right(deception=True)
    assert s.ip == {"red": 2, "blue": 0} and s.dt["blue"] == 0


# --- special rules (R60-R61) ------------------------------------------------------

@rule("R60", "R20")
def test_R60_incorrect_order_undoes_DA_zeroes_IP_and_gives_the_rest_away():
    t = Table()
    t.day([5, 9, 2, 6], [1, 2, 3, 5], start="blue")
    t.reveal()                                # red's Lieutenant: DA +1
    t.reveal()                                # blue's Spy: blue +1
    t.reveal()                                # red's General: DA +3
    t.right()                                 # red identifies blue's Scout: red 2
    assert (t.state.da, t.state.ip["red"]) == (3, 2)
    s = t.reveal(guess=2)                     # red's Scout after the General: R60
    assert (s.da, s.ip["red"], s.broken["red"]) == (0, 0, True)
    assert (t.last().outcome, t.last().rule) == ("identified", "R60")
    assert s.ip["blue"] == 3
    t.right()                                 # red still guesses and scores
    assert t.state.ip["red"] == 2
    s = t.reveal(guess=6, choice="ip")        # red's Captain: identified for blue, any guess
    assert t.last().rule == "R60" and s.ip["blue"] == 5


@rule("R60", "R32")
def test_R60_undoes_the_steps_actually_moved_not_those_asked_for():
    t = Table(wall=2)
    t.day([5, 9, 1, 2], [1, 2, 3, 5], start="blue")
    t.reveal()                                # red's Lieutenant: DA 1
    t.right()                                 # red 2
    t.reveal()                                # red's General: 2 asked, 1 moved: DA 2
    t.right()                                 # red 4
    s = t.reveal()                            # red's Spy after the General: R60
    assert (s.da, s.ip["red"]) == (0, 0)      # 2 steps back, not 3
    undo = t.last().effects[0]
    assert (undo.kind, undo.da_undone, undo.ip_lost) == ("order_broken", 2, 4)


@rule("R60", "R32")
def test_R60_walk_back_never_passes_the_own_wall():
    t = Table(wall=2)
    t.day([5, 9, 1, 2], [5, 9, 10, 4], start="blue")
    t.reveal()                                # red's Lieutenant: DA 1
    t.reveal()                                # blue's Lieutenant: DA 0
    t.reveal()                                # red's General: DA 2 (red moved 3 in all)
    t.reveal()                                # blue's General: DA 0
    s = t.reveal()                            # red's Spy after the General: R60
    assert (s.da, s.winner) == (-2, None)     # 3 steps back would pass red's own wall
    assert t.last().effects[0].da_undone == 2


@rule("R60")
def test_R60_fires_once_per_side_per_round():
    t = Table()
    t.day([8, 6, 2, 1], [1, 2, 3, 5], start="blue", intel=(4, 7, 9, 10))
    t.reveal()                                # red's Colonel: 8
    t.right()
    s = t.reveal(choice="ip")                 # red's Captain after the Colonel: R60
    assert s.ip["red"] == 0 and t.last().rule == "R60"
    t.right()
    t.reveal()
    assert [e.kind for e in t.last().effects] == ["ip"]   # no second R60 firing


@rule("R60", "R41")
def test_R60_cards_given_away_score_4_for_a_scout_owner():
    t = Table()
    t.day([3, 1, 2, 4], [2, 3, 5, 6], start="red")
    t.reveal(guess=1)                         # blue's Scout: +2, scout effect for blue
    s = t.reveal()                            # red's Miner activates: red 3
    t.right()
    s = t.reveal()                            # red's Spy after the Miner: R60, blue +4
    assert s.ip == {"red": 0, "blue": 6}


# --- end of the game (R70-R72) -----------------------------------------------------

@rule("R70", "R48", "R50")
def test_R70_the_game_stops_at_once_no_colonel_remainder_no_token_bonus():
    t = Table(wall=2, red_exhausted=9)
    t.day([5, 6, 8, 10], [1, 2, 3, 5], start="blue")
    t.reveal()                                # red's Lieutenant: DA 1
    t.right()                                 # red 2
    t.reveal(choice="use:9")                  # red's Captain uses the General: DA 2 (wall)
    t.right()                                 # red 4
    s = t.reveal(deception=True)              # Colonel: 12, infiltrates from the wall: flag
    assert (s.winner, s.reason, s.phase, s.da) == ("red", "flag", "capture_check", 3)
    assert s.ip["red"] == 0                   # no remainder of 2, no deception bonus
    assert [e.kind for e in t.last().effects] == ["ip", "infiltrate", "da", "flag"]


@rule("R70", "R31")
def test_R70_a_general_starting_on_the_wall_captures_on_day_1():
    t = Table(wall=3)
    t.day([5, 6, 8, 9], [1, 2, 3, 5], start="blue")
    t.reveal()                                # DA 1
    t.right()
    t.reveal(choice="ip")                     # red 2+6 = 8
    t.right()                                 # red 10: infiltrate, DA 2
    t.reveal()                                # red's Colonel: +8
    t.right()                                 # red 10: DA 3 = blue's wall
    s = t.reveal()                            # red's General: starts on the wall: flag
    assert (s.day, s.winner, s.reason, s.da) == (1, "red", "flag", 4)


@rule("R70", "R31", "R32")
def test_R70_worked_example_the_DA_reaches_the_flag_on_day_2():
    t = Table(wall=2)
    t.day([1, 2, 3, 5], [1, 2, 3, 5], start="red")
    t.finish_round()                          # both at 8 IP, DA at the centre
    assert (t.state.day, t.state.ip, t.state.da) == (2, {"red": 8, "blue": 8}, 0)
    t.day([5, 9, 10, 4], [2, 3, 5, 6], start="blue")
    t.reveal()                                # red's Lieutenant: DA 1
    s = t.right()                             # red 10: day-2 infiltration asks 2, walls at 2
    assert (s.ip["red"], s.da) == (0, 2)
    s = t.reveal()                            # red's General starts on blue's wall: flag
    assert (s.day, s.winner, s.reason, s.phase, s.da) == (2, "red", "flag", "capture_check", 3)
    s = t.check("red")                        # 5-9-10 and the Sergeant: in order
    assert (s.phase, s.winner, s.reason) == ("over", "red", "flag")


@rule("R70", "R71")
def test_R71_capture_check_confirms_the_flag():
    t = Table(wall=2)
    t.day([5, 9, 10, 4], [1, 2, 3, 6], start="red")
    t.right(); t.reveal(); t.right(); t.reveal(); t.right()
    s = t.reveal(choice="ip")                 # Marshal +10: infiltrates from the wall: flag
    assert (s.phase, s.winner, s.reason) == ("capture_check", "red", "flag")
    with pytest.raises(IllegalEvent, match="the capture check is for red, who captured"):
        t.do(Check("blue", ()))
    with pytest.raises(IllegalEvent, match="face-down missions are 4; the check must give"):
        t.do(Check("red", ()))
    s = t.check("red")                        # the Sergeant may stand anywhere
    assert (s.phase, s.winner, s.reason) == ("over", "red", "flag")
    with pytest.raises(GameOver, match="the game is over \\(red won by flag\\)"):
        t.do(Intel((1, 2, 3, 4)))


@rule("R71", "R60")
def test_R71_worked_example_capture_cancelled_by_the_capture_check():
    t = Table(wall=2)
    t.day([5, 9, 10, 8], [1, 2, 3, 6], start="red")
    t.right()                                 # red identifies blue's Spy: red 2
    t.reveal()                                # red's Lieutenant: DA 1
    t.right()                                 # red 4
    t.reveal()                                # red's General: DA 2
    t.right()                                 # red 6
    s = t.reveal(choice="ip")                 # red's Marshal +10: infiltrate from the wall
    assert s.phase == "capture_check" and s.winner == "red"
    s = t.check("red")                        # the Colonel on mission 4 breaks 5-9-10-8
    assert (s.phase, s.winner, s.reason) == ("over", "blue", "flag_cancelled")


@rule("R71")
def test_R71_check_ranks_must_be_real_cards():
    t = Table(wall=2, red_exhausted=3)
    t.day([5, 9, 10, 8], [1, 2, 4, 6], start="red")
    t.right(); t.reveal(); t.right(); t.reveal(); t.right()
    t.reveal(choice="ip")
    with pytest.raises(IllegalEvent, match="red's Lieutenant \\(5\\) cannot be on two missions"):
        t.do(Check("red", ((4, 5),)))
    with pytest.raises(IllegalEvent, match="exhausted"):
        t.do(Check("red", ((4, 3),)))
    with pytest.raises(OutOfTurn, match="no reveal is due now"):
        t.do(Reveal("blue", 4, 1, 8))


def _three_days(t: Table) -> None:
    t.day([1, 2, 3, 5], [1, 2, 3, 5], start="red")
    t.finish_round(draw={"red": (1,), "blue": (1,)})
    t.day([2, 3, 5, 6], [2, 3, 5, 6], start="blue")
    t.finish_round(draw={"red": (2,), "blue": (2,)})


@rule("R72")
def test_R72_worked_example_day_3_win_by_territory():
    t = Table()
    _three_days(t)
    t.day([5, 6, 7, 8], [1, 3, 6, 8], start="red")
    t.right()                                 # red identifies
    s = t.reveal()                            # red's Lieutenant: DA +1
    t.finish_round()
    s = t.state
    assert s.da > 0
    assert (s.phase, s.winner, s.reason, s.day) == ("over", "red", "territory", 3)


@rule("R72")
def test_R72_worked_example_day_3_win_by_IP_and_a_draw():
    t = Table()
    _three_days(t)
    t.day([1, 3, 6, 8], [1, 3, 6, 8], start="red")
    t.finish_round()
    s = t.state
    assert s.da == 0 and (s.winner, s.reason) in (("draw", "draw"),)
    t = Table()
    _three_days(t)
    t.day([1, 3, 6, 8], [1, 3, 6, 8], start="red")
    t.reveal(guess=2)                         # blue's Spy: blue +1 and nobody else differs
    t.finish_round()
    s = t.state
    assert s.da == 0 and s.ip["blue"] != s.ip["red"]
    assert (s.winner, s.reason) == ("blue" if s.ip["blue"] > s.ip["red"] else "red", "ip")


@rule("R47", "R72")
def test_R47_double_damage_has_no_effect_at_the_end_of_day_3():
    t = Table()
    _three_days(t)
    t.day([7, 8, 9, 10], [1, 3, 5, 6], start="red")
    t.right()
    t.reveal()                                # red's Bomb
    t.right()                                 # red identifies: double damage noted
    assert t.state.double["blue"]
    t.finish_round()
    assert (t.state.phase, t.state.day) == ("over", 3)


# --- team play (R80) ---------------------------------------------------------------

@rule("R80")
def test_R80_team_parts_are_missions_1_2_and_3_4():
    from companion.engine import expected, team_part
    assert [team_part(m) for m in (1, 2, 3, 4)] == [1, 1, 2, 2]
    t = Table()
    t.day([1, 2, 3, 5], [1, 2, 3, 5], start="red")
    t.right(); t.right(); t.right()
    assert expected(t.state).to_dict()["part"] == 1
    t.right()
    assert expected(t.state).to_dict() == {
        "type": "reveal", "sides": ["red"], "text": "Red: guess blue's mission 3",
        "mission": 3, "owner": "blue", "part": 2}


def test_every_rule_id_of_RULES_md_has_a_test_here():
    import pathlib
    import re
    here = pathlib.Path(__file__).resolve()
    spec = here.parents[3] / "shared" / "spec" / "RULES.md"
    if not spec.exists():
        pytest.skip("../shared/spec/RULES.md is not beside the checkout")
    ids = set(re.findall(r"\*\*(R\d+) ", spec.read_text()))
    marked = set(re.findall(r'@rule\(([^)]*)\)', here.read_text()))
    covered = {i for m in marked for i in re.findall(r"R\d+", m)}
    assert ids and ids <= covered, f"rules without a test: {sorted(ids - covered)}"
