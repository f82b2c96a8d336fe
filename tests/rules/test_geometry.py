"""The geometry module (inches), with exact cases: MEAS-1..3, TMPL-1, WM-DEV-1, WM-THR-1/2,
WM-TRM-1, WM-SLAM-1."""

import math

import pytest

from station.rules import geometry as geo
from station.rules.geometry import Model

SMALL, MEDIUM, LARGE = (geo.mm_to_in(d) for d in (30, 40, 50))


def test_meas1_units_and_base_to_base():
    assert geo.mm_to_in(25.4) == 1 and geo.in_to_mm(2) == 50.8
    # centres 5" apart, 1" and 2" bases: 5 - 0.5 - 1 = 3.5"
    assert geo.base_to_base((0, 0), 1, (3, 4), 2) == pytest.approx(3.5)
    assert geo.base_to_base((0, 0), 2, (1, 0), 2) == 0  # overlapping counts as contact
    assert geo.in_base_contact((0, 0), 1, (1, 0), 1)
    assert not geo.in_base_contact((0, 0), 1, (1.01, 0), 1)


def test_meas2_laser_reading_to_base_to_base_inches():
    assert geo.laser_base_to_base_in(254.0) == pytest.approx(10)
    # device 12.7 mm behind the base edge, spot on a 25 mm base's model: 12.5 mm radius
    assert geo.laser_base_to_base_in(254.0, -12.7, 12.5) == pytest.approx(
        (254 - 12.7 - 12.5) / 25.4)
    assert geo.laser_base_to_base_in(5, 0, 12.5) == 0


def test_meas3_move_toward_a_point_along_the_centre_line():
    assert geo.move_toward((0, 0), (3, 4), 2.5) == pytest.approx((1.5, 2.0))


@pytest.mark.parametrize("bearing, vector", [
    (0, (0, 1)), (90, (1, 0)), (180, (0, -1)), (270, (-1, 0)), (360, (0, 1)),
    (45, (math.sqrt(0.5), math.sqrt(0.5))),
])
def test_scat2_bearings_clockwise_from_up(bearing, vector):
    assert geo.bearing_vector(bearing, 1) == pytest.approx(vector)
    assert geo.bearing_of(*vector) == pytest.approx(bearing % 360)


@pytest.mark.parametrize("bearing, decimals, text", [
    (325.7, 0, "326"), (359.6, 0, "0"), (359.96, 1, "0.0"), (359.94, 1, "359.9"),
    (0.4, 0, "0"), (-0.3, 0, "0"), (90, 1, "90.0"),
])
def test_scat2_bearings_written_from_0_to_under_360(bearing, decimals, text):
    assert geo.bearing_text(bearing, decimals) == text


def test_tmpl1_templates_over_round_bases():
    assert geo.WFB_TEMPLATES_IN == {"small": 3.0, "large": 5.0}
    # a 1" base whose edge just touches the small template's edge is hit
    assert geo.under_template((0, 0), 3, (2, 0), 1)
    assert not geo.under_template((0, 0), 3, (2.001, 0), 1)
    models = [Model("a", (0, 2), 1), Model("b", (0, 3.1), 1), Model("c", (-2.9, 0), 1)]
    assert [m.name for m in geo.models_under((0, 0), 5, models)] == ["a", "c"]


@pytest.mark.parametrize("direction, vector", [
    (1, (0, 1)), (2, (math.sin(math.radians(60)), 0.5)), (3, (math.sin(math.radians(60)), -0.5)),
    (4, (0, -1)), (5, (-math.sin(math.radians(60)), -0.5)), (6, (-math.sin(math.radians(60)), 0.5)),
])
def test_wm_dev1_six_directions_clockwise_1_away_4_back(direction, vector):
    assert geo.deviation_offset(direction, 1) == pytest.approx(vector)


def test_wm_dev1_directions_follow_the_line_of_attack():
    # an attack toward +x (bearing 90): direction 1 is +x, 4 is back toward -x
    assert geo.deviation_offset(1, 2, 90) == pytest.approx((2, 0))
    assert geo.deviation_offset(4, 2, 90) == pytest.approx((-2, 0))
    with pytest.raises(ValueError):
        geo.deviation_bearing(7)


def test_wm_dev1_cap_is_half_the_distance():
    assert geo.capped_deviation(3, 5.5) == 2.75   # the Feral Warpwolf seed example
    assert geo.capped_deviation(2, 5.5) == 2


def test_wm_thr1_seed_landing_point():
    """STR 11: 5.5" along the throw, then 3" capped to 2.75" in direction 4 (straight back)."""
    intended, landing = geo.throw_points((1, 1), 0, 5.5, 4, 3)
    assert intended == pytest.approx((1, 6.5))
    assert landing == pytest.approx((1, 3.75))
    _, sideways = geo.throw_points((0, 0), 90, 5.5, 1, 3)
    assert sideways == pytest.approx((8.25, 0))


def test_wm_thr2_stops_on_contact_with_an_equal_or_larger_base():
    blocker = Model.wm("troll", (0, 6), "large")
    passed = Model.wm("grunt", (0.2, 3), "small")
    result = geo.straight_path((0, 0), (0, 10), MEDIUM, [blocker, passed],
                               passes_over=lambda m: m.base_in < MEDIUM)
    # contact when centres are (40 + 50) / 2 mm = 45 mm apart
    assert result.travelled_in == pytest.approx(6 - geo.mm_to_in(45))
    assert result.stop == pytest.approx((0, 6 - geo.mm_to_in(45)))
    assert result.blocked_by is blocker
    assert result.passed_over == (passed,)


def test_wm_thr2_reaches_the_end_and_ends_on_a_smaller_base():
    under = Model.wm("grunt", (0, 10), "small")
    result = geo.straight_path((0, 0), (0, 10), MEDIUM, [under],
                               passes_over=lambda m: m.base_in < MEDIUM)
    assert result.blocked_by is None and result.stop == (0, 10)
    assert result.ends_on == (under,)


def test_wm_slam1_seed_wall_after_4_inches():
    """A medium base slammed 6" straight back hits a wall whose face is 4" behind its edge."""
    wall = ((-5, 4 + MEDIUM / 2 + 4), (5, 4 + MEDIUM / 2 + 4))
    result = geo.straight_path((0, 4), (0, 10), MEDIUM, [], lambda m: True, [wall])
    assert result.blocked_by == "obstacle"
    assert result.travelled_in == pytest.approx(4)


def test_a_move_that_ends_touching_a_wall_has_met_it():
    """Slammed exactly the 4" to the wall: it ends in contact, and contact is what adds the
    die (WM-SLAM-1, WM-THR-3)."""
    wall = ((-5, 4 + MEDIUM / 2 + 4), (5, 4 + MEDIUM / 2 + 4))
    result = geo.straight_path((0, 4), (0, 8), MEDIUM, [], lambda m: True, [wall])
    assert result.blocked_by == "obstacle" and result.travelled_in == pytest.approx(4)
    short = geo.straight_path((0, 4), (0, 7.9), MEDIUM, [], lambda m: True, [wall])
    assert short.blocked_by is None


def test_wall_end_is_met_by_the_edge_of_the_base():
    # a 2" base moving along y=0 meets the end (5, 0.5) of a wall lying beside its path
    wall = ((5, 0.5), (5, 3))
    result = geo.straight_path((0, 0), (10, 0), 2, [], lambda m: True, [wall])
    assert result.travelled_in == pytest.approx(5 - math.sqrt(1 - 0.25))


def test_wm_trm1_trample_moves_through_small_stops_at_medium():
    smalls = [Model.wm(f"s{i}", (0, y), "small") for i, y in enumerate((2, 4))]
    medium = Model.wm("m", (0, 7), "medium")
    result = geo.straight_path((0, 0), (0, 8), LARGE, smalls + [medium],
                               passes_over=lambda m: m.base_in == SMALL)
    assert [m.name for m in result.passed_over] == ["s0", "s1"]
    assert result.blocked_by is medium
    assert result.travelled_in == pytest.approx(7 - geo.mm_to_in(45))


@pytest.mark.parametrize("gap", [1.0, 0.95])  # touching, or overlapping a little
def test_models_touching_at_the_start_are_ignored_when_moving_away(gap):
    thrower = Model.wm("thrower", (0, -MEDIUM * gap), "medium")
    result = geo.straight_path((0, 0), (0, 5), MEDIUM, [thrower], lambda m: False)
    assert result.blocked_by is None and result.travelled_in == 5


def test_moving_into_a_base_already_touched_stops_at_once():
    ahead = Model.wm("ahead", (0, MEDIUM * 0.95), "medium")
    result = geo.straight_path((0, 0), (0, 5), MEDIUM, [ahead], lambda m: False)
    assert result.blocked_by is ahead and result.travelled_in == 0


def test_wm_thr2_falls_with_less_than_an_inch_of_ground():
    assert geo.falls_from_elevation(0.9) and not geo.falls_from_elevation(1.0)
