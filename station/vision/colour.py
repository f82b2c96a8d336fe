"""A die's body colour as a plain name, the players' way to split a roll ("the red ones")."""

from __future__ import annotations

import math

import cv2
import numpy as np

# OpenCV hue (0..180) upper bounds for the saturated colours, in order round the wheel.
HUES = [(8, "red"), (21, "orange"), (34, "yellow"), (85, "green"), (130, "blue"),
        (165, "purple"), (180, "red")]
DARK = 55           # HSV value under which a body is black (but see DARK_HUE)
WARM_GREY = 16      # a reddish body (CIE Lab 0 < b <= a) less colourful than this Lab chroma
                    # is a grey of its brightness: a smoke die, its median tinted by red pips
                    # (a brown die's tint is yellower, b > a; sixty-ninth session,
                    # docs/history/vision.md)
DARK_HUE = (10, 25)  # a dark body at least this Lab chroma and this Lab L (0..255), and bluish
                     # (b < 0), is named by its hue: dark purple and navy dice


def has_colour(image: np.ndarray) -> bool:
    """Does the BGR frame carry colour? A monochrome camera's frame, or a greyscale photo
    loaded as colour, has its three channels equal at every pixel: its dice's colours cannot
    be told (a red die is as dark as a black one). A colour camera's frame differs somewhere
    even on a grey tray (sensor noise, its colour filter). Every 4th pixel each way is
    looked at, the cost of a frame's small fraction."""
    grid = image[::4, ::4]
    return bool((grid[..., 0] != grid[..., 1]).any() or (grid[..., 1] != grid[..., 2]).any())


def colour_name(image: np.ndarray, x: float, y: float, side: float) -> str:
    """Name of the die body's colour around (x, y).

    Reads the central square of the die (inside the outline at any rotation); the median
    ignores the pips, which cover well under half of a face. Every `step`-th pixel of it is
    enough (about 16 a side): a big die's median then costs no more than a small one's.
    """
    half = max(1, int(side * 0.33))
    step = max(1, half // 8)
    h, w = image.shape[:2]
    x0, x1 = max(0, int(x) - half), min(w, int(x) + half + 1)
    y0, y1 = max(0, int(y) - half), min(h, int(y) + half + 1)
    patch = image[y0:y1:step, x0:x1:step].reshape(-1, 3)
    if len(patch) == 0:
        return "grey"
    bgr = _median(patch).astype(np.uint8).reshape(1, 1, 3)
    hue, sat, val = (int(v) for v in cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)[0, 0])
    light, a, b = (int(v) for v in cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB)[0, 0])
    return name_of(hue, sat, val, (light, a - 128, b - 128))


def _median(pixels: np.ndarray) -> np.ndarray:
    """Per channel, the median of N x 3 pixels: `np.median`'s values at a third of its cost
    (one partial sort, no generic machinery; it runs for every die of every frame)."""
    middle = len(pixels) // 2
    if len(pixels) % 2:
        return np.partition(pixels, middle, axis=0)[middle]
    low, high = np.partition(pixels, (middle - 1, middle), axis=0)[middle - 1:middle + 1]
    return (low + high.astype(np.float64)) / 2


def name_of(hue: int, sat: int, val: int, lab: tuple[int, int, int]) -> str:
    """Colour name from OpenCV HSV (hue 0..180, saturation and value 0..255) and the same
    colour's CIE Lab (OpenCV's 8-bit L 0..255; a and b less 128, 0 for a grey): HSV
    saturation overstates the colour of dark and dim bodies, Lab chroma does not."""
    light, a, b = lab
    chroma = math.hypot(a, b)
    if val < DARK:
        least_chroma, least_light = DARK_HUE
        if not (chroma >= least_chroma and light >= least_light and b < 0):
            return "black"
    elif sat < 60 or (0 < b <= a and chroma < WARM_GREY):
        return "white" if val > 165 else ("grey" if val > 90 else "black")
    for bound, name in HUES:
        if hue < bound:
            if name == "orange" and val < 150:
                return "brown"
            return name
    return "red"
