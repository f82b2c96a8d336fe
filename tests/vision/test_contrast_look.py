"""The contrast look (reader step 5, after the detail look): dice still undecided are read
again on crops with their contrast brought out; a face is taken only when all views agree."""

import json
from pathlib import Path

import cv2
import numpy as np

from station.vision import classifier, read_tray, reader
from station.vision.crops import CropSource
from station.vision.segment import Candidate

CONTRAST = Path(__file__).parent / "data" / "contrast"


def test_red_die_with_gold_pips_is_read():
    """Its pips differ from the body in hue more than in brightness: unreadable without the
    contrast look (the detail look leaves it undecided), a 5 with it."""
    name = "IMG_20191208_111751.jpg"
    label = json.loads((CONTRAST / "labels.json").read_text())[name][3]
    x0, y0, x1, y1 = label["box"]
    dice = [d for d in read_tray(cv2.imread(str(CONTRAST / name)))
            if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]
    assert len(dice) == 1 and dice[0].value == label["value"], dice
    assert "unreadable" not in dice[0].flags


def test_contrast_look_takes_only_agreed_faces(monkeypatch, reading, network):
    source = CropSource(np.full((200, 200, 3), 128, np.uint8))
    dice = [(Candidate(50, 50, 30), reading(3, 0.4)),                   # undecided: read
            (Candidate(150, 50, 30), reading(classifier.COCKED, 0.4)),  # leaning: left
            (Candidate(150, 150, 30), reading(2, 0.95))]                # sure: left
    monkeypatch.setattr(reader, "default_detail", lambda: network(5, 0.9))
    monkeypatch.setattr(reader, "default_classifier", lambda: network(5, 0.9))
    looked = reader._contrast_look(source, dice)
    assert int(looked[0][1].argmax()) == 5
    for (c, p), (c2, p2) in zip(dice[1:], looked[1:]):
        assert c2 is c and p2 is p
    # the classifier's view reads another face: no view is taken
    monkeypatch.setattr(reader, "default_classifier", lambda: network(4, 0.9))
    assert reader._contrast_look(source, dice)[0][1] is dice[0][1]
