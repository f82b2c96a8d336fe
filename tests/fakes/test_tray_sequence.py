"""Rolls filmed as frame sequences: the truth a settle detector is judged against."""

import numpy as np

from station.fakes.tray import random_faces
from station.fakes.tray_sequence import render_sequence


def test_a_roll_goes_empty_hand_rolling_still():
    rng = np.random.default_rng(11)
    seq = render_sequence(random_faces(rng, 5), rng, size=(320, 240), fps=15, still_s=0.6)
    order = [s for i, s in enumerate(seq.states) if i == 0 or seq.states[i - 1] != s]
    assert order[0] == "empty" and order[-1] == "still"
    assert "hand" in order and "rolling" in order
    stop = seq.stop_index
    assert not any(seq.moving[stop:]) and seq.moving[stop - 1]
    # Still frames differ only by sensor noise; rolling frames differ by much more.
    def changed(i):
        a, b = (f.astype(np.int16) for f in (seq.frames[i - 1], seq.frames[i]))
        return (np.abs(a - b).max(axis=2) > 40).mean()
    rolling = [i for i, s in enumerate(seq.states) if s == "rolling" and i > 0]
    assert min(changed(i) for i in rolling[:3]) > 0.001
    assert max(changed(i) for i in range(stop + 1, len(seq.frames))) < 0.0005
    assert len(seq.final.truth) == 5
