"""The colour names the reader gives dice, against what the dice are.

    PYTHONPATH=. python benchmarks/colour_names.py [--data DIR] [--trays N] [--seed S]

Issue #3 asks for each die's colour as a plain name, the players' way to split a roll ("the
red ones"). Each die the reader finds is matched to a labelled die as `vision_bench.py`
matches them (station/vision/evaluation.match), and its `colour` compared:
- the real photos: their dice's colours were labelled by eye (`real_colours.json`), one or
  more names a player would use for each die (a gold die may be called brown, yellow or
  orange; a black die with blue swirls black or blue). A die counts right when its name is
  one of those. Printed for the held-out photos (every 5th photo by name), which judge, and
  for the training photos, on which the naming rules were chosen;
- N rendered trays of 1-40 plain dice (seed S) and N with half the dice of unusual materials
  (seed S + 1: translucent, marbled, metallic, low-contrast pips;
  `station.fakes.tray_faces.unusual_style`), against the renderer's colour word.
Prints the share named right and the commonest confusions (label -> name given); for the
real photos also the pip values read right per die colour (against the label audit, as
`vision_bench.py`'s second line): which dice the value reader loses. The colour labels were
made from the dice the reader finds, so the 2 dice it misses have none and are not counted.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))    # vision_bench, run from anywhere

from station.fakes.tray import random_tray                       # noqa: E402
from station.vision import read_tray                             # noqa: E402
from station.vision.evaluation import match                      # noqa: E402
from station.vision.training.train_classifier import DEFAULT_DATA, held_out  # noqa: E402
from vision_bench import AUDIT, audited                          # noqa: E402

LABELS = Path(__file__).with_name("real_colours.json")


def named(dice, truths: list[tuple[list[float], tuple[str, ...]]], right: Counter,
          confused: Counter) -> None:
    """Count the dice of one frame: `truths` are (box, names a player would use) pairs."""
    best, _ = match(dice, [{"box": box} for box, _ in truths])
    for j, k in best.items():
        names = truths[j][1]
        given = dice[k].colour
        right[given in names] += 1
        if given not in names:
            confused[names[0], given] += 1


def report(title: str, right: Counter, confused: Counter) -> None:
    total = right[True] + right[False]
    print(f"\n== {title}: {total} dice read")
    print(f"named right: {right[True]}/{total} ({100 * right[True] / max(total, 1):.1f} %)")
    if confused:
        print("confusions (label -> name given): " + ", ".join(
            f"{a} -> {b} {n}" for (a, b), n in confused.most_common(8)))


def values_by_colour(dice, labels: list[dict], colours: dict[str, list[str]],
                     counts: Counter) -> None:
    """Count, per die colour (its label's likeliest name), the pip values read right:
    which dice the value reader loses. `labels` as audited (label_audit.json)."""
    best, _ = match(dice, labels)
    for j, label in enumerate(labels):
        if str(j) in colours:
            die = dice[best[j]] if j in best else None
            right = die is not None and die.kind == "d6" and die.value == label["value"]
            counts[colours[str(j)][0], right] += 1


def real_photos(data: Path, part: str) -> None:
    boxes = json.loads((data / "labels.json").read_text())
    colours = json.loads(LABELS.read_text())["dice"]
    audit = json.loads(AUDIT.read_text())["dice"]
    right, confused, values = Counter(), Counter(), Counter()
    for index, name in enumerate(sorted(boxes)):
        if held_out(index) != (part == "held-out"):
            continue
        image = cv2.imread(str(data / "images" / name))
        truths = [(die["box"], tuple(colours[name][str(j)])) for j, die in enumerate(boxes[name])
                  if str(j) in colours.get(name, {})]
        dice = read_tray(image)
        named(dice, truths, right, confused)
        values_by_colour(dice, audited(name, boxes[name], audit), colours.get(name, {}), values)
    report(f"real photos, {part} ({data.name}; colours labelled by eye, {LABELS.name})",
           right, confused)
    by_colour = sorted({c for c, _ in values}, key=lambda c: -(values[c, True] + values[c, False]))
    print("pip values read right by the die's colour (against the label audit): " + ", ".join(
        f"{c} {values[c, True]}/{values[c, True] + values[c, False]}" for c in by_colour))


def rendered(trays: int, seed: int, materials: float) -> None:
    right, confused = Counter(), Counter()
    for i in range(trays):
        tray = random_tray(np.random.default_rng([seed, i]), dice=(1, 40), materials=materials)
        named(read_tray(tray.image), [(t.box, (t.colour,)) for t in tray.truth], right, confused)
    kind = "half of them of unusual materials" if materials else "plain dice"
    report(f"{trays} rendered trays of 1-40 dice, {kind} (seed {seed})", right, confused)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="labelled real photos (labels.json + images/)")
    parser.add_argument("--trays", type=int, default=150, help="rendered trays per set (0: none)")
    parser.add_argument("--seed", type=int, default=2030)
    args = parser.parse_args()
    if not (args.data / "labels.json").is_file():
        parser.error(f"{args.data} holds no labels.json: give --data the folder of labelled "
                     "photos (labels.json and images/, as ../shared/data/real-dice/byler-train)")
    cv2.setNumThreads(1)
    for part in ("held-out", "train"):
        real_photos(args.data, part)
    if args.trays:
        rendered(args.trays, args.seed, 0.0)
        rendered(args.trays, args.seed + 1, 0.5)


if __name__ == "__main__":
    main()
