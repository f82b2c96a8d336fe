"""A cocked die (leaning on a die or the wall) is a re-roll, reported as the die it most likely
is (issue 4): a leaning artillery die is not a third d6, a leaning d6 is not an artillery die."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from station.fakes.tray import render_roll
from station.rules.faces import Face
from station.vision.classifier import CLASSES, COCKED, SPECIAL
from station.vision import read_tray
from station.vision.reader import _describe
from station.vision.segment import Candidate
from station.vision import special_dice
from station.vision.special_dice import read_special


def leaning(faces, seed):
    """The rendered cocked die of a two-dice roll (the second leans on the first): the frame,
    the die as a segmenter finds it, and its box's centre and top face's side."""
    shot = render_roll(faces, np.random.default_rng(seed), size=(1280, 960), cocked=0.6)
    truth = shot.truth[1]
    assert "cocked" in truth.flags and truth.kind == faces[1].kind
    x0, y0, x1, y1 = truth.box
    corners = np.asarray(truth.top_corners, float)
    side = float(np.mean(np.linalg.norm(corners - np.roll(corners, 1, 0), axis=1)))
    return shot.image, Candidate(*truth.center, x1 - x0), ((x0 + x1) / 2, (y0 + y1) / 2, side)


def as_cocked(p_special: float) -> np.ndarray:
    """The d6 network's output for a die it calls cocked, with some doubt that it is special."""
    p = np.zeros(CLASSES, np.float32)
    p[SPECIAL], p[COCKED] = p_special, 1.0 - p_special
    return p


def describe(image, c, p, expect_special):
    return _describe(image, c, p, False, None, expect_special)


def reading(die):
    return die.kind, die.value, "cocked" in die.flags


def test_a_cocked_artillery_die_is_a_cocked_artillery_die_when_special_dice_are_expected():
    image, c, _ = leaning([Face("d6", 3), Face("artillery", 6)], seed=3)
    assert reading(describe(image, c, as_cocked(0.05), True)) == ("artillery", None, True)
    # not expected (a d6 request): the d6 network's word, no time spent on it
    assert reading(describe(image, c, as_cocked(0.05), False)) == ("d6", None, True)


def test_a_cocked_d6_stays_a_d6_when_special_dice_are_expected():
    image, c, _ = leaning([Face("artillery", 6), Face("d6", 3)], seed=0)
    assert reading(describe(image, c, as_cocked(0.05), True)) == ("d6", None, True)


@pytest.mark.parametrize("second, kind", [
    (special_dice.SpecialReading("scatter", None, None, 0.98, (40.0, 40.0)), "scatter"),
    (special_dice.SpecialReading("scatter", "hit", 120.0, 0.54, (40.0, 40.0)), "d6"),
    (special_dice.SpecialReading("scatter", None, None, 0.97, (40.0, 40.0),
                                 kind_from_face=0.54), "d6"),
    (special_dice.SpecialReading("artillery", None, None, 0.97, (40.0, 40.0),
                                 kind_from_face=0.96), "artillery"),
    (None, "d6"),
])
def test_a_cocked_die_takes_the_kind_of_a_special_reading_only_when_it_is_sure_of_it(second,
                                                                                     kind):
    """The special reader's word on a die the d6 network calls cocked: its kind when it finds
    the die leaning too; a face it reads only doubtfully is no reason to make a pip die a
    special one (a real brown pip 6, read as a HIT 0.54 sure given flat, became a "cocked
    scatter die", docs/special-dice.md), nor is that face when the lean check flags the die
    (its kind is that face's; the same brown 6 with the lean check of the fifty-seventh
    session)."""
    image = np.full((80, 80, 3), 120, np.uint8)
    c = Candidate(40.0, 40.0, 30.0)
    die = _describe(image, c, as_cocked(0.05), False, None, True, {c: second})
    assert reading(die) == (kind, None, True)


def test_a_real_cocked_pip_die_the_special_reader_doubts_stays_a_pip_die():
    """A brown wooden 6 of a real photo, a side face in view: flagged cocked, and with special
    dice expected read by the special reader as a HIT 0.54 sure, which its lean check finds
    leaning. Its kind is that doubtful face's, so it stays a cocked d6, not a "cocked scatter
    die" the players would be told to re-roll (fifty-seventh session)."""
    folder = Path(__file__).parent / "data" / "real-train"
    image = cv2.imread(str(folder / "IMG_20191208_111530.jpg"))
    dice = read_tray(image, expect_special=True)
    x0, y0, x1, y1 = 94.3, 162.5, 137.3, 205.5          # the brown 6's labelled box
    brown = [d for d in dice if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]
    assert [reading(d) for d in brown] == [("d6", None, True)]
    assert {d.kind for d in dice} == {"d6"}


def test_the_special_reader_says_which_die_a_cocked_die_is():
    """read_special flags a leaning die cocked (value None) and guesses its kind from all its
    faces' probabilities: pips too, not only scatter against artillery."""
    for faces, seed in (([Face("d6", 3), Face("artillery", 6)], 3),
                        ([Face("artillery", 6), Face("d6", 3)], 0)):
        image, _, cut = leaning(faces, seed)
        got = read_special(image, *cut)
        assert got is not None and (got.kind, got.value) == (faces[1].kind, None)


@pytest.mark.parametrize("faces, seed", [([Face("d6", 3), Face("artillery", 6)], 11),
                                         ([Face("d6", 3), Face("scatter", "arrow")], 15)])
def test_a_leaning_die_the_face_network_reads_is_flagged_by_the_lean_check(monkeypatch, faces,
                                                                           seed):
    """The face network reads these leaning dice's tilted faces as flat ones; the lean check
    (special_dice._leaning) flags them cocked, of the kind their face showed."""
    image, _, cut = leaning(faces, seed)
    got = read_special(image, *cut)
    assert got is not None and (got.kind, got.value) == (faces[1].kind, None)
    assert got.confidence >= special_dice.LEAN_CUTOFF
    assert special_dice.MIN_PROBABILITY <= got.kind_from_face <= 1.0    # the face it showed
    monkeypatch.setattr(special_dice, "LEAN_CUTOFF", 1.01)          # the check never flags
    got = read_special(image, *cut)
    assert got is not None and (got.kind, got.value) == (faces[1].kind, faces[1].value)


@pytest.mark.parametrize("faces, seed", [([Face("d6", 3), Face("artillery", 6)], 8),
                                         ([Face("d6", 3), Face("scatter", "arrow")], 196)])
def test_a_leaning_die_read_off_its_outline_is_checked_at_its_outline_too(monkeypatch, faces,
                                                                         seed):
    """read_segmented reads these leaning dice as a face at their top face (or around it);
    the lean check, sure enough only at the outline the segmenter found, flags them. (The
    scatter die was seed 78's until the fifty-eighth session's check and seed 142's until the
    fifty-ninth's, each of which flags the earlier one where it is read as well.)"""
    image, c, _ = leaning(faces, seed)
    got = special_dice.read_segmented(image, c.x, c.y, c.side)
    assert got is not None and (got.kind, got.value) == (faces[1].kind, None)
    where_read = special_dice._leaning
    monkeypatch.setattr(special_dice, "_leaning",
                        lambda image, places: where_read(image, places[:1]))
    got = special_dice.read_segmented(image, c.x, c.y, c.side)
    assert got is not None and (got.kind, got.value) == (faces[1].kind, faces[1].value)


@pytest.mark.parametrize("faces, seed", [([Face("d6", 3), Face("artillery", 6)], 366),
                                         ([Face("d6", 3), Face("scatter", "arrow")], 304)])
def test_a_leaning_die_read_best_at_its_outline_is_checked_at_its_top_face_too(monkeypatch,
                                                                              faces, seed):
    """read_segmented reads these leaning dice's faces surest at the outline the segmenter
    found; the lean check, not sure enough there, is sure at the top face found in it, and
    flags them (sixtieth session; before, the outline alone was checked)."""
    image, c, _ = leaning(faces, seed)
    monkeypatch.setattr(special_dice, "_leaning_round", lambda image, x, y, side: 0.0)
    checked = []
    where_read = special_dice._leaning
    monkeypatch.setattr(special_dice, "_leaning",
                        lambda image, places: checked.append(places) or where_read(image, places))
    got = special_dice.read_segmented(image, c.x, c.y, c.side)
    assert got is not None and (got.kind, got.value) == (faces[1].kind, None)
    assert got.centre == (c.x, c.y)                                  # read at its outline
    assert checked == [[(c.x, c.y, c.side), special_dice.centre_on_face(image, c.x, c.y, c.side)]]
    monkeypatch.setattr(special_dice, "_leaning",
                        lambda image, places: where_read(image, places[:1]))
    got = special_dice.read_segmented(image, c.x, c.y, c.side)
    assert got is not None and (got.kind, got.value) == (faces[1].kind, faces[1].value)


def test_a_leaning_die_the_check_doubts_where_read_is_flagged_by_the_check_round_it(
        monkeypatch):
    """read_segmented reads this leaning die as a face where the lean check, at the places
    read, stays under `LEAN_CUTOFF`; over the places round them (`_leaning_round`) it is
    sure, and flags it (fifty-fourth session)."""
    faces = [Face("d6", 3), Face("artillery", 6)]
    image, c, _ = leaning(faces, 22)
    got = special_dice.read_segmented(image, c.x, c.y, c.side)
    assert got is not None and (got.kind, got.value) == (faces[1].kind, None)
    monkeypatch.setattr(special_dice, "_leaning_round", lambda image, x, y, side: 0.0)
    got = special_dice.read_segmented(image, c.x, c.y, c.side)
    assert got is not None and (got.kind, got.value) == (faces[1].kind, faces[1].value)


def test_a_leaning_die_read_best_at_a_guess_of_its_top_face_is_flagged_at_the_face_found(
        monkeypatch):
    """This leaning scatter die's face is read surest at one of `top_face_places`' guesses,
    where the lean check doubts it (0.95); at the top face found it is sure (0.99) and flags
    it, without the check round the place read (before, that check alone flagged it)."""
    image, c, _ = leaning([Face("d6", 3), Face("scatter", "arrow")], 67)
    monkeypatch.setattr(special_dice, "_leaning_round", lambda image, x, y, side: 0.0)
    got = special_dice.read_segmented(image, c.x, c.y, c.side)
    assert got is not None and (got.kind, got.value) == ("scatter", None)


def test_station_read_names_a_cocked_special_die_as_a_re_roll_not_a_face():
    from station.cli.commands.read import summary
    from station.vision.types import DetectedDie

    dice = [DetectedDie("artillery", None, (10.0, 20.0), 0.9, "orange", ["cocked"]),
            DetectedDie("artillery", 8, (50.0, 20.0), 0.9, "red")]
    lines = summary("tray.png", dice).splitlines()
    assert "  artillery die: 8 at (50, 20)" in lines
    assert "  orange artillery die at (10, 20): cocked (leaning), re-roll it or enter it by " \
           "hand" in lines
    assert not [line for line in lines if "None" in line]


def test_a_flat_die_the_lean_check_doubts_keeps_its_face_when_its_top_face_is_square(
        monkeypatch):
    """A flat black HIT face whose top face the image shows square (`SQUARE_FACE` at each of
    `SQUARE_FACE_SIDES`): a lean check sure it leans does not flag it, as a tilted face would
    be foreshortened. Without the square-face rule the same verdict flags it cocked."""
    shot = render_roll([Face("scatter", "hit")], np.random.default_rng(6), colours=["black"])
    truth = shot.truth[0]
    x0, y0, x1, y1 = truth.box
    corners = np.asarray(truth.top_corners, float)
    side = float(np.mean(np.linalg.norm(corners - np.roll(corners, 1, 0), axis=1)))
    cut = ((x0 + x1) / 2, (y0 + y1) / 2, side)
    monkeypatch.setattr(special_dice, "_leaning", lambda image, places: 0.99)
    got = read_special(shot.image, *cut)
    assert got is not None and (got.kind, got.value) == ("scatter", "hit")
    monkeypatch.setattr(special_dice, "SQUARE_FACE", 1.01)           # no face is that square
    got = read_special(shot.image, *cut)
    assert got is not None and (got.kind, got.value) == ("scatter", None)


def test_a_die_read_best_at_a_guess_of_its_top_face_is_checked_for_a_lean_at_the_face_found(
        monkeypatch):
    """A flat artillery 6 whose face `read_segmented` reads surest at one of
    `top_face_places`' guesses, off its centre: the lean check reads it at the top face found
    (and at its outline), not at the guess, and the die keeps its face."""
    shot = render_roll([Face("d6", 3), Face("artillery", 6)], np.random.default_rng(218),
                       size=(640, 480))
    truth = shot.truth[1]
    assert not truth.flags
    x0, y0, x1, y1 = truth.box
    outline = (*truth.center, max(x1 - x0, y1 - y0))
    checked = []
    leaning = special_dice._leaning
    monkeypatch.setattr(special_dice, "_leaning",
                        lambda image, places: checked.append(places) or leaning(image, places))
    got = special_dice.read_segmented(shot.image, *outline)
    assert got is not None and (got.kind, got.value) == ("artillery", 6)
    face = special_dice.centre_on_face(shot.image, *outline)
    assert np.hypot(got.centre[0] - face[0], got.centre[1] - face[1]) > 0.15 * face[2]
    assert checked == [[face, outline]]


class OutlineReadCocked:
    """The face network, but the first crop `read_segmented` reads (the die's whole outline)
    comes out 90 % cocked, as the outline crops of some flat dice do (side faces, shadow)."""

    def __init__(self, network):
        self.network = network

    def predict_many(self, crops):
        probs = self.network.predict_many(crops).copy()
        probs[0] *= 0.1
        probs[0][special_dice.COCKED] += 0.9
        return probs


@pytest.mark.parametrize("faces, seed, square", [([Face("artillery", 8)], 1, True),
                                                 ([Face("d6", 3), Face("artillery", 6)], 3,
                                                  False)])
def test_a_die_whose_outline_reads_cocked_is_read_when_its_top_face_is_square(
        monkeypatch, faces, seed, square):
    """read_segmented: a flat die whose top face the image shows square is read as its face
    though its outline's crop reads cocked; a leaning die's foreshortened face is not
    square, and it stays cocked."""
    shot = render_roll(faces, np.random.default_rng(seed), size=(1280, 960),
                       cocked=0.0 if square else 0.6)
    truth = shot.truth[-1]
    assert ("cocked" in truth.flags) != square
    x0, y0, x1, y1 = truth.box
    network = special_dice._model()
    monkeypatch.setattr(special_dice, "_model", lambda: OutlineReadCocked(network))
    got = special_dice.read_segmented(shot.image, (x0 + x1) / 2, (y0 + y1) / 2, x1 - x0)
    expected = truth.value if square else None
    assert got is not None and (got.kind, got.value) == (truth.kind, expected)
    monkeypatch.setattr(special_dice, "SQUARE_FACE", 1.01)           # no face is that square
    got = special_dice.read_segmented(shot.image, (x0 + x1) / 2, (y0 + y1) / 2, x1 - x0)
    assert got is not None and (got.kind, got.value) == (truth.kind, None)
