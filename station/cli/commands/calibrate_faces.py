"""`station calibrate faces`: teach the reader a die's unusual faces from a few photos."""

from __future__ import annotations

import json
import math
import os
from typing import TYPE_CHECKING

from station.cli import UsageError
from station.cli.commands.read import load_image
from station.vision.constants import KINDS

if TYPE_CHECKING:
    from station.vision.taught_faces import TaughtFaces

# The taught faces are imported inside the functions that use them: with cv2 and the reader
# they take about 0.2 s to load, which building the parser (`station resolve`, `station
# --help`) should not pay.

DEFAULT_FACES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                              "calibration", "profiles", "faces.npz"))


def register(registry) -> None:
    parser = registry.command(
        "calibrate faces", "teach the reader a die's unusual faces from a few photos",
        calibrate_faces,
        description="Photograph the die in the tray with one face up, about five times (other "
                    "places and turns), and teach that face: `station calibrate faces --kind "
                    "d6 --face 6 photo1.jpg ...`. Repeat for each face the reader does not "
                    "know (a logo instead of the 6, Roman numerals). `station read --faces "
                    "PROFILE` then reads those faces; such dice carry the flag \"taught\". "
                    "Other dice in the photos teach what the face is not.")
    parser.add_argument("images", nargs="*", metavar="IMAGE",
                        help="photos of the die with the face up")
    parser.add_argument("--kind", choices=tuple(KINDS), help="the die: d6 or artillery")
    parser.add_argument("--face", metavar="VALUE",
                        help="the face up in the photos: 1-6 for a d6; 2, 4, 6, 8, 10 or "
                             "misfire for an artillery die")
    parser.add_argument("--at", metavar="X,Y",
                        help="which die is the taught one when a photo shows several (pixels)")
    parser.add_argument("--out", default=DEFAULT_FACES, metavar="PROFILE",
                        help="taught-faces profile to add to (default: %(default)s)")
    parser.add_argument("--list", action="store_true", help="show the taught faces and stop")
    parser.add_argument("--forget", metavar="VALUE",
                        help="drop the taught face VALUE of --kind from the profile")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def calibrate_faces(args) -> int:
    from station.vision.taught_faces import TaughtFacesError, face_key, parse_value

    faces = _load(args.out)
    if args.list:
        return _show(args, faces, faces.settle() if faces.faces() else {}, [])
    if not args.kind:
        raise UsageError("say which die with --kind d6 or --kind artillery")
    try:
        if args.forget:
            key = face_key(args.kind, parse_value(args.kind, args.forget))
            if not faces.forget(key):
                raise UsageError(f"{args.out} has no taught face {key}: see --list")
            report = faces.settle()
            _save(faces, args.out)
            return _show(args, faces, report, [f"forgot {key}"])
        if args.face is None or not args.images:
            raise UsageError("give --face VALUE and the photos of the die with that face up")
        value = parse_value(args.kind, args.face)
    except TaughtFacesError as error:
        raise UsageError(str(error)) from error
    at = _point(args.at) if args.at else None
    lines = []
    for path in args.images:
        image, problem = load_image(path)
        if image is None:
            raise UsageError(f"cannot read {path}: {problem}")
        try:
            x, y = faces.teach(image, args.kind, value, photo=path, at=at)
        except TaughtFacesError as error:
            raise UsageError(str(error)) from error
        except ValueError as error:       # the reader's own refusal: a photo too small
            raise UsageError(f"cannot read the dice in {path}: {error}") from None
        lines.append(f"{path}: {args.kind} {value} at {x:.0f},{y:.0f}")
    report = faces.settle()
    _save(faces, args.out)
    return _show(args, faces, report, lines)


def _point(text: str) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in text.split(","))
    except ValueError:
        x = y = math.nan
    if not (math.isfinite(x) and math.isfinite(y)):     # NaN would pick the first die found
        raise UsageError(f"--at {text!r}: give the die's pixel position as X,Y, e.g. 640,480")
    return x, y


def _load(path: str) -> TaughtFaces:
    from station.vision.taught_faces import TaughtFaces, TaughtFacesError

    if not os.path.exists(path):
        return TaughtFaces()
    try:
        return TaughtFaces.load(path)
    except TaughtFacesError as error:
        raise UsageError(f"{error}; or give another --out") from error


def _save(faces: TaughtFaces, path: str) -> None:
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        faces.save(path)
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}; "
                         "choose another --out") from error


def _show(args, faces: TaughtFaces, report: dict, lines: list[str]) -> int:
    if args.json:
        print(json.dumps({"profile": args.out, "faces": report}))
        return 0
    for line in lines:
        print(line)
    if not report:
        print(f"{args.out}: no taught faces")
        return 0
    print(f"{args.out}: {len(report)} taught face{'s' if len(report) > 1 else ''}")
    for key, r in report.items():
        kind, value = key.split(":")
        how = f"own photos typically {r['typical']:.3f}, " if r["typical"] is not None else ""
        other = f"{r['highest_other']:.3f}" if r["highest_other"] is not None else "none"
        print(f"  {kind} {value}: {r['photos']} photo{'s' if r['photos'] > 1 else ''}, "
              f"taken from a score of {r['threshold']:.3f} ({how}anything else at most "
              f"{other}); self-check: {r['self_check']} of {r['photos']} photos read back "
              f"as {kind} {value} against the others")
        if r["photos"] < 3:
            print(f"    teach more photos of {kind} {value} (about five): the threshold is "
                  "surer with more")
        for photo in r["unlike"]:
            print(f"    {photo} does not look like the other photos of {kind} {value}: "
                  "retake it (die flat, face up, in focus), or --forget the face and teach "
                  "it again")
    return 0
