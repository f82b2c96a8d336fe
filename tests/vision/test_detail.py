"""The detail look (reader step 6): dice the classifier leaves undecided are read by the
detail network on 48x48 crops; leaning and surely read dice are left alone."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from station.vision import classifier, read_tray, reader
from station.vision.crops import CropSource
from station.vision.segment import Candidate

DETAIL = Path(__file__).parent / "data" / "detail"


@pytest.fixture
def no_detail():
    """Reads without the detail network, and without the outward opinion (the last check,
    which reads some of these dice too, so the detail look is judged alone); the committed
    ones restored afterwards."""
    classifier.use_detail(None)
    classifier.use_outward(None)
    yield
    classifier.use_detail(classifier.DETAIL_WEIGHTS)
    classifier.use_outward(classifier.OUTWARD_WEIGHTS)


def die_at(dice, box):
    x0, y0, x1, y1 = box
    inside = [d for d in dice if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]
    assert len(inside) == 1, inside
    return inside[0]


def undecided_dice():
    """(image, label) of the real dice the classifier alone reports unreadable."""
    labels = json.loads((DETAIL / "labels.json").read_text())
    for name, box_index in (("IMG_20191208_112342.jpg", 4), ("IMG_20191209_095906.jpg", 1)):
        yield cv2.imread(str(DETAIL / name)), labels[name][box_index]


def test_detail_network_reads_real_dice_the_classifier_cannot(no_detail):
    """A swirled blue die with red pips (a 6) and a translucent smoke die (a 2), in photos
    the detail network was not trained on (its validation part): unreadable at 32x32, read
    right by the detail look."""
    images = list(undecided_dice())
    for image, label in images:
        assert "unreadable" in die_at(read_tray(image), label["box"]).flags
    classifier.use_detail(classifier.DETAIL_WEIGHTS)
    for image, label in images:
        die = die_at(read_tray(image), label["box"])
        assert die.value == label["value"] and "unreadable" not in die.flags, die


class SureOfFive:
    """A stand-in detail network that reads every crop as a five, 97 % sure."""

    def predict(self, crops):
        probs = np.full((len(crops), classifier.CLASSES), 0.03 / (classifier.CLASSES - 1))
        probs[:, 5] = 0.97
        return probs


def test_detail_look_reads_only_undecided_dice(monkeypatch, reading):
    monkeypatch.setattr(reader, "default_detail", lambda: SureOfFive())
    source = CropSource(np.full((200, 200, 3), 128, np.uint8))
    dice = [(Candidate(50, 50, 30), reading(3, 0.4)),                  # undecided: read
            (Candidate(150, 50, 30), reading(classifier.COCKED, 0.4)),  # leaning: left
            (Candidate(50, 150, 30), reading(classifier.SPECIAL, 0.4)),  # special: left
            (Candidate(150, 150, 30), reading(2, 0.95))]                 # sure: left
    looked = reader._detail_look(source, dice)
    assert int(looked[0][1].argmax()) == 5
    for (c, p), (c2, p2) in zip(dice[1:], looked[1:]):
        assert c2 is c and p2 is p


def test_detail_look_takes_no_unsure_face(monkeypatch, reading):
    class Unsure(SureOfFive):
        def predict(self, crops):
            return np.array([reading(5, reader.DETAIL_SURE - 0.05)] * len(crops))

    monkeypatch.setattr(reader, "default_detail", lambda: Unsure())
    source = CropSource(np.full((100, 100, 3), 128, np.uint8))
    dice = [(Candidate(50, 50, 30), reading(3, 0.4))]
    assert reader._detail_look(source, dice)[0][1] is dice[0][1]
