"""Train the lean check; writes the weights read by `classifier.default_lean`.

    pip install torch onnx          # training only; the station never imports them
    # the station's venv: render trays with many leaning dice, read them, cut the crops
    PYTHONPATH=. python station/vision/training/train_lean.py collect --trays 20000 20818 --out a/
    PYTHONPATH=. python station/vision/training/train_lean.py collect --trays 21000 25680 \
        --touching 0.5 --out b/
    PYTHONPATH=. python station/vision/training/train_lean.py cut --trays 20000 20818 --from a/ --out a.npz
    PYTHONPATH=. python station/vision/training/train_lean.py cut --trays 21000 25680 --from b/ \
        --no-photos --out b.npz
    # the training venv
    PYTHONPATH=. python station/vision/training/train_lean.py train --data a.npz b.npz \
        --epochs 10 --seed 33 --out station/vision/weights/d6_lean.onnx

(the committed weights, twenty-third session; the first set's distance input was taken at
the true top-face centre for the moved places of leaning dice, where `cut` takes the moved
place: at most 0.01 apart; the second set was collected and cut in five runs, 21000-21830,
21830-22080, 22080-23280, 23280-24480 and 24480-25680, each cut with `cut`'s own random
generator.)

The classifier reads a leaning die's tilted top face as surely as a flat one's, so on trays
with many leaning dice it gave two in five of them a value (issue #3 asks for a flag). The
check sees a die read with a value twice as wide as the classifier does (64 pixels, 2 sides),
turned outward-up (`crops.outward_angle`: a flat die's side faces show below its top face),
plus, as a fourth input channel, the die's distance from the frame's centre over the frame's
width: perspective alone shows a flat die's side faces more the farther out it lies, as much
as a lean does near the frame's edge (docs/history/vision.md, twenty-first session).

collect: trays `random_tray(np.random.default_rng(seed), dice=(1, 30), cocked=U(0.3, 0.5),
touching=0.3 or `--touching`, by_wall=0.15, materials=0.1 on odd seeds)`, read by the reader without the lean
check; each tray's image (PNG) and truth and final readings (JSON) kept.
cut: at each reading with a value owned by a die (the die whose box holds it and whose top
face is nearest; leaning when that die leans), each reading flagged cocked owned by a leaning
die, each leaning die's true top-face centre moved 0.08 side at random (leaning), and the
training photos' dice read right (flat; never the held-out fifth): three crops, exact and
twice turned up to `crops.OUTWARD_JITTER` and sized 0.93-1.07.
train: strided 3x3 convolutions (8, 16, 32, 32), batch norm, ReLU, one linear layer; a fifth
of the trays held out to report on; leaning weighted to balance the classes, label smoothing
0.05, AdamW one-cycle 3e-3 (`--max-lr`), colour shuffles, contrast, brightness, noise,
mirrored batches; `--gains G` also puts half the crops under another white balance (each
channel scaled by up to 1+G either way: the check trained without it finds flat dice under
warm light leaning, docs/history/vision.md, "Sixty-fifth session").
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from station.vision.training.train_classifier import (  # noqa: E402
    DEFAULT_DATA, held_out, start_from)

SIZE, CONTEXT, VIEWS = 64, 2.0, 3
CHANNELS = (8, 16, 32, 32)


def radial(x: float, y: float, w: int, h: int) -> float:
    """The lean check's fourth input: distance from the frame's centre / the frame's width."""
    return math.hypot(x - w / 2, y - h / 2) / w


def collect(first: int, end: int, out: Path, touching: float) -> None:
    from station.fakes.tray import random_tray
    from station.vision import classifier, reader
    classifier.use_lean(None)               # the readings the check will be shown
    found = []
    describe = reader._describe

    def spy(image, c, *args, **kwargs):
        d = describe(image, c, *args, **kwargs)
        found.append((d, c))
        return d

    reader._describe = spy
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    for seed in range(first, end):
        rng = np.random.default_rng(seed)
        tray = random_tray(rng, dice=(1, 30), cocked=float(rng.uniform(0.3, 0.5)), touching=touching,
                           by_wall=0.15, materials=0.1 if seed % 2 else 0.0)
        found.clear()
        reader.read_tray(tray.image)
        truth = [dict(value=t.value, box=t.box, center=t.center, cocked="cocked" in t.flags,
                      top=np.asarray(t.top_corners).tolist()) for t in tray.truth]
        reads = []
        for d, c in found:
            inside = [k for k, t in enumerate(truth) if t["box"][0] <= d.center[0] <= t["box"][2]
                      and t["box"][1] <= d.center[1] <= t["box"][3]]
            owner = min(inside, key=lambda k: math.dist(truth[k]["center"], d.center), default=None)
            reads.append(dict(x=c.x, y=c.y, side=c.side, value=d.value, kind=d.kind,
                              flags=list(d.flags), owner=owner))
        cv2.imwrite(str(out / f"{seed}.png"), tray.image, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        (out / f"{seed}.json").write_text(json.dumps(dict(truth=truth, reads=reads)))
        if seed % 20 == 0:
            print(f"tray {seed} ({time.time() - t0:.0f} s)", flush=True)


def cut(first: int, end: int, trays: Path, out: Path, photos: bool) -> None:
    from station.vision.crops import OUTWARD_JITTER, CropSource, outward_angle
    rng = np.random.default_rng(21)
    crops, labels, groups, kinds, radials = [], [], [], [], []

    def add(source, w, h, x, y, side, label, group, kind):
        up = outward_angle(x, y, w, h)
        places = [(x, y, side, up)] + [
            (x, y, side * rng.uniform(0.93, 1.07), up + rng.uniform(-OUTWARD_JITTER, OUTWARD_JITTER))
            for _ in range(VIEWS - 1)]
        crops.append(source.crops(places, SIZE, CONTEXT))
        labels.append(label), groups.append(group), kinds.append(kind)
        radials.append(radial(x, y, w, h))

    for seed in range(first, end):
        path = trays / f"{seed}.json"
        if not path.exists():
            continue
        tray = json.loads(path.read_text())
        image = cv2.imread(str(path.with_suffix(".png")))
        h, w = image.shape[:2]
        source, truth = CropSource(image), tray["truth"]
        sides: dict[int, list[float]] = {}
        for r in tray["reads"]:
            if r["owner"] is None or r["kind"] != "d6":
                continue
            lean = truth[r["owner"]]["cocked"]
            if lean:
                sides.setdefault(r["owner"], []).append(r["side"])
            if r["value"] is not None:
                add(source, w, h, r["x"], r["y"], r["side"], int(lean), seed, 0)
            elif lean and "cocked" in r["flags"]:
                add(source, w, h, r["x"], r["y"], r["side"], 1, seed, 1)
        for k, d in enumerate(truth):
            if not d["cocked"]:
                continue
            top = np.array(d["top"])
            edge = np.mean([math.dist(top[i], top[(i + 1) % 4]) for i in range(4)])
            side = float(np.median(sides[k])) if k in sides else edge * 1.1
            jx, jy = rng.normal(0, 0.08 * side, 2)
            add(source, w, h, d["center"][0] + jx, d["center"][1] + jy,
                side * rng.uniform(0.9, 1.1), 1, seed, 2)
    if photos:
        _cut_photos(add)
    labels_arr = np.array(labels)
    np.savez(out, crops=np.array(crops), labels=labels_arr, groups=np.array(groups),
             kinds=np.array(kinds), radial=np.array(radials, np.float32))
    print(f"wrote {out}: {len(labels_arr)} places, {labels_arr.sum()} leaning")


def _cut_photos(add) -> None:
    """The training photos' dice read right, flat (the reader without the check, as collected)."""
    from station.vision import classifier, read_tray, reader
    from station.vision.crops import CropSource
    from station.vision.evaluation import match
    classifier.use_lean(None)
    found = []
    describe = reader._describe

    def spy(image, c, *args, **kwargs):
        found.append(c)
        return describe(image, c, *args, **kwargs)

    reader._describe = spy
    labels_file = json.loads((DEFAULT_DATA / "labels.json").read_text())
    for index, name in enumerate(sorted(labels_file)):
        if held_out(index):
            continue
        image = cv2.imread(str(DEFAULT_DATA / "images" / name))
        h, w = image.shape[:2]
        found.clear()
        dice = read_tray(image)
        places = list(found)
        best, _ = match(dice, labels_file[name])
        source = CropSource(image)
        for j, i in sorted(best.items(), key=lambda item: item[1]):   # in reading order
            if dice[i].kind == "d6" and dice[i].value == labels_file[name][j]["value"]:
                c = places[i]
                add(source, w, h, c.x, c.y, c.side, 0, -1, 3)


def train(data: list[Path], epochs: int, seed: int, out: Path, init: Path | None = None,
          max_lr: float = 3e-3, gains: float = 0.0) -> None:
    import torch
    import torch.nn as nn
    from station.vision.classifier import LeanCheck, normalise
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    t0 = time.time()
    parts = [np.load(f) for f in data]
    crops = np.concatenate([q["crops"] for q in parts])
    labels = np.concatenate([q["labels"] for q in parts])
    groups = np.concatenate([q["groups"] for q in parts])
    kinds = np.concatenate([q["kinds"] for q in parts])
    radials = np.concatenate([q["radial"] for q in parts]).astype(np.float32)
    check = (groups >= 0) & (groups % 5 == 4)

    def inputs(x: np.ndarray, r: np.ndarray) -> torch.Tensor:
        scaled = LeanCheck.RADIAL_SCALE * r
        plane = np.broadcast_to(scaled[:, None, None, None], (len(x), 1) + x.shape[2:])
        return torch.from_numpy(np.concatenate([x, plane], axis=1).astype(np.float32))

    layers, cin = [], 4
    for cout in CHANNELS:
        layers += [nn.Conv2d(cin, cout, 3, stride=2, padding=1), nn.BatchNorm2d(cout), nn.ReLU()]
        cin = cout
    s = SIZE >> len(CHANNELS)
    model = nn.Sequential(*layers, nn.Flatten(), nn.Linear(cin * s * s, 2))
    if init is not None:
        start_from(model, init)
    x_all = crops[~check].reshape(-1, *crops.shape[2:])
    y_all = np.repeat(labels[~check], VIEWS)
    r_all = np.repeat(radials[~check], VIEWS)
    weight = torch.tensor([1.0, float((y_all == 0).sum() / max((y_all == 1).sum(), 1))])
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=1e-4)
    batch = 128
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=max_lr, total_steps=epochs * math.ceil(len(y_all) / batch))
    loss_fn = nn.CrossEntropyLoss(weight=weight, label_smoothing=0.05)
    y_t = torch.from_numpy(y_all).long()
    shown = check & (kinds == 0)
    x_check = inputs(normalise(crops[shown][:, 0]), radials[shown])
    y_check = labels[shown]
    for epoch in range(epochs):
        model.train()
        order = rng.permutation(len(y_all))
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            xb = inputs(normalise(_augment(x_all[idx], rng, gains)), r_all[idx])
            if rng.random() < 0.5:
                xb = xb.flip(3)             # a mirror keeps outward up
            loss = loss_fn(model(xb), y_t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        model.eval()
        with torch.no_grad():
            p = torch.softmax(model(x_check), 1)[:, 1].numpy()
        flat, lean = p[y_check == 0], p[y_check == 1]
        print(f"epoch {epoch + 1}: {len(lean)} leaning held out, " + ", ".join(
            f"at {share:.1%} of flat: {(lean > np.quantile(flat, 1 - share)).mean():.1%}"
            for share in (0.003, 0.01)) + f" ({time.time() - t0:.0f} s)", flush=True)
    torch.onnx.export(model, torch.zeros(1, 4, SIZE, SIZE), str(out), dynamo=False,
                      input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}})
    print("wrote", out)


def _augment(crops: np.ndarray, rng, gains: float = 0.0) -> np.ndarray:
    """Colour shuffles, contrast, brightness, noise; with `gains`, half the crops also under
    another white balance: each channel scaled by a factor log-uniform in 1/(1+gains)..1+gains."""
    out = crops.astype(np.float32)
    for x in out:
        if rng.random() < 0.5:
            x[:] = x[:, :, rng.permutation(3)]
        if gains and rng.random() < 0.5:
            x *= np.exp(rng.uniform(-1, 1, 3) * math.log1p(gains)).astype(np.float32)
        x[:] = (x - 128) * rng.uniform(0.7, 1.3) + 128 + rng.uniform(-30, 30)
        if rng.random() < 0.4:
            x += rng.normal(0, rng.uniform(2, 8), x.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def add_train_step(steps, seed: int, init: Path | None) -> None:
    """The `train` step's arguments (shared with `train_special_lean.py`)."""
    p = steps.add_parser("train")
    p.add_argument("--data", type=Path, nargs="+", required=True)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--seed", type=int, default=seed)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--init", type=Path, default=init,
                   help=f"start from these weights, an exported lean check (default: {init})")
    p.add_argument("--max-lr", type=float, default=3e-3, help="the one-cycle schedule's peak")
    p.add_argument("--gains", type=float, default=0.0, metavar="G",
                   help="half the crops under another white balance, each channel scaled "
                   "by up to 1+G either way (warm or cool light)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    steps = parser.add_subparsers(dest="step", required=True)
    p = steps.add_parser("collect")
    p.add_argument("--trays", type=int, nargs=2, required=True, metavar=("FIRST", "END"))
    p.add_argument("--touching", type=float, default=0.3)
    p.add_argument("--out", type=Path, required=True)
    p = steps.add_parser("cut")
    p.add_argument("--trays", type=int, nargs=2, required=True, metavar=("FIRST", "END"))
    p.add_argument("--from", dest="source", type=Path, required=True)
    p.add_argument("--photos", action=argparse.BooleanOptionalAction, default=True,
                   help="also the training photos' dice read right, as flat")
    p.add_argument("--out", type=Path, required=True)
    add_train_step(steps, seed=21, init=None)
    a = parser.parse_args()
    cv2.setNumThreads(1)
    if a.step == "collect":
        collect(a.trays[0], a.trays[1], a.out, a.touching)
    elif a.step == "cut":
        cut(a.trays[0], a.trays[1], a.source, a.out, a.photos)
    else:
        train(a.data, a.epochs, a.seed, a.out, a.init, a.max_lr, a.gains)


if __name__ == "__main__":
    main()
