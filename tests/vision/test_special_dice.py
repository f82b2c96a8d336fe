"""Scatter and artillery dice read out of the box (issue 4; RULES.md SCAT-1, SCAT-2, SCAT-3)."""

import math

import numpy as np
import pytest

from station.fakes.tray import render_roll
from station.rules.faces import Face
from station.vision import special_dice
from station.vision.special_dice import classify_crop, read_special


def side_px(truth):
    c = truth.top_corners
    return float(np.mean([np.hypot(*(c[i] - c[(i + 1) % 4])) for i in range(4)]))


def read(shot, truth):
    x0, y0, x1, y1 = truth.box
    return read_special(shot.image, (x0 + x1) / 2, (y0 + y1) / 2, side_px(truth))


def angle_error(a, b):
    return abs((a - b + 180) % 360 - 180)


def test_scatter_arrow_bearings():
    """SCAT-2: the bearing is a continuous angle, not one of four directions."""
    read_right = 0
    for bearing in (0.0, 37.0, 135.0, 200.0, 263.0, 301.0):
        shot = render_roll([Face("scatter", "arrow", bearing), Face("d6", 3)],
                           np.random.default_rng(int(bearing)), size=(1280, 960))
        got = read(shot, shot.truth[0])
        if got is not None and (got.kind, got.value) == ("scatter", "arrow"):
            read_right += 1
            assert angle_error(got.bearing_deg, shot.truth[0].bearing_deg) < 3.0
    assert read_right == 6


def test_hit_faces_small_arrow_bearings():
    """SCAT-2 on a HIT face: the small arrow's bearing (40-50 px dice at 1280x960); faces
    drawn without a small arrow have no bearing in truth and are skipped."""
    measured = 0
    for seed in range(8):
        rng = np.random.default_rng(seed)
        bearing = float(rng.uniform(0, 360))
        shot = render_roll([Face("scatter", "hit", bearing), Face("d6", 2)], rng,
                           size=(1280, 960))
        truth = shot.truth[0]
        if truth.bearing_deg is None:
            continue
        got = read(shot, truth)
        assert (got.kind, got.value) == ("scatter", "hit")
        assert got.bearing_deg is not None, f"seed {seed}: no bearing"
        assert angle_error(got.bearing_deg, truth.bearing_deg) < 2.5, f"seed {seed}"
        measured += 1
    assert measured >= 4


def test_no_small_arrow_bearing_on_dice_too_small_to_show_it(monkeypatch):
    """A HIT face's small arrow on a die under `SMALL_ARROW_SIDE` pixels is a few pixels of
    blur: the face is read, but no bearing is guessed (the player is asked for it). The
    same dice, their threshold lowered, are given one, so the test can fail."""
    small = []
    for seed in range(40):
        rng = np.random.default_rng(seed)
        shot = render_roll([Face("scatter", "hit", float(rng.uniform(0, 360)))], rng,
                           size=(640, 480), die_mm=10.0)
        truth = shot.truth[0]
        if truth.bearing_deg is not None and side_px(truth) < special_dice.SMALL_ARROW_SIDE:
            got = read(shot, truth)
            if got is not None and got.value == "hit":
                small.append((shot, truth))
                assert got.bearing_deg is None, f"seed {seed}: {got.bearing_deg}"
        if len(small) == 3:
            break
    assert len(small) == 3
    monkeypatch.setattr(special_dice, "SMALL_ARROW_SIDE", 0)
    assert any(read(shot, truth).bearing_deg is not None for shot, truth in small)


def test_a_small_sample_of_trays():
    """Every special face of a fixed sample, in the renderer's fonts; d6 dice left alone."""
    rng = np.random.default_rng(77)
    faces = [Face("scatter", "hit"), Face("scatter", "arrow")] + \
        [Face("artillery", v) for v in (2, 4, 6, 8, 10, "misfire")] + \
        [Face("d6", v) for v in range(1, 7)]
    right = total = d6_taken = 0
    for size in [(800, 600), (1280, 960), (1920, 1080)]:
        shot = render_roll(faces, rng, size=size)
        for truth in shot.truth:
            got = read(shot, truth)
            if truth.kind == "d6":
                d6_taken += got is not None
                continue
            total += 1
            right += got is not None and (got.kind, got.value) == (truth.kind, truth.value)
    assert right >= total - 2, f"{right}/{total} special faces read"
    assert d6_taken <= 1


def test_not_a_die_or_too_small_is_none():
    assert classify_crop(np.zeros((4, 4, 3), np.uint8)) is None
    assert classify_crop(np.full((40, 40, 3), 128, np.uint8)) is None
    image = np.full((100, 100, 3), 90, np.uint8)
    assert read_special(image, 2, 2, 1.0) is None


def test_cocked_special_dice_are_flagged_not_read():
    """A scatter or artillery die leaning on a die or the wall: value None (re-roll it)."""
    rng = np.random.default_rng(5)
    faces = [Face("scatter", "arrow"), Face("scatter", "hit")] + \
        [Face("artillery", v) for v in (2, 6, 10, "misfire")] + [Face("d6", 2), Face("d6", 5)]
    cocked = flagged = guessed = flat = flat_flagged = 0
    for _ in range(3):
        shot = render_roll(faces, rng, size=(1280, 960), cocked=0.5)
        for truth in shot.truth:
            if truth.kind == "d6":
                continue
            got = read(shot, truth)
            if "cocked" in truth.flags:
                cocked += 1
                flagged += got is not None and got.value is None
                guessed += got is not None and got.value is not None
            else:
                flat += 1
                flat_flagged += got is not None and got.value is None
    assert cocked >= 6 and flat >= 4
    # Measured: 6 of 8 flagged, 2 still read as a face (the benchmark's cocked figure).
    assert flagged >= cocked * 2 // 3, f"{flagged}/{cocked} cocked special dice flagged"
    assert guessed <= cocked // 4
    assert flat_flagged == 0


@pytest.mark.parametrize("weights, model, script", [
    ("WEIGHTS", special_dice._model, "train_special.py"),
    ("SCREEN_WEIGHTS", special_dice._screen_model, "train_special.py"),
    ("LEAN_WEIGHTS", special_dice._lean_model, "train_special_lean.py"),
    ("BEARING_WEIGHTS", special_dice._bearing_model, "train_bearing.py"),
    ("HIT_BEARING_WEIGHTS", special_dice._hit_bearing_model, "train_bearing.py")])
def test_missing_weights_say_how_to_get_them(monkeypatch, tmp_path, weights, model, script):
    monkeypatch.setattr(special_dice, weights, str(tmp_path / "gone.onnx"))
    model.cache_clear()
    try:
        with pytest.raises(FileNotFoundError, match=script):
            model()
    finally:
        model.cache_clear()


def test_a_die_found_off_centre_is_read_centred_on_its_top_face():
    """The segmenter's centres can be a third of a side off the top face's."""
    shot = render_roll([Face("artillery", 8), Face("scatter", "arrow", 120.0)],
                       np.random.default_rng(12), size=(1280, 960))
    for truth in shot.truth:
        side = side_px(truth)
        x, y = truth.center[0] + 0.3 * side, truth.center[1] - 0.2 * side
        cx, cy, face_side = special_dice.centre_on_face(shot.image, x, y, 1.3 * side)
        assert math.dist((cx, cy), truth.center) < 0.12 * side
        assert 0.85 < face_side / side < 1.15
        got = special_dice.read_segmented(shot.image, x, y, 1.3 * side)
        assert (got.kind, got.value) == (truth.kind, truth.value)


@pytest.mark.parametrize("seed", [5, 9, 12, 48])
def test_an_arrow_merged_with_a_glare_spot_still_gets_its_bearing(seed):
    """A glare spot's soft halo can merge with a light arrow at the usual ink level; cut
    higher, the halo shrinks away and the arrow is measured (these dice had no bearing)."""
    shot = render_roll([Face("scatter", "arrow")], np.random.default_rng(seed), size=(1280, 960))
    truth = shot.truth[0]
    got = read(shot, truth)
    assert (got.kind, got.value) == ("scatter", "arrow")
    assert angle_error(got.bearing_deg, truth.bearing_deg) < 3.0


def test_blurred_numerals_are_read_sharpened(monkeypatch):
    """A camera out of focus (a Gaussian blur of 3 px on 1920x1080 frames of 40-45 px
    dice): a crop that leaves a special face in doubt is read again sharpened
    (`special_dice.SOFT_CROP`), which reads more artillery faces and no more wrongly."""
    from station.fakes.tray import Finish

    faces = [Face("artillery", v) for v in (2, 4, 6, 8, 10, "misfire")] * 2 + \
        [Face("d6", v) for v in range(1, 7)]
    shots = [render_roll(faces, np.random.default_rng(seed), size=(1920, 1080),
                         finish=Finish(blur=2.0, noise=2.0, jpeg_quality=85))
             for seed in (0, 6)]

    def tally():
        right = wrong = d6_taken = 0
        for shot in shots:
            for truth in shot.truth:
                got = read(shot, truth)
                if truth.kind == "d6":
                    d6_taken += got is not None
                elif got is not None and got.value is not None:
                    right += got.value == truth.value
                    wrong += got.value != truth.value
        return right, wrong, d6_taken

    sharpened = tally()
    monkeypatch.setattr(special_dice, "SOFT_CROP", math.inf)     # never read again
    as_it_is = tally()
    assert sharpened[0] >= as_it_is[0] + 3, (sharpened, as_it_is)   # measured 22 and 17 of 24
    assert sharpened[1] <= as_it_is[1] and sharpened[2] == 0, (sharpened, as_it_is)
