"""The dropped-die and beside looks run again once the looks have read the dice without a
face (`reader._freed_die_look`; docs/history/vision.md, "Thirty-fifth session")."""

import numpy as np
import pytest

from station.fakes.tray import random_tray


@pytest.mark.parametrize("tray, index, value, colour", [
    # Trays of seed 20002: a green 6 touching a purple die below it (640x480) and a black 5
    # touching a white die (800x600), each with a reading without a face between the two
    # dice until the looks move it; found by the dropped-die look.
    (76, 7, 6, "green"),
    (31, 16, 5, "black"),
    # A red 2 touching a white die (640x480), found by the beside look.
    (18, 7, 2, "red"),
])
def test_a_touching_die_blocked_by_a_reading_without_a_face_is_found(
        read_only_with, tray, index, value, colour):
    read_only_with("_freed_die_look",
                   random_tray(np.random.default_rng([20002, tray]), dice=(1, 40)),
                   index, value, colour)
