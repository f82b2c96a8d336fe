"""The outward network's second opinion (reader step 6, last checks; docs/vision.md, tenth
session): pip dice every other look read without a face are read by the outward network on
outward-up crops, and a face it reads `reader.OUTWARD_SURE` sure replaces the flag."""

import math

import numpy as np
import pytest

from station.fakes.tray import random_tray
from station.vision import classifier, read_tray, reader
from station.vision.crops import CropSource
from station.vision.segment import Candidate


def rendered_tray(seed: int, index: int):
    return random_tray(np.random.default_rng([seed, index]), size=(640, 480), dice=(3, 8),
                       cocked=0.15)


def die_at(dice, x: float, y: float):
    [die] = [d for d in dice if math.hypot(d.center[0] - x, d.center[1] - y) < 12]
    return die


@pytest.fixture
def no_outward_opinion():
    classifier.use_outward(None)
    yield
    classifier.use_outward(classifier.OUTWARD_WEIGHTS)


def test_a_flat_die_away_from_the_centre_flagged_cocked_is_read(no_outward_opinion):
    """A purple 6 lying flat near the top-right corner (r 0.57 of the half-diagonal): the
    committed classifier calls it leaning at every look, the outward network reads the 6."""
    tray = rendered_tray(31, 28)
    [truth] = [t for t in tray.truth if math.hypot(t.center[0] - 521, t.center[1] - 130) < 5]
    assert truth.value == 6 and "cocked" not in truth.flags
    assert "cocked" in die_at(read_tray(tray.image), *truth.center).flags
    classifier.use_outward(classifier.OUTWARD_WEIGHTS)
    die = die_at(read_tray(tray.image), *truth.center)
    assert die.value == 6 and die.flags == [], die


def test_a_leaning_die_stays_flagged():
    """A die leaning on another, whose tilted top face (a 4) is the face the outward network
    likes best for it (about 10 %): still flagged, no value."""
    tray = rendered_tray(31, 6)
    [truth] = [t for t in tray.truth if math.hypot(t.center[0] - 396, t.center[1] - 182) < 12]
    assert "cocked" in truth.flags
    die = die_at(read_tray(tray.image), *truth.center)
    assert die.value is None and "cocked" in die.flags, die


class Sure:
    """A stand-in outward network that reads every crop as `face`, `p` sure; it keeps the
    crops it was shown."""

    def __init__(self, face: int, p: float) -> None:
        self.face, self.p, self.seen = face, p, []

    def predict(self, crops):
        self.seen.extend(crops)
        probs = np.full((len(crops), classifier.CLASSES), (1 - self.p) / (classifier.CLASSES - 1))
        probs[:, self.face] = self.p
        return probs


def test_only_pip_dice_without_a_face_are_asked(monkeypatch, reading):
    net = Sure(5, reader.OUTWARD_SURE + 0.01)
    monkeypatch.setattr(reader, "default_outward", lambda: net)
    source = CropSource(np.full((200, 300, 3), 128, np.uint8))
    dice = [(Candidate(50, 50, 30), reading(classifier.COCKED, 0.8)),     # leaning: asked
            (Candidate(250, 50, 30), reading(3, 0.3)),                    # unreadable: asked
            (Candidate(50, 150, 30), reading(classifier.SPECIAL, 0.4)),   # special: left
            (Candidate(250, 150, 30), reading(2, 0.95))]                  # read: left
    opinion = reader._outward_opinion(source, dice)
    assert len(net.seen) == 2
    assert [int(p.argmax()) for _, p in opinion[:2]] == [5, 5]
    assert all(c is c2 for (c, _), (c2, _) in zip(dice, opinion))
    for (_, p), (_, p2) in zip(dice[2:], opinion[2:]):
        assert p2 is p


@pytest.mark.parametrize("face, p", [(5, reader.OUTWARD_SURE - 0.01), (classifier.COCKED, 0.99),
                                     (classifier.SPECIAL, 0.99)])
def test_no_unsure_face_and_no_other_class_replaces_the_flag(monkeypatch, reading, face, p):
    monkeypatch.setattr(reader, "default_outward", lambda: Sure(face, p))
    source = CropSource(np.full((100, 100, 3), 128, np.uint8))
    dice = [(Candidate(50, 50, 30), reading(classifier.COCKED, 0.8))]
    assert reader._outward_opinion(source, dice)[0][1] is dice[0][1]


def test_the_outward_network_gets_outward_up_crops(monkeypatch, reading):
    """A die to the right of the frame's centre with a dark mark on its outward (right)
    side: the crop shows the mark at the top, as the outward network was trained."""
    image = np.full((200, 300, 3), 60, np.uint8)
    image[85:115, 235:265] = 230
    image[95:105, 258:265] = 0
    net = Sure(5, 0.5)
    monkeypatch.setattr(reader, "default_outward", lambda: net)
    reader._outward_opinion(CropSource(image), [(Candidate(250, 100, 30),
                                                 reading(classifier.COCKED, 0.8))])
    [crop] = net.seen
    dark_rows = np.nonzero((crop[..., 0] < 30).any(axis=1))[0]
    assert len(dark_rows) and dark_rows.max() < crop.shape[0] / 2
