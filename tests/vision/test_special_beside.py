"""A special die touching a pip die, found by the looks for touching dice: the beside,
other-colour and residue looks take a place read as a special die as they take one read as
a pip face, and the special reader reads it (docs/history/vision.md, "Thirty-sixth
session")."""

import numpy as np

from station.fakes.tray import random_tray, render_roll
from station.rules.faces import Face
from station.vision import read_tray, reader
from station.vision.segment import Candidate
from station.vision.special_dice import SpecialReading


def test_an_artillery_die_touching_a_pip_die_is_found_and_read(monkeypatch, read_at):
    # 640x480: a yellow artillery 2 touches a yellow pip 2; the two are one blob, read as
    # the pip die. Read beside it, the artillery die's place reads as a special die.
    rendered = random_tray(np.random.default_rng([36000, 33]), dice=(0, 6),
                           special={"scatter": (1, 2), "artillery": (1, 2)})
    truth = rendered.truth[5]
    assert (truth.kind, truth.value, truth.colour) == ("artillery", 2, "yellow")
    assert "touching" in truth.flags
    found = read_at(read_tray(rendered.image), truth)
    assert (found.kind, found.value) == ("artillery", 2)
    # The looks taking pip faces only: the artillery die is missed (the test can fail; the
    # pip-cluster look, which reads it at its numeral's strokes, off too).
    monkeypatch.setattr(reader, "_any_face", reader._pip_face)
    monkeypatch.setattr(reader, "_pip_cluster_look", lambda source, dice, *args: dice)
    found = read_at(read_tray(rendered.image), truth)
    assert found is None or (found.kind, found.value) != ("artillery", 2)


def test_a_scatter_die_touching_a_die_found_is_sought_round_it_when_special_dice_are_expected(
        monkeypatch, read_at):
    # 800x600: a scatter HIT touches another die, and no look finds it (the pair reads as
    # the other die). Expecting special dice, the reader seeks one round each die found
    # (`_special_beside_look`; docs/history/special-dice.md, forty-second session).
    rendered = random_tray(np.random.default_rng([42000, 129]), dice=(0, 6),
                           special={"scatter": (1, 2), "artillery": (1, 2)})
    truth = rendered.truth[3]
    assert (truth.kind, truth.value) == ("scatter", "hit") and "touching" in truth.flags
    found = read_at(read_tray(rendered.image, expect_special=True), truth)
    assert found is not None and (found.kind, found.value) == ("scatter", "hit")
    assert read_at(read_tray(rendered.image), truth) is None      # not sought unless expected
    monkeypatch.setattr(reader, "_special_beside_look",
                        lambda source, dice, special, skip, edges, top_face: dice)
    assert read_at(read_tray(rendered.image, expect_special=True), truth) is None


def test_a_lone_misfire_die_the_d6_network_takes_for_no_die_is_read_when_expected(
        monkeypatch, read_at):
    # 800x600: an artillery die alone, its MISFIRE symbol a face no pip die shows; the d6
    # network reads its blob as no die. Expecting special dice, the blobs no die was taken
    # at are shown to the special reader (`_lone_special_look`, fifty-second session).
    rng = np.random.default_rng([5201, 24])
    rendered = render_roll([Face("artillery", "misfire"), Face("d6", int(rng.integers(1, 7)))],
                           rng, size=(800, 600), touching=0.0)
    truth = rendered.truth[0]
    found = read_at(read_tray(rendered.image, expect_special=True), truth)
    assert found is not None and (found.kind, found.value) == ("artillery", "misfire")
    assert read_at(read_tray(rendered.image), truth) is None      # not sought unless expected
    monkeypatch.setattr(reader, "LONE_SCREEN", 2.0)                 # no place screened in
    assert read_at(read_tray(rendered.image, expect_special=True), truth) is None


class Blobs:
    """`TrayEdges.blob_area` of the dice at hand: the area of the blob under each."""

    def __init__(self, areas: dict) -> None:
        self.areas = areas

    def blob_area(self, c) -> float:
        return self.areas.get((c.x, c.y), 0.0)


def looked_round(monkeypatch, dice, special, blobs) -> tuple[list, list]:
    """Run the look on a black frame where every place reads as a HIT: the places read by
    the special reader, and the dice after the look."""
    looked = []
    monkeypatch.setattr(reader, "special_face_probability",
                        lambda image, places, turns: np.ones(len(places)))
    monkeypatch.setattr(reader, "read_segmented", lambda image, x, y, side: looked.append(
        (x, y)) or SpecialReading("scatter", "hit", None, 0.99, (x, y)))
    source = reader.CropSource(np.zeros((400, 400, 3), np.uint8))
    return looked, reader._special_beside_look(source, dice, special, None, blobs, None)


def special_die(x: float, y: float, value, special: dict) -> tuple:
    c = Candidate(x, y, 40)
    special[c] = SpecialReading("artillery", value, None, 0.9, (x, y))
    p = np.zeros(reader.CLASSES, np.float32)
    p[reader.SPECIAL] = 1.0
    return c, p


def test_a_die_read_leaning_stays_and_no_special_die_is_read_on_it(monkeypatch):
    """Round a die the special reader read as leaning, places are read only clear of it, and
    it stays (sought within it, and giving way to a face read there, leaning dice were read
    as faces: their tilted face reads as a flat one)."""
    special = {}
    leaning = special_die(100, 100, None, special)
    flat = special_die(140, 100, 4, special)                  # side by side, one blob
    looked, dice = looked_round(monkeypatch, [leaning, flat], special,
                                Blobs({(100, 100): 3200, (140, 100): 3200}))
    clear = reader.SPECIAL_CLEAR * reader.SPECIAL_TOP_FACE * 40
    assert looked and all(np.hypot(x - 100, y - 100) > clear for x, y in looked)
    assert dice[:2] == [leaning, flat] and special[leaning[0]].value is None
    added = [c for c, _ in dice[2:]]
    assert added and all(special[c].value == "hit" for c in added)
    assert all(np.hypot(a.x - b.x, a.y - b.y) > clear for a in added for b in added if a != b)


def test_only_dice_whose_blob_holds_more_than_one_die_are_looked_round(monkeypatch):
    """A pip die alone in its blob (a lone die's blob is 1.0-1.25 of its outline squared)
    has no die touching it to find: the look's places are read round the others only."""
    special = {}
    alone = Candidate(100, 100, 40), np.eye(reader.CLASSES, dtype=np.float32)[4]
    paired = special_die(300, 300, 6, special)
    looked, _ = looked_round(monkeypatch, [alone, paired], special,
                             Blobs({(100, 100): 1.1 * 40 ** 2, (300, 300): 2.0 * 40 ** 2}))
    assert looked and all(np.hypot(x - 300, y - 300) < 2 * 40 for x, y in looked)


def test_a_die_read_as_a_special_face_is_looked_round_from_where_it_was_read(monkeypatch):
    """A die read as a special face is looked round whatever its blob (a scatter and an
    artillery die rolled alone are the typical outline the blob is measured by), from
    its top face, where the special reader read it, not from the candidate's centre."""
    special = {}
    c, p = special_die(100, 100, 4, special)
    special[c] = SpecialReading("artillery", 4, None, 0.9, (110.0, 100.0))
    looked, _ = looked_round(monkeypatch, [(c, p)], special, Blobs({(100, 100): 1.1 * 40 ** 2}))
    face = reader.SPECIAL_TOP_FACE * 40
    reach = sorted({round(float(np.hypot(x - 110, y - 100)) / face, 2) for x, y in looked})
    assert looked and reach[0] >= min(reader.SPECIAL_BESIDE) - 0.01


def touching_pair(faces, seed):
    """Two special dice touching, alone in a 640x480 tray, both flat."""
    rendered = render_roll(faces, np.random.default_rng(seed), size=(640, 480), touching=1.0)
    assert all("touching" in t.flags and "cocked" not in t.flags for t in rendered.truth)
    return rendered


def assert_both_read(rendered, read_at) -> None:
    dice = read_tray(rendered.image, expect_special=True)
    for truth in rendered.truth:
        found = read_at(dice, truth)
        assert found is not None and (found.kind, found.value) == (truth.kind, truth.value)


def test_two_touching_special_dice_alone_in_the_tray_are_both_read(read_at):
    """An artillery 4 touching a scatter arrow, nothing else in the tray: the pair is one
    blob, read as the 4. The arrow beside it is sought round the 4's top face."""
    assert_both_read(touching_pair([Face("artillery", 4), Face("scatter", "arrow")], 6), read_at)


def test_a_misfire_beside_a_hit_that_screens_under_0_9_is_read(read_at, monkeypatch):
    """A scatter HIT touching a MISFIRE, the pair read as the HIT alone; the screen network
    reads the MISFIRE's place beside it under 0.9. Screened from `SPECIAL_SCREEN` (0.7) it
    is read (read_segmented is sure of it); from 0.9 it is missed."""
    rendered = touching_pair([Face("scatter", "hit"), Face("artillery", "misfire")], 172)
    assert_both_read(rendered, read_at)
    monkeypatch.setattr(reader, "SPECIAL_SCREEN", 0.9)
    misfire = rendered.truth[1]
    assert read_at(read_tray(rendered.image, expect_special=True), misfire) is None


def test_a_special_die_sought_beside_another_is_taken_from_90_percent_sure(monkeypatch,
                                                                          read_at):
    # 800x600: an artillery 10 touching a scatter arrow; the arrow is read, and the 10,
    # sought beside it, is read 0.9 sure: lost while the looks took a face only from
    # `SURE_SPECIAL` (0.95; sixty-second session).
    rendered = render_roll([Face("artillery", 10), Face("scatter", "arrow"), Face("d6", 2)],
                           np.random.default_rng([631, 43]), (800, 600), touching=1.0)
    ten, arrow = rendered.truth[:2]
    assert "touching" in ten.flags
    dice = read_tray(rendered.image, expect_special=True)
    assert [(d.kind, d.value) for d in (read_at(dice, ten), read_at(dice, arrow))] == \
        [("artillery", 10), ("scatter", "arrow")]
    monkeypatch.setattr(reader, "SURE_SOUGHT", reader.SURE_SPECIAL)
    # (The pip-cluster look, which reads the 10 at its numeral's strokes, off too.)
    monkeypatch.setattr(reader, "_pip_cluster_look", lambda source, dice, *args: dice)
    assert read_at(read_tray(rendered.image, expect_special=True), ten) is None


def top_face_side(truth) -> float:
    corners = truth.top_corners
    return float(np.mean([np.hypot(*(corners[i] - corners[(i + 1) % 4])) for i in range(4)]))


def test_the_special_looks_size_a_top_face_by_the_faces_found(monkeypatch, read_at):
    # 1920x1080: an artillery 8 touching a scatter arrow, top faces 47-50 px. Sized as 0.7
    # of the dice's median outline (53 px), the 8 sought beside the arrow was lost; sized
    # by the top faces found at the dice read with a face (`_typical_top_face`), it is
    # read (sixty-third session).
    rendered = render_roll([Face("scatter", "arrow"), Face("artillery", 8), Face("d6", 3)],
                           np.random.default_rng([631, 69]), (1920, 1080), touching=1.0)
    arrow, eight = rendered.truth[:2]
    assert "touching" in eight.flags
    measured, sized = reader._typical_top_face, []
    monkeypatch.setattr(reader, "_typical_top_face",
                        lambda source, dice: sized.append(measured(source, dice)) or sized[-1])
    dice = read_tray(rendered.image, expect_special=True)
    assert [(d.kind, d.value) for d in (read_at(dice, arrow), read_at(dice, eight))] == \
        [("scatter", "arrow"), ("artillery", 8)]
    true_side = np.mean([top_face_side(t) for t in rendered.truth])
    assert sized and abs(sized[0] / true_side - 1) < 0.05
    monkeypatch.setattr(reader, "_typical_top_face", lambda source, dice: None)   # the outline's
    assert read_at(read_tray(rendered.image, expect_special=True), eight) is None
