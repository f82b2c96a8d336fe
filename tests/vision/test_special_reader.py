"""read_tray with special dice: marker tiles skipped, cocked special dice flagged (issue 4)."""

import math

import numpy as np
import pytest

from station.fakes.tray import random_tray, render_roll
from station.rules.faces import Face
from station.vision import read_tray
from station.vision.calibration import calibrate_image
from station.vision.special_dice import (CLASSES, COCKED_PROBABILITY, SURE_HIT, _face_of,
                                         read_segmented)


def test_marker_tiles_are_not_read_as_dice():
    """The calibration sheet's tiles in the tray's corners look like dice to the d6 network;
    with the tray's profile the reader skips them and still finds every die."""
    for seed in (35, 36):
        rng = np.random.default_rng(seed)
        shot = random_tray(rng, size=(640, 480), dice=(2, 5), markers=True,
                           special={"scatter": (1, 1), "artillery": (1, 1)},
                           yaw_deg=float(rng.uniform(-180, 180)))
        profile = calibrate_image(shot.image)
        dice = read_tray(shot.image, profile)
        assert not [d for d in dice if profile.on_marker(*d.center)]
        found = sum(any(math.dist(d.center, t.center) < (t.box[2] - t.box[0]) / 2 for d in dice)
                    for t in shot.truth)
        assert found >= len(shot.truth) - 1


def test_cocked_special_dice_are_flagged_by_the_reader():
    """A scatter or artillery die leaning on a die or the wall is flagged cocked, not read."""
    rng = np.random.default_rng(11)
    faces = [Face("scatter", "arrow"), Face("scatter", "hit"), Face("artillery", 4),
             Face("artillery", "misfire"), Face("d6", 1), Face("d6", 6)]
    cocked = flagged = 0
    for _ in range(3):
        shot = render_roll(faces, rng, size=(1280, 960), cocked=0.5)
        dice = read_tray(shot.image)
        for truth in shot.truth:
            if truth.kind == "d6" or "cocked" not in truth.flags:
                continue
            cocked += 1
            x0, y0, x1, y1 = truth.box
            seen = [d for d in dice if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]
            flagged += bool(seen) and all(d.value is None and "cocked" in d.flags for d in seen)
    assert cocked >= 4
    assert flagged >= cocked - 1, f"{flagged}/{cocked} cocked special dice flagged"


def test_a_flat_special_die_seen_from_the_side_is_read_at_its_top_face():
    """The outline the reader finds holds the die's side faces and shadow too: its centre
    lies up to half a side off the top face's, and a crop there looks like a leaning die.
    Read where its top face lies, this scatter die (flat, its arrow plain to see) is an
    arrow with its bearing, reported at its top face (before: a cocked d6; RULES.md SCAT-2)."""
    shot = random_tray(np.random.default_rng(23), size=(1280, 960), dice=(0, 2),
                       special={"scatter": (1, 1), "artillery": (1, 1)})
    dice = read_tray(shot.image)
    for truth in shot.truth:
        side = truth.box[2] - truth.box[0]
        got = [d for d in dice if math.dist(d.center, truth.center) < side / 3]
        assert [(d.kind, d.value) for d in got] == [(truth.kind, truth.value)]
        if truth.kind == "scatter":
            error = abs((got[0].bearing_deg - truth.bearing_deg + 180) % 360 - 180)
            assert error < 5.0


def test_a_pip_one_with_glare_is_not_read_as_a_hit():
    """The pip reader sends a die to the special reader when it might be special; a 1 whose
    glare spot sits by its pip reads as a scatter HIT 0.74 sure. Such a die found by the
    pip reader, 85 px wide, needs a HIT read `SURE_HIT` sure (a wrong HIT lands the
    template: SCAT-1)."""
    shot = random_tray(np.random.default_rng([778, 146]), dice=(1, 40))
    one = min(shot.truth, key=lambda t: math.dist(t.center, (916.0, 294.0)))
    assert (one.kind, one.value) == ("d6", 1)
    got = read_segmented(shot.image, 916.0, 294.0, 85.3)
    assert got is None or got.value != "hit"


def test_a_hit_on_a_large_die_counts_from_sure_hit_when_found_by_the_pip_reader():
    sure, large = SURE_HIT
    cocked = COCKED_PROBABILITY
    flat = np.zeros(len(CLASSES), np.float32)
    flat[CLASSES.index("hit")], flat[CLASSES.index("other")] = 0.75, 0.25
    assert _face_of(flat, large, cocked) == 0.0
    assert _face_of(flat, large - 1, cocked) == pytest.approx(0.75)   # a small die's word blurs
    flat[CLASSES.index("hit")], flat[CLASSES.index("other")] = 0.85, 0.15
    assert _face_of(flat, large, cocked) == pytest.approx(0.85)
    flat[CLASSES.index("hit")], flat[CLASSES.index("other")] = 0.0, 0.25
    flat[CLASSES.index(4)] = 0.75       # other faces still count from MIN_PROBABILITY
    assert _face_of(flat, large, cocked) == pytest.approx(0.75)


class StandIn:
    """The face network reading `outline` on the outline's crop (`read_segmented`'s first
    place), `top_face` on the next (its top face) and pips everywhere else."""

    def __init__(self, outline: np.ndarray, top_face: np.ndarray) -> None:
        self.rows = [outline, top_face]

    def predict_many(self, crops):
        pips = np.eye(len(CLASSES), dtype=np.float32)[CLASSES.index("other")]
        return np.stack(self.rows + [pips] * (len(crops) - 2))


def probabilities(**p: float) -> np.ndarray:
    row = np.zeros(len(CLASSES), np.float32)
    for name, value in p.items():
        row[CLASSES.index(name if name != "four" else 4)] = value
    return row


def test_the_outline_crop_flags_a_die_cocked_only_from_its_own_cut_off(monkeypatch):
    """The outline's crop holds the die's side faces and shadow: flat dice read P(cocked)
    0.70-0.79 there (docs/history/special-dice.md, fourteenth session), so it flags a die from
    `OUTLINE_COCKED_PROBABILITY`, the top face's crop from `COCKED_PROBABILITY`."""
    from station.vision import special_dice
    between = 0.75
    assert COCKED_PROBABILITY <= between < special_dice.OUTLINE_COCKED_PROBABILITY
    image = np.full((480, 640, 3), 90, np.uint8)
    leaning_outline = probabilities(cocked=between, four=1 - between)
    monkeypatch.setattr(special_dice, "_model", lambda: StandIn(
        leaning_outline, probabilities(cocked=0.01, four=0.99)))
    got = read_segmented(image, 320.0, 240.0, 60.0)
    assert (got.kind, got.value) == ("artillery", 4)           # read flat at its top face
    monkeypatch.setattr(special_dice, "_model", lambda: StandIn(
        probabilities(other=1.0), probabilities(cocked=between, four=1 - between)))
    got = read_segmented(image, 320.0, 240.0, 60.0)
    assert (got.kind, got.value) == ("artillery", None)        # cocked at its top face
