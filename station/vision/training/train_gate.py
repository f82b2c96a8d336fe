"""Train the gate in front of the die-face classifier; writes weights/d6_gate.onnx.

    pip install torch onnx          # training only; the station never imports them
    PYTHONPATH=. python -m station.vision.training.train_gate --crops crops.npz

The reader classifies four to eight candidates per die (tray edges, shadows, a grid over
clusters of touching dice), and the classifier costs a quarter of a millisecond a crop on one
core. The gate, a network a tenth as costly, answers only "a die or not" and sends on the
crops that may be dice. It must pass every crop the classifier would accept; turning away
half the others already saves most of the time. Its data:
- the classifier's own training crops (`train_classifier --cache FILE` writes them): class 0
  "not a die" against every other class;
- the reader's candidates, as it cuts them, on the training photos (never the held-out ones)
  and on rendered trays of other seeds than the benchmark's, each labelled "a die" when the
  classifier gives it P(die) >= 0.5 (the reader accepts from 0.8): what the gate must learn
  is the classifier's decision on the candidates it will really see.
The pass threshold (`reader.GATE_PASS`) is chosen on rendered trays the gate has not seen;
the script prints, for a few thresholds, the share of the classifier's dice lost and of the
crops passed.
"""

from __future__ import annotations

import argparse
import json
import time
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np

from station.vision import classifier
from station.vision.classifier import GATE_WEIGHTS as OUT, NOT_A_DIE, normalise
from station.vision.reader import DIE_PROBABILITY, read_tray
from station.vision.training.train_classifier import (DEFAULT_DATA, export, fit, held_out,
                                                      turn_and_mirror)

DISTIL_DIE = 0.5          # the classifier's P(die) from which a candidate is taught as a die
CHANNELS = (8, 16, 32)    # three strided 3x3 convolutions: 32 -> 16 -> 8 -> 4 pixels


def make_gate(channels=CHANNELS):
    import torch.nn as nn

    layers, cin = [], 3
    for cout in channels:
        layers += [nn.Conv2d(cin, cout, 3, stride=2, padding=1), nn.BatchNorm2d(cout), nn.ReLU()]
        cin = cout
    return nn.Sequential(*layers, nn.Flatten(), nn.Linear(cin * 4 * 4, 2))


@contextmanager
def recording_classifier():
    """Every crop the reader gives the classifier, ungated and `normalise`d (the reader
    normalises them once for the gate and the classifier), with the classifier's P(die)."""
    classifier.use_gate(None)
    die_classifier = classifier.default_classifier()
    crops: list[np.ndarray] = []
    p_die: list[np.ndarray] = []

    def predict_normalised(batch):      # `predict` goes through it too
        probs = type(die_classifier).predict_normalised(die_classifier, batch)
        crops.append(batch)
        p_die.append(1.0 - probs[:, NOT_A_DIE])
        return probs

    die_classifier.predict_normalised = predict_normalised
    try:
        yield crops, p_die
    finally:
        del die_classifier.predict_normalised
        classifier.use_gate(OUT)


def reader_candidates(images) -> tuple[np.ndarray, np.ndarray]:
    """(normalised crops, classifier's P(die)) of every candidate the reader looks at in
    `images`."""
    with recording_classifier() as (crops, p_die):
        for image in images:
            read_tray(image)
    return np.concatenate(crops), np.concatenate(p_die)


def training_photos(data: Path):
    labels = json.loads((data / "labels.json").read_text())
    for index, name in enumerate(sorted(labels)):
        if not held_out(index):
            yield cv2.imread(str(data / "images" / name))


def rendered_trays(count: int, seed: int):
    from station.fakes.tray import random_tray

    for i in range(count):
        rng = np.random.default_rng([seed, i])
        size = [(640, 480), (800, 600), (1280, 960), (1920, 1080)][int(rng.integers(4))]
        yield random_tray(rng, size=size, cocked=0.15,
                          special={"scatter": (0, 2), "artillery": (0, 2)}).image


def gate_scores(model, crops: np.ndarray) -> np.ndarray:
    """P(a die) of `normalise`d crops."""
    import torch

    with torch.no_grad():
        logits = torch.cat([model(torch.from_numpy(crops[i:i + 2048]))
                            for i in range(0, len(crops), 2048)])
    return torch.softmax(logits, 1)[:, 1].numpy()


def report(model, crops: np.ndarray, p_die: np.ndarray) -> None:
    """Per threshold: the classifier's dice the gate would turn away, and the crops passed."""
    scores = gate_scores(model, crops)
    dice = p_die >= DIE_PROBABILITY
    print(f"unseen trays: {len(crops)} crops, {int(dice.sum())} of them dice to the classifier")
    for threshold in (0.01, 0.02, 0.05, 0.1, 0.2):
        passed = scores >= threshold
        print(f"  pass from {threshold:.2f}: dice lost {int((dice & ~passed).sum())}, "
              f"crops passed {100 * passed.mean():.1f} %")


def train(crops_file: Path, data: Path, trays: int, check: int, epochs: int, seed: int,
          out: Path, classifier_weights: Path = classifier.WEIGHTS,
          outward: bool = classifier.OUTWARD) -> None:
    import torch

    classifier.use_weights(classifier_weights, outward)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    t0 = time.time()
    with np.load(crops_file) as saved:
        taught, classes = saved["crops"], saved["classes"]
    candidates, p_die = reader_candidates(
        [*training_photos(data), *rendered_trays(trays, seed)])
    unseen, unseen_p = reader_candidates(rendered_trays(check, seed + 1))
    print(f"{len(taught)} classifier crops, {len(candidates)} reader candidates "
          f"({int((p_die >= DISTIL_DIE).sum())} dice) in {time.time() - t0:.0f} s", flush=True)
    x = torch.from_numpy(np.concatenate([normalise(taught), candidates]))
    y = torch.from_numpy(np.concatenate([classes != NOT_A_DIE, p_die >= DISTIL_DIE])).long()
    model = make_gate()
    fit(model, x, y, torch.arange(len(x)), epochs, turn_and_mirror, t0)
    report(model, unseen, unseen_p)
    export(model, out)
    print(f"wrote {out} ({out.stat().st_size // 1024} KB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crops", type=Path, required=True,
                        help="the classifier's training crops (train_classifier --cache FILE)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--trays", type=int, default=200, help="rendered trays to learn from")
    parser.add_argument("--check", type=int, default=50,
                        help="rendered trays of another seed for the pass thresholds")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--classifier", type=Path, default=classifier.WEIGHTS,
                        help="the classifier whose decisions the gate learns (default the "
                             "committed weights; a trial model's gate before it is committed)")
    parser.add_argument("--outward", action=argparse.BooleanOptionalAction,
                        default=classifier.OUTWARD,
                        help="the classifier reads crops turned outward-up (train_classifier "
                             "--outward; the reader then cuts the gate's crops so too); default "
                             "as the committed weights")
    args = parser.parse_args()
    train(args.crops, args.data, args.trays, args.check, args.epochs, args.seed, args.out,
          args.classifier, args.outward)


if __name__ == "__main__":
    main()
