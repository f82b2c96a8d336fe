"""Die crops: the fixed-size, scale-normalised view of one die that the classifier reads.

Training and reading cut crops with this one function, so the classifier sees at the table
exactly what it saw in training: the die centred, its side `CONTEXT` times smaller than the
crop (a margin shows the outline), whatever the camera resolution.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

CROP_SIZE = 32   # pixels: side of the classifier's input
CONTEXT = 1.4    # crop side / die side


def crop_die(image: np.ndarray, x: float, y: float, side: float, angle_deg: float = 0.0,
             size: int = CROP_SIZE, context: float = CONTEXT) -> np.ndarray:
    """A `size` x `size` BGR crop centred on (x, y) covering `context` x `side` pixels.

    Large dice are shrunk with area averaging first (no aliasing of small pips); `angle_deg`
    turns the crop (training uses it to show dice at every rotation).
    """
    span = max(side * context, 2.0)
    scale = size / span
    half = int(math.ceil(span * 0.75)) + 2          # room for any rotation
    roi = cv2.getRectSubPix(image, (2 * half + 1, 2 * half + 1), (float(x), float(y)))
    c = float(half)
    if scale < 1.0:
        roi = cv2.resize(roi, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        c = (2 * half + 1) * scale / 2 - 0.5
        scale = 1.0
    matrix = cv2.getRotationMatrix2D((c, c), angle_deg, scale)
    matrix[:, 2] += (size - 1) / 2 - c
    return cv2.warpAffine(roi, matrix, (size, size), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
