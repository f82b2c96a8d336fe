"""The top-face look (reader step 6, last; docs/history/vision.md, eleventh session): a pip die still
read without a face is read again on its top face found in the image
(`special_dice.find_top_face`), when that face is square (`reader.SQUARE`): a flat die seen
obliquely is found off its top face, a leaning die's tilted top face is foreshortened."""

import math

import cv2
import numpy as np
import pytest

from station.fakes.tray import random_tray
from station.vision import classifier, read_tray, reader
from station.vision.crops import CropSource
from station.vision.segment import Candidate
from station.vision.special_dice import find_top_face


def leaning_check_tray(index: int):
    """A tray of the leaning-dice check (seed 99: 15 % of the dice leaning, special dice)."""
    return random_tray(np.random.default_rng([99, index]), size=(1280, 960), dice=(3, 15),
                       cocked=0.15, special={"scatter": (0, 2), "artillery": (0, 2)})


def truth_at(tray, x: float, y: float):
    [truth] = [t for t in tray.truth if math.hypot(t.center[0] - x, t.center[1] - y) < 3]
    return truth


def die_in(dice, box):
    """The one die read with its centre in the `box` (a die seen obliquely is found off its
    top face's centre)."""
    [die] = [d for d in dice
             if box[0] <= d.center[0] <= box[2] and box[1] <= d.center[1] <= box[3]]
    return die


def test_a_flat_die_seen_obliquely_is_read_on_its_top_face(monkeypatch):
    """A yellow 2 lying flat at r 0.3 of the half-diagonal, two side faces showing: found 0.6
    of its top face off the face's centre, every other look flags it `cocked` (but the patch
    look after this one, `reader._patch_look`, and the recentring at its pips,
    `reader._recentred_on_pips`, which read it too: kept off); read on its top face it is
    a 2."""
    tray = leaning_check_tray(25)
    truth = truth_at(tray, 401, 466)
    assert truth.value == 2 and "cocked" not in truth.flags
    with monkeypatch.context() as patch:
        patch.setattr(reader, "_top_face_look", lambda source, dice: dice)
        patch.setattr(reader, "_patch_look", lambda source, dice: dice)
        patch.setattr(reader, "_recentred_on_pips", lambda source, dice, *args: dice)
        before = die_in(read_tray(tray.image), truth.box)
    assert before.value is None and "cocked" in before.flags, before
    die = die_in(read_tray(tray.image), truth.box)
    assert die.value == 2 and die.flags == [], die
    assert math.hypot(die.center[0] - truth.center[0], die.center[1] - truth.center[1]) < 3


def test_a_leaning_die_with_a_face_like_top_stays_flagged(monkeypatch):
    """A yellow die leaning on another: its tilted top face, found in the image and read
    alone, reads as a 3 at least `SURE_FACE` sure, but it is not square: still flagged."""
    tray = leaning_check_tray(29)
    truth = truth_at(tray, 930, 598)
    assert "cocked" in truth.flags
    die = die_in(read_tray(tray.image), truth.box)
    assert die.value is None and "cocked" in die.flags, die
    # Without the lean check (which flags it too), the squareness is what keeps it flagged.
    monkeypatch.setattr(reader, "SQUARE", 0.0)
    classifier.use_lean(None)
    try:
        assert die_in(read_tray(tray.image), truth.box).value == 3
    finally:
        classifier.use_lean(classifier.LEAN_WEIGHTS)


@pytest.mark.parametrize("top, sure, replaced", [
    (5, 0.99, True),      # a pip face read surely at the top face: the die's reading
    (0, 1.0, False),      # the gate turns the place away: P(die) 0, though "sure given a die"
])
def test_the_top_face_s_reading_replaces_a_faceless_die_only_when_a_die(
        monkeypatch, reading, top, sure, replaced):
    at_face = Candidate(104.0, 97.0, 40.0)
    monkeypatch.setattr(reader, "_square_face", lambda source, dice, i, x, y: at_face)
    monkeypatch.setattr(reader, "_classify", lambda source, places, *args, **kwargs:
                        np.array([reading(top, sure) for _ in places]))
    faceless = (Candidate(110.0, 95.0, 40.0), reading(classifier.COCKED, 0.99))
    image = np.full((200, 200, 3), 200, np.uint8)
    [(place, p)] = reader._top_face_look(CropSource(image), [faceless])
    assert (place is at_face) == replaced
    assert (int(p[1:].argmax()) + 1 == top) == replaced


def polygon(*corners):
    return np.array(corners, np.float64)


@pytest.mark.parametrize("corners, square", [
    (polygon((100, 72), (128, 100), (100, 128), (72, 100)), True),     # a square, turned 45 deg
    (polygon((80, 87), (120, 87), (120, 113), (80, 113)), False),      # foreshortened to 0.65
    # foreshortened to 0.7 along a diagonal: a rhombus of equal sides, as square as a square
    # to its smallest enclosing rectangle (0.94)
    (polygon((100, 66), (124, 100), (100, 134), (76, 100)), False),
])
def test_the_top_face_found_is_measured(corners, square):
    """A light face on a dark floor: its centre, side and squareness as drawn."""
    image = np.full((200, 200, 3), 60, np.uint8)
    cv2.fillPoly(image, [np.round(corners).astype(np.int32)], (220, 220, 220))
    area = cv2.contourArea(corners.astype(np.float32))
    face = find_top_face(image, 104, 97, 1.4 * math.sqrt(area))
    assert face is not None
    assert math.hypot(face.x - 100, face.y - 100) < 1.5, face
    assert abs(face.side - math.sqrt(area)) < 0.1 * math.sqrt(area), face
    assert (face.squareness >= reader.SQUARE) == square, face
