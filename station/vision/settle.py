"""Settle detection: when have the dice stopped, so that the tray can be read?

    detector = SettleDetector(SettleConfig(still_s=0.2))
    for frame, t in camera:                       # BGR frames, t in seconds
        update = detector.update(frame, t)
        update.state        # "empty", "hand", "rolling" or "still"
        if update.read_now:  # the dice have been still for still_s: read this frame
            dice = read_tray(frame)

Cheap per frame: the frame is shrunk to WORK_WIDTH pixels, turned grey and blurred, then
- motion: pixels that changed by more than a noise-scaled threshold since the previous frame,
  and since the frame that opened the current still period (so a die creeping a fraction of
  a pixel per frame still counts as moving once it has crept far enough);
- objects: pixels that differ from the empty tray (the first still frame the detector sees,
  or one given with `set_empty`): none means "empty";
- hand: objects that reach the frame's border (an arm comes from outside the tray; dice stay
  inside it).
`read_now` is true on exactly one frame per roll: the first one after the dice have been
still for `still_s` seconds with no hand in the tray. Movement afterwards starts a new roll.
A die leaning on another or on the wall is found per die by the reader (its classifier has a
"cocked" class) and flagged "cocked" for a re-roll.

`StillFrames` keeps the last few frames of a still period; the frame read is their mean,
in which the camera's sensor noise is down by the square root of their number (a dim tray
reads as a bright one would: docs/vision.md, "Other cameras").
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

WORK_WIDTH = 320
STATES = ("empty", "hand", "rolling", "still")


@dataclass
class SettleConfig:
    still_s: float = 0.2          # dice must be still this long before a reading
    min_changed_px: int = 3       # changed pixels (at WORK_WIDTH) that count as movement
    noise_factor: float = 5.0     # threshold = noise_factor x the frame-to-frame noise
    min_threshold: float = 8.0    # grey levels
    hand_border_px: int = 2       # objects this close to the frame's edge are a hand/arm


@dataclass
class SettleUpdate:
    state: str
    read_now: bool
    still_for: float              # seconds the scene has been still (0 while moving)
    changed_px: int               # pixels that moved since the previous frame


class SettleDetector:
    def __init__(self, config: SettleConfig | None = None) -> None:
        self.config = config or SettleConfig()
        if self.config.still_s < 0:
            raise ValueError("still_s must be zero or more seconds")
        self._previous: np.ndarray | None = None
        self._anchor: np.ndarray | None = None       # first frame of the current still period
        self._still_since: float | None = None
        self._empty: np.ndarray | None = None
        self._noise = 2.0
        self._read_done = False

    def set_empty(self, frame: np.ndarray) -> None:
        """Use `frame` as the empty tray (the reference for "empty" and "hand")."""
        self._empty = self._prepare(frame)

    def _prepare(self, frame: np.ndarray) -> np.ndarray:
        if frame is None or frame.ndim not in (2, 3) or min(frame.shape[:2]) < 8:
            raise ValueError("settle detection needs a camera frame (BGR or grey image)")
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        h, w = grey.shape
        if w > WORK_WIDTH:
            grey = cv2.resize(grey, (WORK_WIDTH, max(1, round(h * WORK_WIDTH / w))),
                              interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(grey, (3, 3), 0).astype(np.int16)

    def _threshold(self) -> float:
        return max(self.config.min_threshold, self.config.noise_factor * self._noise)

    def _changed(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.abs(a - b) > self._threshold()

    def update(self, frame: np.ndarray, t: float) -> SettleUpdate:
        grey = self._prepare(frame)
        if self._previous is None or self._previous.shape != grey.shape:
            self._previous = self._anchor = grey
            self._still_since = t
            return SettleUpdate(self._scene(grey), False, 0.0, 0)
        diff = np.abs(grey - self._previous)
        moved = diff > self._threshold()
        changed = int(moved.sum())
        self._previous = grey
        # Against the still period's first frame the bar is higher: that frame may hold the
        # last fraction of a pixel of movement, which noise must not keep re-triggering.
        crept = np.abs(grey - self._anchor) > 1.5 * self._threshold()
        moving = changed >= self.config.min_changed_px or \
            int(crept.sum()) >= self.config.min_changed_px
        if moving:
            self._anchor, self._still_since, self._read_done = grey, t, False
        else:
            # Learn the sensor noise from still frames (median absolute difference).
            self._noise = 0.9 * self._noise + 0.1 * max(0.5, float(np.median(diff)) * 1.5)
        scene = self._scene(grey)
        if scene == "hand":
            self._anchor, self._still_since, self._read_done = grey, t, False
            return SettleUpdate("hand", False, 0.0, changed)
        if moving:
            return SettleUpdate("rolling", False, 0.0, changed)
        if scene == "empty":
            self._read_done = False
            return SettleUpdate("empty", False, t - self._still_since, changed)
        still_for = t - self._still_since
        read_now = still_for >= self.config.still_s and not self._read_done
        self._read_done |= read_now
        return SettleUpdate("still", read_now, still_for, changed)

    def _scene(self, grey: np.ndarray) -> str:
        """"empty", "hand" or "objects" against the empty tray (learned when first still)."""
        if self._empty is None or self._empty.shape != grey.shape:
            self._empty = grey
            return "empty"
        objects = self._changed(grey, self._empty).astype(np.uint8)
        objects = cv2.morphologyEx(objects, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        if objects.sum() < self.config.min_changed_px:
            return "empty"
        b = self.config.hand_border_px
        if objects[:b].any() or objects[-b:].any() or objects[:, :b].any() \
                or objects[:, -b:].any():
            return "hand"
        return "objects"


class StillFrames:
    """The last `count` frames of the scene since it last moved, and their mean.

        still = StillFrames(4)
        for frame in camera:
            if moving: still.clear()
            else: still.add(frame)
        dice = read_tray(still.mean())

    Frames of one still scene differ only by sensor noise, so their mean is the scene with
    less noise. A frame of another size (the camera reconfigured) starts the stack again.
    """

    def __init__(self, count: int) -> None:
        if count < 1:
            raise ValueError("at least one still frame must be kept")
        self._frames: deque[np.ndarray] = deque(maxlen=count)

    def __len__(self) -> int:
        return len(self._frames)

    def clear(self) -> None:
        self._frames.clear()

    def add(self, frame: np.ndarray) -> None:
        if self._frames and self._frames[-1].shape != frame.shape:
            self._frames.clear()
        self._frames.append(frame.copy())   # a camera may refill the array it handed out

    def mean(self) -> np.ndarray:
        """The mean frame (uint8, rounded); the one frame itself when only one is kept."""
        if not self._frames:
            raise ValueError("no still frame has been added")
        first, *others = self._frames
        if not others:
            return first.copy()
        total = first.astype(np.uint16)
        for frame in others:
            total = cv2.add(total, frame, dtype=cv2.CV_16U)   # twice numpy's speed
        return cv2.convertScaleAbs(total, alpha=1.0 / len(self._frames))
