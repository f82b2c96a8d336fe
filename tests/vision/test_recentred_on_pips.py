"""A pip die still without a face, touching no other, read at its top face's pips
(`segment.pip_groups`, `reader._recentred_on_pips`; docs/history/vision.md, "Seventy-first
session")."""

import cv2
import numpy as np
import pytest

from station.fakes.tray import random_tray
from station.vision import reader
from station.vision.classifier import COCKED
from station.vision.crops import CropSource
from station.vision.segment import Candidate, pip_groups

SIDE = 40
FIVE = [(-9, -9), (9, -9), (0, 0), (-9, 9), (9, 9)]


def _die(at=(100, 100), pips=FIVE) -> np.ndarray:
    """A 200x200 pale floor with a grey die of `SIDE` pixels at `at` showing `pips`."""
    image = np.full((200, 200, 3), 225, np.uint8)
    x, y = at
    cv2.rectangle(image, (x - SIDE // 2, y - SIDE // 2), (x + SIDE // 2 - 1, y + SIDE // 2 - 1),
                  (120,) * 3, -1)
    for dx, dy in pips:
        cv2.circle(image, (x + dx, y + dy), 4, (20,) * 3, -1)
    return image


def test_a_face_s_pips_are_grouped_at_its_centre():
    # Sought from a place a quarter side off the face (a die found at its outline's centre).
    # (The light body between dark pips makes groups of the other polarity too.)
    groups = pip_groups(_die(), 110.0, 95.0, 0.75 * SIDE, SIDE, 32)
    assert min(np.hypot(x - 100, y - 100) for x, y in groups) < 0.05 * SIDE


@pytest.fixture
def sure_five(monkeypatch, reading):
    """The classifier reads every crop as a 5, 0.95 sure; the lean check finds every die flat."""
    monkeypatch.setattr(reader, "_classify",
                        lambda source, places, *args, **kwargs:
                        np.array([reading(5, 0.95) for _ in places]))
    monkeypatch.setattr(reader, "_leaning", lambda places, source: np.zeros(len(places)))


def test_a_lone_faceless_die_is_read_at_its_pips(sure_five, reading):
    die = (Candidate(110.0, 95.0, SIDE), reading(COCKED, 0.99))
    [(place, p)] = reader._recentred_on_pips(CropSource(_die()), [die], {})
    assert np.hypot(place.x - 100, place.y - 100) < 0.1 * SIDE
    assert int(p[1:].argmax()) + 1 == 5


def test_a_faceless_die_beside_another_is_left_as_it_is(sure_five, reading):
    # A die leaning on another, read at its tilted top face's pips, can pass the lean check.
    faceless = (Candidate(110.0, 95.0, SIDE), reading(COCKED, 0.99))
    beside = (Candidate(110.0 + 1.1 * SIDE, 95.0, SIDE), reading(3, 0.99))
    assert reader._recentred_on_pips(CropSource(_die()), [faceless, beside], {}) == \
        [faceless, beside]


def test_a_place_read_as_no_die_does_not_replace_the_die(monkeypatch, reading):
    # The gate turns the place away: P(die) 0 is no pip face, however sure "given a die".
    monkeypatch.setattr(reader, "_classify",
                        lambda source, places, *args, **kwargs:
                        np.array([reading(0, 1.0) for _ in places]))
    monkeypatch.setattr(reader, "_leaning", lambda places, source: np.zeros(len(places)))
    die = (Candidate(110.0, 95.0, SIDE), reading(COCKED, 0.99))
    assert reader._recentred_on_pips(CropSource(_die()), [die], {}) == [die]


@pytest.mark.parametrize("tray, index, value, colour", [
    # Trays of seed 7150: a black 1 (800x600) and a grey 5 (640x480) lying apart, flagged
    # cocked at their outline's centre; read at their pips' centre, each reads its face
    # and the lean check finds it flat there.
    (142, 12, 1, "black"),
    (213, 27, 5, "grey"),
])
def test_a_flat_die_flagged_cocked_is_read_at_its_pips(read_only_with, tray, index, value,
                                                       colour):
    read_only_with("_recentred_on_pips",
                   random_tray(np.random.default_rng([7150, tray]), dice=(1, 40)),
                   index, value, colour, touching=False)
