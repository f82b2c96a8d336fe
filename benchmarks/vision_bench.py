"""Benchmark of the pip-dice reader: die-level accuracy, confusion matrix and speed.

    PYTHONPATH=. python benchmarks/vision_bench.py [--data DIR] [--synthetic N] [--verbose]
        [--seed S] [--leaning N] [--cache DIR] [--weights FILE.onnx] [--speed-only]
        [--expect-special]

Prints, for the real photos (all of them, the training part and the held-out part: every
5th photo by sorted name, never used in training) and for N rendered trays of 1-40 dice
(the synthetic renderer `station.fakes.tray`, rendering time not counted):
- die-level accuracy = correct / (labelled + false detections), see station/vision/evaluation;
  for the photos also against the label audit (`label_audit.json`: dice whose photo plainly
  shows another face than their label, and plain dice the labels miss), on a second line;
- the confusion matrix (true value by read value, unreadable, missed, and read as a scatter
  or artillery die);
- the dice read right by their size (the labelled box's shorter side, `BOX_BANDS` pixels);
- with --verbose, each image with a die not read right or a false detection, and under it
  each such die (colour and touching for rendered trays, box side, what it was read as);
- images per second and milliseconds per image, on one core (cv2.setNumThreads(1); the
  networks on ONNX Runtime, one thread, or on cv2.dnn: `STATION_INFERENCE`, networks.py).
For N rendered trays of 1-30 dice of which 30 % lean on a die or the wall (seed S + 1): the
leaning dice flagged cocked and those given a value (issue #3: flagged, not guessed), and
the flat dice read right (station/vision/evaluation.score_leaning).
And the speed on a 1280x960 frame with 30 dice (two real photos side by side over a grey
strip; and a rendered tray) and on a 640x640 photo, with the machine's pace on a fixed
workload (`host_pace`) to compare runs on other machines by.
With --expect-special every image is read as when the rules ask for a scatter or artillery
die (`read_tray(..., expect_special=True)`, also `station read`'s default).
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from station.fakes.tray import random_tray                # noqa: E402
from station.vision import read_tray                      # noqa: E402
from station.vision.classifier import use_weights         # noqa: E402
from station.vision.evaluation import (LeaningScore, Score, match, score_image,  # noqa: E402
                                       score_leaning)
from station.vision.networks import engine                # noqa: E402
from station.vision.training.train_classifier import DEFAULT_DATA, held_out  # noqa: E402


AUDIT = Path(__file__).with_name("label_audit.json")


def run_set(name: str, items, verbose: bool, audit: list[dict] = (), read=read_tray) -> Score:
    """items: (image, labels, label) triples; prints accuracy, confusion and speed, and the
    accuracy against the `audit`'s corrected labels when it names dice of these images."""
    total, against_audit = Score(), Score()
    times = []
    relabelled = added = 0
    for image, labels, label in items:
        start = time.perf_counter()
        dice = read(image)
        times.append(time.perf_counter() - start)
        score = score_image(dice, labels)
        total.add(score)
        corrected = audited(label, labels, audit)
        relabelled += sum(a["value"] != b["value"] for a, b in zip(labels, corrected))
        added += len(corrected) - len(labels)
        against_audit.add(score_image(dice, corrected))
        if verbose and (score.correct < score.labelled or score.false):
            print(f"  {label}: {score.correct}/{score.labelled} read, {score.false} false")
            print_losses(dice, labels)
    ms = 1000 * statistics.mean(times)
    print(f"\n== {name}: {len(times)} images, {total.labelled} dice")
    print(f"accuracy {100 * total.accuracy:.2f}% ({total.correct} correct of {total.labelled}"
          f" labelled, {total.false} false detections)")
    if relabelled or added:
        changes = [f"{n} {'die' if n == 1 else 'dice'} {what}"
                   for n, what in ((relabelled, "relabelled"), (added, "added, unlabelled"))
                   if n]
        print(f"against the label audit ({', '.join(changes)}, {AUDIT.name}): accuracy "
              f"{100 * against_audit.accuracy:.2f}% ({against_audit.correct} correct of "
              f"{against_audit.labelled}, {against_audit.false} false detections)")
    print(total.confusion_text())
    print(total.by_size_text())
    print(f"speed: {1000 / ms:.1f} images/s, {ms:.1f} ms/image (median "
          f"{1000 * statistics.median(times):.1f} ms)")
    return total


def print_losses(dice, labels: list[dict]) -> None:
    """Under --verbose, one line per labelled die not read right (its colour and whether it
    touches another when the labels say so, its box's shorter side, what it was read as)
    and per false detection."""
    best, _ = match(dice, labels)
    for j, lab in enumerate(labels):
        got = dice[best[j]] if j in best else None
        if got is not None and got.kind == "d6" and got.value == lab["value"]:
            continue
        x0, y0, x1, y1 = lab["box"]
        die = [lab["value"], lab.get("colour"), "touching" if lab.get("touching") else None,
               f"{min(x1 - x0, y1 - y0):.0f} px"]
        read = "missed" if got is None else \
            f"{got.kind} {got.value} {got.confidence:.2f} {' '.join(got.flags)}".rstrip()
        print(f"    die {j}: {' '.join(str(v) for v in die if v is not None)} -> {read}")
    for k in sorted(set(range(len(dice))) - set(best.values())):
        d = dice[k]
        print(f"    false: {d.kind} {d.value} at ({d.center[0]:.0f}, {d.center[1]:.0f}) "
              f"{' '.join(d.flags)}".rstrip())


def audited(image: str, labels: list[dict], audit: list[dict]) -> list[dict]:
    """The labels of photo `image` with the audit's corrections: a labelled die whose box is
    within a pixel of an audited one's, and whose label is the one audited, shows `shows`;
    an audited die with no label (`label` null) is added, showing `shows`."""
    fixes = [d for d in audit if d["image"] == image]
    corrected = []
    for lab in labels:
        fix = next((d for d in fixes if d["label"] == lab["value"] and all(
            abs(a - b) <= 1 for a, b in zip(lab["box"], d["box"]))), None)
        corrected.append({**lab, "value": fix["shows"]} if fix else lab)
    return corrected + [{"value": d["shows"], "box": d["box"]} for d in fixes
                        if d["label"] is None]


def real_items(data: Path, part: str):
    labels = json.loads((data / "labels.json").read_text())
    for index, name in enumerate(sorted(labels)):
        if part == "all" or (part == "held-out") == held_out(index):
            image = cv2.imread(str(data / "images" / name))
            yield image, labels[name], name


def cached_trays(count: int, seed: int, cache: Path | None, name: str, render, label):
    """Rendered trays: tray i is `render(np.random.default_rng([seed, i]))`, each die
    labelled by `label(truth)`; kept in `cache` as NAME-SEED-I.png + .json and reused."""
    for i in range(count):
        png = cache / f"{name}-{seed}-{i:04d}.png" if cache else None
        if png and png.exists():
            image = cv2.imread(str(png))
            labels = json.loads(png.with_suffix(".json").read_text())
        else:
            rendered = render(np.random.default_rng([seed, i]))
            image = rendered.image
            labels = [label(t) for t in rendered.truth]
            if png:
                cache.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(png), image)
                png.with_suffix(".json").write_text(json.dumps(labels))
        yield image, labels


def synthetic_items(count: int, seed: int, cache: Path | None):
    """Rendered trays of 1-40 dice; tray i comes from seed (seed, i)."""
    trays = cached_trays(count, seed, cache, "tray", lambda rng: random_tray(rng, dice=(1, 40)),
                         lambda t: {"value": t.value, "box": [float(v) for v in t.box],
                                    "colour": t.colour, "touching": "touching" in t.flags})
    for i, (image, labels) in enumerate(trays):
        h, w = image.shape[:2]
        yield image, labels, f"synthetic #{i} ({w}x{h}, {len(labels)} dice)"


def leaning_items(count: int, seed: int, cache: Path | None):
    """Rendered trays of 1-30 dice, 30 % of them leaning on a die or the wall; tray i comes
    from seed (seed, i)."""
    return cached_trays(
        count, seed, cache, "leaning",
        lambda rng: random_tray(rng, dice=(1, 30), cocked=0.3),
        lambda t: {"value": t.value, "box": [float(v) for v in t.box],
                   "center": [float(v) for v in t.center], "cocked": "cocked" in t.flags})


def run_leaning(count: int, seed: int, cache: Path | None, read=read_tray) -> LeaningScore:
    total = LeaningScore()
    for image, labels in leaning_items(count, seed, cache):
        total.add(score_leaning(read(image), labels))
    print(f"\n== leaning dice: {count} rendered trays of 1-30 dice, 30 % leaning "
          f"(seed {seed}): {total.leaning} leaning, {total.flat} flat")
    print(f"leaning dice flagged cocked: {total.flagged}/{total.leaning}; given a value "
          f"(should be none): {total.given_a_value}/{total.leaning}")
    print(f"flat dice read right: {total.flat_right}/{total.flat}")
    return total


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


def time_frame(image: np.ndarray, repeats: int, read=read_tray) -> float:
    read(image)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        read(image)
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def host_pace() -> float:
    """Milliseconds (median of 5) for a fixed workload of the kind the reader does, on one
    core: 300,000 Python additions and 5 Gaussian blurs of a 1280x960 frame. The same
    reader ran two to three times slower on some machines of the same kind than on
    others (docs/vision.md), so the speed lines are printed beside this pace."""
    frame = np.random.default_rng(0).integers(0, 256, (960, 1280, 3), np.uint8)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        total = 0
        for i in range(300_000):
            total += i
        for _ in range(5):
            cv2.GaussianBlur(frame, (0, 0), 2.0)
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="labelled real photos (labels.json + images/)")
    parser.add_argument("--synthetic", type=int, default=500, help="rendered trays (0: none)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--leaning", type=int, default=100,
                        help="rendered trays with leaning dice, seed SEED + 1 (0: none)")
    parser.add_argument("--cache", type=Path,
                        help="keep rendered trays here (PNG + JSON) and reuse them next run")
    parser.add_argument("--verbose", action="store_true", help="list images with errors")
    parser.add_argument("--weights", type=Path,
                        help="classifier weights to use instead of the committed ones")
    parser.add_argument("--speed-only", action="store_true",
                        help="only the speed lines (e.g. on the Pi itself; seconds, not minutes)")
    parser.add_argument("--expect-special", action="store_true",
                        help="read as when the rules ask for scatter or artillery dice")
    args = parser.parse_args()
    if not (args.data / "labels.json").is_file():
        # Every part (the photos, the speed frames) reads the labelled photos.
        parser.error(f"{args.data} holds no labels.json: give --data the folder of labelled "
                     "photos (labels.json and images/, as ../shared/data/real-dice/byler-train)")
    read = functools.partial(read_tray, expect_special=args.expect_special)
    cv2.setNumThreads(1)
    if args.weights:
        use_weights(args.weights)

    if not args.speed_only:
        audit = json.loads(AUDIT.read_text())["dice"]
        for part in ("all", "train", "held-out"):
            run_set(f"real photos, {part} ({args.data.name})",
                    real_items(args.data, part), args.verbose, audit, read)
        if args.synthetic:
            run_set(f"synthetic, {args.synthetic} rendered trays of 1-40 dice (640x480 to 4K)",
                    synthetic_items(args.synthetic, args.seed, args.cache), args.verbose, (), read)
        if args.leaning:
            run_leaning(args.leaning, args.seed + 1, args.cache, read)

    expected = ", special dice expected" if args.expect_special else ""
    print(f"\n== speed on one core (median of repeated reads; networks on {engine()}{expected})")
    frame, count = composite_frame(args.data)
    print(f"1280x960, {count} real dice (two photos side by side): "
          f"{time_frame(frame, 20, read):.1f} ms")
    if args.synthetic or args.speed_only:
        rendered = random_tray(np.random.default_rng(args.seed), size=(1280, 960), dice=(30, 30))
        print(f"1280x960, 30 rendered dice: {time_frame(rendered.image, 20, read):.1f} ms")
    labels = json.loads((args.data / "labels.json").read_text())
    busiest = max(labels, key=lambda n: len(labels[n]))
    photo = cv2.imread(str(args.data / "images" / busiest))
    print(f"640x640, {len(labels[busiest])} dice ({busiest}): {time_frame(photo, 20, read):.1f} ms")
    print(f"this machine's pace (300,000 Python additions and 5 blurs of a 1280x960 frame): "
          f"{host_pace():.1f} ms")


if __name__ == "__main__":
    main()
