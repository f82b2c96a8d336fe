"""Dice the reader used to miss (docs/history/vision.md, "Eighth session: missed dice" and "Eleventh
session: a lone die")."""

import numpy as np
import pytest

from station.fakes.tray import random_tray, render_roll
from station.rules.faces import Face
from station.vision import read_tray, reader, segment
from station.vision.classifier import CLASSES, COCKED
from station.vision.reader import SPLIT_APART, _accept
from station.vision.segment import Candidate


def _reading(face: int, p: float) -> np.ndarray:
    probs = np.full(CLASSES, (1.0 - p) / (CLASSES - 1), np.float32)
    probs[face] = p
    return probs


def _read_in_box(rendered, truth):
    """The reading in the die's box nearest its top face's centre, or None."""
    x0, y0, x1, y1 = truth.box
    seen = [d for d in read_tray(rendered.image)
            if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]
    return min(seen, default=None, key=lambda d: np.hypot(d.center[0] - truth.center[0],
                                                          d.center[1] - truth.center[1]))


def _assert_read_at_its_centre(rendered, truth):
    """The die is read with its value, within half its box's width of its centre."""
    nearest = _read_in_box(rendered, truth)
    assert nearest is not None and nearest.value == truth.value
    assert np.hypot(nearest.center[0] - truth.center[0],
                    nearest.center[1] - truth.center[1]) < 0.5 * (truth.box[2] - truth.box[0])


def _without_other_looks(monkeypatch):
    """The dropped-die, other-colour, residue and pip-cluster looks off: they find some of
    these dice too, so the halves that show a die missed without the look under test switch
    them off as well."""
    for look in ("_dropped_die_look", "_other_colour_look", "_residue_look",
                 "_pip_cluster_look"):
        monkeypatch.setattr(reader, look, lambda source, dice, *args: dice)


def test_a_leaning_reading_between_two_dice_gives_way_to_them():
    # Two touching dice cut between them look like one leaning die, surer than either
    # die read on its own; a die reading on each side of it, not one die with each other,
    # are two dice.
    between = Candidate(100, 100, 40)
    left, right = Candidate(83, 100, 40), Candidate(117, 102, 40)
    kept = _accept([between, left, right], np.array(
        [_reading(COCKED, 0.99), _reading(3, 0.9), _reading(5, 0.85)]))
    assert sorted((c.x, int(p.argmax())) for c, p in kept) == [(83, 3), (117, 5)]


def test_the_dice_on_either_side_are_found_past_another_leaning_reading():
    # The cut between two touching dice is read as leaning at more than one grid point;
    # the second leaning reading, surer than either die's, is not one of the two dice.
    between, beside = Candidate(100, 100, 40), Candidate(100, 106, 40)
    left, right = Candidate(83, 100, 40), Candidate(117, 102, 40)
    kept = _accept([between, beside, left, right], np.array(
        [_reading(COCKED, 0.99), _reading(COCKED, 0.95), _reading(3, 0.6), _reading(5, 0.7)]))
    assert sorted((c.x, int(p.argmax())) for c, p in kept) == [(83, 3), (117, 5)]


@pytest.mark.parametrize("first, second", [
    # A leaning die's top face can read as a face from crops beside it: readings on one
    # side of the leaning one are not two dice around it.
    ((80, 88), (84, 116)),
    # A leaning die shows faces on both sides of its middle: readings of them lie closer
    # together than two dice's centres (SPLIT_APART; 0.7 gave more leaning dice a value).
    ((86, 100), (114, 100)),
])
def test_a_leaning_reading_beside_readings_of_its_own_faces_stays_leaning(first, second):
    assert 0.7 < SPLIT_APART <= 0.8
    leaning = Candidate(100, 100, 40)
    kept = _accept([leaning, Candidate(*first, 40), Candidate(*second, 40)], np.array(
        [_reading(COCKED, 0.99), _reading(3, 0.9), _reading(5, 0.85)]))
    assert [(c, int(p.argmax())) for c, p in kept] == [(leaning, COCKED)]


def test_two_touching_dice_are_not_read_as_one_leaning_die():
    # Tray 107 of seed 777 (the validation trays), 1920x1080: a 6 and a 1 touch. Before,
    # one leaning reading between them was the 6's (flagged unreadable) and the 1 was missed.
    rendered = random_tray(np.random.default_rng([777, 107]), dice=(1, 40))
    dice = read_tray(rendered.image)
    for truth in (rendered.truth[0], rendered.truth[8]):
        assert "touching" in truth.flags
        x0, y0, x1, y1 = truth.box
        seen = [d for d in dice if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]
        nearest = min(seen, key=lambda d: np.hypot(d.center[0] - truth.center[0],
                                                   d.center[1] - truth.center[1]))
        assert (nearest.value, nearest.flags) == (truth.value, ["touching"])


@pytest.mark.parametrize("tray, pair", [
    # Tray 12 of seed 777 (the validation trays), 640x480: a blue 2 and a green 3 touch.
    # The cut between them read as leaning at two grid points; the surer one was kept and
    # both dice went unread, as the other leaning reading stood in for one of the pair.
    (12, (8, 11)),
    # Tray 156, 1920x1080: an orange 5 and a white 3 touch. The 3 was read in the coarse
    # grid, the 5 in the fine one, each pass suppressing its die by the leaning cut
    # between them; the dice of both passes together are the pair (`_split_seen`).
    (156, (7, 13)),
])
def test_touching_dice_cut_between_are_read(tray, pair):
    rendered = random_tray(np.random.default_rng([777, tray]), dice=(1, 40))
    dice = read_tray(rendered.image)
    for truth in (rendered.truth[pair[0]], rendered.truth[pair[1]]):
        x0, y0, x1, y1 = truth.box
        seen = [d for d in dice if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]
        nearest = min(seen, key=lambda d: np.hypot(d.center[0] - truth.center[0],
                                                   d.center[1] - truth.center[1]))
        assert nearest.value == truth.value


def test_a_die_dropped_for_its_touching_neighbour_is_read_beside_it(monkeypatch):
    # Tray 23 of seed 776 (the validation trays), 1280x960: a green 6 touches a black die.
    # Its readings came from candidates cut large on the pair's blob, one die, one reading
    # dropped them for the neighbour's (`SAME_DIE` of the larger side), and it was missed.
    # Read again at the typical side beside the neighbour (`_beside_look`), it is a 6.
    rendered = random_tray(np.random.default_rng([776, 23]), dice=(1, 40))
    truth = rendered.truth[0]
    assert "touching" in truth.flags and truth.value == 6

    _assert_read_at_its_centre(rendered, truth)
    # Without the look it is missed (no reading in its box): the test can fail. (The grid
    # off the dice found over blobs of two dice finds it too, and so do the other-colour
    # and dropped-die looks: kept off here.)
    monkeypatch.setattr(reader, "_beside_look", lambda source, dice, *args: dice)
    monkeypatch.setattr(segment, "PAIR_MIN", segment.CLUSTER_MIN)
    _without_other_looks(monkeypatch)
    assert _read_in_box(rendered, truth) is None


def test_a_die_beside_a_neighbour_read_off_its_centre_is_read(monkeypatch):
    # Tray 140 of seed 776 (the validation trays), 1920x1080: a white 3 touches a red die,
    # which is read towards the 3, so the 3's readings lie under `BESIDE_CLEAR` typical
    # sides from it. Read again there, and the midpoint of the two reading no pip face (two
    # dice's contact, not one die read twice), it is a die (docs/history/vision.md, 17th session).
    rendered = random_tray(np.random.default_rng([776, 140]), dice=(1, 40))
    truth = rendered.truth[3]
    assert truth.value == 3 and "touching" in truth.flags

    _assert_read_at_its_centre(rendered, truth)
    # Without the places nearer than `BESIDE_CLEAR` it is missed: the test can fail. (The
    # other-colour and dropped-die looks find it too: kept off here.)
    monkeypatch.setattr(reader, "BESIDE_NEAR", reader.BESIDE_CLEAR)
    _without_other_looks(monkeypatch)
    assert _read_in_box(rendered, truth) is None


def test_two_touching_dice_read_as_one_leaning_die_between_them_are_read(monkeypatch):
    # Tray 54 of seed 776 (the validation trays), 2592x1944: a black 5 touches a yellow 5.
    # Cut at their contact, the pair reads as one leaning die, and each die's readings, off
    # its centre towards the contact, lie under `SPLIT_APART` sides apart. Read where the
    # two centres would lie, both are dice: the leaning reading gives way to the two
    # (docs/history/vision.md, eighteenth session).
    rendered = random_tray(np.random.default_rng([776, 54]), dice=(1, 40))
    dice = [rendered.truth[7], rendered.truth[4]]
    assert [d.value for d in dice] == [5, 5]

    for truth in dice:
        _assert_read_at_its_centre(rendered, truth)
    # Without the split (and the other looks and the patch look's second patch, which
    # find the black 5 too), the black 5 is missed and the yellow one read as leaning.
    monkeypatch.setattr(reader, "_split_touching", lambda source, dice, *args: dice)
    monkeypatch.setattr(reader, "SMALL_PATCH", 0.0)
    _without_other_looks(monkeypatch)
    assert _read_in_box(rendered, dice[0]) is None
    assert _read_in_box(rendered, dice[1]).value is None


def test_dice_in_a_sprawling_cluster_are_read():
    # Tray 124 of seed 776 (the validation trays), 3840x2160: touching dice and their
    # shadows make one blob filling under `CLUSTER_FILL` of its box; no candidate was ever
    # centred on a white 4 and a green 6 in it. A grid over it, off the dice found, finds
    # them (docs/history/vision.md, nineteenth session).
    rendered = random_tray(np.random.default_rng([776, 124]), dice=(1, 40))
    dice = [rendered.truth[16], rendered.truth[23]]
    assert [d.value for d in dice] == [4, 6]
    for truth in dice:
        _assert_read_at_its_centre(rendered, truth)


def test_a_die_touching_one_found_in_a_small_blob_is_read(monkeypatch):
    # Tray 103 of seed 776 (the validation trays), 640x480: a black 1 touches a red die
    # found; their blob is 1.3 die areas, under `CLUSTER_MIN`, and no candidate was centred
    # on the 1. A grid off the die found, over blobs from `PAIR_MIN` die areas, finds it.
    rendered = random_tray(np.random.default_rng([776, 103]), dice=(1, 40))
    truth = rendered.truth[13]
    assert truth.value == 1
    _assert_read_at_its_centre(rendered, truth)
    monkeypatch.setattr(segment, "PAIR_MIN", segment.CLUSTER_MIN)
    _without_other_looks(monkeypatch)      # the pip-cluster look finds it at its pip too
    assert _read_in_box(rendered, truth) is None


def test_a_leaning_die_read_on_either_side_stays_leaning():
    # Tray 8 of seed 96 (a leaning tray): a leaning 3 read as a 2 and as a 3 on opposite
    # sides of its leaning reading; read where two dice's centres would lie, it is no die
    # there, and its blob is one die's: it stays leaning, without a value.
    rendered = random_tray(np.random.default_rng([96, 8]), dice=(1, 30), cocked=0.3)
    truth = rendered.truth[20]
    assert "cocked" in truth.flags
    nearest = _read_in_box(rendered, truth)
    assert nearest.value is None and "cocked" in nearest.flags


def test_a_flat_die_seen_obliquely_is_read_on_its_top_face(monkeypatch):
    # Tray 77 of seed 776 (the validation trays), 640x480: a lone blue 6 near the frame's
    # corner, two side faces showing, read as leaning at its outline. Its top face, found
    # in the image, reads as a 6 a little under 0.95 sure, and the top-face look takes it
    # from `FACE_LOOK_SURE` (docs/history/vision.md, "Sixteenth session: flat dice ...").
    rendered = random_tray(np.random.default_rng([776, 77]), dice=(1, 40))
    truth = rendered.truth[34]
    assert truth.value == 6 and "cocked" not in truth.flags

    nearest = _read_in_box(rendered, truth)
    assert nearest.value == 6 and "cocked" not in nearest.flags
    # At the other looks' 0.95 it is reported leaning: the test can fail. (The recentring
    # at its pips reads it too: kept off.)
    monkeypatch.setattr(reader, "FACE_LOOK_SURE", reader.SURE_FACE)
    monkeypatch.setattr(reader, "_recentred_on_pips", lambda source, dice, *args: dice)
    assert "cocked" in _read_in_box(rendered, truth).flags


@pytest.mark.parametrize("seed, tray, die, value", [
    (777, 52, 3, 3),      # a green 3 touching a neighbour: its face found from its centre is not
    (778, 162, 3, 3),     # square; a white 3 and an orange 5 alone, side faces showing
    (778, 162, 27, 5),
])
def test_a_flat_die_whose_face_is_not_found_at_its_centre_is_sought_again(monkeypatch, seed,
                                                                           tray, die, value):
    # Validation trays, 640x480: flat dice read as leaning at their outline, whose top face
    # the search from their centre found not square (side faces or a neighbour taken in).
    # Sought again a little away from the touching die or outward from the image centre,
    # the face is square and reads right (docs/history/vision.md, "Seventeenth session: ...").
    rendered = random_tray(np.random.default_rng([seed, tray]), dice=(1, 40))
    truth = rendered.truth[die]
    assert truth.value == value and "cocked" not in truth.flags

    nearest = _read_in_box(rendered, truth)
    assert nearest.value == value and "cocked" not in nearest.flags
    # Sought only from its centre it is reported leaning: the test can fail. (The patch
    # look, the lean check's reading of dice read as leaning and the recentring at a
    # die's pips read some of these dice too: kept off here.)
    monkeypatch.setattr(reader, "FACE_SEED", 0.0)
    monkeypatch.setattr(reader, "FLAT_BY_CHECK", 0.0)
    monkeypatch.setattr(reader, "_patch_look", lambda source, dice: dice)
    monkeypatch.setattr(reader, "_recentred_on_pips", lambda source, dice, *args: dice)
    assert "cocked" in _read_in_box(rendered, truth).flags


def test_dice_the_colour_of_the_floor_are_found_by_looking_around_half_dice():
    # Tray 99 of seed 777 (the validation trays), 640x480: two purple dice on blue felt,
    # whose outlines stay under the edge threshold; their candidates lay off their centres
    # and were turned away. Looked around, both are found and read.
    rendered = random_tray(np.random.default_rng([777, 99]), dice=(1, 40))
    dice = read_tray(rendered.image)
    for truth in (rendered.truth[11], rendered.truth[23]):
        assert truth.colour == "purple"
        x0, y0, x1, y1 = truth.box
        assert [d.value for d in dice
                if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1] == [truth.value]


def _lone_white_die(index: int):
    """One white die on a white or cardboard floor, as the lone-die check of the eleventh
    session drew it (docs/vision.md): its outline hardly shows, so the search's first pass
    finds no die."""
    rng = np.random.default_rng([4242, 1, index])
    faces = [Face("d6", int(v)) for v in rng.integers(1, 7, 1)]
    return render_roll(faces, rng, size=[(640, 480), (1280, 960), (1920, 1080)][index % 3],
                       colours=["white"], floor=["white", "cardboard", "white"][index % 3],
                       touching=0.0)


@pytest.mark.parametrize("index", [15, 58])
def test_a_lone_die_the_colour_of_the_floor_is_read(index, monkeypatch):
    shot = _lone_white_die(index)
    truth = shot.truth[0]
    dice = read_tray(shot.image)
    assert [d.value for d in dice] == [truth.value]
    x0, y0, x1, y1 = truth.box
    assert x0 <= dice[0].center[0] <= x1 and y0 <= dice[0].center[1] <= y1
    # Without the looks of a search that found nothing, it is missed: the test can fail.
    monkeypatch.setattr(reader, "_lone_die", lambda *args: [])
    monkeypatch.setattr(reader, "_look_around", lambda source, dice, *args: dice)
    assert read_tray(shot.image) == []


@pytest.mark.parametrize("tray, index", [(72, 9), (104, 21)])
def test_a_die_whose_outline_did_not_fill_beside_dice_found_late_is_read(tray, index,
                                                                          monkeypatch):
    # Trays 72 and 104 of seed 776, 640x480: a grey 4 on brown, a purple 3 on dark green,
    # whose outlines did not close. Their neighbours were found only by the grids, so the
    # first edge-density peaks lay on those neighbours, none on the die; read again with
    # every die found blanked, the density peaks at the die.
    rendered = random_tray(np.random.default_rng([776, tray]), dice=(1, 40))
    truth = rendered.truth[index]
    _assert_read_at_its_centre(rendered, truth)
    monkeypatch.setattr(reader, "_density_again", lambda source, dice, *args: dice)
    assert _read_in_box(rendered, truth) is None


@pytest.mark.parametrize("tray, index, value, colour", [(44, 12, 3, "grey"), (59, 26, 2, "white")])
def test_a_die_whose_candidates_hardly_read_as_a_die_is_looked_around(
        tray, index, value, colour, monkeypatch, read_at):
    # Trays 44 (1280x960) and 59 (640x480) of seed 20002: a grey 3 in a corner of the tray,
    # a white 2 on a light floor among other dice, whose outlines are rings with gaps that
    # do not fill. Their candidates lie off them and read as a die 4-6 % likely: the
    # look around takes places from `HALF_A_DIE` (3 %, thirty-fourth session; 10 % before).
    rendered = random_tray(np.random.default_rng([20002, tray]), dice=(1, 40))
    truth = rendered.truth[index]
    assert (truth.value, truth.colour) == (value, colour)
    assert read_at(read_tray(rendered.image), truth).value == value
    monkeypatch.setattr(reader, "HALF_A_DIE", 0.1)
    found = read_at(read_tray(rendered.image), truth)
    assert found is None or found.value != value
