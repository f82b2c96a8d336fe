"""Benchmark of the pip-dice reader: die-level accuracy, confusion matrix and speed.

    PYTHONPATH=. python benchmarks/vision_bench.py [--data DIR] [--synthetic N] [--quick]

Prints, for the real photos (all of them, the training part and the held-out part: every
5th photo by sorted name, never used in training) and for N rendered trays of 1-40 dice
(when the synthetic renderer `station.fakes.tray` is present):
- die-level accuracy = correct / (labelled + false detections), see station/vision/evaluation;
- the confusion matrix (true value by read value, unreadable and missed);
- images per second and milliseconds per image, on one core (cv2.setNumThreads(1)).
And the speed on a 1280x960 frame with 30 dice (two real photos side by side, scaled, on a
grey tray; and a rendered one when the renderer is present) and on a 640x640 photo.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from station.vision import read_tray                      # noqa: E402
from station.vision.evaluation import Score, score_image  # noqa: E402
from station.vision.training.train_classifier import DEFAULT_DATA, held_out  # noqa: E402


def run_set(name: str, items, verbose: bool) -> Score:
    """items: (image, labels, label) triples; prints accuracy, confusion and speed."""
    total = Score()
    times = []
    for image, labels, label in items:
        start = time.perf_counter()
        dice = read_tray(image)
        times.append(time.perf_counter() - start)
        score = score_image(dice, labels)
        total.add(score)
        if verbose and (score.correct < score.labelled or score.false):
            print(f"  {label}: {score.correct}/{score.labelled} read, {score.false} false")
    ms = 1000 * statistics.mean(times)
    print(f"\n== {name}: {len(times)} images, {total.labelled} dice")
    print(f"accuracy {100 * total.accuracy:.2f}% ({total.correct} correct of {total.labelled}"
          f" labelled, {total.false} false detections)")
    print(total.confusion_text())
    print(f"speed: {1000 / ms:.1f} images/s, {ms:.1f} ms/image (median "
          f"{1000 * statistics.median(times):.1f} ms)")
    return total


def real_items(data: Path, part: str):
    labels = json.loads((data / "labels.json").read_text())
    for index, name in enumerate(sorted(labels)):
        if part == "all" or (part == "held-out") == held_out(index):
            image = cv2.imread(str(data / "images" / name))
            yield image, labels[name], name


def synthetic_items(count: int, seed: int):
    from station.fakes import tray

    rng = np.random.default_rng(seed)
    for i in range(count):
        rendered = tray.random_tray(rng, dice=(1, 40))
        labels = [{"value": t.value, "box": t.box} for t in rendered.truth]
        h, w = rendered.image.shape[:2]
        yield rendered.image, labels, f"synthetic #{i} ({w}x{h}, {len(labels)} dice)"


def composite_frame(data: Path, dice_wanted: int = 30) -> tuple[np.ndarray, int]:
    """A 1280x960 frame with about `dice_wanted` real dice: two photos side by side."""
    labels = json.loads((data / "labels.json").read_text())
    names = sorted(labels, key=lambda n: -len(labels[n]))
    a = names[0]
    b = min(names[1:], key=lambda n: abs(len(labels[a]) + len(labels[n]) - dice_wanted))
    pair = [cv2.imread(str(data / "images" / n)) for n in (a, b)]
    frame = np.hstack(pair)
    frame = np.vstack([frame, np.full((320, 1280, 3), frame[-1].mean(axis=0), np.uint8)])
    return frame, len(labels[a]) + len(labels[b])


def time_frame(image: np.ndarray, repeats: int) -> float:
    read_tray(image)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        read_tray(image)
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="labelled real photos (labels.json + images/)")
    parser.add_argument("--synthetic", type=int, default=500, help="rendered trays (0: none)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--verbose", action="store_true", help="list images with errors")
    args = parser.parse_args()
    cv2.setNumThreads(1)

    for part in ("all", "train", "held-out"):
        run_set(f"real photos, {part} ({args.data.name})",
                real_items(args.data, part), args.verbose)
    if args.synthetic:
        try:
            import station.fakes.tray  # noqa: F401
        except ImportError:
            print("\n== synthetic: station.fakes.tray not present, skipped")
        else:
            run_set(f"synthetic, {args.synthetic} rendered trays of 1-40 dice",
                    synthetic_items(args.synthetic, args.seed), args.verbose)

    print("\n== speed on one core (median of repeated reads)")
    frame, count = composite_frame(args.data)
    print(f"1280x960, {count} real dice (two photos side by side): "
          f"{time_frame(frame, 20):.1f} ms")
    labels = json.loads((args.data / "labels.json").read_text())
    busiest = max(labels, key=lambda n: len(labels[n]))
    photo = cv2.imread(str(args.data / "images" / busiest))
    print(f"640x640, {len(labels[busiest])} dice ({busiest}): {time_frame(photo, 20):.1f} ms")


if __name__ == "__main__":
    main()
