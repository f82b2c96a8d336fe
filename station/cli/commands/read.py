"""`station read IMAGE...`: read the dice in tray photos (the reader in station/vision)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from station.cli import UsageError
from station.rules.geometry import bearing_text
from station.vision.types import CHECK_BELOW

if TYPE_CHECKING:
    from station.vision.types import DetectedDie

# cv2, numpy and the reader are imported inside the functions that use them: they take about
# 0.2 s to load, which building the parser (`station resolve`, `station --help`) should not pay.

# BGR marker colours of the annotated images.
READ, DOUBT, SPECIAL = (40, 200, 40), (0, 0, 255), (255, 160, 0)
CHECK = (0, 128, 255)   # a value read less than CHECK_BELOW sure (BGR orange)


def register(registry) -> None:
    parser = registry.command(
        "read", "read the dice in tray photos", run,
        description="Read every die in each tray photo: pip dice (value, colour, flags) and "
                    "scatter/artillery dice. Exit status 2 if any image could not be read.")
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="photo files (PNG, JPEG...)")
    parser.add_argument("--json", action="store_true",
                        help="one JSON object per image per line")
    parser.add_argument("--calibration", metavar="PROFILE",
                        help="tray calibration profile: adds positions in tray millimetres")
    parser.add_argument("--faces", metavar="PROFILE",
                        help="taught-faces profile (`station calibrate faces`): dice showing a "
                             "taught face are read as it, with the flag \"taught\"")
    parser.add_argument("--annotate", metavar="DIR", type=Path,
                        help="also write each image with the dice marked, as DIR/NAME.png")
    parser.add_argument("--expect-special", action=argparse.BooleanOptionalAction, default=True,
                        help="give dice read as pips that may be scatter or artillery dice a "
                             "second look as special dice, and seek special dice touching the "
                             "dice found (the default; --no-expect-special: only dice the pip "
                             "network calls special, about half the time on photos of pip "
                             "dice alone)")


def run(args) -> int:
    import cv2

    from station.vision import read_tray
    from station.vision.calibration import moved_warning

    calibration = _load_calibration(args.calibration) if args.calibration else None
    faces = _load_faces(args.faces) if args.faces else None
    if args.annotate:
        try:
            args.annotate.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UsageError(f"cannot create the --annotate folder {args.annotate}: {error}")
    failed = False
    for path in args.images:
        image, problem = load_image(path)
        if image is None:
            failed = True
            _report_error(args, path, f"cannot read {path}: {problem}")
            continue
        try:
            # A photo is checked in the whole frame: a camera turned far since calibration
            # puts the markers elsewhere, and bearings would be silently wrong.
            moved = calibration is not None and \
                calibration.markers_in_place(image, whole_frame=True) is False
            dice = read_tray(image, calibration, expect_special=args.expect_special,
                             faces=faces)
        except ValueError as error:
            failed = True
            _report_error(args, path, f"cannot read the dice in {path}: {error}")
            continue
        warning = moved_warning(args.calibration) if moved else None
        if warning:
            print(f"warning: {path}: {warning}", file=sys.stderr, flush=True)
        if args.json:
            result = {"image": path, "dice": [d.to_json() for d in dice]}
            if warning:
                result["warning"] = warning
            print(json.dumps(result), flush=True)
        else:
            print(summary(path, dice), flush=True)
        if args.annotate:
            out = args.annotate / (Path(path).stem + ".png")
            cv2.imwrite(str(out), annotate(image, dice))
    return 2 if failed else 0


def load_image(path: str):
    """(BGR image, None) or (None, what was wrong): the one loader of the commands' photos."""
    import cv2
    import numpy as np

    try:
        data = np.fromfile(path, np.uint8)
    except FileNotFoundError:
        return None, "no such file"
    except OSError as error:
        return None, error.strerror or str(error)
    try:
        image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    except cv2.error as error:
        # OpenCV refuses a header claiming more pixels than it decodes (2^30) with an error
        # rather than None; a damaged file can claim that too.
        if "CV_IO_MAX_IMAGE_PIXELS" in str(error):
            return None, ("its header claims more pixels than OpenCV decodes (2^30): a damaged "
                          "file, or shrink the photo")
        return None, f"OpenCV cannot decode it ({str(error).strip().splitlines()[-1]})"
    if image is None:
        return None, "not an image OpenCV can decode (PNG, JPEG, BMP, TIFF...), or corrupt"
    return image, None


def _report_error(args, path: str, message: str) -> None:
    if args.json:
        print(json.dumps({"image": path, "error": message}), flush=True)
    else:
        print(f"station: error: {message}", file=sys.stderr)


def _load_calibration(profile: str):
    try:
        from station.vision.calibration import load_profile
    except ImportError:
        raise UsageError("tray calibration is not available in this installation; "
                         "read without --calibration")
    try:
        return load_profile(profile)
    except (OSError, ValueError, KeyError) as error:
        raise UsageError(f"cannot use calibration profile {profile!r}: {error}; "
                         "run `station calibrate tray` first")


def _load_faces(profile: str):
    from station.vision.taught_faces import TaughtFaces, TaughtFacesError
    try:
        return TaughtFaces.load(profile)
    except TaughtFacesError as error:
        raise UsageError(str(error)) from error


def summary(path: str, dice: list[DetectedDie]) -> str:
    """Counts per colour and value, the total, and what needs a re-roll."""
    pips = [d for d in dice if d.kind == "d6" and isinstance(d.value, int)]
    lines = [f"{path}: {len(pips)} pip dice read, total {sum(d.value for d in pips)}"]
    by_colour: dict[str, Counter] = {}
    for d in pips:
        if d.colour is not None:
            by_colour.setdefault(d.colour, Counter())[d.value] += 1
    for colour in sorted(by_colour, key=lambda c: -sum(by_colour[c].values())):
        counts = by_colour[colour]
        faces = ", ".join(f"{n}x{v}" for v, n in sorted(counts.items()))
        n = sum(counts.values())
        lines.append(f"  {colour:<7} {n:>3} {'die' if n == 1 else 'dice'}: {faces}"
                     f"  (total {sum(v * n for v, n in counts.items())})")
    if any(d.colour is None for d in pips):
        lines.append("  not split by colour: the frame has none (a monochrome camera's)")
    values = Counter(d.value for d in pips)
    if pips:
        lines.append("  by value: " + "  ".join(f"{v}s: {values[v]}" for v in range(1, 7)))
    for d in dice:
        if d.kind != "d6" and d.value is not None:
            bearing = f", bearing {bearing_text(d.bearing_deg)} deg" if d.bearing_deg is not None else \
                ", bearing not read: re-roll it or enter it as arrow@DEG (SCAT-2)" \
                if d.value == "arrow" else ""   # a HIT's small arrow is optional
            lines.append(f"  {d.kind} die: {d.value}{bearing} at {_at(d)}")
    doubtful = [f"{_die(d)} {d.value} at {_at(d)} ({d.confidence:.0%})"
                for d in dice if d.doubtful]
    if doubtful:
        lines.append(f"  check by eye, read less than {CHECK_BELOW:.0%} sure: "
                     + "; ".join(doubtful))
    taught = [f"{d.kind} {d.value} at {_at(d)}" for d in dice if "taught" in d.flags]
    if taught:
        lines.append("  read by a taught face: " + "; ".join(taught))
    for d in dice:
        if d.value is None:   # a cocked die's kind is the reader's best guess of which die
            why = "cocked (leaning)" if "cocked" in d.flags else "unreadable"
            lines.append(f"  {_die(d)} at {_at(d)}: {why}, re-roll it or enter it by hand")
    return "\n".join(lines)


def _die(d: DetectedDie) -> str:
    """A die as the summary names it: "red die", "grey scatter die"; "die" on a frame
    without colour."""
    return " ".join(filter(None, [d.colour, "die" if d.kind == "d6" else f"{d.kind} die"]))


def _at(d: DetectedDie) -> str:
    return f"({d.center[0]:.0f}, {d.center[1]:.0f})"


def annotate(image, dice: list[DetectedDie]):
    """A copy of the frame with each die ringed and labelled as the screen labels it (value,
    "MF", "HIT", "ARROW 117°" with the bearing the rules use; "C" cocked, "?" unreadable; a
    doubtful value with a ?, in orange), a scatter arrow drawn along the die's own arrow, the
    labels placed as the screen places them (clear of the other dice, arrows and labels)."""
    import cv2

    from station.display.labels import PAD, place_labels
    from station.display.screen import face_label

    out = image.copy()
    scale = max(out.shape[:2]) / 640
    radius, thickness = int(14 * scale), max(1, int(2 * scale))
    text_scale, text_thickness = 0.6 * scale, max(1, int(2 * scale))
    centres, tips, labels, colours = [], [], [], []
    for d in dice:
        x, y = int(d.center[0]), int(d.center[1])
        if d.value is None:
            colour, label = DOUBT, "C" if "cocked" in d.flags else "?"
        else:
            colour = CHECK if d.doubtful else SPECIAL if d.kind != "d6" else READ
            label = face_label(d.value, d.bearing_deg).replace("°", " deg") + \
                ("?" if d.doubtful else "")           # OpenCV's Hershey fonts have no °
        cv2.circle(out, (x, y), radius, colour, thickness)
        drawn = d.image_bearing_deg if d.image_bearing_deg is not None else d.bearing_deg
        tip = None
        if d.value is not None and drawn is not None:
            angle = math.radians(drawn)
            tip = (int(x + 3 * radius * math.sin(angle)), int(y - 3 * radius * math.cos(angle)))
            cv2.arrowedLine(out, (x, y), tip, colour, thickness, tipLength=0.3)
        centres.append((x, y))
        tips.append(tip)
        labels.append(label)
        colours.append(colour)
    extents = []
    for label in labels:
        (width, height), baseline = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, text_scale,
                                                    text_thickness)
        extents.append((0, -height, width, baseline))
    anchors = place_labels(centres, tips, extents, radius,
                           (0, 0, out.shape[1], out.shape[0]))
    for label, colour, extent, (tx, ty) in zip(labels, colours, extents, anchors):
        tx, ty = int(round(tx)), int(round(ty))
        cv2.rectangle(out, (tx + extent[0] - PAD[0], ty + extent[1] - PAD[1]),
                      (tx + extent[2] + PAD[0], ty + extent[3] + PAD[1]), (0, 0, 0), cv2.FILLED)
        cv2.putText(out, label, (tx, ty), cv2.FONT_HERSHEY_SIMPLEX, text_scale, colour,
                    text_thickness)
    return out
