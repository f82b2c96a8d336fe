"""Train the special dice's lean check; writes the weights read by `special_dice._lean`.

    # the station's venv: render trays with leaning scatter and artillery dice, cut the crops
    PYTHONPATH=. python station/vision/training/train_special_lean.py cut --trays 30000 31000 --out a.npz
    PYTHONPATH=. python station/vision/training/train_special_lean.py cut --trays 31000 32000 --out b.npz
    # the training venv (pip install torch onnx)
    PYTHONPATH=. python station/vision/training/train_special_lean.py train --data a.npz b.npz \
        --epochs 10 --seed 29 --out station/vision/weights/special_lean.onnx

The face network (`special_dice`) reads a leaning die's tilted face as surely as a flat
one's often enough that a third of the leaning special dice on the benchmark's cocked trays
were given a face (issue #4: flagged for a re-roll). The pip dice's lean check
(`train_lean.py`) never saw a scatter or artillery die and tells them apart poorly (flat
ones at P(leaning) 1.0); this is the same network and training (an outward-up crop two
sides wide plus the die's distance from the frame's centre), shown special dice.

cut: trays `random_tray(np.random.default_rng(seed), dice=(0, 6), special={"scatter":
(1, 2), "artillery": (1, 2)}, cocked=U(0.2, 0.5), touching=0.3, by_wall=0.15)`, on odd seeds
with calibration markers and any camera yaw (the special dice benchmark's trays, with more
of them leaning). Each scatter and artillery die is cut where a reader would read it: at
the centre of its box or of its top face, moved 0.08 side at random, with a side 0.95-1.8
times its top face's (its top face's side per die; in the whole reader also its outline's,
1.2-1.9 faces);
three views as `train_lean.py` cuts them. No real photos: there are none of special dice.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from station.vision.training.train_lean import (  # noqa: E402
    SIZE, CONTEXT, VIEWS, add_train_step, radial, train)


def cut(first: int, end: int, out: Path) -> None:
    from station.fakes.tray import random_tray
    from station.vision.crops import OUTWARD_JITTER, CropSource, outward_angle
    crops, labels, groups, radials = [], [], [], []
    t0 = time.time()
    for seed in range(first, end):
        rng = np.random.default_rng(seed)
        markers = bool(seed % 2)
        tray = random_tray(rng, dice=(0, 6), special={"scatter": (1, 2), "artillery": (1, 2)},
                           cocked=float(rng.uniform(0.2, 0.5)), touching=0.3, by_wall=0.15,
                           markers=markers,
                           yaw_deg=float(rng.uniform(-180, 180)) if markers else None)
        source = CropSource(tray.image)
        h, w = tray.image.shape[:2]
        for t in tray.truth:
            if t.kind == "d6":
                continue
            top = np.asarray(t.top_corners, float)
            face = float(np.mean([np.hypot(*(top[i] - top[(i + 1) % 4])) for i in range(4)]))
            x0, y0, x1, y1 = t.box
            x, y = ((x0 + x1) / 2, (y0 + y1) / 2) if rng.random() < 0.5 else top.mean(axis=0)
            side = face * rng.uniform(0.95, 1.8)
            jx, jy = rng.normal(0, 0.08 * side, 2)
            x, y = x + jx, y + jy
            up = outward_angle(x, y, w, h)
            places = [(x, y, side, up)] + [
                (x, y, side * rng.uniform(0.93, 1.07),
                 up + rng.uniform(-OUTWARD_JITTER, OUTWARD_JITTER)) for _ in range(VIEWS - 1)]
            crops.append(source.crops(places, SIZE, CONTEXT))
            labels.append(int("cocked" in t.flags))
            groups.append(seed)
            radials.append(radial(x, y, w, h))
        if seed % 50 == 0:
            print(f"tray {seed} ({time.time() - t0:.0f} s)", flush=True)
    labels_arr = np.array(labels)
    np.savez(out, crops=np.array(crops), labels=labels_arr, groups=np.array(groups),
             kinds=np.zeros(len(labels_arr), int), radial=np.array(radials, np.float32))
    print(f"wrote {out}: {len(labels_arr)} dice, {labels_arr.sum()} leaning")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    steps = parser.add_subparsers(dest="step", required=True)
    p = steps.add_parser("cut")
    p.add_argument("--trays", type=int, nargs=2, required=True, metavar=("FIRST", "END"))
    p.add_argument("--out", type=Path, required=True)
    # from the pip dice's lean check, which has seen far more dice lean
    add_train_step(steps, seed=29, init=ROOT / "station/vision/weights/d6_lean.onnx")
    a = parser.parse_args()
    cv2.setNumThreads(1)
    if a.step == "cut":
        cut(a.trays[0], a.trays[1], a.out)
    else:
        train(a.data, a.epochs, a.seed, a.out, a.init)


if __name__ == "__main__":
    main()
