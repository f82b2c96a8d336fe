"""Train the special-dice face network; writes station/vision/weights/special_faces.onnx.

    pip install torch onnx          # training only; the station never imports them
    PYTHONPATH=. python station/vision/training/train_special.py [--trays 1500] [--seed 1000]
        [--cache /tmp/special_crops.npz ...] [--epochs 10] [--threads 1] [--max-width 800]
        [--cocked 0.1] [--out OTHER.onnx]

Data: trays rendered by the synthetic renderer (station/fakes/tray.py), 640x480 to 4K, a
third of them with the calibration markers and any camera yaw (small dice), one die in ten
cocked. Every die is cut with `special_dice.face_crop` (the reader's own crop) several times
with its centre and side jittered as a segmenter would hand it over (from the top face's side
to the whole die's outline) and at any rotation; the colours are jittered as for the d6
network. Classes: `special_dice.CLASSES`: pip dice and places that are no die (the reader's
candidates off the dice, the marker tiles, spots beside dice) are "other"; a die leaning on
another or on the wall is "cocked", whatever it shows. Artillery numerals are drawn in
TRAIN_FONTS only: the benchmark's Source Sans numerals are a typeface the network never saw.
The benchmark's trays (seeds 1 and 2) are not used; the seed here defaults to 1000.
About 10 minutes to render and cut, 10-20 minutes to train on one core.

The committed face network (since the forty-sixth session; docs/history/special-dice.md,
forty-first, forty-fifth and forty-sixth sessions; torch 2.13.0 cpu) learned four crop sets:
the full range of frames with 15 % cocked dice, a small-dice set (640x480 and 800x600) with
20 % cocked dice, and the same two again with half the scatter dice's arrows in other makers'
proportions; 12 epochs from scratch, channels 24-96 (`WIDTHS`), about 25 minutes on two threads:

    PYTHONPATH=. python station/vision/training/train_special.py --trays 1200 --seed 1300 \
        --cocked 0.15 --cache base.npz --collect-only
    ... --trays 1000 --seed 6300 --max-width 800 --cocked 0.2 --cache small.npz --collect-only
    ... --trays 600 --seed 53000 --cocked 0.15 --arrow-shapes 0.5 --cache arrows.npz --collect-only
    ... --trays 600 --seed 53600 --max-width 800 --cocked 0.2 --arrow-shapes 0.5 \
        --cache arrows_small.npz --collect-only
    ... --cache base.npz small.npz arrows.npz arrows_small.npz --epochs 12 --seed 1300 --threads 2

(trained by a session script with the same network, crops, seed and schedule). Re-run through
this script (fifty-first session, docs/history/special-dice.md: 17 minutes to render on one
core, 16 to train on two threads), the commands give 113,192 crops, on whose held-out trays
the committed network reads misfire 518/558 and cocked 1214/1476 as in the forty-fifth
session (the same crops), and a network as good but not the same: 95.79 % of the held-out
crops right against the committed one's 95.87 %; per die the benchmark's faces the same
counts, 3 fewer of 77 cocked dice flagged (why the weights differ was not traced). It is
read with its own cut-offs (`special_dice.COCKED_PROBABILITY`, `OUTLINE_COCKED_PROBABILITY`).

The screen network (`special_dice.SCREEN_WEIGHTS`, the face network of the fifteenth to
forty-fifth sessions: channels 16-64, `SMALL_WIDTHS`, half the work per crop) learned the
first two sets only, 12 epochs:

    ... --cache base.npz small.npz --epochs 12 --seed 1300 --widths 16,32,48,64,96 \
        --out station/vision/weights/special_screen.onnx
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from station.vision.special_dice import CLASSES, FACE_CROP, WEIGHTS, face_crop
from station.vision.training.train_classifier import augment_colour, export, fit, start_from

TRAIN_FONTS = ("hershey-simplex", "hershey-duplex", "roboto", "lato", "dejavu")
SIZES = [(640, 480), (800, 600), (1280, 960), (1920, 1080), (2592, 1944), (3840, 2160)]
OTHER, COCKED = CLASSES.index("other"), CLASSES.index("cocked")


def top_side(truth) -> float:
    c = np.asarray(truth.top_corners, np.float64)
    return float(np.mean(np.linalg.norm(c - np.roll(c, 1, 0), axis=1)))


def label_of(truth) -> int:
    if "cocked" in truth.flags:
        return COCKED
    return OTHER if truth.kind == "d6" else CLASSES.index(truth.value)


def collect(trays: int, seed: int, save=None, max_width: int = 3840, cocked: float = 0.1,
            arrow_shapes: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops, classes and the index of the tray each came from (`save(...)` them every
    hundred trays). max_width: only frames up to that wide (800: dice of 15-45 px);
    cocked: the share of dice leaning on a die or the wall; arrow_shapes: the share of scatter
    dice whose arrows (and HIT faces' small arrows) have another maker's proportions."""
    from station.fakes.tray import random_tray
    from station.vision.reader import propose

    rng = np.random.default_rng(seed)
    crops, classes, tray_of = [], [], []
    sizes = [size for size in SIZES if size[0] <= max_width]
    weights = np.array([.25, .15, .2, .2, .1, .1])[:len(sizes)]

    def add(image, x, y, side, cls, index):
        crop = face_crop(image, x, y, side, angle_deg=float(rng.uniform(0, 360)))
        crops.append(augment_colour(crop, rng))
        classes.append(cls)
        tray_of.append(index)

    start = time.perf_counter()
    for index in range(trays):
        markers = bool(rng.random() < 0.35)
        shot = random_tray(rng, size=sizes[int(rng.choice(len(sizes), p=weights / weights.sum()))],
                           dice=(0, 4), markers=markers, cocked=cocked,
                           yaw_deg=float(rng.uniform(-180, 180)) if markers else None,
                           special={"scatter": (1, 2), "artillery": (1, 3)},
                           fonts=TRAIN_FONTS, arrow_shapes=arrow_shapes,
                           small_arrow_shapes=arrow_shapes)
        sides = []
        for t in shot.truth:
            side = top_side(t)
            sides.append(side)
            cls = label_of(t)
            x0, y0, x1, y1 = t.box
            box_w = max(x1 - x0, y1 - y0)
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2   # the outline's centre, as segmented
            per_die = 2 if cls == OTHER else 6
            for _ in range(per_die):
                r, a = rng.uniform(0, 0.12) * side, rng.uniform(0, 2 * math.pi)
                s = rng.uniform(0.85 * side, 1.1 * max(box_w, side))
                add(shot.image, cx + r * math.cos(a), cy + r * math.sin(a), s, cls, index)
            if rng.random() < 0.3:   # half on the die, half beside it: not a die to read
                a = rng.uniform(0, 2 * math.pi)
                add(shot.image, cx + 0.9 * side * math.cos(a), cy + 0.9 * side * math.sin(a),
                    side * rng.uniform(0.85, 1.2), OTHER, index)
        side = float(np.median(sides))
        off_dice = [c for c in propose(shot.image, side)
                    if not any(t.box[0] - side / 4 < c.x < t.box[2] + side / 4
                               and t.box[1] - side / 4 < c.y < t.box[3] + side / 4
                               for t in shot.truth)]
        for i in rng.permutation(len(off_dice))[:4]:
            c = off_dice[i]
            add(shot.image, c.x, c.y, c.side * rng.uniform(0.85, 1.2), OTHER, index)
        for corners in shot.markers.values():   # the calibration sheet's tiles
            cx, cy = np.asarray(corners).mean(axis=0)
            add(shot.image, cx, cy, side * rng.uniform(0.85, 1.3), OTHER, index)
        if index % 100 == 99:
            print(f"{index + 1} trays, {len(crops)} crops, {time.perf_counter() - start:.0f} s",
                  flush=True)
            if save:    # so far, in case the run is stopped
                save(np.stack(crops), np.array(classes), np.array(tray_of))
    return np.stack(crops), np.array(classes), np.array(tray_of)


WIDTHS = (24, 48, 72, 96, 128)      # the face network's: four convolutions, one hidden layer
SMALL_WIDTHS = (16, 32, 48, 64, 96)  # the screen network's, and the bearing networks' body


def make_model(outputs: int = len(CLASSES), widths: tuple[int, ...] = WIDTHS):
    """The face network; `outputs` other than the classes: the bearing networks
    (`train_bearing.py`, on the screen network's `SMALL_WIDTHS`). `widths`: the four
    convolutions' channels and the hidden layer's size."""
    import torch.nn as nn

    def block(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU()]

    c1, c2, c3, c4, hidden = widths
    return nn.Sequential(
        *block(3, c1), nn.MaxPool2d(2),
        *block(c1, c2), nn.MaxPool2d(2),
        *block(c2, c3), nn.MaxPool2d(2),
        *block(c3, c4),
        nn.Flatten(), nn.Linear(c4 * (FACE_CROP // 8) ** 2, hidden), nn.ReLU(), nn.Dropout(0.3),
        nn.Linear(hidden, outputs))


def quarter_turn(batch):
    """Each batch at a random quarter turn (the network reads faces whichever way up)."""
    import torch

    return torch.rot90(batch, int(torch.randint(4, ())), dims=(2, 3))


def train(crops, classes, tray_of, epochs: int, seed: int, out: Path, init: Path | None = None,
          max_lr: float = 3e-3, widths: tuple[int, ...] = WIDTHS) -> None:
    import torch

    from station.vision.classifier import normalise

    torch.manual_seed(seed)
    held = tray_of % 10 == 9          # every tenth tray: the held-out check
    x = torch.from_numpy(normalise(crops))
    y = torch.from_numpy(classes).long()
    train_idx = torch.from_numpy(np.nonzero(~held)[0])
    model = make_model(widths=widths)
    if init is not None:
        start_from(model, init)
    fit(model, x, y, train_idx, epochs, quarter_turn, time.time(), max_lr=max_lr)
    held_idx = torch.from_numpy(np.nonzero(held)[0])
    with torch.no_grad():
        got = torch.cat([model(x[held_idx[i:i + 512]]) for i in range(0, len(held_idx), 512)]
                        ).argmax(1).numpy()
    truth = classes[held]
    print(f"held-out crops right: {100 * (got == truth).mean():.2f} % of {held.sum()}")
    for k, name in enumerate(CLASSES):
        n = int((truth == k).sum())
        print(f"  {str(name):8s} {int(((got == k) & (truth == k)).sum())}/{n}")
    export(model, out, FACE_CROP)
    print(f"wrote {out} ({out.stat().st_size // 1024} KB)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trays", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cache", type=Path, nargs="+",
                        help="keep the rendered crops here (npz); several: train on them all")
    parser.add_argument("--max-width", type=int, default=3840,
                        help="render frames only up to this width (800: small dice only)")
    parser.add_argument("--cocked", type=float, default=0.1,
                        help="share of dice rendered leaning on a die or the wall")
    parser.add_argument("--arrow-shapes", type=float, default=0.0, metavar="SHARE",
                        help="share of scatter dice drawn with another maker's arrows")
    parser.add_argument("--init", type=Path,
                        help="fine-tune from these exported weights (e.g. the committed ones)")
    parser.add_argument("--max-lr", type=float, default=3e-3, help="peak learning rate")
    parser.add_argument("--widths", type=lambda v: tuple(int(k) for k in v.split(",")),
                        default=WIDTHS, help="the convolutions' channels and the hidden "
                        "layer's size, comma-separated (default: the face network's)")
    parser.add_argument("--collect-only", action="store_true")
    parser.add_argument("--out", type=Path, default=Path(WEIGHTS))
    args = parser.parse_args()
    cv2.setNumThreads(args.threads)
    start = time.perf_counter()
    if args.cache and all(path.exists() for path in args.cache):
        saved = [np.load(path) for path in args.cache]    # several runs' crops, pooled
        crops = np.concatenate([d["crops"] for d in saved])
        classes = np.concatenate([d["classes"] for d in saved])
        tray_of = np.concatenate([d["tray_of"] + 100_000 * i for i, d in enumerate(saved)])
    else:
        def save(crops, classes, tray_of):
            np.savez(args.cache[0], crops=crops, classes=classes, tray_of=tray_of)

        crops, classes, tray_of = collect(args.trays, args.seed, save if args.cache else None,
                                          args.max_width, args.cocked, args.arrow_shapes)
        if args.cache:
            save(crops, classes, tray_of)
    print(f"{len(crops)} crops ({np.bincount(classes, minlength=len(CLASSES)).tolist()} per "
          f"class {list(CLASSES)}) in {time.perf_counter() - start:.0f} s", flush=True)
    if args.collect_only:
        return 0
    import torch
    torch.set_num_threads(args.threads)
    train(crops, classes, tray_of, args.epochs, args.seed, args.out, args.init, args.max_lr,
          args.widths)
    return 0


if __name__ == "__main__":
    sys.exit(main())
