"""Benchmark: scatter and artillery dice read from synthetic trays (issue 4 targets).

    PYTHONPATH=. python benchmarks/special_dice.py [--trays 500] [--seed 1]

Each tray (640x480 to 4K, random tray, lighting, camera tilt and yaw, blur, noise, JPEG)
holds a few d6 and 1-3 special dice. Every die is cut where the renderer put it (centre of
its box, side of its top face: what a segmenter hands over) and given to
`station.vision.special_dice.read_special`. Printed:
- scatter: HIT-vs-arrow right / total; bearing error (degrees) median and 95th percentile on
  arrow faces, on HIT faces' small arrows, uncalibrated (image bearing) and calibrated (tray
  bearing through a profile computed from the tray's ArUco markers);
- artillery: faces right / total, per font;
- d6 dice, and places with no die (3 random spots a tray), wrongly taken for special dice.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict

import numpy as np

from station.fakes.tray import random_tray
from station.vision.special_dice import read_special


def angle_error(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def side_px(truth) -> float:
    c = truth.top_corners
    return float(np.mean([np.hypot(*(c[i] - c[(i + 1) % 4])) for i in range(4)]))


def run(trays: int, seed: int, calibrated: bool, verbose: bool = False) -> dict:
    rng = np.random.default_rng(seed)
    stats = defaultdict(list)
    counts = Counter()
    fonts = Counter()
    font_ok = Counter()
    start = time.perf_counter()
    for index in range(trays):
        shot = random_tray(rng, dice=(0, 6), special={"scatter": (1, 2), "artillery": (1, 2)},
                           markers=calibrated, yaw_deg=float(rng.uniform(-180, 180))
                           if calibrated else None)
        profile = None
        if calibrated:
            from station.vision.calibration import CalibrationError, calibrate_image
            try:
                profile = calibrate_image(shot.image)
            except CalibrationError:
                counts["trays whose markers were not found"] += 1
                continue
        side = float(np.median([side_px(t) for t in shot.truth]))
        h, w = shot.image.shape[:2]
        for _ in range(3):   # places with no die: floor, walls, markers
            cx, cy = rng.uniform(side, w - side), rng.uniform(side, h - side)
            if not any(t.box[0] - side / 2 < cx < t.box[2] + side / 2
                       and t.box[1] - side / 2 < cy < t.box[3] + side / 2 for t in shot.truth):
                counts["no die"] += 1
                counts["no die taken for special"] += read_special(shot.image, cx, cy,
                                                                   side) is not None
        for t in shot.truth:
            x0, y0, x1, y1 = t.box
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            got = read_special(shot.image, cx, cy, side_px(t))
            if t.kind == "d6":
                counts["d6"] += 1
                counts["d6 taken for special"] += got is not None
                if got is not None and verbose:
                    print(f"tray {index}: d6 {t.value} read as {got}", file=sys.stderr)
                continue
            counts[t.kind] += 1
            ok_kind = got is not None and got.kind == t.kind
            if t.kind == "scatter":
                right = ok_kind and got.value == t.value
                counts["scatter right"] += right
                if not right and verbose:
                    print(f"tray {index}: scatter {t.value} read as {got}", file=sys.stderr)
                if right and t.bearing_deg is not None:
                    key = "arrow" if t.value == "arrow" else "hit arrow"
                    if got.bearing_deg is None:
                        counts[f"{key} without bearing"] += 1
                        continue
                    if calibrated:
                        bearing = profile.bearing_to_tray(got.bearing_deg, cx, cy)
                        stats[key].append(angle_error(bearing, t.bearing_tray_deg))
                    else:
                        stats[key].append(angle_error(got.bearing_deg, t.bearing_deg))
            else:
                fonts[t.font] += 1
                right = ok_kind and got.value == t.value
                counts["artillery right"] += right
                font_ok[t.font] += right
                if not right and verbose:
                    print(f"tray {index}: artillery {t.value} ({t.font}) read as {got}",
                          file=sys.stderr)
    return dict(stats=stats, counts=counts, fonts=fonts, font_ok=font_ok,
                seconds=time.perf_counter() - start)


def report(name: str, result: dict) -> None:
    c = result["counts"]
    print(f"== {name}: {result['seconds']:.0f} s")
    if c["trays whose markers were not found"]:
        print(f"trays skipped, markers not found: {c['trays whose markers were not found']}")
    print(f"scatter HIT/arrow right: {c['scatter right']}/{c['scatter']}")
    for key in ("arrow", "hit arrow"):
        errors = np.array(result["stats"][key])
        if len(errors):
            print(f"  {key} bearing error: median {np.median(errors):.2f} deg, "
                  f"p95 {np.percentile(errors, 95):.2f} deg, max {errors.max():.1f} deg "
                  f"(n={len(errors)}; without a bearing: {c[key + ' without bearing']})")
    print(f"artillery right: {c['artillery right']}/{c['artillery']} "
          f"({100 * c['artillery right'] / max(1, c['artillery']):.2f} %)")
    for font, n in sorted(result["fonts"].items()):
        print(f"  {font:17s} {result['font_ok'][font]}/{n}")
    print(f"d6 taken for special dice: {c['d6 taken for special']}/{c['d6']}; places with no "
          f"die taken for special dice: {c['no die taken for special']}/{c['no die']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trays", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=["uncalibrated", "calibrated"])
    parser.add_argument("--verbose", action="store_true", help="print every miss to stderr")
    args = parser.parse_args()
    if args.only != "calibrated":
        report("uncalibrated", run(args.trays, args.seed, False, args.verbose))
    if args.only != "uncalibrated":
        report("calibrated", run(args.trays, args.seed + 1, True, args.verbose))
    return 0


if __name__ == "__main__":
    sys.exit(main())
