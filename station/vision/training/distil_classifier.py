"""Distil the die-face classifier into a smaller, faster network of the same classes.

    pip install torch onnx          # training only; the station never imports them
    PYTHONPATH=. python -m station.vision.training.distil_classifier --crops crops.npz \\
        --channels 8,16,32,64 --out /tmp/student.onnx

The classifier is most of the reader's time (a 1280x960 frame of 30 real dice shows it about
120 crops). A smaller network trained anew from the labels reads about as well, but with
other probabilities and other doubts (three seeds of one recipe read 2890-2925 of 3053
rendered dice: docs/vision.md, seventh session), and every threshold of the reader
(`reader.SURE_FACE`, `SURE`, `READABLE`, `DIE_PROBABILITY`) and the gate, which learned the
classifier's decisions, were set on the committed network's probabilities. So the student
learns the teacher's (the committed network's) probabilities, not the labels: the KL
divergence to the teacher's output on the same augmented crop.

What it learns from, all cut as the reader cuts them and never from a held-out photo:
- the classifier's own training crops (`train_classifier --cache FILE`; their labels unused);
- every crop the reader shows the classifier on the training photos and on rendered trays
  (candidates, grids, the second look's views; as `train_gate.py` collects them): the
  places where the reader's decisions are made.
Each batch at a random quarter turn, half of them mirrored, for student and teacher alike.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

from station.vision import classifier
from station.vision.classifier import normalise
from station.vision.training.train_classifier import (DEFAULT_DATA, export, fit, make_model,
                                                      turn_and_mirror)
from station.vision.training.train_gate import reader_candidates, rendered_trays, \
    training_photos


def network_from_onnx(path: Path):
    """The ONNX classifier as a torch module (convolutions with their batch norms folded in,
    as exported), to teach from."""
    import onnx
    import torch
    import torch.nn as nn
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy())
               for t in graph.initializer}
    layers = []
    for node in graph.node:
        if node.op_type == "Conv":
            w, b = weights[node.input[1]], weights[node.input[2]]
            layer = nn.Conv2d(w.shape[1], w.shape[0], w.shape[2], padding=w.shape[2] // 2)
        elif node.op_type == "Gemm":
            w, b = weights[node.input[1]], weights[node.input[2]]
            layer = nn.Linear(w.shape[1], w.shape[0])
        else:
            layers.append({"Relu": nn.ReLU, "Flatten": nn.Flatten,
                           "MaxPool": lambda: nn.MaxPool2d(2)}[node.op_type]())
            continue
        with torch.no_grad():
            layer.weight.copy_(w)
            layer.bias.copy_(b)
        layers.append(layer)
    return nn.Sequential(*layers).eval()


def distil(crops_file: Path, data: Path, trays: int, epochs: int, seed: int, channels,
           out: Path, teacher_weights: Path = classifier.WEIGHTS) -> None:
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    t0 = time.time()
    with np.load(crops_file) as saved:
        taught = normalise(saved["crops"])
    classifier.use_weights(teacher_weights)
    seen, _ = reader_candidates([*training_photos(data), *rendered_trays(trays, seed)])
    x = torch.from_numpy(np.concatenate([taught, seen]))
    print(f"{len(taught)} training crops and {len(seen)} the reader showed the classifier, in "
          f"{time.time() - t0:.0f} s", flush=True)
    teacher = network_from_onnx(teacher_weights)
    with torch.no_grad():       # the teacher as cv2.dnn reads it, or nothing is learned right
        probe = x[:256]
        net = classifier.read_onnx(teacher_weights)
        net.setInput(probe.numpy())
        gap = np.abs(net.forward() - teacher(probe).numpy()).max()
    if gap > 1e-3:
        raise SystemExit(f"the teacher rebuilt from {teacher_weights} differs from cv2.dnn's "
                         f"reading by {gap:.2g}: is it the classifier's architecture?")
    student = make_model(channels)
    fit(student, x, None, torch.arange(len(x)), epochs, turn_and_mirror, t0, teacher=teacher)
    export(student, out)
    print(f"wrote {out} ({out.stat().st_size // 1024} KB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crops", type=Path, required=True,
                        help="the classifier's training crops (train_classifier --cache FILE)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--trays", type=int, default=200,
                        help="rendered trays whose reader crops are learned from")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--channels", type=lambda text: tuple(int(c) for c in text.split(",")),
                        required=True, help="the student's four convolutions, e.g. 8,16,32,64")
    parser.add_argument("--teacher", type=Path, default=classifier.WEIGHTS)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    distil(args.crops, args.data, args.trays, args.epochs, args.seed, args.channels, args.out,
           args.teacher)


if __name__ == "__main__":
    main()
