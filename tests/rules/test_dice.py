"""DICE-1..7 rulings: rolls, re-rolls, roll-offs, random allocation, characteristic tests."""

from collections import Counter
from fractions import Fraction

import pytest

from station.rules.actions import RuleRefused, reroll
from station.rules.dice import percent_round_up, round_up_div
from station.rules.sources import ScriptedSource


def test_dice3_seed_examples():
    assert round_up_div(7, 2) == 4          # 7 on 2D6 halved → 4
    assert percent_round_up(10, 51) == 6    # 10% of 51 models → 6
    assert round_up_div(8, 2) == 4 and round_up_div(1, 2) == 1


def test_dice1_roll_2d6_plus_5(run):
    out = run("dice.roll", "expr=2D6+5", dice="3 4")
    assert out.outcome == "12" and out.fields["total"] == 12
    assert [f.value for f in out.dice] == [3, 4]
    assert out.odds == Fraction(1, 6)
    assert "DICE-1" in out.rules and "DICE-2" in out.rules


@pytest.mark.parametrize("expr, faces, total", [
    ("3D6-3", "1 1 1", 0), ("3D6-3", "6 6 6", 15), ("D6x5", "6", 30), ("D3", "5", 3),
    ("D3", "2", 1), ("D3", "3", 2), ("2D3+1", "1 6", 5), ("A", "8", 8), ("A+2", "misfire",
                                                                          "misfire"),
])
def test_dice1_totals(run, expr, faces, total):
    assert run("dice.roll", f"expr={expr}", dice=faces).fields["total"] == total


def test_dice3_d3_step_cites_round_up(run):
    out = run("dice.roll", "expr=D3", dice="5")
    assert "DICE-3" in out.rules and "5→3" in out.steps[1].text


def test_scat3_misfire_on_the_artillery_die(run):
    out = run("dice.roll", "expr=A", dice="misfire")
    assert out.outcome == "misfire" and "SCAT-3" in out.rules
    assert out.odds == Fraction(1, 6)
    assert not out.rerollable  # DICE-4: the artillery die is not re-rolled


def test_dice2_natural_faces_kept_beside_the_total(run):
    out = run("dice.roll", "expr=2D6+5", dice="6 6")
    assert [f.value for f in out.dice] == [6, 6] and out.fields["total"] == 17


def test_dice4_whole_roll_reroll_stands_even_if_worse(run):
    out = run("dice.roll", "expr=2D6", "reroll=1", dice="6 6 1 1")
    assert out.fields["total"] == 2
    assert [f.value for f in out.dice] == [6, 6, 1, 1]
    assert out.odds == Fraction(1, 36)
    assert not out.rerollable  # no die is re-rolled twice


def test_dice4_reroll_via_the_service_api(run):
    first = run("dice.roll", "expr=2D6+5", dice="1 2")
    assert first.rerollable and first.reroll_faces == 2
    again = reroll(first, ScriptedSource(["5", "5"]))
    assert [f.value for f in again.dice] == [1, 2, 5, 5]
    assert again.fields["total"] == 15 and not again.rerollable
    with pytest.raises(RuleRefused, match="DICE-4"):
        reroll(again, ScriptedSource(["1", "1"]))


def test_dice4_reroll_some_dice_each_once(run):
    out = run("dice.roll", "expr=3D6", "reroll_dice=1", dice="1 4 1 1 6")
    assert out.fields["total"] == 1 + 4 + 6  # the re-rolled 1 stands
    assert not out.rerollable


def test_dice4_reroll_ones_on_a_d3_rerolls_the_d3_result(run):
    """A D3 "showing 1" is a D6 face 1 or 2 (DICE-1): "re-roll 1s" re-rolls both; a D6 in
    the same expression is still judged by its own face."""
    out = run("dice.roll", "expr=2D3", "reroll_dice=1", dice="2 5 6")
    assert out.fields["total"] == 3 + 3  # the D3 from face 2 was a 1: re-rolled to a 6 → 3
    assert [f.value for f in out.dice] == [2, 5, 6]
    mixed = run("dice.roll", "expr=D6+D3", "reroll_dice=2", dice="2 3 4 1")
    assert mixed.fields["total"] == 4 + 1  # the D6's 2 is re-rolled, the D3's 2 (face 3) too
    kept = run("dice.roll", "expr=D6+D3", "reroll_dice=2", dice="3 2")
    assert kept.fields["total"] == 3 + 1 and [f.value for f in kept.dice] == [3, 2]


@pytest.mark.parametrize("expr", ["A", "S", "2D6+A"])
def test_dice4_artillery_and_scatter_dice_are_not_rerolled(run, expr):
    with pytest.raises(RuleRefused, match="DICE-4"):
        run("dice.roll", f"expr={expr}", "reroll=1", dice="4 4 4 4")


@pytest.mark.parametrize("params, faces", [
    (("expr=2D6", "reroll_dice=1"), "3 4"),     # no 1 showed: nothing was re-rolled
    (("expr=2D3", "reroll_dice=1"), "5 6"),
    (("expr=2D6",), "3 4"), (("expr=D3+2",), "2"),
])
def test_dice4_an_offered_reroll_is_one_the_ruling_accepts(run, params, faces):
    """`rerollable` (and the CLI's "re-roll allowed" line) never offers what reroll()
    then refuses."""
    first = run("dice.roll", *params, dice=faces)
    if first.rerollable:
        again = reroll(first, ScriptedSource(["6"] * 4))
        assert not again.rerollable


def test_dice4_both_reroll_kinds_refused(run):
    with pytest.raises(RuleRefused, match="more than once"):
        run("dice.roll", "expr=2D6", "reroll=1", "reroll_dice=1", dice="1 1 1 1")


def test_dice4_a_constant_has_nothing_to_reroll(run):
    out = run("dice.roll", "expr=5")
    assert out.fields["total"] == 5 and out.odds == 1 and not out.rerollable
    with pytest.raises(RuleRefused, match="no dice to re-roll"):
        run("dice.roll", "expr=5", "reroll=1")  # not "the re-roll stands" with nothing rolled


def test_scatter_die_roll(run):
    out = run("dice.roll", "expr=S", dice="hit@12")
    assert out.outcome == "hit" and out.fields["bearing_deg"] == 12
    assert out.odds == Fraction(1, 3)


def test_dice5_rolloff_keeps_every_round(run):
    out = run("dice.rolloff", dice="4 4 2 2 3 5")
    assert out.fields["winner"] == 2
    assert out.fields["rounds"] == [[4, 4], [2, 2], [3, 5]]
    assert out.odds == Fraction(1, 2)
    assert [s.rule for s in out.steps] == ["DICE-5"] * 3


def test_dice6_seed_example_one_of_five_rerolls_a_six(run):
    out = run("dice.allocate", "subjects=5", dice="6 6 3")
    assert out.fields["subject"] == 3 and out.odds == Fraction(1, 5)
    assert [f.value for f in out.dice] == [6, 6, 3]


def test_dice6_single_subject_needs_no_dice(run):
    out = run("dice.allocate", "subjects=1")
    assert out.fields["subject"] == 1 and out.dice == []


@pytest.mark.parametrize("n", [2, 5, 6, 7, 8, 12, 13, 36, 37])
def test_dice6_every_subject_equally_likely(walk, n):
    """Walk the dice tree (endless re-rolls cut at a depth) and check that the subjects
    share the mass equally: the convention for n > 6 must not favour a partial block."""
    mass = Counter()
    for p, out in walk("dice.allocate", f"subjects={n}", max_dice=5, truncate=True):
        mass[out.fields["subject"]] += p
        assert out.odds == Fraction(1, n)
    assert set(mass) == set(range(1, n + 1))
    assert len(set(mass.values())) == 1


def test_dice7_highest_value_and_equal_passes(run):
    out = run("dice.test", "values=3,4,2", dice="4")
    assert out.fields["characteristic"] == 4 and out.fields["passed"] is True
    assert out.odds == Fraction(4, 6)
    failed = run("dice.test", "values=4", dice="5")
    assert failed.fields["passed"] is False and failed.odds == Fraction(2, 6)
    assert failed.rerollable


def test_dice7_reroll_stands(run):
    out = run("dice.test", "values=4", "reroll=1", dice="6 1")
    assert out.fields["passed"] is True and out.fields["roll"] == 1 and not out.rerollable
