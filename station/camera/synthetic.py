"""The simulated tray: the synthetic renderer playing both the camera and the player.

When the station asks for a roll (`expect`), the simulated player rolls exactly those dice:
`station.fakes.tray_sequence.render_sequence` films it (empty tray, a hand drops the dice,
they tumble, then lie still) and `capture()` serves the film one frame per call, then the
still tray for as long as it is looked at. `cocked` and `stray` give the player's mistakes a
chance, for demos and tests: a die leaning on another, one die too many in the tray. Like a
player reading the prompt, it rolls the distance dice together with the scatter die when the
prompt says so ("scatter die (rolled with 2D6)", SCAT-1).
With `tumble=False` the dice are simply there, still (benchmarks: ROLL with still dice).
The film is shot at no more than `FILM_FPS`: a station looking faster is handed each frame
again, as a webcam slower than its reader does (a film's frames are held until served, and
twice the frames would cost the simulated station 20 MB more).
"""

from __future__ import annotations

import re
import threading

import numpy as np

from station.rules.faces import ARTILLERY_FACES, D6_FACES, Face

FILM_FPS = 10.0


class SyntheticTray:
    name = "synthetic"

    def __init__(self, resolution: tuple[int, int] = (960, 720), *, rng=None, fps: float = 10.0,
                 cocked: float = 0.0, stray: float = 0.0,
                 tumble: bool = True) -> None:
        self.size = (int(resolution[0]), int(resolution[1]))
        self.rng = rng if rng is not None else np.random.default_rng()
        self.fps = fps
        self.cocked, self.stray, self.tumble = cocked, stray, tumble
        self.rendered = None                 # RenderedTray of the still dice (its .truth)
        self._frames: list[np.ndarray] = []
        self._still: np.ndarray | None = None
        self._lock = threading.Lock()

    def expect(self, kind: str, count: int, purpose: str) -> None:
        faces = [self._face(kind) for _ in range(count)] + self._rolled_with(kind, purpose)
        if count and self.rng.random() < self.stray:
            faces.append(self._face(kind))
        if self.tumble:
            from station.fakes.tray_sequence import render_sequence
            film_fps = min(self.fps, FILM_FPS)
            film = render_sequence(faces, self.rng, size=self.size, fps=film_fps, empty_s=0.1,
                                   hand_s=0.3, roll_s=0.6, still_s=0.1, cocked=self.cocked)
            again = max(1, round(self.fps / film_fps))
            frames, rendered = [f for f in film.frames for _ in range(again)], film.final
        else:
            from station.fakes.tray import render_roll
            rendered = render_roll(faces, self.rng, size=self.size, cocked=self.cocked)
            frames = []
        with self._lock:
            self.rendered = rendered
            self._frames = list(frames)
            self._still = rendered.image

    def capture(self) -> np.ndarray:
        with self._lock:
            if self._still is None:            # nothing rolled yet: an empty tray
                from station.fakes.tray import render_roll
                self._still = render_roll([], self.rng, size=self.size).image
            return self._frames.pop(0) if self._frames else self._still

    def close(self) -> None:
        pass

    def _rolled_with(self, kind: str, purpose: str) -> list[Face]:
        """The distance dice a scatter prompt says to roll along: A, D3, D6 or nD6."""
        match = re.search(r"rolled with (\d*)(D6|D3|A)\b", purpose) if kind == "scatter" else None
        if not match:
            return []
        if match[2] == "A":
            return [self._face("artillery")]
        return [self._face("d6") for _ in range(int(match[1] or 1))]

    def _face(self, kind: str) -> Face:
        if kind == "artillery":
            return Face("artillery", ARTILLERY_FACES[int(self.rng.integers(6))])
        if kind == "scatter":
            value = "hit" if self.rng.random() < 2 / 6 else "arrow"
            return Face("scatter", value, float(self.rng.uniform(0, 360)))
        return Face("d6", D6_FACES[int(self.rng.integers(6))])
