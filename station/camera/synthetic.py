"""The simulated tray: the synthetic renderer playing both the camera and the player.

When the station asks for a roll (`expect`), it "rolls" exactly those dice: random faces
rendered by `station.fakes.tray.render_roll`, seen first for a few frames while they tumble
(the still picture shifted and turned, so the settle detector sees motion), then lying still.
`cocked` and `stray` give the player's mistakes a chance, for demos: a die leaning on
another, a die too many in the tray.
"""

from __future__ import annotations

import threading

import cv2
import numpy as np

from station.rules.faces import ARTILLERY_FACES, D6_FACES, Face


class SyntheticTray:
    name = "synthetic"

    def __init__(self, resolution: tuple[int, int] = (1280, 960), *, rng=None,
                 tumble_frames: int = 3, cocked: float = 0.0, stray: float = 0.0) -> None:
        self.size = (int(resolution[0]), int(resolution[1]))
        self.rng = rng if rng is not None else np.random.default_rng()
        self.tumble_frames = tumble_frames
        self.cocked, self.stray = cocked, stray
        self.rendered = None                 # the last RenderedTray (its .truth for tests)
        self._frames: list[np.ndarray] = []
        self._still: np.ndarray | None = None
        self._lock = threading.Lock()

    def expect(self, kind: str, count: int, purpose: str) -> None:
        from station.fakes.tray import render_roll
        faces = [self._face(kind) for _ in range(count)]
        if count and self.rng.random() < self.stray:
            faces.append(self._face(kind))
        rendered = render_roll(faces, self.rng, size=self.size, cocked=self.cocked)
        with self._lock:
            self.rendered = rendered
            self._still = rendered.image
            self._frames = [self._tumbling(rendered.image) for _ in range(self.tumble_frames)]

    def capture(self) -> np.ndarray:
        with self._lock:
            if self._still is None:
                self._still = np.full((self.size[1], self.size[0], 3), (168, 172, 172), np.uint8)
            return self._frames.pop(0) if self._frames else self._still

    def close(self) -> None:
        pass

    def _face(self, kind: str) -> Face:
        if kind == "artillery":
            return Face("artillery", ARTILLERY_FACES[int(self.rng.integers(6))])
        if kind == "scatter":
            value = "hit" if self.rng.random() < 2 / 6 else "arrow"
            return Face("scatter", value, float(self.rng.uniform(0, 360)))
        return Face("d6", D6_FACES[int(self.rng.integers(6))])

    def _tumbling(self, still: np.ndarray) -> np.ndarray:
        h, w = still.shape[:2]
        angle = float(self.rng.uniform(-25, 25))
        shift = self.rng.uniform(-0.08, 0.08, size=2) * (w, h)
        matrix = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
        matrix[:, 2] += shift
        moved = cv2.warpAffine(still, matrix, (w, h), borderMode=cv2.BORDER_REFLECT)
        return cv2.blur(moved, (9, 3))
