"""Real photos as another camera would have taken them.

The real-dice photos come from one phone at 640x640; a station's camera has another
resolution, focus, exposure curve, white balance and JPEG setting. `CameraChange` redraws
a photo and its labelled boxes as such a camera would give them, so the reader can be
measured beyond that one phone (`benchmarks/real_variants.py`, `VARIANTS`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from station.vision.settle import StillFrames

Box = list[float]   # [x0, y0, x1, y1], pixels


@dataclass(frozen=True)
class CameraChange:
    scale: float = 1.0                    # resolution: the frame resized by this factor
    gamma: float = 1.0                    # exposure curve: above 1 darker mid-tones
    gains: tuple[float, float, float] = (1.0, 1.0, 1.0)   # B, G, R: white balance
    blur: float = 0.0                     # focus: Gaussian sigma in the new frame's pixels
    noise: float = 0.0                    # sensor noise, grey levels
    frames: int = 1                       # still frames the station averages, each with its
                                          # own noise (camera.still_frames)
    jpeg: int | None = None               # JPEG quality of the new frame
    turns: int = 0                        # quarter turns clockwise (the camera mounted turned)
    border: int = 0                       # pixels of plain table added round the frame

    def apply(self, image: np.ndarray, boxes: list[Box], seed: int = 0
              ) -> tuple[np.ndarray, list[Box]]:
        """The photo and its boxes as this camera sees them (`seed`: the sensor noise)."""
        out, boxes = image, [list(map(float, b)) for b in boxes]
        if self.scale != 1.0:
            h, w = out.shape[:2]
            size = (max(1, round(w * self.scale)), max(1, round(h * self.scale)))
            # Cubic when enlarging keeps a soft edge soft; area when shrinking keeps pips.
            out = cv2.resize(out, size, interpolation=cv2.INTER_CUBIC if self.scale > 1
                             else cv2.INTER_AREA)
            fx, fy = size[0] / w, size[1] / h
            boxes = [[b[0] * fx, b[1] * fy, b[2] * fx, b[3] * fy] for b in boxes]
        if self.gamma != 1.0:
            lut = (255.0 * (np.arange(256) / 255.0) ** self.gamma).round().astype(np.uint8)
            out = cv2.LUT(out, lut)
        if self.gains != (1.0, 1.0, 1.0):
            out = (out * np.float32(self.gains)).clip(0, 255).astype(np.uint8)
        if self.blur > 0:
            out = cv2.GaussianBlur(out, (0, 0), self.blur)
        if self.noise > 0:
            rng = np.random.default_rng(seed)
            still = StillFrames(self.frames)
            for _ in range(self.frames):
                still.add((out + rng.normal(0, self.noise, out.shape)).clip(0, 255)
                          .astype(np.uint8))
            out = still.mean()
        if self.jpeg is not None:
            _, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg])
            out = cv2.imdecode(data, cv2.IMREAD_COLOR)
        for _ in range(self.turns % 4):
            h = out.shape[0]
            out = cv2.rotate(out, cv2.ROTATE_90_CLOCKWISE)
            boxes = [[h - b[3], b[0], h - b[1], b[2]] for b in boxes]
        if self.border:
            colour = [int(v) for v in np.median(out.reshape(-1, 3), axis=0) * 0.5]
            out = cv2.copyMakeBorder(out, *[self.border] * 4, cv2.BORDER_CONSTANT, value=colour)
            boxes = [[v + self.border for v in b] for b in boxes]
        return out, boxes


# The benchmark's cameras, each one change from the phone that took the real photos.
VARIANTS: dict[str, CameraChange] = {
    "as taken": CameraChange(),
    "0.6x smaller": CameraChange(scale=0.6),
    "0.75x smaller": CameraChange(scale=0.75),
    "1.5x larger": CameraChange(scale=1.5),
    "2x larger": CameraChange(scale=2.0),
    "3x larger": CameraChange(scale=3.0),
    "turned 90 deg": CameraChange(turns=1),
    "darker (gamma 1.8)": CameraChange(gamma=1.8),
    "brighter (gamma 0.6)": CameraChange(gamma=0.6),
    "warm light": CameraChange(gains=(0.75, 0.95, 1.1)),
    "cool light": CameraChange(gains=(1.1, 1.0, 0.8)),
    "out of focus (1.5 px)": CameraChange(blur=1.5),
    "noisy (8 levels)": CameraChange(noise=8.0),
    "noisy (8), 4 still frames": CameraChange(noise=8.0, frames=4),
    "noisy (16 levels)": CameraChange(noise=16.0),
    "noisy (16), 4 still frames": CameraChange(noise=16.0, frames=4),
    "JPEG quality 25": CameraChange(jpeg=25),
    "wider view (table round it)": CameraChange(border=160),
}

