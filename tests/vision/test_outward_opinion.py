"""The outward network's second opinion (reader step 6, last checks; docs/history/vision.md, tenth
session): pip dice every other look read without a face are read by the outward network on
outward-up crops, and a face it reads `reader.OUTWARD_SURE` sure at the die's centre replaces
the flag; else a face `reader.OUTWARD_AGREE` of the looks around it read `SURE_FACE` sure,
none disagreeing or leaning ("More places")."""

import math

import numpy as np
import pytest

from station.fakes.tray import random_tray
from station.vision import classifier, read_tray, reader
from station.vision.crops import CropSource
from station.vision.segment import Candidate


def rendered_tray(seed: int, index: int):
    return random_tray(np.random.default_rng([seed, index]), size=(640, 480), dice=(3, 8),
                       cocked=0.15)


def die_at(dice, x: float, y: float):
    [die] = [d for d in dice if math.hypot(d.center[0] - x, d.center[1] - y) < 12]
    return die


def die_in(dice, box):
    """The one die read with its centre in the `box` (a die seen obliquely is found off its
    true centre)."""
    [die] = [d for d in dice
             if box[0] <= d.center[0] <= box[2] and box[1] <= d.center[1] <= box[3]]
    return die


@pytest.fixture
def no_outward_opinion():
    classifier.use_outward(None)
    yield
    classifier.use_outward(classifier.OUTWARD_WEIGHTS)


def test_a_flat_die_away_from_the_centre_flagged_cocked_is_read(no_outward_opinion,
                                                                 monkeypatch):
    """A purple 6 lying flat near the top-right corner (r 0.57 of the half-diagonal): the
    committed classifier calls it leaning at every look, the outward network reads the 6.
    (The top-face look, sought again off its centre, reads it too: kept to its centre here,
    docs/history/vision.md, seventeenth session; so does the patch look's second patch, at
    the typical top face's size: kept off, thirty-sixth session; the lean check, which
    finds it flat: kept off, forty-fourth session; and the recentring at its pips: kept
    off, seventy-first session.)"""
    monkeypatch.setattr(reader, "FACE_SEED", 0.0)
    monkeypatch.setattr(reader, "SMALL_PATCH", 0.0)
    monkeypatch.setattr(reader, "FLAT_BY_CHECK", 0.0)
    monkeypatch.setattr(reader, "_recentred_on_pips", lambda source, dice, *args: dice)
    tray = rendered_tray(31, 28)
    [truth] = [t for t in tray.truth if math.hypot(t.center[0] - 521, t.center[1] - 130) < 5]
    assert truth.value == 6 and "cocked" not in truth.flags
    assert "cocked" in die_at(read_tray(tray.image), *truth.center).flags
    classifier.use_outward(classifier.OUTWARD_WEIGHTS)
    die = die_at(read_tray(tray.image), *truth.center)
    assert die.value == 6 and die.flags == [], die


def test_a_leaning_die_stays_flagged():
    """A die leaning on another, whose tilted top face (a 4) is the face the outward network
    likes best for it (about 10 %): still flagged, no value."""
    tray = rendered_tray(31, 6)
    [truth] = [t for t in tray.truth if math.hypot(t.center[0] - 396, t.center[1] - 182) < 12]
    assert "cocked" in truth.flags
    die = die_at(read_tray(tray.image), *truth.center)
    assert die.value is None and "cocked" in die.flags, die


LOOKS = 9    # the centre and eight places around it


class Sure:
    """A stand-in outward network that reads every crop as `face`, `p` sure; it keeps the
    crops it was shown."""

    def __init__(self, face: int, p: float) -> None:
        self.face, self.p, self.seen = face, p, []

    def predict(self, crops):
        self.seen.extend(crops)
        probs = np.full((len(crops), classifier.CLASSES), (1 - self.p) / (classifier.CLASSES - 1))
        probs[:, self.face] = self.p
        return probs


def test_only_pip_dice_without_a_face_are_asked(monkeypatch, reading):
    net = Sure(5, reader.OUTWARD_SURE + 0.01)
    monkeypatch.setattr(reader, "default_outward", lambda: net)
    source = CropSource(np.full((200, 300, 3), 128, np.uint8))
    dice = [(Candidate(50, 50, 30), reading(classifier.COCKED, 0.8)),     # leaning: asked
            (Candidate(250, 50, 30), reading(3, 0.3)),                    # unreadable: asked
            (Candidate(50, 150, 30), reading(classifier.SPECIAL, 0.4)),   # special: left
            (Candidate(250, 150, 30), reading(2, 0.95))]                  # read: left
    opinion = reader._outward_opinion(source, dice)
    assert len(net.seen) == 2 * LOOKS
    assert [int(p.argmax()) for _, p in opinion[:2]] == [5, 5]
    assert all(c is c2 for (c, _), (c2, _) in zip(dice, opinion))
    for (_, p), (_, p2) in zip(dice[2:], opinion[2:]):
        assert p2 is p


@pytest.mark.parametrize("face, p", [(5, reader.OUTWARD_SURE - 0.01), (classifier.COCKED, 0.99),
                                     (classifier.SPECIAL, 0.99)])
def test_no_unsure_face_and_no_other_class_replaces_the_flag(monkeypatch, reading, face, p):
    monkeypatch.setattr(reader, "default_outward", lambda: Sure(face, p))
    source = CropSource(np.full((100, 100, 3), 128, np.uint8))
    dice = [(Candidate(50, 50, 30), reading(classifier.COCKED, 0.8))]
    assert reader._outward_opinion(source, dice)[0][1] is dice[0][1]


def test_the_outward_network_gets_outward_up_crops(monkeypatch, reading):
    """A die to the right of the frame's centre with a dark mark on its outward (right)
    side: the crop shows the mark at the top, as the outward network was trained."""
    image = np.full((200, 300, 3), 60, np.uint8)
    image[85:115, 235:265] = 230
    image[95:105, 258:265] = 0
    net = Sure(5, 0.5)
    monkeypatch.setattr(reader, "default_outward", lambda: net)
    reader._outward_opinion(CropSource(image), [(Candidate(250, 100, 30),
                                                 reading(classifier.COCKED, 0.8))])
    crop = net.seen[0]                  # the centre's crop, then the ring's
    dark_rows = np.nonzero((crop[..., 0] < 30).any(axis=1))[0]
    assert len(dark_rows) and dark_rows.max() < crop.shape[0] / 2


class Scripted:
    """A stand-in outward network that gives the crops, in order, these readings; the
    rest read as nothing sure (`unsure`)."""

    def __init__(self, readings, unsure) -> None:
        self.readings, self.unsure = readings, unsure

    def predict(self, crops):
        return np.array((self.readings + [self.unsure] * len(crops))[:len(crops)])


def opinion_of(monkeypatch, reading, readings):
    """A die flagged cocked, before and after the check whose looks read `readings`
    ((class, p) each, in order: the centre, then the ring)."""
    net = Scripted([reading(face, p) for face, p in readings], reading(3, 0.4))
    monkeypatch.setattr(reader, "default_outward", lambda: net)
    source = CropSource(np.full((200, 300, 3), 128, np.uint8))
    dice = [(Candidate(150, 100, 30), reading(classifier.COCKED, 0.8))]
    return dice[0], reader._outward_opinion(source, dice)[0]


SURE = reader.SURE_FACE + 0.01


def test_two_looks_around_the_die_sure_of_one_face_read_it(monkeypatch, reading):
    """The centre unsure, two places of the ring read a 5 `SURE_FACE` sure: the surer one
    wins, at its place (a smaller crop, off the centre)."""
    before, (look, p) = opinion_of(monkeypatch, reading,
                                   [(4, 0.6), (3, 0.5), (5, SURE), (3, 0.5), (5, SURE + 0.02)])
    assert int(p.argmax()) == 5 and p[5] == pytest.approx(SURE + 0.02)
    assert look.side == pytest.approx(30 * reader.TOP_FACE)
    assert math.hypot(look.x - 150, look.y - 100) == pytest.approx(reader.OUTWARD_RING * 30)


@pytest.mark.parametrize("readings", [
    [(4, 0.6), (5, SURE)],                                       # one look only
    [(4, 0.6), (5, SURE), (5, SURE), (2, SURE)],                 # another face as sure
    [(4, 0.6), (5, SURE), (5, SURE), (classifier.COCKED, SURE)],  # a look sure it leans
    [(classifier.COCKED, SURE), (5, SURE), (5, SURE)],           # the centre sure it leans
    [(4, 0.6), (5, reader.SURE_FACE - 0.01), (5, reader.SURE_FACE - 0.01)],   # not sure
    [(4, 0.6), (classifier.SPECIAL, SURE), (classifier.SPECIAL, SURE)],       # not pips
])
def test_the_ring_reads_nothing_without_agreement(monkeypatch, reading, readings):
    before, after = opinion_of(monkeypatch, reading, readings)
    assert after is before


def test_the_centre_sure_wins_before_the_ring(monkeypatch, reading):
    """The centre read a 2 `OUTWARD_SURE` sure: taken, though the ring agrees on a 5."""
    before, (look, p) = opinion_of(monkeypatch, reading,
                                   [(2, reader.OUTWARD_SURE + 0.01), (5, SURE), (5, SURE)])
    assert look is before[0] and int(p.argmax()) == 2


def test_a_flat_die_the_centre_crop_cannot_read_is_read_around_it(monkeypatch):
    """A flat 1 at r 0.51 of the half-diagonal (a leaning-check tray of seed 99): flagged
    cocked by every look and by the outward network at its centre; two places of the ring
    read the 1 `SURE_FACE` sure. (The top-face look after it, left out here, reads it too;
    so does the split of the leaning reading between it and the 3 it touches into the
    readings of the two dice, `reader._opposite_pair`, also left out; and the residue look,
    `reader._residue_look`, and the dropped-die look, `reader._dropped_die_look`, which find
    it beside the 3 earlier, and the patch look, `reader._patch_look`, and the pip-cluster
    look, `reader._pip_cluster_look`, and the recentring at its pips,
    `reader._recentred_on_pips`, which read it after them.)"""
    tray = random_tray(np.random.default_rng([99, 38]), size=(1280, 960), dice=(3, 15),
                       cocked=0.15, special={"scatter": (0, 2), "artillery": (0, 2)})
    [truth] = [t for t in tray.truth if t.kind == "d6" and t.value == 1
               and "cocked" not in t.flags and math.hypot(t.center[0] - 640, t.center[1] - 480)
               > 0.45 * math.hypot(640, 480)]
    monkeypatch.setattr(reader, "_top_face_look", lambda source, dice: dice)
    monkeypatch.setattr(reader, "_opposite_pair", lambda *reading: None)
    monkeypatch.setattr(reader, "_residue_look", lambda source, dice, *args: dice)
    monkeypatch.setattr(reader, "_dropped_die_look", lambda source, dice, *args: dice)
    monkeypatch.setattr(reader, "_patch_look", lambda source, dice: dice)
    monkeypatch.setattr(reader, "_pip_cluster_look", lambda source, dice, *args: dice)
    monkeypatch.setattr(reader, "_recentred_on_pips", lambda source, dice, *args: dice)
    with monkeypatch.context() as patch:
        patch.setattr(reader, "OUTWARD_AGREE", 10)       # more looks than there are
        assert "cocked" in die_in(read_tray(tray.image), truth.box).flags
    die = die_in(read_tray(tray.image), truth.box)
    assert die.value == 1 and die.flags == [], die
