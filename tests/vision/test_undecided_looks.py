"""The looks at dice still undecided after the detail look (reader step 5): the contrast look
reads them on crops with their contrast brought out, the colour look on crops lit by their
colour distance from the die's body and at other sizes; a face is taken only when all views
agree (docs/history/vision.md, fourteenth and sixteenth sessions)."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from station.vision import classifier, read_tray, reader
from station.vision.crops import CropSource
from station.vision.segment import Candidate

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("folder, name, index", [
    # a red die with gold pips, which differ from the body in hue more than in brightness:
    # unreadable without the contrast look (the detail look leaves it undecided), a 5 with it
    ("contrast", "IMG_20191208_111751.jpg", 3),
    # a smoke die whose red pips hardly differ from the dark body in brightness: unreadable
    # without the colour look (the detail and contrast looks leave it undecided), a 3 with it
    ("colour", "IMG_20191209_095854.jpg", 2),
])
def test_dice_of_low_contrast_are_read(folder, name, index):
    label = json.loads((DATA / folder / "labels.json").read_text())[name][index]
    x0, y0, x1, y1 = label["box"]
    dice = [d for d in read_tray(cv2.imread(str(DATA / folder / name)))
            if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]
    assert len(dice) == 1 and dice[0].value == label["value"], dice
    assert "unreadable" not in dice[0].flags


def test_distance_lit_makes_pips_of_another_hue_light_on_a_dark_die():
    """A red die with gold pips of about its brightness, on a grey floor: lit by colour
    distance from the body, the body is dark and the pips light."""
    crop = np.full((48, 48, 3), 170, np.uint8)
    cv2.rectangle(crop, (7, 7), (40, 40), (40, 40, 190), -1)       # red body
    cv2.circle(crop, (24, 24), 3, (40, 150, 170), -1)               # a gold pip
    lit = cv2.cvtColor(reader._distance_lit(crop[None])[0], cv2.COLOR_BGR2LAB)[..., 0]
    assert lit[24, 24] > lit[12, 12] + 100
    assert lit[2, 2] > lit[12, 12] + 100                            # the floor: light too


@pytest.mark.parametrize("look", ["_contrast_look", "_colour_look"])
def test_the_looks_take_only_agreed_faces(monkeypatch, reading, network, look):
    look = getattr(reader, look)
    source = CropSource(np.full((200, 200, 3), 128, np.uint8))
    dice = [(Candidate(50, 50, 30), reading(3, 0.4)),                   # undecided: read
            (Candidate(150, 50, 30), reading(classifier.COCKED, 0.4)),  # leaning: left
            (Candidate(150, 150, 30), reading(2, 0.95))]                # sure: left
    monkeypatch.setattr(reader, "default_detail", lambda: network(5, 0.9))
    monkeypatch.setattr(reader, "default_classifier", lambda: network(5, 0.9))
    looked = look(source, dice)
    assert int(looked[0][1].argmax()) == 5
    for (c, p), (c2, p2) in zip(dice[1:], looked[1:]):
        assert c2 is c and p2 is p
    # the classifier's view reads another face: no view is taken
    monkeypatch.setattr(reader, "default_classifier", lambda: network(4, 0.9))
    assert look(source, dice)[0][1] is dice[0][1]


@pytest.mark.parametrize("look", ["_contrast_look", "_colour_look"])
def test_the_looks_stop_once_the_views_disagree(monkeypatch, reading, network, look):
    """A die the views read first disagree on cannot be taken: the later views are not read."""
    look = getattr(reader, look)
    source = CropSource(np.full((200, 200, 3), 128, np.uint8))
    dice = [(Candidate(50, 50, 30), reading(3, 0.4))]
    calls = []

    class Counted(network):
        def predict(self, crops):
            calls.append(len(crops))
            return super().predict(crops)

    monkeypatch.setattr(reader, "default_classifier", lambda: Counted(4, 0.9))
    monkeypatch.setattr(reader, "default_detail", lambda: Counted(5, 0.9))
    assert look(source, dice)[0][1] is dice[0][1]
    assert len(calls) == 2   # the classifier's view and the first detail view, not the third
