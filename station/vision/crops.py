"""Die crops: the fixed-size, scale-normalised view of one die that the classifier reads.

Training and reading cut crops with this module, so the classifier sees at the table exactly
what it saw in training: the die centred, its side `CONTEXT` times smaller than the crop (a
margin shows the outline), whatever the camera resolution.

Shrinking is done in two steps: the frame is area-averaged down by a power of sqrt(2) (no
aliasing of small pips; the shrunk frames are cached in a `CropSource`, so a frame full of
dice is shrunk once, not once per die), then a bilinear warp does the rest (less than sqrt(2)).
The first sqrt(2) step is a close, faster stand-in for the area average (see
`CropSource.level`); the committed classifier was trained on exact area averages and reads
as well or slightly better with it (benchmarks/vision_bench.py).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

CROP_SIZE = 32   # pixels: side of the classifier's input
CONTEXT = 1.4    # crop side / die side
AREA_SIGMA = 0.5  # blur before a bilinear shrink by sqrt(2): the spread of the area average
OUTWARD_JITTER = 12  # degrees: a classifier of outward-up crops (`outward_angle`) is trained
                     # on crops turned this much either way (the camera is not exactly above
                     # the frame's centre), and read within it


def pyramid_level(span: float, size: int = CROP_SIZE) -> int:
    """k such that shrinking by sqrt(2)**k leaves a residual scale in (1/sqrt(2), 1]."""
    return max(0, math.ceil(2 * math.log2(max(span, 1.0) / size) - 1e-9))


class CropSource:
    """One frame and its shrunk copies: cuts crops of dice of any size from it."""

    def __init__(self, image: np.ndarray) -> None:
        self.image = image
        self.levels: dict[int, np.ndarray] = {0: image}
        self.scales: dict[int, tuple[float, float]] = {0: (1.0, 1.0)}

    def level(self, k: int) -> np.ndarray:
        """The frame shrunk by sqrt(2)**k. From level 2 on, by halving level k-2 (an area
        average of 2x2 pixels; a last odd row or column is dropped, since OpenCV averages
        at a factor just off 2 some twenty times slower). Level 1 is a slight blur and a
        bilinear resize: within a grey level or so of the area average, which OpenCV
        computes four times slower at an odd factor."""
        if k not in self.levels:
            if k >= 2:
                source = self.level(k - 2)
                h, w = source.shape[:2]
                if h >= 2 and w >= 2:
                    source = source[:h - h % 2, :w - w % 2]
                    h, w = source.shape[:2]
                fx, fy = self.scales[k - 2]
                size = (max(1, w // 2), max(1, h // 2))
                self.levels[k] = cv2.resize(source, size, interpolation=cv2.INTER_AREA)
                self.scales[k] = (fx * size[0] / w, fy * size[1] / h)
            else:
                h, w = self.image.shape[:2]
                size = (max(1, round(w * 2 ** -0.5)), max(1, round(h * 2 ** -0.5)))
                blurred = cv2.GaussianBlur(self.image, (3, 3), AREA_SIGMA)
                self.levels[k] = cv2.resize(blurred, size, interpolation=cv2.INTER_LINEAR)
                self.scales[k] = (size[0] / w, size[1] / h)
        return self.levels[k]

    def scale(self, k: int) -> tuple[float, float]:
        """(x, y) pixel scale of level k to the frame: x_level = (x + 0.5) * fx - 0.5."""
        self.level(k)
        return self.scales[k]

    def crop(self, x: float, y: float, side: float, angle_deg: float = 0.0,
             size: int = CROP_SIZE, context: float = CONTEXT) -> np.ndarray:
        """A `size` x `size` BGR crop centred on (x, y) covering `context` x `side` pixels."""
        return self.crops([(x, y, side, angle_deg)], size, context)[0]

    def crops(self, places, size: int = CROP_SIZE, context: float = CONTEXT) -> np.ndarray:
        """N x `size` x `size` x 3 crops of the `places`, each (x, y, side, angle_deg) as for
        `crop`, cut into one array (the reader cuts a hundred a frame)."""
        places = list(places)
        out = np.empty((len(places), size, size, 3), self.image.dtype)
        for crop, (x, y, side, angle_deg) in zip(out, places):
            span = max(side * context, 2.0)
            k = pyramid_level(span, size)
            small = self.level(k)
            fx, fy = self.scales[k]
            # pixel centres: x_small = (x + 0.5) * f - 0.5
            cx, cy = (x + 0.5) * fx - 0.5, (y + 0.5) * fy - 0.5
            cv2.warpAffine(small, _turn_and_scale(cx, cy, angle_deg, size / (span * fx), size),
                           (size, size), dst=crop, flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)
        return out


def _turn_and_scale(cx: float, cy: float, angle_deg: float, scale: float, size: int
                    ) -> np.ndarray:
    """The warp that turns the picture `angle_deg` counter-clockwise and scales it about
    (cx, cy), and moves (cx, cy) to the middle of a `size`-pixel crop: what
    `cv2.getRotationMatrix2D` gives, to the bit (it takes the centre as float32), at a
    fraction of its call's cost."""
    turn = math.radians(angle_deg)
    alpha, beta = math.cos(turn) * scale, math.sin(turn) * scale
    fx, fy = float(np.float32(cx)), float(np.float32(cy))
    middle = (size - 1) / 2
    return np.array([[alpha, beta, (1 - alpha) * fx - beta * fy + (middle - cx)],
                     [-beta, alpha, beta * fx + (1 - alpha) * fy + (middle - cy)]])


def outward_angle(x: float, y: float, width: int, height: int) -> float:
    """The `angle_deg` for `CropSource.crop` that turns the crop of a die at (x, y) in a
    `width` x `height` frame so that "outward" (from the frame's centre to the die) points
    up in the crop.

    A camera above the tray sees a flat die away from the frame's centre partly from the
    side: higher points project farther out, so its top face shows outward of its outline
    and the side faces it sees inward of the top face; in crops cut at this angle always
    below it, while a leaning die's side faces show anywhere (docs/history/vision.md, ninth session).
    `cv2.getRotationMatrix2D` turns the picture counter-clockwise (as displayed, y down) by
    its angle: the outward direction, at atan2(-dy, dx) counter-clockwise of +x, must turn
    to 90 degrees (up)."""
    dx, dy = x - (width - 1) / 2, y - (height - 1) / 2
    return (90.0 + math.degrees(math.atan2(dy, dx))) % 360.0


def crop_die(image: np.ndarray, x: float, y: float, side: float, angle_deg: float = 0.0,
             size: int = CROP_SIZE, context: float = CONTEXT) -> np.ndarray:
    """One crop from a frame (see `CropSource.crop`; use a CropSource for many crops)."""
    return CropSource(image).crop(x, y, side, angle_deg, size, context)


def softness(grey: np.ndarray) -> float:
    """How much of a grey picture's finest detail (the variance of its Laplacian) is left
    after a blur of one pixel: a sharp picture loses most of it whatever it shows, one out
    of focus by a pixel or more keeps a third or more. Noise makes a picture look sharper."""
    fine = float(cv2.meanStdDev(cv2.Laplacian(grey, cv2.CV_16S))[1][0, 0]) ** 2
    blurred = cv2.GaussianBlur(grey.astype(np.float32), (5, 5), 1.0)
    kept = float(cv2.meanStdDev(cv2.Laplacian(blurred, cv2.CV_32F))[1][0, 0]) ** 2
    return kept / fine if fine > 0.0 else 0.0


def unsharp(image: np.ndarray, amount: float, sigma: float) -> np.ndarray:
    """`image` through an unsharp mask: `amount` times its difference from a Gaussian blur
    of `sigma` pixels added to it."""
    blurred = cv2.GaussianBlur(image, (0, 0), sigma)
    return cv2.addWeighted(image, 1.0 + amount, blurred, -amount, 0)
