"""Pip dice still read without a face, read on a patch of places around them
(`reader._patch_look`; docs/history/vision.md, "Twenty-eighth session")."""

import numpy as np

from station.fakes.tray import random_tray
from station.vision import read_tray, reader


def test_a_flat_die_read_off_its_top_face_is_read_on_the_patch(read_only_with):
    # Tray 175 of seed 11100, 800x600: a grey 4 lying alone is read without a face at its
    # outline's centre and by every other look; a place of the patch round it reads it as a
    # 4, and the lean check finds it flat.
    read_only_with("_patch_look", random_tray(np.random.default_rng([11100, 175]), dice=(1, 40)),
                   6, 4, "grey", touching=False)


def test_a_leaning_die_found_by_the_patch_stays_flagged(monkeypatch, read_at):
    # Tray 36 of seed 11101 (the leaning trays), 640x480: a red 4 leans on a neighbour. The
    # patch reads its tilted top face surely, and the lean check at its own cut-off would
    # let it through; under `PATCH_LEANING` only, it stays flagged, without a value.
    rendered, truth = _leaning_die_flagged(read_at, 11101, 36, 15, 4, "red")
    # Without the guard it is given a value: the test can fail.
    monkeypatch.setattr(reader, "PATCH_LEANING", 1.0)
    assert read_at(read_tray(rendered.image), truth).value == 4


def test_a_grey_die_is_read_on_the_patch_at_its_top_faces_size(monkeypatch, read_at):
    # Tray 50 of seed 20003, 1280x960: a grey 4 and a grey 2 lie alone on a pale floor, their
    # side faces nearly the shade of their top face. Cut at their outline's size they read
    # leaning, on the first patch too; the second patch, at the typical die's top face,
    # reads each as its face, and the lean check finds it flat.
    rendered = random_tray(np.random.default_rng([20003, 50]), dice=(1, 40))
    dice = [rendered.truth[7], rendered.truth[8]]
    assert [(t.value, t.colour) for t in dice] == [(4, "grey"), (2, "grey")]
    read = read_tray(rendered.image)
    assert [read_at(read, t).value for t in dice] == [4, 2]
    monkeypatch.setattr(reader, "SMALL_PATCH", 0.0)     # no second patch: the test can fail
    monkeypatch.setattr(reader, "FLAT_BY_CHECK", 0.0)   # (the lean check reads them too,
    monkeypatch.setattr(reader, "_recentred_on_pips",   # and the recentring at their pips)
                        lambda source, dice, *args: dice)
    read = read_tray(rendered.image)
    assert [read_at(read, t).value for t in dice] == [None, None]


def test_a_die_a_first_patch_place_reads_leaning_gets_no_second_patch(monkeypatch, read_at):
    # Tray 0 of seed 2025 (the benchmark's leaning trays), 1280x960: a blue 4 leans on a
    # neighbour. A place of the first patch reads it leaning 0.95 sure, so the second patch
    # is not read: there its tilted top face reads as a 4, and the lean check finds it flat.
    rendered, truth = _leaning_die_flagged(read_at, 2025, 0, 24, 4, "blue")
    patch = reader._patch

    def patch_without_leaning(*args):
        read = patch(*args)
        return read and (read[0], False)
    monkeypatch.setattr(reader, "_patch", patch_without_leaning)
    assert read_at(read_tray(rendered.image), truth).value == 4


def _leaning_die_flagged(read_at, seed: int, tray: int, index: int, value: int, colour: str):
    """The leaning trays' (1-30 dice, 30 % leaning) tray `tray` of `seed`, and its die
    `index`, a leaning die of that value and colour, which the reader flags without a value."""
    rendered = random_tray(np.random.default_rng([seed, tray]), dice=(1, 30), cocked=0.3)
    truth = rendered.truth[index]
    assert (truth.value, truth.colour) == (value, colour) and "cocked" in truth.flags
    found = read_at(read_tray(rendered.image), truth)
    assert found.value is None and "cocked" in found.flags
    return rendered, truth
