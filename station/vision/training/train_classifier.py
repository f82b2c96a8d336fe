"""Train the die-face classifier on real and rendered trays; writes weights/d6_classifier.onnx.

    pip install torch onnx          # training only; the station never imports them
    PYTHONPATH=. python -m station.vision.training.train_classifier [--cache crops.npz]
        [--init station/vision/weights/d6_classifier.onnx --max-lr 1e-3]   # fine-tune

Data: `labels.json` + `images/` of a real-dice folder (default ../shared/data/real-dice/
byler-train). Photos are split by photo, never by die: sorted by name, every 5th photo
(index % 5 == 4) is held out and never seen here, so the benchmark can report on it.
Plus `--synthetic N` trays from the renderer (station.fakes.tray): other floors and colours,
and the only source of cocked dice (class 7) and scatter/artillery dice (class 8). A share
`--materials` of their d6 are swirled, translucent, metallic or have low-contrast pips (red
on black, yellow on red): the dice the reader declined most on the real photos.
`--touching` and `--by-wall`: the shares of rendered dice laid flat against another die and
against the tray wall, the places where leaning dice lie (so that the place is no clue).
`--outward`: every crop cut turned so that "outward" (from the frame's centre to the crop's)
is up, give or take `OUTWARD_JITTER` degrees, and augmented by left-right mirrors only (which
keep outward up; quarter turns would not): the side faces of a flat die, which the camera
sees inward of its top face, then always show below it (docs/history/vision.md, ninth session).

The detail network (weights/d6_detail.onnx: the same network and classes on 48x48 crops,
for the dice the classifier leaves undecided; docs/history/vision.md, sixth and sixteenth sessions)
comes from `--size 48 --negatives 0 --validate --materials 0.5 --synthetic 120 --real-per-die
32 --hard-per-die 128 --hard-by detail6.onnx --epochs 15 --seed 2 --out
station/vision/weights/d6_detail.onnx`, where detail6.onnx is the sixth session's network
(`git show a050d48:station/vision/weights/d6_detail.onnx`; it picks 37 hard dice): no "not a
die" crops of the reader's candidates (it sees only crops the classifier took for dice), twice
the crops of each real die (the translucent dice it is for are real ones), 128 of each real die
that network read less than 0.6 sure, every 4th training photo left out to validate it on.

The outward network (weights/d6_outward.onnx: outward-up crops, for the dice every other look
read without a face; docs/history/vision.md, ninth and tenth sessions) comes from `--touching 0.3
--by-wall 0.15 --leaning 0.25 --contacts rendered --outward --epochs 20 --seed 4 --out
station/vision/weights/d6_outward.onnx`.

Samples (all cut with `crops.CropSource`, as the reader does):
- class v (1..6): each labelled die, at a random rotation, with the centre and the die-side
  estimate jittered as much as the segmentation's own errors (measured on real photos: the
  candidate side is 0.6-1.1 x the labelled box width, the centre within 0.15 box widths).
  A rendered die seen in perspective shows a side face too: the reader's outline of it is
  1.3-1.7 top faces wide and its centre up to 0.65 of a face off the top face's centre, so
  rendered flat dice are cut anywhere from their top face to their whole outline. (Cut only
  on the top face, as before, the network learned "an outline with a side face = cocked"
  and flagged one flat die in ten on rendered trays.)
- class 0 "not a die": the reader's candidates (all kinds) that are on no labelled die (tray
  edges, holes, stains, shadows) and crops shifted off a die by 0.45-1.2 of its box width
  (half a die, the gap between two touching dice), so that one die gives one reading; a
  shifted crop that lands on a neighbour's centre is not used (it would teach "a die
  centred in the crop = not a die"); and crops of a part of a die, a pip or two as large as
  a die would be (0.2-0.5 of its box, anywhere on it): white dice on a white tray show no
  outline, only their pips, and a zoomed pip must not read as a 1. With `--contacts`, also
  crops centred where two dice touch (the reader proposes candidates there, inside both
  dice's boxes, and the network took them for leaning dice).
Augmentations make the model about dice, not these photos: colour channel shuffles and
inversion (light pips on dark dice), hue, brightness, contrast, blur, noise; with `--tone
SHARE`, that share also through a random tone curve (0, the committed weights' recipe; a
fine-tune at 0.3 read the real photos at other exposures no better: docs/history/vision.md,
fifty-second session).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import cv2
import numpy as np

from station.vision.crops import CROP_SIZE, OUTWARD_JITTER, CropSource, outward_angle
from station.vision.reader import propose

DEFAULT_DATA = Path(__file__).resolve().parents[3].parent / "shared/data/real-dice/byler-train"
from station.vision.classifier import CLASSES, COCKED, NOT_A_DIE, SPECIAL, WEIGHTS as OUT


def held_out(index: int) -> bool:
    """The fixed photo split shared with the benchmark: every 5th photo by sorted name."""
    return index % 5 == 4


def validation(train_index: int) -> bool:
    """Every 4th of the training photos (by sorted name; index among the training photos):
    with `--validate`, left out so that a network trained without them is validated on them
    (the detail network: the reader's other steps were tuned on all 160 training photos)."""
    return train_index % 4 == 3


TONE_GAMMAS = (0.55, 1.8)   # brighter and darker than the real photos' phone, as far as
# benchmarks/real_variants.py's exposure rows go


def box_geometry(box):
    x0, y0, x1, y1 = box
    return (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0)


def augment_colour(crop: np.ndarray, rng: np.random.Generator, tone: float = 0.0) -> np.ndarray:
    """`tone`: the share of crops also put through a tone curve (another camera's exposure:
    gamma log-uniform over `TONE_GAMMAS`), which the linear brightness and contrast below
    do not give."""
    if rng.random() < tone:
        gamma = math.exp(rng.uniform(*np.log(TONE_GAMMAS)))
        crop = cv2.LUT(crop, (255.0 * (np.arange(256) / 255.0) ** gamma).round().astype(np.uint8))
    if rng.random() < 0.5:
        crop = crop[:, :, rng.permutation(3)]
    if rng.random() < 0.2:
        hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
        hsv[..., 0] = (hsv[..., 0].astype(int) + rng.integers(0, 180)) % 180
        crop = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    if rng.random() < 0.1:
        crop = 255 - crop
    if rng.random() < 0.1:
        crop = cv2.cvtColor(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    x = crop.astype(np.float32)
    x = (x - 128) * rng.uniform(0.6, 1.4) + 128 + rng.uniform(-40, 40)
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (3, 3), rng.uniform(0.3, 1.0))
    if rng.random() < 0.4:
        x += rng.normal(0, rng.uniform(2, 10), x.shape)
    return np.clip(x, 0, 255).astype(np.uint8)


class Samples:
    """Augmented training crops and their classes."""

    def __init__(self, rng: np.random.Generator, per_die: int, per_negative: int,
                 contacts: bool = False, size: int = CROP_SIZE, outward: bool = False,
                 tone: float = 0.0) -> None:
        self.rng, self.per_die, self.per_negative = rng, per_die, per_negative
        self.tone = tone            # share of crops through a tone curve (augment_colour)
        self.size = size            # crop side in pixels
        self.contacts = contacts    # "not a die" where two dice touch (between_neighbours)
        self.outward = outward      # crops turned outward-up (else at any angle)
        self.crops: list[np.ndarray] = []
        self.classes: list[int] = []

    def add(self, source: CropSource, x, y, side, cls) -> None:
        if self.outward:
            h, w = source.image.shape[:2]
            angle = outward_angle(x, y, w, h) + self.rng.uniform(-OUTWARD_JITTER, OUTWARD_JITTER)
        else:
            angle = self.rng.uniform(0, 360)
        crop = source.crop(x, y, side, angle_deg=angle, size=self.size)
        self.crops.append(augment_colour(crop, self.rng, self.tone))
        self.classes.append(cls)

    def from_photo(self, image: np.ndarray, dice: list[tuple[float, float, float, int]],
                   outlines: list[tuple[float, float, float] | None] | None = None,
                   copies: list[int] | None = None) -> None:
        """dice: (centre x, centre y, box width, class) of every die in the photo.

        copies: per die, how many crops of it (default `per_die` each).

        outlines: per die, None or (centre x, centre y, side) of its whole outline, when it
        differs from the top face's (a rendered die in perspective): then half the crops are
        cut between the top face and the outline, as the reader may cut them.
        """
        rng = self.rng
        source = CropSource(image)
        outlines = outlines or [None] * len(dice)
        copies = copies or [self.per_die] * len(dice)
        for (cx, cy, bw, cls), outline, count in zip(dice, outlines, copies):
            for k in range(count):
                x, y, side = cx, cy, bw
                if outline is not None and k % 2:
                    u = rng.uniform(0, 1.2)
                    x, y = cx + u * (outline[0] - cx), cy + u * (outline[1] - cy)
                    side = bw + rng.uniform(0, 1) * (outline[2] - bw)
                r, a = rng.uniform(0, 0.15) * bw, rng.uniform(0, 2 * math.pi)
                self.add(source, x + r * math.cos(a), y + r * math.sin(a),
                         side * rng.uniform(0.6, 1.1), cls)
            for _ in range(self.per_die // 3):
                r, a = rng.uniform(0.45, 1.2) * bw, rng.uniform(0, 2 * math.pi)
                x, y = cx + r * math.cos(a), cy + r * math.sin(a)
                if not any(math.hypot(x - ox, y - oy) < 0.35 * obw for ox, oy, obw, _ in dice):
                    self.add(source, x, y, bw * rng.uniform(0.6, 1.1), NOT_A_DIE)
            for _ in range(max(1, self.per_die // 6)):
                r, a = rng.uniform(0, 0.3) * bw, rng.uniform(0, 2 * math.pi)
                self.add(source, cx + r * math.cos(a), cy + r * math.sin(a),
                         bw * rng.uniform(0.2, 0.5), NOT_A_DIE)
        if self.contacts:
            self.between_neighbours(source, dice)
        if not self.per_negative:
            return
        typical_side = float(np.median([bw for _, _, bw, _ in dice])) * 0.85 if dice else 30.0
        for c in propose(image, typical_side):
            if not any(abs(c.x - cx) <= bw / 2 and abs(c.y - cy) <= bw / 2
                       for cx, cy, bw, _ in dice):
                for _ in range(self.per_negative):
                    self.add(source, c.x, c.y, c.side * rng.uniform(0.8, 1.25), NOT_A_DIE)

    def between_neighbours(self, source: CropSource, dice) -> None:
        """"Not a die" centred where two dice touch: the reader proposes candidates there,
        inside both dice's boxes, so no other negative covers them, and the network took
        such a crop, two half dice, for a leaning die (flat touching dice flagged cocked)."""
        rng = self.rng
        for i, (ax, ay, abw, _) in enumerate(dice):
            for bx, by, bbw, _ in dice[i + 1:]:
                bw = max(abw, bbw)
                if math.hypot(bx - ax, by - ay) >= 1.3 * bw:
                    continue
                for _ in range(self.per_die // 3):
                    r, a = rng.uniform(0, 0.15) * bw, rng.uniform(0, 2 * math.pi)
                    x, y = (ax + bx) / 2 + r * math.cos(a), (ay + by) / 2 + r * math.sin(a)
                    if not any(math.hypot(x - ox, y - oy) < 0.35 * obw
                               for ox, oy, obw, _ in dice):
                        self.add(source, x, y, bw * rng.uniform(0.6, 1.3), NOT_A_DIE)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return np.stack(self.crops), np.array(self.classes)


def add_real(samples: Samples, data: Path, validate: bool = False, hard_per_die: int = 0,
             hard_by: Path | None = None) -> None:
    """The training photos' dice; with `hard_per_die`, that many crops of each die the
    detail network `hard_by` (default the committed one) reads less than `HARD_SURE` sure as
    its face (`hard_dice`)."""
    if hard_per_die:
        from station.vision.classifier import DETAIL_WEIGHTS, DieClassifier

        judge = DieClassifier(hard_by or DETAIL_WEIGHTS)
    labels = json.loads((data / "labels.json").read_text())
    train = [name for index, name in enumerate(sorted(labels)) if not held_out(index)]
    hard_count = 0
    for index, name in enumerate(train):
        if not (validate and validation(index)):
            image = cv2.imread(str(data / "images" / name))
            dice = [(*box_geometry(d["box"]), d["value"]) for d in labels[name]]
            copies = None
            if hard_per_die:
                hard = hard_dice(image, dice, judge)
                hard_count += sum(hard)
                copies = [hard_per_die if h else samples.per_die for h in hard]
            samples.from_photo(image, dice, copies=copies)
    if hard_per_die:
        print(f"{hard_count} hard real dice, {hard_per_die} crops each")


# A real die the committed detail network reads less sure than this as its face, cut at its
# labelled box and averaged over four quarter turns, is a hard one (`--hard-per-die`).
HARD_SURE = 0.6


def hard_dice(image: np.ndarray, dice: list[tuple[float, float, float, int]], judge
              ) -> list[bool]:
    """Per die (centre x, centre y, box width, face): read less than `HARD_SURE` sure as its
    face, given a die, by the detail network `judge` (a `DieClassifier`; the dark translucent
    and low-contrast dice the reader leaves unreadable)."""
    from station.vision.classifier import DETAIL_SIZE

    crops = CropSource(image).crops([(x, y, side, 0.0) for x, y, side, _ in dice], DETAIL_SIZE)
    votes = judge.predict(np.ascontiguousarray(
        np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(4)])))
    votes = votes.reshape(4, len(dice), CLASSES).mean(axis=0)
    return [bool(v[face] < HARD_SURE * (1 - v[NOT_A_DIE]))
            for v, (_, _, _, face) in zip(votes, dice)]


def add_synthetic(samples: Samples, trays: int, rng: np.random.Generator,
                  materials: float = 0.0, touching: float = 0.15, by_wall: float = 0.0,
                  leaning: float = 0.15, grey: float = 0.0) -> None:
    """Rendered trays (station.fakes.tray): more colours, floors, materials, cocked and
    special dice. touching / by_wall / leaning: shares of the dice laid flat against another
    die / flat against the tray wall / leaning on a die or the wall. grey: the share of grey
    dice (0: a colour at random, grey one in nine)."""
    from station.fakes.tray import random_tray

    for _ in range(trays):
        size = [(640, 480), (800, 600), (1280, 960)][int(rng.integers(3))]
        tray = random_tray(rng, size=size, cocked=leaning, materials=materials,
                           touching=touching, by_wall=by_wall,
                           special={"scatter": (0, 2), "artillery": (0, 2)},
                           colour_share={"grey": grey} if grey else None)
        dice, outlines = [], []
        for die in tray.truth:
            cx, cy, bw = box_geometry(die.box)
            if die.kind != "d6":
                dice.append((cx, cy, bw, SPECIAL))
                outlines.append(None)
            elif "cocked" in die.flags:
                dice.append((cx, cy, bw, COCKED))
                outlines.append(None)
            else:
                corners = np.asarray(die.top_corners, np.float64)
                side = float(np.mean(np.linalg.norm(corners - np.roll(corners, 1, 0), axis=1)))
                dice.append((*die.center, side * 1.2, die.value))
                # The outline of the top face and the side faces the camera sees (the
                # reader's candidate side is measured at 1.3-1.7 top faces).
                outlines.append((cx, cy, side * 1.7))
        samples.from_photo(tray.image, dice, outlines)


CHANNELS = (16, 32, 64, 64)   # of the four 3x3 convolutions


def make_model(channels=CHANNELS, crop_size: int = CROP_SIZE):
    import torch.nn as nn

    def block(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU()]

    a, b, c, d = channels
    return nn.Sequential(
        *block(3, a), nn.MaxPool2d(2),
        *block(a, b), nn.MaxPool2d(2),
        *block(b, c), nn.MaxPool2d(2),
        *block(c, d),
        nn.Flatten(), nn.Linear(d * (crop_size // 8) ** 2, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, CLASSES))


def export(model, path: Path, crop_size: int = CROP_SIZE) -> None:
    """ONNX for `station.vision.networks` (batch norm is folded in by the exporter in eval
    mode)."""
    import torch

    torch.onnx.export(model, torch.zeros(1, 3, crop_size, crop_size), str(path), dynamo=False,
                      input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}})


def mirror(batch):
    """Half the batches mirrored: mirror images of dice are still dice."""
    import torch

    return batch.flip(3) if torch.rand(()) < 0.5 else batch


def turn_and_mirror(batch):
    """Each batch at a random quarter turn, half of them mirrored: every epoch sees the
    crops anew (they are cut and colour-augmented once)."""
    import torch

    return mirror(torch.rot90(batch, int(torch.randint(4, ())), dims=(2, 3)))


def start_from(model, weights: Path) -> None:
    """Start training from exported weights of the same network (`--init`): its convolutions
    (exported with their batch norms folded in) and linear layers, in order; the batch norms
    start as identities."""
    import onnx
    import torch
    from onnx import numpy_helper
    graph = onnx.load(str(weights)).graph
    values = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in graph.initializer}
    nodes = [n for n in graph.node if n.op_type in ("Conv", "Gemm")]
    layers = [m for m in model if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))]
    if len(nodes) != len(layers):
        raise ValueError(f"{weights} has {len(nodes)} layers with weights, the network "
                         f"{len(layers)}: not the same network")
    batch_norms = [m for m in model if isinstance(m, torch.nn.BatchNorm2d)]
    with torch.no_grad():
        for layer, node in zip(layers, nodes):
            layer.weight.copy_(values[node.input[1]])
            layer.bias.copy_(values[node.input[2]])
        for norm in batch_norms:
            norm.weight.fill_(1.0), norm.bias.zero_()
            norm.running_mean.zero_(), norm.running_var.fill_(1.0 - norm.eps)


def fit(model, x, y, pool, epochs: int, augment, t0: float, batch_size: int = 128,
        max_lr: float = 3e-3) -> None:
    """The training loop of the dice networks: AdamW with a one-cycle schedule (peaking at
    `max_lr`) and label smoothing over the samples `pool` (indices into x, y: classes, or
    each class's probability), each batch through `augment`."""
    import torch

    optimiser = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=1e-4)
    steps = epochs * math.ceil(len(pool) / batch_size)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=max_lr, total_steps=steps)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(epochs):
        model.train()
        order = pool[torch.randperm(len(pool))]
        total = correct = 0
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            logits = model(augment(x[idx]))
            loss = loss_fn(logits, y[idx])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += len(idx)
            truth = y[idx] if y.dim() == 1 else y[idx].argmax(1)   # classes or their odds
            correct += (logits.argmax(1) == truth).sum().item()
        print(f"epoch {epoch + 1}/{epochs}: train accuracy {correct / total:.4f} "
              f"({time.time() - t0:.0f} s)", flush=True)
    model.eval()


# Share of rendered d6 in unusual materials. 0: the committed weights' recipe (0.3 read more
# training photos but not more held-out ones; docs/history/vision.md, fourth session).
MATERIALS = 0.0
# Shares of rendered dice laid flat against another die / the tray wall, and leaning (only
# there, half on a die, half on the wall). 0.15 / 0 / 0.15: the committed weights' recipe.
TOUCHING = 0.15
BY_WALL = 0.0
LEANING = 0.15
# Where "not a die" crops are cut on the contact between two dice: "off" (the committed
# weights' recipe), on "rendered" trays only, or on "all" photos and trays.
CONTACTS = "off"


def train(data: Path, epochs: int, seed: int, threads: int, synthetic: int,
          cache: Path | None, out: Path = OUT, channels=CHANNELS,
          materials: float = MATERIALS, touching: float = TOUCHING,
          by_wall: float = BY_WALL, contacts: str = CONTACTS,
          leaning: float = LEANING, size: int = CROP_SIZE, negatives: int = 2,
          validate: bool = False, real_per_die: int = 16, outward: bool = False,
          hard_per_die: int = 0, hard_by: Path | None = None, init: Path | None = None,
          max_lr: float = 3e-3, grey: float = 0.0, tone: float = 0.0) -> None:
    import torch

    from station.vision.classifier import normalise

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    t0 = time.time()
    if cache and cache.exists():
        with np.load(cache) as saved:
            crops, classes = saved["crops"], saved["classes"]
            cached_outward = bool(saved["outward"]) if "outward" in saved else False
        if cached_outward != outward:
            cut = "outward-up" if cached_outward else "at any angle"
            raise SystemExit(f"{cache} holds crops cut {cut}; run "
                             f"{'with' if cached_outward else 'without'} --outward, or name "
                             "another --cache")
    else:
        samples = Samples(rng, per_die=real_per_die, per_negative=negatives, contacts=contacts == "all",
                          size=size, outward=outward, tone=tone)
        add_real(samples, data, validate, hard_per_die, hard_by)
        samples.per_die, samples.contacts = 6, contacts != "off"
        add_synthetic(samples, synthetic, rng, materials, touching, by_wall, leaning, grey)
        crops, classes = samples.arrays()
        if cache:
            np.savez(cache, crops=crops, classes=classes, outward=outward)
    print(f"{len(crops)} crops ({np.bincount(classes, minlength=CLASSES).tolist()} per class, "
          f"0 = not a die, 7 = cocked, 8 = special) in {time.time() - t0:.0f} s")
    x = torch.from_numpy(normalise(crops))
    y = torch.from_numpy(classes).long()
    model = make_model(channels, size)
    if init is not None:
        start_from(model, init)
    fit(model, x, y, torch.arange(len(x)), epochs, mirror if outward else turn_and_mirror, t0,
        max_lr=max_lr)
    export(model, out, size)
    print(f"wrote {out} ({out.stat().st_size // 1024} KB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--synthetic", type=int, default=250, help="rendered trays to add")
    parser.add_argument("--materials", type=float, default=MATERIALS,
                        help="share of rendered d6 that are swirled, translucent, metallic or "
                             f"have low-contrast pips (default {MATERIALS})")
    parser.add_argument("--touching", type=float, default=TOUCHING,
                        help="share of rendered dice laid flat against another die "
                             f"(default {TOUCHING})")
    parser.add_argument("--by-wall", type=float, default=BY_WALL,
                        help="share of rendered dice laid flat against the tray wall "
                             f"(default {BY_WALL})")
    parser.add_argument("--leaning", type=float, default=LEANING,
                        help=f"share of rendered dice leaning (cocked; default {LEANING})")
    parser.add_argument("--contacts", choices=("off", "rendered", "all"), default=CONTACTS,
                        help="cut 'not a die' crops where two dice touch: on rendered trays, "
                             f"on all photos and trays, or not at all (default {CONTACTS})")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cache", type=Path,
                        help="keep the generated crops in this .npz and reuse them next time")
    parser.add_argument("--out", type=Path, default=OUT,
                        help="where to write the ONNX weights (try a model without replacing "
                             "the committed one)")
    parser.add_argument("--channels", type=lambda text: tuple(int(c) for c in text.split(",")),
                        default=CHANNELS, help="of the four convolutions, e.g. 8,16,32,64 "
                        f"(default {','.join(map(str, CHANNELS))})")
    parser.add_argument("--size", type=int, default=CROP_SIZE,
                        help=f"crop side in pixels, a multiple of 8 (default {CROP_SIZE}, the "
                             "classifier's; 48 for the detail network, weights/d6_detail.onnx)")
    parser.add_argument("--negatives", type=int, default=2,
                        help="'not a die' crops per reader candidate off the dice (default 2; "
                             "0 for the detail network, which sees only crops the classifier "
                             "took for dice)")
    parser.add_argument("--real-per-die", type=int, default=16,
                        help="crops of each real die, at random turns and jitter (default 16; "
                             "rendered dice get 6)")
    parser.add_argument("--hard-per-die", type=int, default=0,
                        help="crops of each real die the --hard-by detail network reads "
                             f"less than {HARD_SURE} sure (default 0: as many as the others)")
    parser.add_argument("--hard-by", type=Path,
                        help="the detail network that picks the hard dice (default the "
                             "committed one)")
    parser.add_argument("--outward", action="store_true",
                        help="cut every crop turned so that outward (from the frame's centre) "
                             "is up, augment by left-right mirrors only; read with "
                             "classifier.use_weights(FILE, outward=True)")
    parser.add_argument("--validate", action="store_true",
                        help="leave out every 4th training photo (by name) to validate on")
    parser.add_argument("--init", type=Path,
                        help="fine-tune: start from these exported weights of the same network "
                             "(e.g. the committed station/vision/weights/d6_classifier.onnx) "
                             "instead of from scratch")
    parser.add_argument("--max-lr", type=float, default=3e-3,
                        help="the learning rate's peak (default 3e-3; lower, say 1e-3, with "
                             "--init)")
    parser.add_argument("--grey", type=float, default=0.0,
                        help="share of rendered dice that are grey, the colour read worst on "
                             "rendered trays (default 0: colours at random, one in nine grey)")
    parser.add_argument("--tone", type=float, default=0.0,
                        help="share of crops put through a random tone curve (gamma "
                             f"{TONE_GAMMAS[0]}-{TONE_GAMMAS[1]}; default 0)")
    args = parser.parse_args()
    if args.size % 8:
        parser.error(f"--size {args.size}: the crop side must be a multiple of 8 (three 2x2 "
                     "poolings)")
    train(args.data, args.epochs, args.seed, args.threads, args.synthetic, args.cache, args.out,
          args.channels, args.materials, args.touching, args.by_wall, args.contacts,
          args.leaning, args.size, args.negatives, args.validate, args.real_per_die,
          args.outward, args.hard_per_die, args.hard_by, args.init, args.max_lr, args.grey,
          args.tone)


if __name__ == "__main__":
    main()
