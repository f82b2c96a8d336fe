"""Benchmark: dice with faces the networks do not know, read before and after teaching them.

    PYTHONPATH=. python benchmarks/taught_faces.py [--trays 100] [--seed 11] [--photos 5]
        [--dice star6 roman]

For each set of marked dice (`station.fakes.tray_faces.MARKED_DICE`: "star6", a d6 with a
star instead of the 6; "roman", an artillery die with II IV VI VIII X and a skull for the
misfire; "skull1", a d6 with a skull instead of the 1), the taught faces are taught from
`--photos` rendered photos a face (the die alone, 1280x960, seeds 900 on), as
`station calibrate faces` does (a photo in which no die is found is skipped and said), and
the teaching report is printed. Then `--trays` random
trays (640x480 to 4K; for d6 sets 2-12 dice, every one a marked die; for the artillery set
1-6 plain d6 and 1-3 marked artillery dice; a tenth of the dice leaning) are read with
`read_tray` untaught and taught (artillery trays expecting special dice, as the service
does when the rules ask for them). A die is matched to the reading nearest its top face's
centre, within half a side. Printed per set: marked faces read right untaught and taught;
the other faces read right untaught and taught, and how many readings teaching changed
(taken for a taught face); leaning dice read as a taught face (they should stay cocked);
the reading time per tray.
"""

from __future__ import annotations

import argparse
import time

import cv2
import numpy as np

from station.fakes.tray import random_tray, render_roll
from station.fakes.tray_faces import MARKED_DICE
from station.rules.faces import Face
from station.vision import read_tray
from station.vision.taught_faces import TaughtFaces, TaughtFacesError


def teach(marks: dict, photos: int) -> TaughtFaces:
    faces = TaughtFaces()
    for n, (kind, value) in enumerate(marks):
        for k in range(photos):
            seed = 900 + 10 * n + k
            shot = render_roll([Face(kind, value)], np.random.default_rng(seed),
                               size=(1280, 960), marks=marks)
            try:
                faces.teach(shot.image, kind, value, photo=f"seed {seed}")
            except TaughtFacesError as error:      # as a player would: retake it
                print(f"  teaching photo skipped: {error}")
    report = faces.settle()
    for key, r in report.items():
        typical = f"{r['typical']:.3f}" if r["typical"] is not None else "-"
        print(f"  {key}: threshold {r['threshold']:.3f} (own photos typically {typical}, "
              f"anything else at most {r['highest_other']:.3f}); self-check "
              f"{r['self_check']}/{r['photos']}")
    return faces


def tray(rng, kind: str, marks: dict):
    if kind == "d6":
        return random_tray(rng, dice=(2, 12), marks=marks, cocked=0.1)
    return random_tray(rng, dice=(1, 6), special={"artillery": (1, 3)}, marks=marks,
                       cocked=0.1)


def nearest(dice, truth):
    side = float(np.mean(np.linalg.norm(np.roll(truth.top_corners, 1, 0) - truth.top_corners,
                                        axis=1)))
    best = min(dice, key=lambda d: np.hypot(d.center[0] - truth.center[0],
                                            d.center[1] - truth.center[1]), default=None)
    if best is None or np.hypot(best.center[0] - truth.center[0],
                                best.center[1] - truth.center[1]) > side / 2:
        return None
    return best


def right(die, truth) -> bool:
    return die is not None and die.kind == truth.kind and die.value == truth.value


def reading(die):
    return None if die is None else (die.kind, die.value)


def bench(name: str, trays: int, seed: int, photos: int) -> None:
    marks = MARKED_DICE[name]
    kind = next(iter(marks))[0]
    print(f"{name}: {', '.join(f'{k} {v} -> {m}' for (k, v), m in marks.items())}; "
          f"taught from {photos} photos a face")
    faces = teach(marks, photos)
    rng = np.random.default_rng(seed)
    counts = dict(marked=0, marked_before=0, marked_after=0, other=0, other_before=0,
                  other_after=0, changed=0, taken=0, leaning=0, leaning_taught=0)
    times = [0.0, 0.0]
    for _ in range(trays):
        shot = tray(rng, kind, marks)
        start = time.perf_counter()
        before = read_tray(shot.image, expect_special=kind != "d6")
        middle = time.perf_counter()
        after = read_tray(shot.image, expect_special=kind != "d6", faces=faces)
        times[0] += middle - start
        times[1] += time.perf_counter() - middle
        for truth in shot.truth:
            b, a = nearest(before, truth), nearest(after, truth)
            if "cocked" in truth.flags:
                counts["leaning"] += 1
                counts["leaning_taught"] += a is not None and "taught" in a.flags
                continue
            group = "marked" if (truth.kind, truth.value) in marks else "other"
            counts[group] += 1
            counts[group + "_before"] += right(b, truth)
            counts[group + "_after"] += right(a, truth)
            if group == "other":
                counts["changed"] += reading(b) != reading(a)
                counts["taken"] += a is not None and "taught" in a.flags
    c = counts

    def share(n, total):
        return f"{n}/{total} ({100.0 * n / max(total, 1):.1f} %)"

    print(f"  trays: {trays} (seed {seed}); flat dice: {c['marked']} marked faces, "
          f"{c['other']} other faces; leaning dice: {c['leaning']}")
    print(f"  marked faces read right: untaught {share(c['marked_before'], c['marked'])}, "
          f"taught {share(c['marked_after'], c['marked'])}")
    print(f"  other faces read right: untaught {share(c['other_before'], c['other'])}, "
          f"taught {share(c['other_after'], c['other'])}; changed by teaching {c['changed']} "
          f"(taken for a taught face {c['taken']})")
    print(f"  leaning dice read as a taught face: {c['leaning_taught']}/{c['leaning']}")
    print(f"  reading time per tray: untaught {times[0] / trays:.2f} s, "
          f"taught {times[1] / trays:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trays", type=int, default=100)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--photos", type=int, default=5, help="teaching photos a face")
    parser.add_argument("--dice", nargs="+", default=["star6", "roman"],
                        choices=sorted(MARKED_DICE))
    args = parser.parse_args()
    cv2.setNumThreads(1)
    start = time.time()
    for name in args.dice:
        bench(name, args.trays, args.seed, args.photos)
    print(f"{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
