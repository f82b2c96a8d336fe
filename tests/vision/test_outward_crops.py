"""Crops turned outward-up (docs/history/vision.md, ninth session): `crops.outward_angle`, the
training script's `--outward` crops and the reader's crops for an outward classifier.

Each test draws a grey die with a red dot just outward of it (away from the frame's centre)
and checks where the dot lands in the crop: at the top, whatever the quadrant. A wrong sign
in the angle would put it at the bottom or the side, differently for every die."""

import math

import cv2
import numpy as np
import pytest

from station.vision import classifier, reader
from station.vision.crops import OUTWARD_JITTER, CropSource, outward_angle
from station.vision.segment import Candidate

WIDTH, HEIGHT, SIDE = 640, 480, 40
# dice in all four quadrants, on both axes, and nearly diagonal
PLACES = [(520, 100), (110, 90), (90, 400), (540, 390), (600, 240), (320, 40), (40, 239),
          (319, 450)]


def die_with_outward_dot(x: int, y: int) -> np.ndarray:
    image = np.full((HEIGHT, WIDTH, 3), 60, np.uint8)
    half = SIDE // 2
    cv2.rectangle(image, (x - half, y - half), (x + half, y + half), (230, 230, 230), -1)
    dx, dy = x - (WIDTH - 1) / 2, y - (HEIGHT - 1) / 2
    reach = 0.45 * SIDE / math.hypot(dx, dy)
    cv2.circle(image, (round(x + dx * reach), round(y + dy * reach)), 4, (0, 0, 255), -1)
    return image


def dot_position(crop: np.ndarray) -> tuple[float, float]:
    """(x, y) of the red dot in a crop, relative to the crop's centre (y down)."""
    red = crop[..., 2].astype(int) - crop[..., 1]
    ys, xs = np.nonzero(red > 80)
    assert len(xs), "the red dot is not in the crop"
    centre = (crop.shape[0] - 1) / 2
    return float(xs.mean() - centre), float(ys.mean() - centre)


def assert_up(crop: np.ndarray, tolerance_deg: float) -> None:
    dx, dy = dot_position(crop)
    off = math.degrees(math.atan2(dx, -dy))   # 0 when straight up
    assert dy < 0 and abs(off) <= tolerance_deg, f"dot at ({dx:.1f}, {dy:.1f}), {off:.0f} deg"


@pytest.mark.parametrize("x, y", PLACES)
def test_outward_is_up_in_the_crop(x, y):
    image = die_with_outward_dot(x, y)
    crop = CropSource(image).crop(x, y, SIDE, outward_angle(x, y, WIDTH, HEIGHT))
    assert_up(crop, tolerance_deg=5)
    # an axis-aligned crop shows the dot the way it lies in the frame: the test can fail
    dx, dy = dot_position(CropSource(image).crop(x, y, SIDE))
    frame = math.atan2(y - (HEIGHT - 1) / 2, x - (WIDTH - 1) / 2)
    assert abs(math.remainder(math.atan2(dy, dx) - frame, math.tau)) < math.radians(5)


def test_training_crops_are_outward_up_within_the_jitter(monkeypatch):
    from station.vision.training import train_classifier
    from station.vision.training.train_classifier import Samples

    # the colours are augmented too (channel shuffles would hide the red dot): not tested here
    monkeypatch.setattr(train_classifier, "augment_colour", lambda crop, *_: crop)
    samples = Samples(np.random.default_rng(0), per_die=1, per_negative=0, outward=True)
    for x, y in PLACES:
        source = CropSource(die_with_outward_dot(x, y))
        for _ in range(5):
            samples.add(source, x, y, SIDE, 1)
    for crop in samples.crops:
        assert_up(crop, tolerance_deg=OUTWARD_JITTER + 5)


@pytest.fixture
def outward_classifier():
    """The committed weights, read as if trained on outward-up crops (the crops are what is
    tested here, not the readings)."""
    classifier.use_weights(classifier.WEIGHTS, outward=True)
    yield
    classifier.use_weights(classifier.WEIGHTS, classifier.OUTWARD)


def test_the_reader_cuts_outward_crops_for_an_outward_classifier(outward_classifier):
    for x, y in PLACES:
        image = die_with_outward_dot(x, y)
        [crop] = reader._crops(CropSource(image), [Candidate(x, y, SIDE)])
        assert_up(crop, tolerance_deg=5)


def second_look_views(monkeypatch, face_p: float = 0.5 / 8) -> list[np.ndarray]:
    """Every crop the second look shows the classifier for one die read as a 3 with doubt,
    which every view reads as a 3 `face_p` likely (by default it stays undecided and is
    looked at in all three sets of views)."""
    seen: list[np.ndarray] = []

    class Reading:
        def predict(self, crops):
            seen.extend(crops)
            p = np.full((len(crops), classifier.CLASSES), (1 - face_p) / 8, np.float32)
            p[:, 3] = face_p
            return p

    monkeypatch.setattr(reader, "default_classifier", Reading)
    x, y = PLACES[0]
    doubtful = np.full(classifier.CLASSES, 0.04, np.float32)
    doubtful[3] = 0.68
    reader._second_look(CropSource(die_with_outward_dot(x, y)),
                        [(Candidate(x, y, SIDE), doubtful)])
    return seen


def test_the_second_look_keeps_outward_up(outward_classifier, monkeypatch):
    """The mirror and small turns, no quarter turns; every view counted."""
    seen = second_look_views(monkeypatch)
    assert len(seen) == sum(len(views) for views in reader.OUTWARD_LOOKS)
    for crop in seen:   # within the turns the classifier was trained at
        assert_up(crop, tolerance_deg=OUTWARD_JITTER + 5)


def test_the_committed_classifier_reads_quarter_turns(monkeypatch):
    """Without an outward classifier the second look is quarter turns, then the mirror at
    four quarter turns: the dot goes round the crop."""
    seen = second_look_views(monkeypatch)
    assert len(seen) == 7
    assert {(dx > 0, dy > 0) for dx, dy in map(dot_position, seen)} == \
        {(False, False), (False, True), (True, False), (True, True)}


def test_a_die_settled_by_the_half_turn_is_not_read_further(monkeypatch):
    """Read again half a turn round as a 3 99 % sure, the die averages (0.68 + 0.99) / 2, over
    `SETTLED`: it is not read at the other quarter turns (on validation these changed no
    reading, and the second look read a fifth fewer crops without them)."""
    seen = second_look_views(monkeypatch, face_p=0.99)
    assert len(seen) == 1
    x, y = PLACES[0]
    [crop] = reader._crops(CropSource(die_with_outward_dot(x, y)), [Candidate(x, y, SIDE)])
    (dx, dy), (hx, hy) = dot_position(crop), dot_position(seen[0])
    assert abs(dx + hx) < 1.5 and abs(dy + hy) < 1.5    # the dot half a turn round
