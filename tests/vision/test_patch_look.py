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
    rendered = random_tray(np.random.default_rng([11101, 36]), dice=(1, 30), cocked=0.3)
    truth = rendered.truth[15]
    assert (truth.value, truth.colour) == (4, "red") and "cocked" in truth.flags
    found = read_at(read_tray(rendered.image), truth)
    assert found.value is None and "cocked" in found.flags
    # Without the guard it is given a value: the test can fail.
    monkeypatch.setattr(reader, "PATCH_LEANING", 1.0)
    assert read_at(read_tray(rendered.image), truth).value == 4
