"""The lean check: a die read with a value that leans on another is flagged, flat dice keep
their value (docs/history/vision.md, twenty-first and twenty-second sessions)."""

import numpy as np
import pytest

from station.fakes.tray import random_tray
from station.vision import classifier, read_tray, reader


def _readings_in(dice, box):
    x0, y0, x1, y1 = box
    return [d for d in dice if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]


# Leaning-dice trays (benchmarks' `leaning_items` recipe, lean seed 96, 640x480) with a leaning
# die the reader without the check gives a value (a 4 and a 5): (tray, the die's index in the truth).
@pytest.mark.parametrize("tray, die", [(57, 4), (6, 14)])
def test_a_leaning_die_read_as_a_face_is_flagged_and_the_flat_dice_are_read(tray, die):
    rendered = random_tray(np.random.default_rng([96, tray]), dice=(1, 30), cocked=0.3)
    assert "cocked" in rendered.truth[die].flags
    dice = read_tray(rendered.image)
    seen = _readings_in(dice, rendered.truth[die].box)
    assert seen and all(d.value is None and "cocked" in d.flags for d in seen)
    for truth in rendered.truth:
        if "cocked" not in truth.flags:
            assert truth.value in [d.value for d in _readings_in(dice, truth.box)]


def test_without_the_check_the_same_die_is_given_a_value():
    # What the check is for: the classifier alone reads that die's tilted top face as a 4.
    rendered = random_tray(np.random.default_rng([96, 57]), dice=(1, 30), cocked=0.3)
    classifier.use_lean(None)
    try:
        dice = read_tray(rendered.image)
    finally:
        classifier.use_lean(classifier.LEAN_WEIGHTS)
    assert [d.value for d in _readings_in(dice, rendered.truth[4].box)] == [4]


def test_the_check_weighs_the_distance_from_the_frame_centre():
    # The same crops far out from the frame's centre, where perspective shows a flat die's
    # side faces, must read differently from at the centre: the fourth input is used.
    check = classifier.default_lean()
    crops = np.random.default_rng(0).integers(0, 255, (4, 64, 64, 3), dtype=np.uint8)
    near, far = check.predict_at(crops, np.zeros(4)), check.predict_at(crops, np.full(4, 0.45))
    assert near.shape == far.shape == (4,)
    assert np.abs(near - far).max() > 1e-3


def test_a_flat_die_read_as_leaning_that_the_check_finds_flat_is_read():
    # Benchmark tray 313 of seed 2024 (640x480): a flat 2 the classifier reads as leaning
    # 0.98 sure; the check finds it leaning 0.05 likely (`reader.FLAT_BY_CHECK`, forty-fourth
    # session), so it is read as its likeliest pip face. Without the check it stays flagged.
    rendered = random_tray(np.random.default_rng([2024, 313]), dice=(1, 40))
    [two] = [t for t in rendered.truth if _readings_in([t], (180, 80, 215, 105))]
    assert two.value == 2 and "cocked" not in two.flags
    assert [d.value for d in _readings_in(read_tray(rendered.image), two.box)] == [2]
    classifier.use_lean(None)
    try:
        dice = read_tray(rendered.image)
    finally:
        classifier.use_lean(classifier.LEAN_WEIGHTS)
    assert [(d.value, d.flags) for d in _readings_in(dice, two.box)] == [(None, ["cocked"])]


def test_a_leaning_die_the_classifier_reads_as_flat_is_checked_and_flagged(monkeypatch):
    # Leaning tray 70 of the benchmark's seed 2025 (640x480): a leaning 3 the classifier
    # gives under 1 % P(leaning) (`reader.LEAN_DOUBT`), but 0.5 % or more: the check sees it
    # and finds it leaning 0.99 sure or more (`reader.LEAN_DOUBT_LOW`, forty-fourth session).
    rendered = random_tray(np.random.default_rng([2025, 70]), dice=(1, 30), cocked=0.3)
    three = rendered.truth[18]
    assert three.value == 3 and "cocked" in three.flags
    seen = _readings_in(read_tray(rendered.image), three.box)
    assert seen and all(d.value is None and "cocked" in d.flags for d in seen)
    monkeypatch.setattr(reader, "LEAN_DOUBT_LOW", (reader.LEAN_DOUBT, 0.99))
    assert 3 in [d.value for d in _readings_in(read_tray(rendered.image), three.box)]


# Leaning-dice trays of lean seed 7101 (the benchmark's recipe; development, sixtieth session):
# a leaning 6 touching another die and a lone leaning 4 that the check, at the place read,
# finds leaning over `reader.LEAN_ROUND_FROM` but under its cut-off: (tray, die, value).
@pytest.mark.parametrize("tray, die, value", [(15, 19, 6), (45, 14, 4)])
def test_a_leaning_die_the_check_doubts_where_read_is_flagged_by_the_check_round_it(
        monkeypatch, tray, die, value):
    # Round the place read (`reader._leaning_round`: 3 x 3 places, their 60th percentile) the
    # check is sure; without that second look the die is given its tilted face's value.
    rendered = random_tray(np.random.default_rng([7101, tray]), dice=(1, 30), cocked=0.3)
    truth = rendered.truth[die]
    assert truth.value == value and "cocked" in truth.flags
    seen = _readings_in(read_tray(rendered.image), truth.box)
    assert seen and all(d.value is None and "cocked" in d.flags for d in seen)
    monkeypatch.setattr(reader, "LEAN_ROUND_FROM", 2.0)               # never checked round
    assert value in [d.value for d in _readings_in(read_tray(rendered.image), truth.box)]
