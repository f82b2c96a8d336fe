"""Benchmark: scatter and artillery dice read from synthetic trays (issue 4 targets).

    PYTHONPATH=. python benchmarks/special_dice.py [--trays 500] [--seed 1] [--end-to-end]
        [--expect-special] [--faces OTHER.onnx] [--cocked-probability P]
        [--outline-cocked-probability P] [--min-probability P] [--lean-cutoff P]
        [--other-arrows SHARE] [--touching P] [--blur LOW HIGH]

Each tray (640x480 to 4K, random tray, lighting, camera tilt and yaw, blur, noise, JPEG)
holds a few d6 and 1-3 special dice. By default every die is cut where the renderer put it
(centre of its box, side of its top face: what a segmenter hands over) and given to
`station.vision.special_dice.read_special`. With --end-to-end the whole reader runs instead
(`station.vision.read_tray`, with the tray's calibration profile on calibrated trays), so the
d6 network's segmentation and its gating of special dice count too; a die is matched to the
reading nearest its top face's centre (within half a side); --expect-special tells read_tray
that special dice are expected (as the service does when the rules ask for them). Printed:
- scatter: HIT-vs-arrow right / total; bearing error (degrees) median and 95th percentile on
  arrow faces, on HIT faces' small arrows, uncalibrated (image bearing) and calibrated (tray
  bearing through a profile computed from the tray's ArUco markers); an arrow read as an
  arrow but given no bearing is counted on its own, and again in a median/p95 that counts it
  as a 180-degree error (for the player it is a failure: the bearing must be typed in), and
  for HIT faces how many of those are on dice under `special_dice.SMALL_ARROW_SIDE` (where
  no small-arrow bearing is given by design); HIT
  faces drawn without a small arrow but given a bearing (a direction the die does not show);
- artillery: faces right / total, per font;
- scatter and artillery right by the size of the die's top face in the frame (`SIDE_BANDS`
  pixels): how near the camera must be (`station calibrate tray` tells a build its dice's
  size);
- flat special dice read wrong: given a face that is not theirs (the wrong face or kind, a
  d6's pips included), the reading a player would act on without knowing it is wrong; a
  die left unread or flagged cocked is a re-roll, not a wrong reading;
- d6 dice wrongly taken for special dice; per die: places with no die (3 random spots a
  tray, but not the calibration sheet's marker tiles, which read_tray skips) taken for
  special dice; end to end: readings where there is no die, and the flat d6 dice read
  right and left without a reading (a flag between a special die and a pip die can be the
  pip die's only sign, docs/history/special-dice.md, seventy-fifth session);
- cocked: on trays where 30 % of the dice lean on another die or the wall (seed + 2, a fifth
  as many trays), the cocked special dice flagged cocked (value None), of them those given
  the right kind, and those read as a face; flat special dice wrongly flagged cocked, and
  read wrong; leaning d6 taken for special dice (named a scatter or artillery die, cocked or
  not: the players would re-roll a die that is not there), and end to end, leaning d6
  given a value.
--cocked-probability, --outline-cocked-probability and --min-probability set the face
network's cut-offs (`special_dice.COCKED_PROBABILITY`, on a die's own crop, the only one per
die; `OUTLINE_COCKED_PROBABILITY`, on a segmented outline's crop, end to end only;
`MIN_PROBABILITY`) for a trial; --lean-cutoff the lean check's (`special_dice.LEAN_CUTOFF`,
P(leaning) from which a die read as a face is flagged cocked; above 1 the check never flags).
--other-arrows SHARE draws that share of the scatter dice's arrows, and of the HIT faces'
small arrows, in other makers' proportions (`random_arrow`, `random_small_arrow`): other
trays than the default's, which has none.
--touching P puts each die against one already placed with chance P (the renderer's
`touching`, 0.15 on the default's trays): with 1, special dice lie against each other and
against pip dice as a scatter and an artillery die rolled together often do. Every print
also counts the flat special dice that touch another die, and how many are read right.
--blur LOW HIGH draws each tray's camera blur (the Gaussian sigma at 1280 px wide, scaled
with the frame) from LOW to HIGH instead of the renderer's 0.2-1.1: a camera out of focus
(other trays than the default's).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter, defaultdict

import cv2
import numpy as np

from station.fakes.tray import random_finish, random_tray
from station.vision.calibration import CalibrationError, calibrate_image
from station.vision.evaluation import size_band, size_bands
from station.vision.reader import read_tray
from station.vision import special_dice
from station.vision.special_dice import read_special


def angle_error(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


SIDE_BANDS = (16, 20, 28, 40)        # edges, pixels of a top face's side, of the size lines
BANDS = size_bands(SIDE_BANDS)


def side_px(truth) -> float:
    c = truth.top_corners
    return float(np.mean([np.hypot(*(c[i] - c[(i + 1) % 4])) for i in range(4)]))


def centre_of(truth) -> tuple[float, float]:
    x0, y0, x1, y1 = truth.box
    return (x0 + x1) / 2, (y0 + y1) / 2


def per_die(shot, profile, counts, spots) -> list:
    """Each die cut where the renderer put it, read by read_special; bearings to the tray."""
    got = []
    for t in shot.truth:
        cx, cy = centre_of(t)
        r = read_special(shot.image, cx, cy, side_px(t))
        if r is not None and r.bearing_deg is not None and profile is not None:
            r.bearing_deg = profile.bearing_to_tray(r.bearing_deg, cx, cy)
        got.append(r)
    side = float(np.median([side_px(t) for t in shot.truth]))
    for cx, cy in spots:
        counts["no die"] += 1
        counts["no die taken for special"] += read_special(shot.image, cx, cy, side) is not None
    return got


def end_to_end(shot, profile, counts, expect_special: bool) -> list:
    """The whole reader on the frame; each die matched to the nearest reading."""
    dice = read_tray(shot.image, calibration=profile, expect_special=expect_special)
    pairs = sorted((math.dist(t.center, d.center), i, j) for i, t in enumerate(shot.truth)
                   for j, d in enumerate(dice) if math.dist(t.center, d.center) < side_px(t) / 2)
    got, used = [None] * len(shot.truth), set()
    for _, i, j in pairs:
        if got[i] is None and j not in used:
            got[i] = dice[j]
            used.add(j)
    phantoms = [d for j, d in enumerate(dice) if j not in used]
    counts["readings where there is no die"] += len(phantoms)
    counts["of them special"] += sum(d.kind != "d6" for d in phantoms)
    return got


def flagged_cocked(got) -> bool:
    """A reading that says "cocked, re-roll" (read_special: value None; read_tray: the flag)."""
    return got is not None and got.value is None and "unreadable" not in getattr(got, "flags", ())


def missed(t, got) -> bool:
    """Is `got` a miss for truth `t` (--verbose): a flat special die not read as its face, a
    cocked one not flagged (read as a face, its own too, or not read at all)?"""
    if "cocked" in t.flags:
        return not flagged_cocked(got)
    return got is None or got.kind != t.kind or got.value != t.value


def run(trays: int, seed: int, calibrated: bool, verbose: bool = False,
        whole_reader: bool = False, cocked: float = 0.0, expect_special: bool = False,
        other_arrows: float = 0.0, touching: float | None = None,
        blur: tuple[float, float] | None = None) -> dict:
    rng = np.random.default_rng(seed)
    stats = defaultdict(list)
    counts = Counter()
    fonts = Counter()
    font_ok = Counter()
    start = time.perf_counter()
    for index in range(trays):
        options = {} if touching is None else {"touching": touching}
        if blur is not None:
            options["finish"] = random_finish(rng)
            options["finish"].blur = float(rng.uniform(*blur))
        shot = random_tray(rng, dice=(0, 6), special={"scatter": (1, 2), "artillery": (1, 2)},
                           markers=calibrated, yaw_deg=float(rng.uniform(-180, 180))
                           if calibrated else None, cocked=cocked, arrow_shapes=other_arrows,
                           small_arrow_shapes=other_arrows, **options)
        side = float(np.median([side_px(t) for t in shot.truth]))
        h, w = shot.image.shape[:2]
        # drawn before calibrating: the trays after a tray whose markers are not found are
        # the same whether or not they are found
        places = [(rng.uniform(side, w - side), rng.uniform(side, h - side)) for _ in range(3)]
        profile = None
        if calibrated:
            try:
                profile = calibrate_image(shot.image)
            except CalibrationError:
                counts["trays whose markers were not found"] += 1
                continue
        spots = []   # places with no die: floor and walls (read_tray skips marker tiles)
        for cx, cy in places:
            if not any(t.box[0] - side / 2 < cx < t.box[2] + side / 2
                       and t.box[1] - side / 2 < cy < t.box[3] + side / 2 for t in shot.truth):
                if profile is not None and profile.on_marker(cx, cy):
                    counts["places on a marker tile, skipped"] += 1   # as read_tray does
                else:
                    spots.append((cx, cy))
        readings = end_to_end(shot, profile, counts, expect_special) if whole_reader else \
            per_die(shot, profile, counts, spots)
        for t, got in zip(shot.truth, readings):
            # --verbose names the set: a run prints each set's misses before its report
            miss_label = verbose and ("calibrated" if calibrated else "cocked" if cocked
                                      else "uncalibrated")
            score(index, t, got, calibrated, counts, stats, fonts, font_ok, miss_label)
    return dict(stats=stats, counts=counts, fonts=fonts, font_ok=font_ok,
                seconds=time.perf_counter() - start, whole_reader=whole_reader)


def score(index, t, got, calibrated, counts, stats, fonts, font_ok, miss_label) -> None:
    """Count one die's reading (`got`: None when not read at all, or not as a special die by
    read_special; read_tray's readings are d6 dice too). `miss_label`: the set's name, to
    print a miss with (--verbose), or False."""
    if miss_label and t.kind != "d6" and missed(t, got):
        print(f"{miss_label} tray {index}: {t.kind} {t.value} "
              f"({t.font or ''}{' cocked' * ('cocked' in t.flags)}) read as {got}", file=sys.stderr)
    if "cocked" in t.flags:
        if t.kind != "d6":
            counts["cocked special"] += 1
            counts["cocked special flagged"] += flagged_cocked(got)
            counts["cocked special flagged, kind right"] += flagged_cocked(got) \
                and got.kind == t.kind
            counts["cocked special read as a face"] += got is not None and got.value is not None
        else:   # a leaning pip die named a special one: the players re-roll a die not there
            counts["cocked d6"] += 1
            counts["cocked d6 taken for special"] += got is not None and got.kind != "d6"
            counts["cocked d6 given a value"] += got is not None and got.value is not None
        return
    if t.kind == "d6":
        counts["d6"] += 1
        counts["d6 taken for special"] += got is not None and got.kind != "d6"
        counts["d6 right"] += got is not None and (got.kind, got.value) == ("d6", t.value)
        counts["d6 without a reading"] += got is None
        return
    counts[t.kind] += 1
    counts["flat special flagged cocked"] += flagged_cocked(got)
    right = got is not None and got.kind == t.kind and got.value == t.value
    band = size_band(side_px(t), SIDE_BANDS)
    counts[f"{t.kind} {band}"] += 1
    counts["touching special"] += "touching" in t.flags
    counts["touching special right"] += right and "touching" in t.flags
    counts[f"{t.kind} {band} right"] += right
    if got is not None and got.value is not None and not right:
        counts["flat special read wrong"] += 1
        counts["flat special read wrong, as a d6"] += got.kind == "d6"
    if t.kind == "scatter":
        counts["scatter right"] += right
        if right and t.bearing_deg is not None:
            key = "arrow" if t.value == "arrow" else "hit arrow"
            if got.bearing_deg is None:
                counts[f"{key} without bearing"] += 1
                counts[f"{key} without bearing, small"] += \
                    side_px(t) < special_dice.SMALL_ARROW_SIDE
            else:
                truth = t.bearing_tray_deg if calibrated else t.bearing_deg
                stats[key].append(angle_error(got.bearing_deg, truth))
        counts["hit without arrow given a bearing"] += right and t.bearing_deg is None and \
            got.bearing_deg is not None
    else:
        fonts[t.font] += 1
        counts["artillery right"] += right
        font_ok[t.font] += right


def read_wrong(c: Counter) -> str:
    return f"{c['flat special read wrong']} (as a d6: {c['flat special read wrong, as a d6']})"


def report(name: str, result: dict) -> None:
    c = result["counts"]
    print(f"== {name}: {result['seconds']:.0f} s")
    if c["trays whose markers were not found"]:
        print(f"trays skipped, markers not found: {c['trays whose markers were not found']}")
    if c["cocked special"]:
        print(f"cocked special dice flagged cocked: {c['cocked special flagged']}/"
              f"{c['cocked special']} (kind right: {c['cocked special flagged, kind right']}); "
              f"read as a face: {c['cocked special read as a face']}")
        print(f"flat special dice flagged cocked: {c['flat special flagged cocked']}/"
              f"{c['scatter'] + c['artillery']}; read wrong: {read_wrong(c)}")
        print(f"leaning d6 taken for special dice: {c['cocked d6 taken for special']}/"
              f"{c['cocked d6']}" + (f"; given a value: {c['cocked d6 given a value']}"
                                     if result["whole_reader"] else ""))
        return
    print(f"scatter HIT/arrow right: {c['scatter right']}/{c['scatter']}")
    for key in ("arrow", "hit arrow"):
        errors = np.array(result["stats"][key])
        if len(errors):
            print(f"  {key} bearing error: median {np.median(errors):.2f} deg, "
                  f"p95 {np.percentile(errors, 95):.2f} deg, max {errors.max():.1f} deg, "
                  f"over 20 deg: {int((errors > 20).sum())} "
                  f"(n={len(errors)}; without a bearing: {c[key + ' without bearing']}"
                  + (f", on dice under {special_dice.SMALL_ARROW_SIDE} px: "
                     f"{c[key + ' without bearing, small']})" if key == "hit arrow" else ")"))
            missing = c[key + " without bearing"]
            if missing:
                worst = np.concatenate([errors, np.full(missing, 180.0)])
                print(f"    counting those as 180 deg: median {np.median(worst):.2f} deg, "
                      f"p95 {np.percentile(worst, 95):.2f} deg (n={len(worst)})")
    print(f"  HIT faces drawn without a small arrow given a bearing: "
          f"{c['hit without arrow given a bearing']}")
    print(f"artillery right: {c['artillery right']}/{c['artillery']} "
          f"({100 * c['artillery right'] / max(1, c['artillery']):.2f} %)")
    for font, n in sorted(result["fonts"].items()):
        print(f"  {font:17s} {result['font_ok'][font]}/{n}")
    print("right by the top face's side (px): " + "  ".join(
        f"{band} {c[f'scatter {band} right'] + c[f'artillery {band} right']}/"
        f"{c[f'scatter {band}'] + c[f'artillery {band}']}" for band in BANDS))
    for kind in ("scatter", "artillery"):
        print(f"  {kind:9s} " + "  ".join(
            f"{band} {c[f'{kind} {band} right']}/{c[f'{kind} {band}']}" for band in BANDS))
    print(f"flat special dice touching another die read right: "
          f"{c['touching special right']}/{c['touching special']}")
    print(f"flat special dice read wrong: {read_wrong(c)}")
    print(f"d6 taken for special dice: {c['d6 taken for special']}/{c['d6']}; "
          f"flat special dice flagged cocked: {c['flat special flagged cocked']}")
    if c["no die"]:
        skipped = c["places on a marker tile, skipped"]
        print(f"places with no die taken for special dice: "
              f"{c['no die taken for special']}/{c['no die']}"
              + (f" (not counted: {skipped} on a marker tile, which read_tray skips)"
                 if skipped else ""))
    else:
        print(f"readings where there is no die: {c['readings where there is no die']}, "
              f"of them special dice: {c['of them special']}")
        print(f"flat d6 dice read right: {c['d6 right']}/{c['d6']}; "
              f"without a reading: {c['d6 without a reading']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trays", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=["uncalibrated", "calibrated", "cocked"])
    parser.add_argument("--end-to-end", action="store_true",
                        help="run the whole reader (read_tray) instead of read_special")
    parser.add_argument("--expect-special", action="store_true",
                        help="end to end: tell read_tray that special dice are expected")
    parser.add_argument("--verbose", action="store_true", help="print every miss to stderr")
    parser.add_argument("--other-arrows", type=float, default=0.0, metavar="SHARE",
                        help="draw this share of the scatter dice's arrows, the HIT faces' "
                        "small ones too, in other makers' proportions (other trays)")
    parser.add_argument("--touching", type=float, metavar="P",
                        help="chance each die lies against one already placed (default: the "
                        "renderer's, 0.15)")
    parser.add_argument("--blur", type=float, nargs=2, metavar=("LOW", "HIGH"),
                        help="each tray's camera blur (Gaussian sigma at 1280 px wide) "
                        "drawn from LOW to HIGH (default: the renderer's, 0.2-1.1)")
    parser.add_argument("--faces", help="another face network (ONNX) instead of the "
                        "committed one, to compare a trial network")
    parser.add_argument("--cocked-probability", type=float,
                        help="P(cocked) from which a die is flagged cocked (default: "
                        f"{special_dice.COCKED_PROBABILITY}; end to end: on the crops "
                        "centred on the top face and around it)")
    parser.add_argument("--outline-cocked-probability", type=float,
                        help="end to end: the same on the crop of the segmented outline "
                        f"(default: {special_dice.OUTLINE_COCKED_PROBABILITY})")
    parser.add_argument("--min-probability", type=float,
                        help="the least probability a face is read at (default: "
                        f"{special_dice.MIN_PROBABILITY})")
    parser.add_argument("--lean-cutoff", type=float,
                        help="P(leaning) from which the lean check flags a die read as a "
                        f"face cocked (default: {special_dice.LEAN_CUTOFF})")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if args.faces:
        special_dice.WEIGHTS = args.faces     # read when the network is first loaded
    if args.cocked_probability is not None:
        special_dice.COCKED_PROBABILITY = args.cocked_probability
    if args.outline_cocked_probability is not None:
        special_dice.OUTLINE_COCKED_PROBABILITY = args.outline_cocked_probability
    if args.min_probability is not None:
        special_dice.MIN_PROBABILITY = args.min_probability
    if args.lean_cutoff is not None:
        special_dice.LEAN_CUTOFF = args.lean_cutoff
    mode = "end to end" if args.end_to_end else "per die"
    if args.end_to_end and args.expect_special:
        mode += ", special dice expected"
    if args.other_arrows:
        mode += f", other makers' arrows {args.other_arrows:g}"
    if args.touching is not None:
        mode += f", touching {args.touching:g}"
    if args.blur:
        mode += f", blur {args.blur[0]:g}-{args.blur[1]:g}"
    runs = {"uncalibrated": (args.trays, args.seed, False, 0.0),
            "calibrated": (args.trays, args.seed + 1, True, 0.0),
            "cocked": (max(1, args.trays // 5), args.seed + 2, False, 0.3)}
    for name, (trays, seed, calibrated, cocked) in runs.items():
        if args.only in (None, name):
            report(f"{name}, {mode}", run(trays, seed, calibrated, args.verbose,
                                          args.end_to_end, cocked, args.expect_special,
                                          args.other_arrows, args.touching, args.blur))
    return 0


if __name__ == "__main__":
    sys.exit(main())
