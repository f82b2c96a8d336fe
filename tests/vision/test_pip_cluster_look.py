"""Groups of pips no die found explains, in blobs of touching dice, read at a top face's size
(`segment.pip_cluster_candidates`, `reader._pip_cluster_look`; docs/history/vision.md,
"Seventy-first session")."""

import cv2
import numpy as np
import pytest

from station.fakes.tray import random_tray
from station.vision.segment import (Candidate, _group_means, blob_components,
                                    pip_cluster_candidates)

SIDE = 44.0
LEFT, RIGHT = (80, 100), (124, 100)      # two dice side by side, touching


def _pair(right_pips: list[tuple[int, int]]) -> tuple[np.ndarray, tuple]:
    """A 200x220 pale floor with two touching grey dice, the left one showing a 4 and the
    right one the pips `right_pips` (offsets from its centre); the image and the blob
    components of its dice's outlines."""
    image = np.full((200, 220, 3), 225, np.uint8)
    blobs = np.zeros((200, 220), np.uint8)
    for (x, y), pips in ((LEFT, [(-10, -10), (10, -10), (-10, 10), (10, 10)]),
                         (RIGHT, right_pips)):
        half = int(SIDE / 2)
        cv2.rectangle(image, (x - half, y - half), (x + half - 1, y + half - 1), (120,) * 3, -1)
        cv2.rectangle(blobs, (x - half, y - half), (x + half - 1, y + half - 1), 255, -1)
        for dx, dy in pips:
            cv2.circle(image, (x + dx, y + dy), 4, (20,) * 3, -1)
    return image, blob_components(blobs)


THREE = [(-10, -10), (0, 0), (10, 10)]


def test_the_pips_of_a_die_beside_one_found_are_a_candidate_at_its_face():
    # (The blob's corners are spots too, read as no die by the look's first crop.)
    image, components = _pair(THREE)
    found = pip_cluster_candidates(components, image, SIDE, [Candidate(*LEFT, SIDE)], 0.6)
    at_face = [c for c in found if np.hypot(c.x - RIGHT[0], c.y - RIGHT[1]) < 0.1 * SIDE]
    assert len(at_face) == 1 and at_face[0].side == SIDE


def test_nothing_when_the_dice_found_explain_the_blob():
    # Both dice found: no room is left in their blob for another die.
    image, components = _pair(THREE)
    dice = [Candidate(*LEFT, SIDE), Candidate(*RIGHT, SIDE)]
    assert pip_cluster_candidates(components, image, SIDE, dice, 0.6) == []


def test_a_lone_die_s_blob_is_not_searched():
    # One die alone: its blob holds no other die (`PIP_BLOB`), whatever its pips.
    image = np.full((200, 220, 3), 225, np.uint8)
    blobs = np.zeros((200, 220), np.uint8)
    cv2.rectangle(image, (58, 78), (101, 121), (120,) * 3, -1)
    cv2.rectangle(blobs, (58, 78), (101, 121), 255, -1)
    cv2.circle(image, (80, 100), 4, (20,) * 3, -1)
    assert pip_cluster_candidates(blob_components(blobs), image, SIDE,
                                  [Candidate(200.0, 20.0, SIDE)], 0.6) == []


def test_pips_group_by_single_linkage():
    # A chain of pips 8 apart is one group whatever its length; a pip 30 away is another.
    points = np.array([[0.0, 0.0], [8.0, 0.0], [16.0, 0.0], [24.0, 0.0], [54.0, 0.0]])
    means = _group_means(points, 10.0)
    assert sorted(map(tuple, means)) == [(12.0, 0.0), (54.0, 0.0)]


@pytest.mark.parametrize("tray, index, value, colour", [
    # Trays of seed 7000: a green 3 (640x480) and a blue 3 (800x600), each touching a die
    # found, that no candidate came near enough to read (the classifier reads such a die
    # surely only within about a tenth of a side of its top face's centre, and at its top
    # face's size).
    (185, 8, 3, "green"),
    (97, 1, 3, "blue"),
])
def test_a_die_touching_one_found_is_found_at_its_pips(read_only_with, tray, index, value,
                                                       colour):
    read_only_with("_pip_cluster_look",
                   random_tray(np.random.default_rng([7000, tray]), dice=(1, 40)),
                   index, value, colour)
