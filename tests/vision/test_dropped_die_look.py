"""Places read as a die but dropped for want of a sure face, read again round them at the
top face's size (`reader._dropped_die_look`; docs/history/vision.md, "Thirty-fourth
session")."""

import numpy as np
import pytest

from station.fakes.tray import random_tray


@pytest.mark.parametrize("tray, index, value, colour", [
    # 640x480 trays of seed 20002: a green 2 by the tray wall, whose candidates (a lone pip,
    # an edge-density peak) fall off its top face and read it 0.6 sure at most; a yellow 1
    # in a corner of the tray.
    (29, 20, 2, "green"),
    (13, 29, 1, "yellow"),
])
def test_a_die_read_with_doubt_off_its_top_face_is_found(read_only_with, tray, index, value,
                                                         colour):
    read_only_with("_dropped_die_look",
                   random_tray(np.random.default_rng([20002, tray]), dice=(1, 40)),
                   index, value, colour, touching=False)
