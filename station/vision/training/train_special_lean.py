"""Train the special dice's lean check; writes the weights read by `special_dice._lean`.

    # the station's venv: render trays with leaning scatter and artillery dice, cut the crops
    PYTHONPATH=. python station/vision/training/train_special_lean.py cut --trays 30000 31200 --out a.npz
    PYTHONPATH=. python station/vision/training/train_special_lean.py cut --trays 31200 32400 --out b.npz
    PYTHONPATH=. python station/vision/training/train_special_lean.py cut --trays 32400 33600 --out c.npz
    PYTHONPATH=. python station/vision/training/train_special_lean.py cut --trays 33600 34800 --out d.npz
    # ... and so on in steps of 1200 to trays 38400 39600 --out h.npz (eight sets)
    # the training venv (pip install torch onnx)
    PYTHONPATH=. python station/vision/training/train_special_lean.py train \
        --data a.npz b.npz c.npz d.npz e.npz f.npz g.npz h.npz --epochs 10 --seed 29 \
        --out station/vision/weights/special_lean.onnx

The face network (`special_dice`) reads a leaning die's tilted face as surely as a flat
one's often enough that a third of the leaning special dice on the benchmark's cocked trays
were given a face (issue #4: flagged for a re-roll). The pip dice's lean check
(`train_lean.py`) never saw a scatter or artillery die and tells them apart poorly (flat
ones at P(leaning) 1.0); this is the same network and training (an outward-up crop two
sides wide plus the die's distance from the frame's centre), shown special dice.

cut: trays `random_tray(np.random.default_rng(seed), dice=(0, 6), special={"scatter":
(1, 2), "artillery": (1, 2)}, cocked=U(0.2, 0.5), touching=0.3, by_wall=0.15)`, on odd seeds
with calibration markers and any camera yaw (the special dice benchmark's trays, with more
of them leaning). Each scatter and artillery die is cut where a reader would read it:
- per die (`read_special`): at the centre of its box or of its top face, moved 0.08 side at
  random, with a side 0.95-1.8 times its top face's;
- in the whole reader (`read_segmented`): at its outline (its box, 0.9-1.1 times the box's
  longer side), at the top face `centre_on_face` finds in that outline, and at one of the
  places round that face `_leaning_round` reads. The check swings with the crop, so a check
  that learned only the first kind doubted leaning dice where the whole reader cut them and
  took flat dice cut off their centre for leaning ones (docs/history/special-dice.md,
  fifty-sixth session). The held-out figures `train` prints are of the first kind only.
Each place is cut in three views as `train_lean.py` cuts them. No real photos: there are none of special dice.
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
    from station.vision.special_dice import LEAN_ROUND_SHIFT, LEAN_ROUND_SIDES, centre_on_face
    crops, labels, groups, kinds, radials = [], [], [], [], []
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

        def add(x, y, side, label, kind):
            if not (0 <= x < w and 0 <= y < h):
                return
            up = outward_angle(x, y, w, h)
            places = [(x, y, side, up)] + [
                (x, y, side * rng.uniform(0.93, 1.07),
                 up + rng.uniform(-OUTWARD_JITTER, OUTWARD_JITTER)) for _ in range(VIEWS - 1)]
            crops.append(source.crops(places, SIZE, CONTEXT))
            labels.append(label), groups.append(seed), kinds.append(kind)
            radials.append(radial(x, y, w, h))

        for t in tray.truth:
            if t.kind == "d6":
                continue
            top = np.asarray(t.top_corners, float)
            face = float(np.mean([np.hypot(*(top[i] - top[(i + 1) % 4])) for i in range(4)]))
            x0, y0, x1, y1 = t.box
            x, y = ((x0 + x1) / 2, (y0 + y1) / 2) if rng.random() < 0.5 else top.mean(axis=0)
            side = face * rng.uniform(0.95, 1.8)
            jx, jy = rng.normal(0, 0.08 * side, 2)
            add(x + jx, y + jy, side, int("cocked" in t.flags), 0)
            # where the whole reader reads it (`read_segmented`): its outline, the top face
            # found in it, and round that (`_leaning_round`)
            outline = (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0) * rng.uniform(0.9, 1.1)
            fx, fy, fside = centre_on_face(tray.image, *outline)
            dx, dy = rng.choice(LEAN_ROUND_SHIFT, 2)
            for place in (outline, (fx, fy, fside),
                          (fx + dx * fside, fy + dy * fside, fside * rng.choice(LEAN_ROUND_SIDES))):
                add(*place, int("cocked" in t.flags), 1)
        if seed % 50 == 0:
            print(f"tray {seed} ({time.time() - t0:.0f} s)", flush=True)
    labels_arr = np.array(labels)
    np.savez(out, crops=np.array(crops), labels=labels_arr, groups=np.array(groups),
             kinds=np.array(kinds), radial=np.array(radials, np.float32))
    print(f"wrote {out}: {len(labels_arr)} places cut, {labels_arr.sum()} of leaning dice")


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
        train(a.data, a.epochs, a.seed, a.out, a.init, a.max_lr, a.gains)


if __name__ == "__main__":
    main()
