"""The die's colour name: what players split a roll by ("the red ones")."""

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from station.vision.colour import _median, colour_name, has_colour


@settings(max_examples=200, deadline=None)
@given(arrays(np.uint8, st.tuples(st.integers(1, 300), st.just(3))))
def test_the_median_is_numpys(pixels):
    assert np.array_equal(_median(pixels), np.median(pixels, axis=0))


def die(body_bgr, pip_bgr, pips: int = 5) -> np.ndarray:
    """A 60 px die with `pips` pips on a mid-grey floor, centred at (50, 50)."""
    image = np.full((100, 100, 3), 128, np.uint8)
    cv2.rectangle(image, (20, 20), (80, 80), body_bgr, -1)
    places = [(50, 50), (32, 32), (68, 68), (32, 68), (68, 32), (32, 50)][:pips]
    for x, y in places:
        cv2.circle(image, (x, y), 6, pip_bgr, -1)
    return image


@pytest.mark.parametrize("body, pips, name", [
    ((40, 40, 200), (255, 255, 255), "red"),
    ((200, 80, 30), (255, 255, 255), "blue"),
    ((40, 170, 40), (255, 255, 255), "green"),
    ((30, 210, 230), (0, 0, 0), "yellow"),
    ((235, 235, 235), (0, 0, 0), "white"),
    ((25, 25, 25), (255, 255, 255), "black"),
    ((30, 70, 110), (255, 255, 255), "brown"),
])
def test_a_die_is_named_by_its_body_not_its_pips(body, pips, name):
    """Five pips cover less than half of the central square the colour is read from."""
    assert colour_name(die(body, pips), 50, 50, 60) == name


@pytest.mark.parametrize("body, pips, name", [
    # a smoke die: its central square's median tinted by red pips (as real ones measure)
    ((60, 62, 82), (45, 40, 185), "black"),
    # a brown smoke die's tint is yellower than red pips give: it stays brown
    ((50, 62, 80), (45, 40, 185), "brown"),
    ((40, 30, 120), (255, 255, 255), "red"),       # a burgundy die is still red
])
def test_a_dim_body_tinted_red_is_a_grey_not_red(body, pips, name):
    """HSV saturation overstates a dim body's colour; CIE Lab chroma does not (WARM_GREY)."""
    assert colour_name(die(body, pips), 50, 50, 60) == name


@pytest.mark.parametrize("body, name", [
    ((42, 24, 40), "purple"),      # a dark purple die, as the real photos show them
    ((52, 30, 28), "blue"),        # a navy die
    ((30, 30, 32), "black"),       # black plastic is nearly neutral
    ((12, 14, 26), "black"),       # too dark to tell a hue from
])
def test_a_dark_die_is_black_unless_plainly_purple_or_blue(body, name):
    assert colour_name(die(body, (235, 235, 235)), 50, 50, 60) == name


def test_a_frame_whose_channels_are_one_has_no_colour():
    """A monochrome camera's frame, or a grey photo loaded as colour: the three channels are
    equal everywhere. One coloured die anywhere on the frame gives it colour."""
    grey = cv2.cvtColor(cv2.cvtColor(die((40, 40, 200), (255, 255, 255)), cv2.COLOR_BGR2GRAY),
                        cv2.COLOR_GRAY2BGR)
    assert not has_colour(grey)
    assert has_colour(die((40, 40, 200), (255, 255, 255)))
    tinted = grey.copy()
    cv2.rectangle(tinted, (60, 60), (70, 70), (90, 100, 90), -1)
    assert has_colour(tinted)
