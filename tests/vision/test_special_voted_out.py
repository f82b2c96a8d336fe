"""A pip die the d6 network calls special, but the special reader reads as no special face
(its own network calls it "other"), is a pip die to the looks (reader, `_special_verdicts`;
docs/history/vision.md, nineteenth session): read as pips when a look reads its face surely,
reported unreadable as before otherwise."""

import math

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


def test_a_die_no_look_reads_keeps_its_special_reading():
    """The special vote is set to 0 only for the looks: a die no look reads as a pip face
    gets back its first reading (special, reported unreadable), and the special reader's
    verdict is kept for the report."""
    c = reader.Candidate(10.0, 10.0, 20.0)
    p = np.zeros(CLASSES, np.float32)
    p[SPECIAL], p[3] = 0.7, 0.3
    [(_, voted_out)] = reader._special_voted_out([(c, p)], {c})
    assert voted_out[SPECIAL] == 0 and voted_out[3] == p[3] and p[SPECIAL] == 0.7
    kept = reader._pips_or_special([(c, voted_out)], [(c, p)], {c: None})
    assert kept[0][1] is p
    read = np.zeros(CLASSES, np.float32)
    read[3] = 0.9
    assert reader._pips_or_special([(c, read)], [(c, p)], {c: None})[0][1] is read
