"""Train the scatter die's bearing networks: the arrow face's (`special_dice.BEARING_WEIGHTS`)
and the HIT face's small arrow's (`special_dice.HIT_BEARING_WEIGHTS`).

    # the station's venv: render trays of scatter dice, cut the arrow faces
    PYTHONPATH=. python station/vision/training/train_bearing.py cut --trays 50000 50600 --out a.npz
    PYTHONPATH=. python station/vision/training/train_bearing.py cut --trays 50600 51200 --out b.npz
    # the training venv (pip install torch onnx)
    PYTHONPATH=. python station/vision/training/train_bearing.py train --data a.npz b.npz \
        --epochs 8 --seed 31 --out station/vision/weights/scatter_bearing.onnx
    # the HIT network: HIT faces cut, trained from the arrow network's weights
    # (trays 55000-56600 in four parts of 400, h1.npz to h4.npz)
    PYTHONPATH=. python station/vision/training/train_bearing.py cut --face hit \
        --trays 55000 55400 --out h1.npz
    PYTHONPATH=. python station/vision/training/train_bearing.py train \
        --data h1.npz h2.npz h3.npz h4.npz --epochs 20 \
        --seed 32 --init station/vision/weights/scatter_bearing.onnx --max-lr 1e-3 \
        --out station/vision/weights/scatter_hit_bearing.onnx

The arrow's bearing is measured on the print (`special_dice._arrow_bearing`: the ink's axis,
the head at the wider end), which is exact where it works; but a glare spot across the
shaft, a neighbour's side face or a blurred head leaves one arrow face in twenty with no
bearing (a re-roll, SCAT-2) and a few with the head at the wrong end. This network looks at
the whole face instead: the face network's crop (`special_dice.face_crop`), the arrow's
direction as BINS classes of 360/BINS degrees (the target shared between the two bins either
side of the true bearing, so the probabilities give the bearing between them).

cut: trays `random_tray(rng, dice=(0, 3), special={"scatter": (2, 4)}, arrow_shapes=0.5)`,
640x480 to 4K as the face network's data, a third with calibration markers and any camera
yaw; every flat arrow face cut VIEWS times as a segmenter would hand it over (centre moved
up to an eighth of a side, side from its top face's to its outline's) at any rotation, half
of them mirrored (a mirrored arrow is an arrow), colours jittered as for the other networks.
Half the arrows are drawn in other makers' proportions (`tray_faces.random_arrow`): the
network must read arrows, not the renderer's one arrow. The benchmark's trays (seeds 1-3)
are not used.

cut --face hit: trays of 0-3 pip dice and 2-4 scatter dice all showing HIT, cut as above;
the target is the small arrow's bearing, and on a HIT face drawn without one (15 %) all bins
alike, so the network learns to be unsure there. The small arrow is a few pixels of the 40x40
crop: trained from scratch the network never found it (it stayed at chance for 10 epochs);
from the arrow network's weights it does.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from station.vision.special_dice import BEARING_BINS as BINS, face_crop  # noqa: E402
from station.vision.training.train_classifier import (augment_colour, export, fit,  # noqa: E402
                                                       start_from)
from station.vision.training.train_special import (SIZES, SMALL_WIDTHS, make_model,  # noqa: E402
                                                    top_side)

VIEWS = 8


def soft_target(bearing_deg: float) -> np.ndarray:
    """The class probabilities a bearing stands for: shared between its two nearest bins;
    NaN (a HIT face drawn without a small arrow) stands for no direction: all bins alike."""
    if math.isnan(bearing_deg):
        return np.full(BINS, 1 / BINS, np.float32)
    f = (bearing_deg % 360.0) / (360.0 / BINS)
    lo = int(math.floor(f)) % BINS
    target = np.zeros(BINS, np.float32)
    target[lo] = 1.0 - (f - math.floor(f))
    target[(lo + 1) % BINS] += f - math.floor(f)
    return target


def _tray(rng: np.random.Generator, face: str):
    """A training tray: 0-3 pip dice and 2-4 scatter dice, any of the face network's sizes,
    a third calibrated with any camera yaw. For the HIT network every scatter die shows HIT
    (a third do in `random_tray`), so a tray gives three times the faces."""
    from station.fakes.tray import Face, random_faces, random_tray, render_roll
    markers = bool(rng.random() < 0.35)
    size = SIZES[int(rng.choice(len(SIZES), p=np.array([.25, .15, .2, .2, .1, .1])))]
    yaw = float(rng.uniform(-180, 180)) if markers else None
    if face == "arrow":
        return random_tray(rng, size=size, dice=(0, 3), special={"scatter": (2, 4)},
                           markers=markers, yaw_deg=yaw, arrow_shapes=0.5)
    faces = random_faces(rng, int(rng.integers(0, 4))) + \
        [Face("scatter", "hit") for _ in range(int(rng.integers(2, 5)))]
    return render_roll([faces[i] for i in rng.permutation(len(faces))], rng, size,
                       markers=markers, yaw_deg=yaw)


def cut(first: int, end: int, face: str, out: Path) -> None:
    """Cut the `face` ("arrow" or "hit") faces of trays first..end-1. A HIT face drawn
    without a small arrow is kept with the bearing NaN: the network learns to be unsure
    there, so the reader gives no bearing (`train`'s flat target)."""
    crops, bearings, tray_of = [], [], []
    t0 = time.time()
    for seed in range(first, end):
        rng = np.random.default_rng(seed)
        shot = _tray(rng, face)
        for t in shot.truth:
            if t.kind != "scatter" or t.value != face or "cocked" in t.flags:
                continue
            truth = math.nan if t.bearing_deg is None else t.bearing_deg
            side = top_side(t)
            x0, y0, x1, y1 = t.box
            box_w = max(x1 - x0, y1 - y0)
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            for _ in range(VIEWS):
                r, a = rng.uniform(0, 0.12) * side, rng.uniform(0, 2 * math.pi)
                s = rng.uniform(0.85 * side, 1.1 * max(box_w, side))
                turn = float(rng.uniform(0, 360))
                # the crop turns the picture counter-clockwise: the arrow turns with it
                crop = face_crop(shot.image, cx + r * math.cos(a), cy + r * math.sin(a), s, turn)
                bearing = (truth - turn) % 360.0
                if rng.random() < 0.5:
                    crop, bearing = crop[:, ::-1], (360.0 - bearing) % 360.0
                crops.append(augment_colour(np.ascontiguousarray(crop), rng))
                bearings.append(bearing)
                tray_of.append(seed)
        if (seed - first) % 100 == 99:
            print(f"{seed - first + 1} trays, {len(crops)} crops, {time.time() - t0:.0f} s",
                  flush=True)
    np.savez(out, crops=np.stack(crops), bearings=np.array(bearings, np.float32),
             tray_of=np.array(tray_of))
    print(f"wrote {out}: {len(crops)} crops in {time.time() - t0:.0f} s")


def train(data: list[Path], epochs: int, seed: int, out: Path, init: Path | None = None,
          max_lr: float = 3e-3) -> None:
    import torch

    from station.vision.classifier import normalise
    from station.vision.special_dice import FACE_CROP, bearing_of_probabilities

    torch.manual_seed(seed)
    saved = [np.load(path) for path in data]
    crops = np.concatenate([d["crops"] for d in saved])
    bearings = np.concatenate([d["bearings"] for d in saved])
    tray_of = np.concatenate([d["tray_of"] for d in saved])
    print(f"{len(crops)} crops", flush=True)
    held = tray_of % 10 == 9          # every tenth tray: the held-out check
    x = torch.from_numpy(normalise(crops))
    y = torch.from_numpy(np.stack([soft_target(b) for b in bearings]))
    model = make_model(BINS, SMALL_WIDTHS)
    if init is not None:
        start_from(model, init)
    fit(model, x, y, torch.from_numpy(np.nonzero(~held)[0]), epochs, lambda batch: batch,
        time.time(), max_lr=max_lr)
    idx = np.nonzero(held)[0]
    with torch.no_grad():
        logits = torch.cat([model(x[idx[i:i + 512]]) for i in range(0, len(idx), 512)]).numpy()
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    got, mass = np.array([bearing_of_probabilities(row) for row in p]).T
    err = np.abs((got - bearings[idx] + 180.0) % 360.0 - 180.0)
    drawn = ~np.isnan(err)
    print(f"held-out crops ({drawn.sum()}): bearing error median {np.median(err[drawn]):.2f} "
          f"deg, p95 {np.percentile(err[drawn], 95):.2f} deg, over 20 deg "
          f"{int((err[drawn] > 20).sum())}; sureness median {np.median(mass[drawn]):.2f}")
    if (~drawn).any():
        bare = mass[~drawn]
        print(f"held-out crops without an arrow ({len(bare)}): sureness median "
              f"{np.median(bare):.2f}, 95th percentile {np.percentile(bare, 95):.2f}")
    export(model, out, FACE_CROP)
    print(f"wrote {out} ({out.stat().st_size // 1024} KB)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("cut", help="render trays and cut the arrow (or HIT) faces")
    c.add_argument("--trays", type=int, nargs=2, metavar=("FIRST", "END"), required=True)
    c.add_argument("--face", choices=("arrow", "hit"), default="arrow",
                   help="arrow faces (the arrow network) or HIT faces (their small arrow)")
    c.add_argument("--out", type=Path, required=True)
    t = sub.add_parser("train", help="train on cut faces")
    t.add_argument("--data", type=Path, nargs="+", required=True)
    t.add_argument("--epochs", type=int, default=8)
    t.add_argument("--seed", type=int, default=31)
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--init", type=Path, help="start from these exported weights (the arrow "
                   "network's, for the HIT network: from scratch it never finds the small arrow)")
    t.add_argument("--max-lr", type=float, default=3e-3,
                   help="the learning rate's peak (lower when starting from --init)")
    t.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if args.command == "cut":
        cut(*args.trays, args.face, args.out)
    else:
        import torch
        torch.set_num_threads(args.threads)
        train(args.data, args.epochs, args.seed, args.out, args.init, args.max_lr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
