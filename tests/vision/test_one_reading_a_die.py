"""One die, one reading (`reader._one_reading_a_die`): the special reader reports a face
where it finds the die's top face, so two places on one special die can be read as the same
face at one spot (docs/history/vision.md, "Thirty-fourth session"); and a die can be read
twice without a value, once as a cocked die and once as an unreadable one, or twice as one
pip face that the crop between the two readings shows too (forty-third session)."""

import math

import numpy as np
import pytest

from station.fakes.tray import random_tray, render_roll
from station.rules.faces import Face
from station.vision import read_tray, reader
from station.vision.classifier import CLASSES
from station.vision.reader import CropSource, _one_reading_a_die
from station.vision.segment import Candidate
from station.vision.types import DetectedDie

BLANK = CropSource(np.full((400, 400, 3), 128, np.uint8))   # no die anywhere

NO_PROBS = np.zeros(CLASSES, np.float32)


def _read(kind, value, x, y, confidence, flags=(), bearing_deg=None):
    return DetectedDie(kind=kind, value=value, center=(x, y), confidence=confidence,
                       colour="orange", flags=list(flags), bearing_deg=bearing_deg)


def _dice(*places, side=29):
    return [(Candidate(x, y, side), NO_PROBS) for x, y in places]


def test_a_scatter_die_read_twice_is_read_once():
    # Tray 94 of the special-dice benchmark (uncalibrated, seed 1): the scatter die read at
    # its top face and, by the look around, at its side, both moved onto the top face. A
    # d6 a side away keeps its reading and its touching flag.
    dice = _dice((211, 148), (230, 130), (250, 148))
    read = [_read("scatter", "arrow", 211, 148, 0.48, ["touching"]),
            _read("scatter", "arrow", 212, 146, 0.97, ["touching"]),
            _read("d6", 4, 241, 148, 0.9, ["touching"])]
    kept_dice, kept = _one_reading_a_die(BLANK, dice, read)
    assert [(d.kind, d.confidence) for d in kept] == [("scatter", 0.97), ("d6", 0.9)]
    assert [c for c, _ in kept_dice] == [Candidate(230, 130, 29), Candidate(250, 148, 29)]
    assert all("touching" in d.flags for d in kept)


def test_a_dropped_twin_leaves_no_touching_flag():
    read = [_read("artillery", 8, 100, 100, 0.9, ["touching"]),
            _read("artillery", 8, 101, 100, 0.6, ["touching"])]
    _, kept = _one_reading_a_die(BLANK, _dice((100, 100), (120, 100)), read)
    assert [(d.value, d.flags) for d in kept] == [(8, [])]


def test_a_die_read_twice_without_a_value_is_one_re_roll():
    # IMG_20191208_111304.jpg of the real photos: a gold 1 by the tray's wall, read as a
    # cocked special die at its top face and as an unreadable pip die beside it, 16 px
    # apart on a 39 px die. The surer is kept.
    dice = _dice((475, 146), (465, 159))
    read = [_read("artillery", None, 475, 146, 0.36, ["touching", "cocked"]),
            _read("d6", None, 465, 159, 0.28, ["touching", "unreadable"])]
    _, kept = _one_reading_a_die(BLANK, dice, read)
    assert [(d.kind, d.value, d.flags) for d in kept] == [("artillery", None, ["cocked"])]


def test_other_close_readings_are_left_alone():
    # Other faces, a face beside a die without one, and one pip face where the crop between
    # the readings shows no die, are the search's business.
    for a, b in [(("scatter", "arrow"), ("scatter", "hit")),
                 (("artillery", 8), ("artillery", None)),
                 (("d6", 3), ("d6", None)),
                 (("d6", 3), ("d6", 3))]:
        dice = _dice((100, 100), (110, 100))
        read = [_read(*a, 100, 100, 0.9), _read(*b, 105, 100, 0.8)]
        assert _one_reading_a_die(BLANK, dice, read) == (dice, read)


def test_two_touching_dice_showing_one_special_face_stay_two():
    # Tray 184 of the special-dice benchmark's calibrated trays (seed 6901): two touching
    # arrows, their top faces read 22 px apart (0.64 of the smaller die side) pointing
    # opposite ways; both were within `SAME_DIE` of the larger side and one was dropped.
    dice = [(Candidate(522, 367, 38.0), NO_PROBS), (Candidate(502, 375, 34.8), NO_PROBS)]
    read = [_read("scatter", "arrow", 522, 367, 0.97, ["touching"], bearing_deg=230.6),
            _read("scatter", "arrow", 502, 375, 0.98, ["touching"], bearing_deg=50.7)]
    assert _one_reading_a_die(BLANK, dice, read) == (dice, read)
    # At one spot but pointing two ways, they are two readings too; one way, one die.
    for other_bearing, readings in [(50.7, 2), (228.0, 1)]:
        near = [_read("scatter", "arrow", 522, 367, 0.97, bearing_deg=230.6),
                _read("scatter", "arrow", 524, 368, 0.9, bearing_deg=other_bearing)]
        assert len(_one_reading_a_die(BLANK, dice, near)[1]) == readings


@pytest.mark.parametrize("seed, kind, value", [(36, "scatter", "arrow"),
                                               (31, "artillery", "misfire")])
def test_two_touching_special_dice_read_end_to_end_stay_two(monkeypatch, seed, kind, value):
    # Two touching special dice showing one face, read at their top faces 38 and 48 px apart
    # (dice about 40 px wide): before `SAME_SPOT` one of each pair was dropped.
    shot = render_roll([Face(kind, value), Face(kind, value), Face("d6", 3), Face("d6", 5)],
                       np.random.default_rng([62, seed]), (1280, 960), touching=1.0)
    twins = shot.truth[:2]
    assert all("touching" in t.flags for t in twins)

    def found():
        dice = read_tray(shot.image, expect_special=True)
        return [t for t in twins if any((d.kind, d.value) == (kind, value)
                                        and math.dist(d.center, t.center) < 15 for d in dice)]
    assert found() == twins
    monkeypatch.setattr(reader, "SAME_SPOT", reader.SAME_DIE)
    monkeypatch.setattr(reader, "SAME_ARROW", 180.0)
    assert len(found()) == 1


def _readings_of(value, dice, near, reach):
    """The readings of `value` within `reach` pixels of `near`."""
    return [d for d in dice if d.value == value and math.dist(d.center, near) < reach]


def test_a_pip_die_read_twice_is_read_once(monkeypatch):
    # Tray 432 of the benchmark's rendered trays (seed 2024, 1280x960): a 2 read twice, 19 px
    # apart; the crop between the two readings reads a 2 0.97 sure.
    rendered = random_tray(np.random.default_rng([2024, 432]), dice=(1, 40))
    assert len(_readings_of(2, read_tray(rendered.image), (723, 593), 30)) == 1
    monkeypatch.setattr(reader, "SAME_FACE_BETWEEN", 1.01)
    assert len(_readings_of(2, read_tray(rendered.image), (723, 593), 30)) == 2


def test_two_touching_dice_showing_one_face_stay_two(monkeypatch):
    # Tray 282 (1920x1080): two touching 5s, read 38 px apart; the crop between them, on their
    # contact, reads a leaning die, and both stay.
    rendered = random_tray(np.random.default_rng([2024, 282]), dice=(1, 40))
    fives = [t for t in rendered.truth
             if t.value == 5 and math.dist(t.center, (906, 748)) < 60]
    assert len(fives) == 2
    assert len(_readings_of(5, read_tray(rendered.image), (906, 748), 60)) == 2
    # Merged by their distance alone (the crop between them not asked), they would be one.
    monkeypatch.setattr(reader, "_one_pip_face_between", lambda source, dice, read, pairs: {
        (i, k) for i, k in pairs if (read[i].kind, read[i].value) == (read[k].kind, read[k].value)})
    assert len(_readings_of(5, read_tray(rendered.image), (906, 748), 60)) == 1
