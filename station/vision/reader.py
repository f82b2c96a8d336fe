"""`read_tray`: every die in a tray frame, with its top face, colour and flags.

1. Scale: the frame is searched at a working size (long side `WORK_SIDE`); when the dice
   turn out small there, the search is repeated at a finer working size, so a 640x480 webcam
   and a 4K camera give dice of similar pixel size to the classifier.
2. Candidates from the edges (`segment.py`), generous on purpose.
3. Each candidate is cut from the full-resolution frame as a scale-normalised crop
   (`crops.py`) and classified (`classifier.py`): not a die, or top face 1..6.
4. One die, one reading: overlapping detections keep the most confident.
5. A second search at the now-known die size finds dice with weak outlines.
6. Flags: `touching` when another die is closer than a die's side; a die the classifier
   cannot decide is reported with value None and `unreadable` (re-roll it, or type it in).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from station.vision.classifier import default_classifier
from station.vision.colour import colour_name
from station.vision.crops import crop_die
from station.vision.segment import (Candidate, blob_candidates, density_candidates, edge_map,
                                    strong_edges)
from station.vision.types import DetectedDie

WORK_SIDE = 640          # long side of the first search, pixels
MIN_WORK_DIE = 22        # dice smaller than this at working size: search again, finer
DIE_PROBABILITY = 0.5    # P(die) above which a candidate counts as a die
READABLE = 0.6           # a face probability (among faces) below this is not a reading
TOUCHING = 1.2           # centres closer than this x die side: the dice touch


class TrayEdges:
    """The frame at working scale and its strong edges; candidates in frame pixels."""

    def __init__(self, image: np.ndarray, work_side: int) -> None:
        h, w = image.shape[:2]
        self.scale = min(1.0, work_side / max(h, w))
        work = image if self.scale == 1.0 else cv2.resize(
            image, (round(w * self.scale), round(h * self.scale)), interpolation=cv2.INTER_AREA)
        self.edges = strong_edges(edge_map(work))

    def _to_frame(self, found: list[Candidate]) -> list[Candidate]:
        s = self.scale
        return [Candidate(c.x / s, c.y / s, c.side / s) for c in found]

    def blobs(self) -> list[Candidate]:
        return self._to_frame(blob_candidates(self.edges))

    def dense(self, side: float, taken: list[Candidate]) -> list[Candidate]:
        s = self.scale
        work_taken = [Candidate(c.x * s, c.y * s, c.side * s) for c in taken]
        return self._to_frame(density_candidates(self.edges, side * s, work_taken))


def propose(image: np.ndarray, work_side: int = WORK_SIDE) -> list[Candidate]:
    """The first-pass candidates (also the training script's source of "not a die" crops)."""
    return TrayEdges(image, work_side).blobs()


def _classify(image: np.ndarray, candidates: list[Candidate]) -> np.ndarray:
    crops = np.stack([crop_die(image, c.x, c.y, c.side) for c in candidates]) \
        if candidates else np.zeros((0, 1, 1, 3), np.uint8)
    return default_classifier().predict(crops)


def _accept(candidates: list[Candidate], probs: np.ndarray
            ) -> list[tuple[Candidate, np.ndarray]]:
    """Candidates that are dice, most confident first, one per die."""
    found = [(c, p) for c, p in zip(candidates, probs) if 1.0 - p[0] >= DIE_PROBABILITY]
    found.sort(key=lambda cp: -float(cp[1][1:].max()))
    kept: list[tuple[Candidate, np.ndarray]] = []
    for c, p in found:
        if all(math.hypot(c.x - k.x, c.y - k.y) > 0.6 * max(c.side, k.side) for k, _ in kept):
            kept.append((c, p))
    return kept


def _search(image: np.ndarray, work_side: int) -> tuple[list[tuple[Candidate, np.ndarray]],
                                                         TrayEdges]:
    edges = TrayEdges(image, work_side)
    candidates = edges.blobs()
    dice = _accept(candidates, _classify(image, candidates))
    sides = [c.side for c, _ in dice] or [c.side for c in candidates]
    if sides:
        side = float(np.median(sides))
        extra = edges.dense(side, [c for c, _ in dice])
        if extra:
            dice = _accept([c for c, _ in dice] + extra,
                           np.concatenate([np.stack([p for _, p in dice]) if dice
                                           else np.zeros((0, 7), np.float32),
                                           _classify(image, extra)]))
    return dice, edges


def read_tray(image_bgr: np.ndarray, calibration=None) -> list[DetectedDie]:
    """All dice in a BGR tray frame; see the module docstring for how.

    `calibration` (a tray calibration profile) adds each die's position in tray millimetres.
    """
    if image_bgr is None or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise ValueError("read_tray needs a BGR colour image (height x width x 3)")
    image = image_bgr if image_bgr.dtype == np.uint8 else \
        np.clip(image_bgr, 0, 255).astype(np.uint8)
    dice, edges = _search(image, WORK_SIDE)
    if dice and edges.scale < 1.0:
        work_die = float(np.median([c.side for c, _ in dice])) * edges.scale
        if work_die < MIN_WORK_DIE:
            finer = int(WORK_SIDE * min(MIN_WORK_DIE * 1.5 / work_die, 1.0 / edges.scale))
            dice, _ = _search(image, finer)
    return [_describe(image, c, p, dice, calibration) for c, p in dice]


def _describe(image, c: Candidate, p: np.ndarray, dice, calibration) -> DetectedDie:
    faces = p[1:] / max(float(p[1:].sum()), 1e-6)
    value = int(faces.argmax()) + 1
    confidence = float(faces.max()) * float(1.0 - p[0])
    flags = []
    if any(k is not c and math.hypot(c.x - k.x, c.y - k.y) < TOUCHING * max(c.side, k.side)
           for k, _ in dice):
        flags.append("touching")
    if faces.max() < READABLE:
        flags.append("unreadable")
        value = None
    die = DetectedDie(kind="d6", value=value, center=(c.x, c.y), confidence=confidence,
                      colour=colour_name(image, c.x, c.y, c.side), flags=flags)
    if calibration is not None:
        die.center_mm = tuple(calibration.to_mm(c.x, c.y))
    return die
