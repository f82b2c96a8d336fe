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
