"""Two touching dice read as one cocked die at their contact, split when special dice are
expected (`reader._split_cocked_pair`; docs/history/special-dice.md, seventy-third session)."""

import numpy as np

from station.fakes.tray import random_tray
from station.vision import read_tray, reader
from station.vision.crops import CropSource
from station.vision.segment import Candidate
from station.vision.special_dice import SpecialReading
from station.vision.types import DetectedDie

FACE = 40.0         # the typical top face, pixels
OUTLINE = 60.0      # the typical outline


def one_hot(cls: int) -> np.ndarray:
    return np.eye(reader.CLASSES, dtype=np.float32)[cls]


def split(monkeypatch, found, beside=()):
    """`_split_cocked_pair` on a black frame with a die reported cocked at (200, 200):
    the ring round it reads the special faces `found` [(x, y, value)]; `beside`: pip dice
    read with a value at [(x, y)]. Returns the readings after it."""
    looked = []

    def places_read(source, dice, special, places, outlines, screen_from, taken):
        looked.extend(places)
        new = []
        for x, y, value in found:
            c = Candidate(x, y, outlines[0])
            special[c] = SpecialReading("artillery", value, None, 0.97, (x, y))
            new.append((c, one_hot(reader.SPECIAL)))
        return new

    monkeypatch.setattr(reader, "_typical_top_face", lambda source, dice: FACE)
    monkeypatch.setattr(reader, "_special_places_read", places_read)
    source = CropSource(np.zeros((400, 400, 3), np.uint8))
    dice = [(Candidate(200, 200, OUTLINE), one_hot(reader.COCKED))]
    read = [DetectedDie("d6", None, (200.0, 200.0), 0.9, "black", ["touching", "cocked"])]
    for x, y in beside:
        dice.append((Candidate(x, y, OUTLINE), one_hot(4)))
        read.append(DetectedDie("d6", 4, (x, y), 0.99, "red", ["touching"]))
    _, after = reader._split_cocked_pair(source, dice, read, {}, None, None)
    assert looked and all(abs(np.hypot(c.x - 200, c.y - 200) / OUTLINE - min(
        reader.SPLIT_REACH, key=lambda r: abs(r - np.hypot(c.x - 200, c.y - 200) / OUTLINE)))
        < 1e-6 for c in looked)
    return after


def test_two_faces_on_either_side_of_a_cocked_reading_replace_it(monkeypatch):
    apart = 1.1 * FACE
    after = split(monkeypatch, [(200 - apart / 2, 200, 6), (200 + apart / 2, 200, 8)])
    assert sorted((d.kind, d.value) for d in after) == [("artillery", 6), ("artillery", 8)]
    assert all("touching" in d.flags and "cocked" not in d.flags for d in after)


def test_a_face_found_opposite_a_die_read_beside_replaces_the_cocked_reading(monkeypatch):
    # the cocked reading lies between a pip die read already and a special die no look found
    after = split(monkeypatch, [(175, 200, 10)], beside=[(225, 200)])
    assert sorted((d.kind, d.value) for d in after) == [("artillery", 10), ("d6", 4)]


def test_a_leaning_die_s_top_and_side_faces_read_as_two_faces_stay_cocked(monkeypatch):
    # under a side apart: one leaning die's tilted top face and the side face beside it
    apart = 0.8 * FACE
    after = split(monkeypatch, [(200 - apart / 2, 200, "misfire"), (200 + apart / 2, 200, 10)])
    assert [(d.value, d.flags) for d in after] == [(None, ["touching", "cocked"])]


def test_two_faces_on_one_side_or_a_face_alone_leave_the_cocked_reading(monkeypatch):
    one_side = split(monkeypatch, [(250, 180, 6), (250, 220, 8)])   # a side apart, 44 deg
    assert [d.value for d in one_side] == [None]
    alone = split(monkeypatch, [(180, 200, 6)])
    assert [d.value for d in alone] == [None]


def test_a_scatter_die_read_as_one_cocked_die_with_its_neighbour_is_read(monkeypatch, read_at):
    # 640x480, 36 px dice: an orange arrow touching a red artillery 2 (and a red pip 1) by
    # the tray wall, all flat. The search reads one cocked die where the arrow and the 2
    # touch; round it the arrow's face is found, opposite the 2 read already.
    rendered = random_tray(np.random.default_rng([7390, 56]), size=(640, 480), dice=(0, 3),
                           special={"scatter": (1, 1), "artillery": (1, 1)}, touching=1.0)
    arrow = rendered.truth[0]
    assert (arrow.kind, arrow.value) == ("scatter", "arrow") and "cocked" not in arrow.flags
    dice = read_tray(rendered.image, expect_special=True)
    found = read_at(dice, arrow)
    assert found is not None and (found.kind, found.value) == ("scatter", "arrow")
    assert not any("cocked" in die.flags for die in dice)
    monkeypatch.setattr(reader, "_split_cocked_pair",
                        lambda source, dice, read, *args: (dice, read))
    dice = read_tray(rendered.image, expect_special=True)
    assert read_at(dice, arrow) is None or read_at(dice, arrow).value is None
    assert any("cocked" in die.flags for die in dice)


def pip_die_at(monkeypatch, x, y, value, leaning=False):
    """The d6 network reads a pip `value` at the place nearest (x, y) and no die elsewhere;
    the lean check finds that die leaning, or leaves it."""
    def classify(source, candidates, *args, **kwargs):
        probs = np.tile(one_hot(reader.NOT_A_DIE), (len(candidates), 1))
        nearest = min(range(len(candidates)),
                      key=lambda k: np.hypot(candidates[k].x - x, candidates[k].y - y))
        probs[nearest] = one_hot(value)
        return probs
    monkeypatch.setattr(reader, "_classify", classify)
    monkeypatch.setattr(reader, "_lean_check", lambda source, dice: [
        (c, one_hot(reader.COCKED) if leaning else p) for c, p in dice])


def test_a_pip_die_opposite_the_one_face_beside_a_cocked_reading_replaces_it(monkeypatch):
    # An artillery 6 found on one side, a pip 5 read by the d6 network on the other: the
    # pair read as one cocked die at their contact (a pip die no special look reads).
    pip_die_at(monkeypatch, 230, 200, 5)
    after = split(monkeypatch, [(170, 200, 6)])
    assert sorted((d.kind, d.value) for d in after) == [("artillery", 6), ("d6", 5)]
    assert not any("cocked" in d.flags for d in after)
    # Beside a die read already, the pip die found opposite it replaces the reading alone.
    after = split(monkeypatch, [], beside=[(170, 200)])
    assert [(d.kind, d.value) for d in after] == [("d6", 5), ("d6", 4)]


def test_a_pip_die_the_lean_check_finds_leaning_or_one_on_the_same_side_leaves_it(monkeypatch):
    pip_die_at(monkeypatch, 230, 200, 5, leaning=True)
    assert [d.value for d in split(monkeypatch, [(170, 200, 6)])] == [None]
    pip_die_at(monkeypatch, 185, 215, 5)      # beside the face found, not across the reading
    assert [d.value for d in split(monkeypatch, [(170, 200, 6)])] == [None]


def test_a_pip_die_read_as_one_cocked_die_with_an_arrow_is_read(monkeypatch):
    # 640x480: a flat arrow touching a pip 5 are read as the arrow (a look, at its top face)
    # and a die cocked at their contact; round it the d6 network reads the 5 (0.74).
    rendered = random_tray(np.random.default_rng([75, 231]), dice=(0, 6),
                           special={"scatter": (1, 2), "artillery": (1, 2)}, touching=1.0)
    five = next(t for t in rendered.truth if (t.kind, t.value) == ("d6", 5))

    def near_five():
        return [(d.kind, d.value) for d in read_tray(rendered.image, expect_special=True)
                if np.hypot(d.center[0] - five.center[0], d.center[1] - five.center[1]) < 15]
    assert near_five() == [("d6", 5)]
    monkeypatch.setattr(reader, "_pip_die_round", lambda *args: [])
    assert near_five() == [("d6", None)]
