"""The grid over clusters of touching dice (`segment.cluster_candidates`): read coarse to
fine, and kept off the dice already read."""

import math

import numpy as np
import pytest

from station.vision import classifier, reader
from station.vision.segment import (CLUSTER_FILL, GRID_CLEAR, GRID_CORE, SPRAWL_CLEAR,
                                    Candidate, blob_components, blob_distances,
                                    cluster_candidates)

SIDE = 20.0


@pytest.fixture
def cluster():
    """One blob of three by two dice, as touching dice make it; nothing found in it yet."""
    blobs = np.zeros((120, 160), np.uint8)
    blobs[30:30 + 2 * int(SIDE), 40:40 + 3 * int(SIDE)] = 255
    return blob_components(blobs), blob_distances(blobs)


def points(found):
    return {(round(c.x, 3), round(c.y, 3)) for c in found}


def test_coarse_and_fine_points_make_the_whole_grid(cluster):
    blobs, dist = cluster
    whole = points(cluster_candidates(blobs, dist, SIDE, []))
    coarse = points(cluster_candidates(blobs, dist, SIDE, [], coarse=True))
    fine = points(cluster_candidates(blobs, dist, SIDE, [], coarse=False))
    assert coarse and fine
    assert not coarse & fine
    assert coarse | fine == whole
    # every other point of every other row: a grid of twice the pitch, a quarter of the points
    pitch = 0.25 * SIDE
    assert min(math.dist(a, b) for a in coarse for b in coarse if a != b) == pytest.approx(
        2 * pitch)
    assert len(coarse) <= len(whole) / 3


def test_no_fine_points_around_an_unsure_die_but_near_its_centre(cluster):
    blobs, dist = cluster
    whole = points(cluster_candidates(blobs, dist, SIDE, []))
    x, y = sorted(whole)[len(whole) // 2]       # a grid point in the middle of the blob
    die = Candidate(x, y, SIDE)
    kept = points(cluster_candidates(blobs, dist, SIDE, [die], unsure=[die]))
    near = {p for p in whole if math.dist(p, (x, y)) < GRID_CORE * SIDE}
    ring = {p for p in whole
            if GRID_CORE * SIDE + 1 < math.dist(p, (x, y)) < GRID_CLEAR * SIDE - 1}
    far = {p for p in whole if math.dist(p, (x, y)) > GRID_CLEAR * SIDE + 1}
    assert near and ring and far
    assert near <= kept            # points there may read the die better centred
    assert not ring & kept         # points there would only find it again off-centre
    assert far <= kept


def test_no_points_near_a_settled_die(cluster):
    blobs, dist = cluster
    whole = points(cluster_candidates(blobs, dist, SIDE, []))
    x, y = sorted(whole)[len(whole) // 2]
    die = Candidate(x, y, SIDE)
    kept = points(cluster_candidates(blobs, dist, SIDE, [die], settled=[die]))
    assert kept and kept < whole
    assert all(math.dist(p, (x, y)) > GRID_CLEAR * SIDE - 1 for p in kept)


def test_a_sprawling_cluster_gets_a_grid_off_the_dice_found():
    # Four touching dice in a diagonal chain fill a quarter of their blob's box (a tray's
    # wall or frame fills as little, but is no die: CLUSTER_DICE); the dice missed in such a
    # blob lie away from those found, a leaning die's top face within a die of its reading.
    blobs = np.zeros((160, 160), np.uint8)
    centres = [(30 + 22 * k, 30 + 22 * k) for k in range(4)]
    for x, y in centres:
        blobs[y - 12:y + 12, x - 12:x + 12] = 255
    components, dist = blob_components(blobs), blob_distances(blobs)
    stats = components[1][1]
    assert stats[4] / (stats[2] * stats[3]) < CLUSTER_FILL
    assert cluster_candidates(components, dist, SIDE, [])
    found, leaning = Candidate(*centres[1], SIDE), Candidate(*centres[3], SIDE)
    kept = points(cluster_candidates(components, dist, SIDE, [found, leaning],
                                     doubtful=[leaning], unsure=[found]))
    assert any(math.dist(p, centres[0]) < 0.3 * SIDE for p in kept)
    assert all(math.dist(p, centres[1]) > GRID_CLEAR * SIDE - 1 for p in kept)
    assert all(math.dist(p, centres[3]) > SPRAWL_CLEAR * SIDE - 1 for p in kept)


def reading(top: int, p_top: float) -> np.ndarray:
    """Class probabilities: `top` read `p_top` sure, the rest spread evenly."""
    p = np.full(classifier.CLASSES, (1 - p_top) / (classifier.CLASSES - 1))
    p[top] = p_top
    return p


def test_a_die_the_grid_found_clears_it_only_when_read_very_surely():
    first = [Candidate(50, 50, SIDE), Candidate(150, 50, SIDE)]
    found = [Candidate(50, 150, SIDE), Candidate(150, 150, SIDE)]
    dice = [(first[0], reading(3, 0.92)),                    # first search, sure: clears
            (first[1], reading(classifier.COCKED, 0.99)),    # leaning: never clears
            (found[0], reading(3, 0.92)),                    # grid, sure, off-centre maybe
            (found[1], reading(5, reader.SURE_FACE + 0.01))]  # grid, very sure: clears
    assert reader._grid_settled(dice, first) == [first[0], found[1]]


def test_only_dice_read_unsurely_as_pips_keep_just_their_centres():
    dice = [(Candidate(50, 50, SIDE), reading(2, 0.7)),                  # unsure pips
            (Candidate(150, 50, SIDE), reading(2, 0.95)),                # sure
            (Candidate(50, 150, SIDE), reading(classifier.SPECIAL, 0.7)),  # special
            (Candidate(150, 150, SIDE), reading(classifier.COCKED, 0.7)),  # leaning
            (Candidate(100, 100, SIDE), reading(4, 0.3))]                # unreadable
    assert reader._grid_unsure(dice) == [dice[0][0]]
