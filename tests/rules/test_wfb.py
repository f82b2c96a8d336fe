"""WFB scatter and templates: SCAT-1..3, TMPL-1."""

from fractions import Fraction

import pytest

from station.rules.actions import RuleRefused, parse_params, resolve
from station.rules.faces import Face


def test_scat1_hit_does_not_move_and_ignores_the_distance_dice(run):
    out = run("wfb.scatter", "distance=2D6", dice="hit@80")
    assert out.outcome == "hit" and out.fields["result"] == "hit"
    assert out.fields["offset_in"] == [0, 0] and out.fields["distance_in"] == 0
    assert len(out.dice) == 1 and out.odds == Fraction(1, 3)
    assert out.fields["bearing_deg"] == 80  # SCAT-2: the HIT face's small arrow


@pytest.mark.parametrize("bearing, offset", [
    (0, [0, 7]), (90, [7, 0]), (180, [0, -7]), (270, [-7, 0]),
])
def test_scat2_arrow_moves_along_its_bearing(run, bearing, offset):
    out = run("wfb.scatter", "distance=2D6", dice=f"arrow@{bearing} 3 4")
    assert out.outcome == "arrow" and out.fields["distance_in"] == 7
    assert out.fields["offset_in"] == pytest.approx(offset)
    assert out.odds == Fraction(2, 3) * Fraction(6, 36)


def test_scat2_continuous_bearing(run):
    out = run("wfb.scatter", "distance=2D6", dice="arrow@30 2 2")
    assert out.fields["offset_in"] == pytest.approx([2.0, 3.4641016], abs=1e-6)
    assert out.fields["bearing_deg"] == 30


def test_scat2_an_arrow_a_hair_short_of_north_is_written_0_not_360(run):
    out = run("wfb.scatter", "distance=2D6", dice="arrow@359.8 2 2")
    assert out.headline.startswith('ARROW 4" at 0° — SCAT-2')
    assert out.fields["bearing_deg"] == 359.8       # the reading itself is kept


class _ArrowWithoutBearing:
    """A source (a camera that saw the arrow face but not its direction)."""

    def take(self, kind, count, purpose):
        return [Face("scatter", "arrow") if kind == "scatter" else Face("d6", 3)] * count


def test_scat2_an_arrow_without_a_bearing_is_refused_clearly():
    with pytest.raises(RuleRefused, match="SCAT-2.*bearing"):
        resolve("wfb.scatter", parse_params("wfb.scatter", []), _ArrowWithoutBearing())


def test_scat3_artillery_die_distance_and_misfire(run):
    out = run("wfb.scatter", "distance=A", dice="arrow@45 misfire")
    assert out.outcome == "misfire" and out.fields["offset_in"] is None
    assert "SCAT-3" in out.rules and out.odds == Fraction(2, 3) * Fraction(1, 6)
    moved = run("wfb.scatter", "distance=A", dice="arrow@45 8")
    assert moved.fields["distance_in"] == 8


def test_scat1_distance_cannot_be_the_scatter_die(run):
    with pytest.raises(RuleRefused, match="SCAT-1"):
        run("wfb.scatter", "distance=S")


@pytest.mark.parametrize("distance", ["2D6", "A", "D6", "D3+1"])
def test_scatter_odds_match_enumeration(odds_check, distance):
    odds_check("wfb.scatter", f"distance={distance}")


@pytest.mark.parametrize("template, offset, base_mm, covered", [
    ("small", "2,0", 25, False),       # 1.5 + 0.492 = 1.992 < 2
    ("small", "1.99,0", 25, True),     # any part under the template counts
    ("large", "0,2.9", 40, True),      # 2.5 + 0.787 > 2.9
    ("large", "3,3", 40, False),
    ("aoe4", "2.5,0", 30, True),       # 2 + 0.59 ≥ 2.5
])
def test_tmpl1_any_part_of_the_base(run, template, offset, base_mm, covered):
    out = run("template.covers", f"template={template}", f"offset={offset}",
              f"base_mm={base_mm}")
    assert out.fields["covered"] is covered and out.dice == []


@pytest.mark.parametrize("params", [("expr=2D6+5",), ("expr=D3x2",), ("expr=A+D6",),
                                    ("expr=2D6", "reroll=1"), ("expr=2D6", "reroll_dice=1"),
                                    ("expr=2D3", "reroll_dice=1"),
                                    ("expr=D6+D3", "reroll_dice=2,3"), ("expr=S",)])
def test_dice_roll_odds_match_enumeration(odds_check, params):
    odds_check("dice.roll", *params)


def test_dice_test_odds_match_enumeration(odds_check):
    odds_check("dice.test", "values=3,4")
    odds_check("dice.test", "values=0")
    odds_check("dice.test", "values=5", "reroll=1")
