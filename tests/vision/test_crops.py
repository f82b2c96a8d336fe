"""`crops.CropSource`: many crops cut in one call are the crops cut one by one, and the warp
it builds is OpenCV's own rotation matrix to the bit (the classifier was trained on crops cut
through `cv2.getRotationMatrix2D`; a warp off by a rounding moves a pixel now and then)."""

import cv2
import numpy as np
import pytest

from station.vision.crops import CROP_SIZE, CropSource, _turn_and_scale


def test_the_warp_is_opencvs_rotation_matrix_to_the_bit():
    rng = np.random.default_rng(5)
    for _ in range(2000):
        cx, cy = rng.uniform(0, 4000, 2)
        angle = float(rng.choice([0.0, 90.0, 180.0, 270.0, rng.uniform(-360, 360)]))
        scale = float(rng.uniform(0.05, 3.0))
        expected = cv2.getRotationMatrix2D((cx, cy), angle, scale)
        expected[:, 2] += (CROP_SIZE - 1) / 2 - np.array([cx, cy])
        assert np.array_equal(_turn_and_scale(cx, cy, angle, scale, CROP_SIZE), expected), \
            (cx, cy, angle, scale)


@pytest.mark.parametrize("size", [CROP_SIZE, 48])
def test_crops_at_once_are_the_crops_one_by_one(size):
    rng = np.random.default_rng(6)
    image = rng.integers(0, 256, (700, 900, 3), np.uint8)
    image = cv2.GaussianBlur(image, (5, 5), 0)
    places = [(float(rng.uniform(0, 900)), float(rng.uniform(0, 700)),
               float(rng.uniform(8, 300)), float(rng.uniform(-180, 180))) for _ in range(40)]
    source = CropSource(image)
    together = source.crops(places, size)
    assert together.shape == (40, size, size, 3) and together.dtype == np.uint8
    for crop, place in zip(together, places):
        assert np.array_equal(crop, CropSource(image).crop(*place, size=size))
    assert source.crops([], size).shape == (0, size, size, 3)
