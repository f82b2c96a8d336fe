"""The reader on rendered trays (station.fakes.tray): truth is exact, so every die counts."""

import math

import numpy as np
import pytest

from station.fakes.tray import random_tray, render_roll
from station.rules.faces import Face
from station.vision import read_tray
from station.vision.classifier import CLASSES, COCKED
from station.vision.calibration import calibrate_image
from station.vision.evaluation import Score, score_image
from station.vision.reader import SURE_FACE, _accept
from station.vision.segment import Candidate


def labels_of(rendered):
    return [{"value": t.value, "box": t.box} for t in rendered.truth]


def test_rendered_trays_are_read():
    rng = np.random.default_rng(7)
    total = Score()
    for size in [(640, 480), (1280, 960), (1920, 1080)]:
        rendered = random_tray(rng, size=size, dice=(8, 16))
        total.add(score_image(read_tray(rendered.image), labels_of(rendered)))
    assert total.labelled >= 24
    # Measured 0.80 (33 of 41) on these three trays (small dice at 640x480 are the hard
    # part); the benchmark reports the full figure over 500 trays.
    assert total.accuracy >= 0.78, total.confusion_text()
    assert total.false <= 2


def nearest(dice, point):
    return min(dice, key=lambda d: math.dist(d.center, point), default=None)


def test_leaning_dice_are_flagged_not_guessed():
    rng = np.random.default_rng(3)
    cocked = guessed = 0
    for _ in range(3):
        faces = [Face("d6", int(v)) for v in rng.integers(1, 7, 8)]
        rendered = render_roll(faces, rng, (1280, 960), cocked=0.4)
        dice = read_tray(rendered.image)
        for truth in rendered.truth:
            if "cocked" not in truth.flags:
                continue
            cocked += 1
            x0, y0, x1, y1 = truth.box
            seen = [d for d in dice if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]
            guessed += any(d.value is not None for d in seen)
    assert cocked >= 4
    assert guessed <= 2     # measured: 1 of 8 still gets a value


@pytest.fixture(scope="module")
def calibrated():
    rendered = random_tray(np.random.default_rng(21), size=(1280, 960), dice=(6, 10),
                           special={"scatter": (2, 2)}, markers=True, yaw_deg=30.0)
    return rendered, calibrate_image(rendered.image, die_mm=rendered.die_mm)


def test_calibration_gives_tray_millimetres_and_bearings(calibrated):
    rendered, profile = calibrated
    dice = read_tray(rendered.image, profile)
    assert all(d.center_mm is not None for d in dice)
    errors = []
    for truth in rendered.truth:
        die = nearest(dice, truth.center)
        if die is not None and math.dist(die.center, truth.center) < 10:
            errors.append(math.dist(die.center_mm, truth.center_mm))
            if truth.kind == "scatter" and truth.bearing_tray_deg is not None \
                    and die.bearing_deg is not None:
                assert abs((die.bearing_deg - truth.bearing_tray_deg + 180) % 360 - 180) < 10
    # Centres come from the die's outline, the truth is the top face's centre: within a
    # third of a die each, a sixth on average.
    assert len(errors) >= len(rendered.truth) - 1
    assert max(errors) < rendered.die_mm / 3 and np.mean(errors) < rendered.die_mm / 6
    assert {d.kind for d in dice} >= {"scatter"}


def test_two_touching_dice_taken_for_one_leaning_die_are_both_read():
    # Validation tray 9 of seed 777: a 4 and a 6 touching, seen as one candidate between
    # them that the classifier reads as a leaning die; the grid over that die's blob finds
    # both (before: one cocked die, reported without a value).
    rendered = random_tray(np.random.default_rng([777, 9]), dice=(1, 40))
    dice = read_tray(rendered.image)
    for truth in rendered.truth[3], rendered.truth[6]:
        assert "touching" in truth.flags
        x0, y0, x1, y1 = truth.box
        seen = [d for d in dice if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]
        assert [d.value for d in seen] == [truth.value]


def _reading(face: int, p: float) -> np.ndarray:
    probs = np.full(CLASSES, (1.0 - p) / (CLASSES - 1), np.float32)
    probs[face] = p
    return probs


@pytest.mark.parametrize("face_p, kept", [(0.96, 4), (0.9, COCKED)])
def test_a_sure_face_goes_before_a_surer_leaning_die_at_the_same_place(face_p, kept):
    # Two touching dice cut between them look like a leaning die, often surer than either
    # die read on its own; a face read at least SURE_FACE sure is kept first (validation
    # trays: flat dice flagged cocked 31 -> 26 of 331, leaning dice given a value unchanged).
    assert 0.9 < SURE_FACE <= 0.96
    between, on_a_die = Candidate(100, 100, 40), Candidate(112, 100, 40)
    [(where, probs)] = _accept([between, on_a_die],
                               np.array([_reading(COCKED, 0.99), _reading(4, face_p)]))
    assert int(probs.argmax()) == kept
    assert where is (on_a_die if kept == 4 else between)


def test_a_flat_die_seen_from_the_side_is_read_on_its_top_face_not_flagged_leaning():
    # Validation tray 135 of seed 777: a 1 in the frame's lower left shows two side faces;
    # cut on its outline it reads as leaning, the outward look finds its top face.
    rendered = random_tray(np.random.default_rng([777, 135]), dice=(1, 40))
    truth = rendered.truth[1]
    assert truth.flags == [] and truth.value == 1
    x0, y0, x1, y1 = truth.box
    seen = [d for d in read_tray(rendered.image)
            if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]
    assert [(d.value, d.flags) for d in seen] == [(1, [])]


def test_marker_tiles_do_not_set_the_size_of_the_dice():
    """A calibrated 4K frame with few dice: the calibration sheet's four marker tiles are
    larger than the dice, and read as dice they made the reader cut every die 1.5 times too
    wide (an artillery "2" then looked like one pip). With the profile the tiles are dropped
    before the dice are sized, and every die is read."""
    rng = np.random.default_rng(48)
    shot = random_tray(rng, size=(3840, 2160), dice=(1, 2), markers=True,
                       special={"scatter": (1, 1), "artillery": (1, 1)},
                       yaw_deg=float(rng.uniform(-180, 180)))
    profile = calibrate_image(shot.image)
    dice = read_tray(shot.image, profile, expect_special=True)
    for truth in shot.truth:
        die = nearest(dice, truth.center)
        assert die is not None and (die.kind, die.value) == (truth.kind, truth.value)


def test_a_die_cut_between_two_touching_dice_is_read_away_from_its_neighbour():
    """Two touching dice whose outlines overlap: the candidate of one lay between them and
    read as a leaning die (flagged cocked, no value). Read again away from its neighbour,
    its top face is found, and every die of the tray is read right (seed found on trays
    200-369; the reader before the away look flagged the "2" cocked)."""
    shot = random_tray(np.random.default_rng(369), size=(1280, 960), dice=(3, 8))
    dice = read_tray(shot.image)
    for truth in shot.truth:
        die = nearest(dice, truth.center)
        assert die is not None and die.value == truth.value, (truth.value, die)


def test_a_die_read_twice_off_its_centre_is_one_die():
    """A die seen much from the side makes a long blob with two distance maxima, neither at
    its top face's centre; both read as its face with doubt, too far apart for one die, one
    reading. Their midpoint reads the face surely: one die (benchmark tray 173 of seed
    2024; the reader before `_join_halves` reported 17 dice for 15, one of them wrong)."""
    assert_every_die_read_once(random_tray(np.random.default_rng([2024, 173]), dice=(1, 40)))


def test_a_two_read_on_one_pip_as_a_one_is_read_again_around_it():
    """A dark 2 whose outline filled only around one pip: the candidate there reads as a
    1, with doubt. Read again a third of its side around, the looks that are sure read a 2
    (benchmark tray 41 of seed 2024; the reader before `_one_pip_look` read that 2 as a
    1)."""
    assert_every_die_read_once(random_tray(np.random.default_rng([2024, 41]), dice=(1, 40)))


def assert_every_die_read_once(shot):
    dice = read_tray(shot.image)
    assert len(dice) == len(shot.truth)
    for truth in shot.truth:
        die = nearest(dice, truth.center)
        assert die is not None and die.value == truth.value, (truth.value, die)
