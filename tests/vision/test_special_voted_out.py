"""A pip die the d6 network calls special, but the special reader reads as no special face
(its own network calls it "other"), is a pip die to the looks (reader, `_special_verdicts`;
docs/history/vision.md, nineteenth session): read as pips when a look reads its face surely,
reported unreadable as before otherwise. So is a die the d6 network calls special only
doubtfully (`reader.DOUBTFUL_SPECIAL`; forty-fourth session), which keeps the special
reader's reading when no look reads a pip face."""

import json
import math
from pathlib import Path

import cv2
import pytest

import numpy as np

from station.fakes.tray import random_tray
from station.vision import read_tray, reader
from station.vision.classifier import CLASSES, SPECIAL


def validation_tray(index: int):
    """Tray `index` of validation seed 776 (as /work/briefs/val.py renders it)."""
    return random_tray(np.random.default_rng([776, index]), dice=(1, 40))


def test_a_pip_die_the_d6_network_calls_special_is_read_by_the_looks():
    """A green 1 the d6 network calls special at its outline, which the special reader does
    not read: left unreadable before; the looks read it as a 1."""
    tray = validation_tray(117)
    truth = tray.truth[6]
    assert truth.value == 1
    dice = read_tray(tray.image)
    [die] = [d for d in dice
             if math.hypot(d.center[0] - truth.center[0], d.center[1] - truth.center[1])
             < 0.5 * (truth.box[2] - truth.box[0])]
    assert (die.kind, die.value) == ("d6", 1) and "unreadable" not in die.flags


@pytest.mark.parametrize("photo, value, box", [
    # a swirled blue 3, read as an artillery misfire before
    ("IMG_20191208_111228.jpg", 3, [93.6, 207.0, 135.0, 248.4]),
    # a red 1 by the tray wall, read as a cocked artillery die before
    ("IMG_20191208_111847.jpg", 1, [423.4, 240.0, 475.3, 291.9]),
])
def test_a_real_pip_die_called_special_doubtfully_is_read_as_pips(photo, value, box):
    folder = Path(__file__).parent / "data" / "real-train"
    labels = json.loads((folder / "labels.json").read_text())[photo]
    [truth] = [lab for lab in labels if lab["value"] == value and lab["box"] == box]
    x0, y0, x1, y1 = truth["box"]
    dice = read_tray(cv2.imread(str(folder / photo)))
    seen = [d for d in dice if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]
    assert [(d.kind, d.value) for d in seen] == [("d6", value)]


def test_a_special_die_called_special_doubtfully_stays_special(monkeypatch):
    """A rendered scatter HIT the d6 network calls special only 0.41 sure: no look reads a
    pip face on it, so it keeps the special reader's reading."""
    doubtful = []
    called = reader._doubtfully_special
    monkeypatch.setattr(reader, "_doubtfully_special",
                        lambda p: doubtful.append(called(p)) or doubtful[-1])
    tray = random_tray(np.random.default_rng([44, 63]), dice=(0, 6),
                       special={"scatter": (1, 2), "artillery": (1, 2)})
    [hit] = [t for t in tray.truth if t.kind == "scatter"]
    assert hit.value == "hit"
    dice = read_tray(tray.image)
    assert any(doubtful)
    [die] = [d for d in dice if math.dist(d.center, hit.center) < 0.5 * (hit.box[2] - hit.box[0])]
    assert (die.kind, die.value) == ("scatter", "hit")


def test_doubtfully_special_is_special_less_than_half_sure_given_a_die():
    p = np.zeros(CLASSES, np.float32)
    p[0], p[SPECIAL], p[1], p[3] = 0.2, 0.35, 0.25, 0.2     # 0.44 given a die
    assert reader._doubtfully_special(p)
    p[0], p[3] = 0.35, 0.05                                  # 0.54 given a die
    assert not reader._doubtfully_special(p)
    p[0], p[SPECIAL], p[1] = 0.2, 0.3, 0.35                  # called a 1, not special
    assert not reader._doubtfully_special(p)


def test_a_die_no_look_reads_keeps_its_special_reading():
    """The special vote is set to 0 only for the looks: a die no look reads as a pip face
    gets back its first reading (special, reported unreadable), and the special reader's
    verdict is kept for the report."""
    c = reader.Candidate(10.0, 10.0, 20.0)
    p = np.zeros(CLASSES, np.float32)
    p[SPECIAL], p[3] = 0.7, 0.3
    [(_, voted_out)] = reader._special_voted_out([(c, p)], {c})
    assert voted_out[SPECIAL] == 0 and voted_out[3] == p[3] and p[SPECIAL] == 0.7
    kept = reader._pips_or_special([(c, voted_out)], [(c, p)], {c})
    assert kept[0][1] is p
    read = np.zeros(CLASSES, np.float32)
    read[3] = 0.9
    assert reader._pips_or_special([(c, read)], [(c, p)], {c})[0][1] is read
