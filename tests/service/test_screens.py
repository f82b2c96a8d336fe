"""The result screen's detail lines: the steps a player checks the result by."""

from station.rules.actions import parse_params, resolve, reroll
from station.rules.sources import ScriptedSource
from station.service.screens import outcome_screen


def details(outcome):
    return outcome_screen(outcome.to_json(), [], None, position=(1, 1)).details


def run(name, *params, dice):
    return resolve(name, parse_params(name, list(params)), ScriptedSource(dice.split()))


def test_a_throw_shows_the_contest_the_attack_and_the_deviation_in_order():
    # before: the last three steps backwards, WM-THR-4/3/2 boilerplate, none with a die
    thrown = run("wm.throw", "str=12", "target_str=5", "two_hands=1", "at_distance=4", "mat=6",
                 "at_def=14", dice="3 3 1 4 3 2 6")
    lines = details(thrown)
    assert lines[0].startswith("attacker 3+3+STR 12 = 18, target 1+STR 5 = 6")
    assert "13 < DEF 14: miss" in lines[1] and "capped at half of 4\"" in lines[2]


def test_after_a_re_roll_only_the_roll_that_counts_is_shown():
    first = run("wm.ranged", "rat=5", "def=13", dice="1 2")
    again = reroll(first, ScriptedSource("6 5".split()))
    lines = details(again)
    assert lines[-1].endswith("16 ≥ DEF 13: hit") and not any("8 < DEF 13" in l for l in lines)


def test_a_procedure_is_listed_in_its_order():
    lines = details(run("t9a.sequence", dice=""))
    assert [line.split(".")[0] for line in lines] == ["1", "2", "3"]


def test_a_ranged_attack_with_its_modifiers_shows_the_roll_that_decided_it():
    # before: the DEF, bonus and range steps, and not the attack roll "16 < DEF 19: miss"
    missed = run("wm.ranged", "rat=6", "def=13", "boosted=1", "aim=1", "back_strike=1",
                 "cover=1", "elevated_target=1", "rng=10", "distance=9.5", dice="4 1 1")
    lines = details(missed)
    assert len(lines) == 3 and lines[-1].endswith("16 < DEF 19: miss")
    assert lines[0].endswith("→ 19") and lines[1].endswith("→ +10")     # its modifiers
    # and a screen with room for one line shows that one
    assert outcome_screen(missed.to_json(), [], None, position=(1, 1)).key_detail == 2


def test_typed_dice_keep_the_roll_that_decided_it():
    missed = run("wm.ranged", "rat=6", "def=13", "cover=1", "aim=1", "rng=10", "distance=9.5",
                 dice="2 3")
    data = {**missed.to_json(), "typed": True}
    screen = outcome_screen(data, [], None, position=(1, 1))
    lines = screen.details
    assert lines[0].startswith("dice typed in") and lines[-1].endswith("13 < DEF 17: miss")
    assert screen.key_detail == len(lines) - 1


def test_the_initiative_order_shows_who_strikes_not_the_empty_steps():
    # before: "Agility 10: nobody", "Agility 9: nobody", "Agility 8: nobody"
    lines = details(run("t9a.initiative", "attacks=Knights:4:charged,Goblins:2,Ogres:3:grind",
                        dice=""))
    assert [line.split(":")[0] for line in lines] == ["Agility 5", "Agility 2", "Agility 0"]


def test_a_deviation_shows_where_it_lands():
    # a missed AOE deviating 3" (not capped): the direction step was left off for the prose
    # "a miss: the AOE deviates from the centre of the intended target"
    deviated = run("wm.aoe", "rat=5", "def=14", "pow=12", "aoe=3", "rng=10", "distance=8",
                   dice="2 2 5 3")
    lines = details(deviated)
    assert any("direction 5 (240° from the line of attack), 3\"" in line for line in lines)
    assert any("9 < DEF 14: miss" in line for line in lines)
