"""Train the special-dice face classifier (station/vision/special_dice_weights.npz).

    PYTHONPATH=. python benchmarks/special_train.py [--trays 700] [--seed 1000]

Data: dice rendered by the synthetic tray renderer (d6 pips, scatter arrows and HIT faces,
artillery numerals and misfire symbols), each cut as a segmenter would hand it over (centre
and side jittered) and turned into the 32x32 face view `special_dice.face_view` gives, plus
places that are no die (tray floor, walls, markers), which count as "other" like pips.
Artillery numerals are drawn in TRAIN_FONTS only, so the benchmark's other font
(Source Sans) measures how the reader does on a typeface it never saw. Each face is also
shown slightly scaled, sheared and shifted (other typefaces' proportions).
The network: 384 features -> 96 ReLU -> 9 classes, Adam, cross-entropy, trained in numpy
(deterministic for a seed). Takes 10-15 minutes on one core.
"""

from __future__ import annotations

import argparse
import sys
import time

import cv2
import numpy as np

from station.fakes.tray import random_tray
from station.vision.special_dice import (CLASSES, FACE_PX, WEIGHTS, _cut, face_features,
                                         face_view)

TRAIN_FONTS = ("hershey-simplex", "hershey-duplex", "roboto", "lato", "dejavu")
SIZES = [(640, 480), (800, 600), (1280, 960), (1920, 1080)]


def side_of(truth) -> float:
    c = truth.top_corners
    return float(np.mean([np.hypot(*(c[i] - c[(i + 1) % 4])) for i in range(4)]))


def _distort(face: np.ndarray, rng) -> np.ndarray:
    """The face slightly scaled, sheared and shifted: other typefaces' proportions."""
    c = FACE_PX / 2
    scale = rng.uniform(0.9, 1.1, 2)
    shear = rng.uniform(-0.1, 0.1)
    A = np.array([[scale[0], shear], [0, scale[1]]])
    shift = np.array([c, c]) - A @ np.array([c, c]) + rng.uniform(-1, 1, 2)
    return cv2.warpAffine(face, np.column_stack([A, shift]).astype(np.float32),
                          (FACE_PX, FACE_PX), flags=cv2.INTER_LINEAR)


def collect(trays: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    faces, labels = [], []
    for _ in range(trays):
        shot = random_tray(rng, size=SIZES[int(rng.integers(len(SIZES)))], dice=(1, 4),
                           markers=bool(rng.random() < 0.3),
                           special={"scatter": (1, 2), "artillery": (1, 3)},
                           fonts=TRAIN_FONTS)
        for t in shot.truth:
            x0, y0, x1, y1 = t.box
            side = side_of(t)
            for _ in range(3):   # three cuts per die, as an imperfect segmenter would give
                cx = (x0 + x1) / 2 + rng.normal(0, 0.06) * side
                cy = (y0 + y1) / 2 + rng.normal(0, 0.06) * side
                s = side * rng.uniform(0.88, 1.15)
                crop, _ = _cut(shot.image, cx, cy, s)
                view = face_view(crop, None, s) if crop is not None else None
                if view is None:
                    continue
                faces.append(_distort(view[0], rng))
                labels.append(CLASSES.index("other" if t.kind == "d6" else t.value))
        # Places that are not dice (floor, walls, markers, edges of dice): "other" too.
        side = float(np.median([side_of(t) for t in shot.truth]))
        h, w = shot.image.shape[:2]
        for _ in range(3):
            cx, cy = rng.uniform(side, w - side), rng.uniform(side, h - side)
            if any(t.box[0] - side / 2 < cx < t.box[2] + side / 2
                   and t.box[1] - side / 2 < cy < t.box[3] + side / 2 for t in shot.truth):
                continue
            crop, _ = _cut(shot.image, cx, cy, side)
            view = face_view(crop, None, side) if crop is not None else None
            if view is not None:
                faces.append(view[0])
                labels.append(CLASSES.index("other"))
    return np.stack(faces), np.array(labels)


def train(x: np.ndarray, y: np.ndarray, seed: int, hidden=96, epochs=80, lr=2e-3, l2=1e-4):
    rng = np.random.default_rng(seed)
    mean, std = x.mean(axis=0), x.std(axis=0) + 1e-3
    x = (x - mean) / std
    n_in, n_out = x.shape[1], len(CLASSES)
    params = {"w1": rng.normal(0, np.sqrt(2 / n_in), (n_in, hidden)).astype(np.float32),
              "b1": np.zeros(hidden, np.float32),
              "w2": rng.normal(0, np.sqrt(2 / hidden), (hidden, n_out)).astype(np.float32),
              "b2": np.zeros(n_out, np.float32)}
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(p) for k, p in params.items()}
    step = 0
    for _epoch in range(epochs):
        order = rng.permutation(len(x))
        for start in range(0, len(x), 128):
            idx = order[start:start + 128]
            xb, yb = x[idx], y[idx]
            h = np.maximum(xb @ params["w1"] + params["b1"], 0)
            logits = h @ params["w2"] + params["b2"]
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            d = p.copy()
            d[np.arange(len(yb)), yb] -= 1
            d /= len(yb)
            grads = {"w2": h.T @ d + l2 * params["w2"], "b2": d.sum(axis=0)}
            dh = (d @ params["w2"].T) * (h > 0)
            grads["w1"] = xb.T @ dh + l2 * params["w1"]
            grads["b1"] = dh.sum(axis=0)
            step += 1
            for k in params:
                m[k] = 0.9 * m[k] + 0.1 * grads[k]
                v[k] = 0.999 * v[k] + 0.001 * grads[k] ** 2
                mh, vh = m[k] / (1 - 0.9 ** step), v[k] / (1 - 0.999 ** step)
                params[k] -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
    return dict(params, mean=mean.astype(np.float32), std=std.astype(np.float32))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trays", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--out", default=WEIGHTS)
    args = parser.parse_args()
    start = time.perf_counter()
    faces, labels = collect(args.trays, args.seed)
    held = np.tile(np.random.default_rng(args.seed).random(len(faces)) < 0.1, 4)
    # Every quarter turn of every face: the reader averages over the four.
    faces = np.concatenate([np.rot90(faces, k, axes=(1, 2)) for k in range(4)])
    labels = np.tile(labels, 4)
    x = face_features(faces)
    print(f"{len(x)} faces ({np.bincount(labels, minlength=len(CLASSES)).tolist()} per class "
          f"{list(CLASSES)}) in {time.perf_counter() - start:.0f} s")
    weights = train(x[~held], labels[~held], args.seed)
    h = np.maximum((x[held] - weights["mean"]) / weights["std"] @ weights["w1"]
                   + weights["b1"], 0)
    accuracy = ((h @ weights["w2"] + weights["b2"]).argmax(axis=1) == labels[held]).mean()
    print(f"held-out faces right: {100 * accuracy:.2f} % ({held.sum()} faces); "
          f"{time.perf_counter() - start:.0f} s in all")
    np.savez_compressed(args.out, **weights)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
