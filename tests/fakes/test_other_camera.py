"""Real photos redrawn as other cameras would give them: the labelled boxes follow the
dice through every change, and the changes do what they say."""

import numpy as np
import pytest

from station.fakes.other_camera import VARIANTS, CameraChange


def photo() -> np.ndarray:
    image = np.full((160, 200, 3), 200, np.uint8)
    image[30:70, 40:80] = (40, 60, 90)      # a dark "die" at box [40, 30, 80, 70]
    return image


def dark_box(image: np.ndarray, border: int = 0) -> list[float]:
    """The dark square's box, inside a plain `border` round the frame."""
    inside = image[border:image.shape[0] - border, border:image.shape[1] - border]
    ys, xs = np.nonzero(inside.mean(axis=2) < 140)
    return [v + border for v in (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_box_follows_the_die(name):
    change = VARIANTS[name]
    image, (box,) = change.apply(photo(), [[40, 30, 80, 70]])
    tolerance = 2 * max(change.scale, 1.0) + 2 * change.blur
    found = dark_box(image, change.border)
    assert np.allclose(found, box, atol=tolerance), (name, found, box)


def test_a_quarter_turn_turns_a_box_off_the_centre():
    image, (box,) = CameraChange(turns=1).apply(photo(), [[40, 30, 80, 70]])
    assert image.shape[:2] == (200, 160)
    assert box == [90.0, 40.0, 130.0, 80.0]
    assert dark_box(image) == box


def test_exposure_and_white_balance_change_the_colours_not_the_size():
    dark, _ = CameraChange(gamma=1.8).apply(photo(), [])
    warm, _ = CameraChange(gains=(0.75, 0.95, 1.1)).apply(photo(), [])
    assert dark.shape == warm.shape == photo().shape
    assert dark[0, 0].mean() < 200 - 30                  # mid-grey floor darker
    assert warm[0, 0, 0] < warm[0, 0, 2]                  # blue down, red up



def test_still_frames_average_the_noise_of_each():
    flat = np.full((100, 100, 3), 128, np.uint8)
    one, _ = CameraChange(noise=8.0).apply(flat, [])
    four, _ = CameraChange(noise=8.0, frames=4).apply(flat, [])
    assert 7 < one.astype(float).std() < 9
    assert 3.5 < four.astype(float).std() < 4.5
