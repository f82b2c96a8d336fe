"""The die-face classifier: a small CNN, run by ONNX Runtime or OpenCV (`networks`; no torch on
the Pi).

Input: crops from `crops.crop_die`, axis-aligned, or turned so that "outward" (from the frame's
centre) is up for a classifier trained so (`outward_crops()`; `train_classifier.py --outward`,
docs/history/vision.md, ninth session). Output per crop: probabilities of "not a die" (class 0),
of the top faces 1..6 (classes 1..6) and of a cocked die, leaning so that no face is on top
(class 7), and of a special die, scatter or artillery (class 8: `special_dice` reads it);
classes 7 and 8 are learned from rendered trays. The network (`weights/d6_classifier.onnx`,
a few hundred KB) is trained and exported by `station/vision/training/train_classifier.py`.

In front of it, the gate (`weights/d6_gate.onnx`, trained by `training/train_gate.py`) is a
network a tenth as costly that only says "die or not": most of the reader's candidates are
tray, shadows and neighbours' edges, and need not pay for the whole classifier.

Behind it, the detail network (`weights/d6_detail.onnx`, the same kind of CNN and classes on
48x48 crops, `train_classifier.py --size 48`) reads only the dice the classifier could not
decide: at 32x32 the pips of dark translucent and swirled dice are blobs a few pixels wide.

Last, the outward network (`weights/d6_outward.onnx`, the classifier's kind of CNN trained on
crops turned outward-up, `train_classifier.py --outward`) gives a second opinion on the dice
still read without a face (docs/history/vision.md, tenth session).

The lean check (`weights/d6_lean.onnx`, `LeanCheck`, trained by `training/train_lean.py`:
the gate's kind of network with a fourth strided convolution, on 64-pixel outward-up crops
two sides wide plus the die's distance from the frame's centre) answers "flat or leaning" for
dice read with a value: the classifier reads a leaning die's tilted top face as surely as a
flat one's (docs/history/vision.md, twenty-first to twenty-third sessions).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from station.vision.networks import Network

WEIGHTS = Path(__file__).with_name("weights") / "d6_classifier.onnx"
GATE_WEIGHTS = WEIGHTS.with_name("d6_gate.onnx")
DETAIL_WEIGHTS = WEIGHTS.with_name("d6_detail.onnx")
OUTWARD_WEIGHTS = WEIGHTS.with_name("d6_outward.onnx")
LEAN_WEIGHTS = WEIGHTS.with_name("d6_lean.onnx")
DETAIL_SIZE = 48   # pixels: side of the detail network's input
NOT_A_DIE, COCKED, SPECIAL = 0, 7, 8
CLASSES = 9


def normalise(crops: np.ndarray) -> np.ndarray:
    """uint8 N x H x W x 3 crops -> float32 N x 3 x H x W, each crop to zero mean, unit spread.

    Per-crop normalisation makes the input independent of exposure and of the tray's light.
    """
    x = crops.transpose(0, 3, 1, 2).astype(np.float32, order="C")
    flat = x.reshape(len(x), int(np.prod(x.shape[1:])))   # a view: x is changed in place
    flat -= flat.mean(axis=1, keepdims=True)
    flat /= np.sqrt(np.einsum("ij,ij->i", flat, flat) / flat.shape[1])[:, None] + 8.0
    return x


class DieClassifier:
    def __init__(self, weights_path: Path = WEIGHTS) -> None:
        self.net = Network(weights_path)

    def predict(self, crops: np.ndarray) -> np.ndarray:
        """Class probabilities, N x CLASSES (see the module docstring)."""
        return self.predict_normalised(normalise(crops) if len(crops) else crops)

    def predict_normalised(self, x: np.ndarray) -> np.ndarray:
        """`predict` of crops already `normalise`d (the reader normalises them once for the
        gate and the classifier)."""
        if len(x) == 0:
            return np.zeros((0, CLASSES), np.float32)
        logits = self.net.run(x).reshape(len(x), CLASSES)
        logits = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)


class DieGate:
    """P(a die) per crop, cheaply; the crops it passes go to the `DieClassifier`."""

    def __init__(self, weights_path: Path = GATE_WEIGHTS) -> None:
        self.net = Network(weights_path)

    def predict(self, crops: np.ndarray) -> np.ndarray:
        return self.predict_normalised(normalise(crops) if len(crops) else crops)

    def predict_normalised(self, x: np.ndarray) -> np.ndarray:
        """`predict` of crops already `normalise`d."""
        if len(x) == 0:
            return np.zeros(0, np.float32)
        logits = self.net.run(x).reshape(len(x), 2)
        return 1.0 / (1.0 + np.exp(logits[:, 0] - logits[:, 1]))


@lru_cache(maxsize=1)
def default_classifier() -> DieClassifier:
    return DieClassifier(_weights)


@lru_cache(maxsize=1)
def default_gate() -> DieGate | None:
    return DieGate(_gate_weights) if _gate_weights is not None else None


@lru_cache(maxsize=1)
def default_detail() -> DieClassifier | None:
    return DieClassifier(_detail_weights) if _detail_weights is not None else None


@lru_cache(maxsize=1)
def default_outward() -> DieClassifier | None:
    """The outward network (reads outward-up crops), or None: no outward opinion."""
    return DieClassifier(_outward_weights) if _outward_weights is not None else None


class LeanCheck(DieGate):
    """P(leaning) of a die read with a value, from an outward-up crop of it and its
    surroundings plus its distance from the frame's centre: a flat die far out shows side
    faces as a leaning one does, and how much of them perspective explains grows with that
    distance (docs/history/vision.md, twenty-first session)."""

    RADIAL_SCALE = 4.0   # the distance, as a fraction of the frame's width, times this

    def predict_at(self, crops: np.ndarray, radial: np.ndarray) -> np.ndarray:
        """crops: N x H x W x 3 uint8; radial: N distances from the frame centre / width."""
        if len(crops) == 0:
            return np.zeros(0, np.float32)
        x = normalise(crops)
        scaled = self.RADIAL_SCALE * np.asarray(radial, np.float32)
        r = np.broadcast_to(scaled[:, None, None, None], (len(x), 1) + x.shape[2:])
        return self.predict_normalised(np.ascontiguousarray(np.concatenate([x, r], axis=1)))


@lru_cache(maxsize=1)
def default_lean() -> LeanCheck | None:
    """The lean check (P(leaning) of dice read with a value), or None."""
    return LeanCheck(_lean_weights) if _lean_weights is not None else None


# Whether the committed weights read crops turned outward-up (crops.outward_angle) rather
# than axis-aligned ones.
OUTWARD = False

_weights = WEIGHTS
_outward = OUTWARD
_gate_weights: Path | None = GATE_WEIGHTS
_detail_weights: Path | None = DETAIL_WEIGHTS
_outward_weights: Path | None = OUTWARD_WEIGHTS
_lean_weights: Path | None = LEAN_WEIGHTS


def use_weights(path: Path, outward: bool = False) -> None:
    """Read with another weights file from now on (to benchmark a newly trained model);
    `outward`: it was trained on crops turned outward-up (`train_classifier.py --outward`)."""
    global _weights, _outward
    _weights, _outward = Path(path), outward
    default_classifier.cache_clear()


def outward_crops() -> bool:
    """Whether the classifier in use reads crops turned outward-up (`crops.outward_angle`);
    else axis-aligned ones. The gate reads the same crops (it was trained at any angle)."""
    return _outward


def use_gate(path: Path | None) -> None:
    """Gate the classifier with another weights file from now on; None: no gate (every
    candidate to the classifier, as the gate's training and its benchmark need)."""
    global _gate_weights
    _gate_weights = Path(path) if path is not None else None
    default_gate.cache_clear()


def use_detail(path: Path | None) -> None:
    """Read undecided dice with another detail network from now on; None: no detail look
    (to measure what it adds)."""
    global _detail_weights
    _detail_weights = Path(path) if path is not None else None
    default_detail.cache_clear()


def use_outward(path: Path | None) -> None:
    """Give the dice still read without a face to this outward network (trained on outward-up
    crops) from now on; None: no outward opinion."""
    global _outward_weights
    _outward_weights = Path(path) if path is not None else None
    default_outward.cache_clear()


def use_lean(path: Path | None) -> None:
    """Check the dice read with a value with another lean network from now on; None: no
    lean check."""
    global _lean_weights
    _lean_weights = Path(path) if path is not None else None
    default_lean.cache_clear()
