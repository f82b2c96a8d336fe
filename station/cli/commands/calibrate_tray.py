"""`station calibrate tray IMAGE`: find the four ArUco markers and save the tray's profile."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING

from station.cli import UsageError
from station.cli.commands.read import load_image
from station.cli.inputs import output_file, write_output
from station.vision.constants import (DEFAULT_DIE_MM, DEFAULT_HFOV_DEG, SMALL_DIE_PX,
                                      SOFT_SHARE, UP_EDGES)

if TYPE_CHECKING:
    import numpy as np

    from station.vision.calibration import TrayCalibration

# cv2, numpy and the calibration are imported inside the functions that use them: they take
# about 0.2 s to load, which building the parser (`station resolve`, `station --help`) should
# not pay.

PREVIEW_TYPES = (".png", ".jpg", ".jpeg")
DEFAULT_PROFILE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "calibration",
                               "profiles", "tray.json")


def register(registry) -> None:
    parser = registry.command(
        "calibrate tray", "measure the tray from a photo of its four corner markers",
        calibrate_tray,
        description="Find the four ArUco markers of the printed sheet (calibration/README.md) "
                    "in a photo of the tray, compute the tray's size in millimetres and the "
                    "pixel-to-tray mapping, and save them as a profile for "
                    "`station read --calibration PROFILE`.")
    parser.add_argument("image", help="photo of the empty tray with the markers in its corners")
    parser.add_argument("--out", default=os.path.normpath(DEFAULT_PROFILE),
                        help="profile file to write (JSON; default: %(default)s)")
    parser.add_argument("--up", choices=UP_EDGES, default="top",
                        help="which edge of the marker layout is the tray's up edge "
                             "(bearings are measured clockwise from it; default: the edge "
                             "from marker 0 to marker 1)")
    parser.add_argument("--hfov", type=float, default=DEFAULT_HFOV_DEG,
                        help="camera's horizontal field of view in degrees, for the height "
                             "correction of die tops (default: %(default)s, Pi Camera v2)")
    parser.add_argument("--die-mm", type=float, default=DEFAULT_DIE_MM,
                        help="side of the dice in mm (default: %(default)s)")
    # Default None, not calibration.MARKER_MM: importing it would load cv2 (above).
    parser.add_argument("--marker-mm", type=float, metavar="MM",
                        help="side of the printed markers' black squares as measured, when the "
                             "sheet was not printed true size (default: 30, the sheet's)")
    parser.add_argument("--preview", metavar="PNG",
                        help="also write the photo with the markers and a 50 mm tray grid "
                             "(.png or .jpg)")
    parser.add_argument("--json", action="store_true", help="print the profile as JSON")


def calibrate_tray(args) -> int:
    import cv2

    from station.vision.calibration import (MARKER_MM, CalibrationError, calibrate_image,
                                            marker_edge_blur)

    # Checked before the work, so that a bad name does not fail after the profile is saved.
    preview_path = output_file(args.preview, "--preview", PREVIEW_TYPES) if args.preview else None
    image, problem = load_image(args.image)
    if image is None:
        raise UsageError(f"cannot read image {args.image}: {problem}; give a JPEG or PNG photo "
                         "of the tray")
    if not 1 <= args.die_mm <= 100:
        raise UsageError(f"--die-mm {args.die_mm} is not a die size: give the side in mm")
    try:
        profile = calibrate_image(image, up_edge=args.up, hfov_deg=args.hfov,
                                  die_mm=args.die_mm,
                                  marker_mm=MARKER_MM if args.marker_mm is None
                                  else args.marker_mm)
    except CalibrationError as error:
        raise UsageError(str(error)) from error
    folder = os.path.dirname(os.path.abspath(args.out))
    try:
        os.makedirs(folder, exist_ok=True)
        profile.save(args.out)
    except OSError as error:
        raise UsageError(f"cannot write {args.out}: {error.strerror or error}; "
                         "choose another --out") from error
    if preview_path:
        ok, encoded = cv2.imencode(preview_path.suffix, preview(image, profile))
        if not ok:
            raise UsageError(f"OpenCV cannot encode the preview as {preview_path.suffix}: "
                             "give a .png --preview")
        write_output(preview_path, "--preview", encoded.tobytes())
    low, high = profile.die_side_px()
    blur = marker_edge_blur(image, profile.markers_px)
    if args.json:
        print(json.dumps(profile.to_json()))
    else:
        w, h = profile.tray_mm
        print(f"tray {w:.1f} x {h:.1f} mm, up edge: {profile.up_edge} of the marker layout; "
              f"markers ({profile.marker_mm:g} mm) fit to {profile.reprojection_px:.2f} px")
        print(f"dice of {profile.die_mm:g} mm: top faces {low:.0f}-{high:.0f} px wide in "
              f"these {image.shape[1]}x{image.shape[0]} frames")
        if blur is not None:
            print(f"focus: the markers' edges are blurred by {blur:.1f} px (sigma), "
                  f"{100 * blur / low:.1f} % of the smallest top face")
        print(f"profile written to {args.out}")
    if low < SMALL_DIE_PX:
        print(f"warning: dice as small as {low:.0f} px: from {SMALL_DIE_PX} px up the artillery "
              "die's faces are read right 99.4 % of the time, at 16-20 px 97.8 %, under 16 px 91 % "
              "(docs/calibration.md). Run the camera at a higher resolution or bring it closer, "
              "then calibrate again", file=sys.stderr)
    if blur is not None and blur > SOFT_SHARE * low:
        print(f"warning: the frame is soft: edges blurred by {blur:.1f} px (sigma), "
              f"{100 * blur / low:.1f} % of a {low:.0f} px top face; pips blur together from "
              f"{100 * SOFT_SHARE:.0f} % (docs/calibration.md). Focus the camera on the tray "
              "floor (or stop it down), then calibrate again", file=sys.stderr)
    return 0


def preview(image: np.ndarray, profile: TrayCalibration) -> np.ndarray:
    """The photo with the markers outlined and the tray's floor grid every 50 mm."""
    import cv2
    import numpy as np

    out = image.copy()
    to_px = np.linalg.inv(profile.to_tray)
    w, h = profile.tray_mm
    thick = max(1, image.shape[1] // 640)
    lines = [((x, 0), (x, h)) for x in np.arange(0, w + 0.1, 50)] + \
            [((0, y), (w, y)) for y in np.arange(0, h + 0.1, 50)]
    for a, b in lines:
        pts = cv2.perspectiveTransform(np.array([[a, b]], float), to_px)[0]
        cv2.line(out, tuple(map(int, pts[0])), tuple(map(int, pts[1])), (0, 200, 255), thick,
                 cv2.LINE_AA)
    up = cv2.perspectiveTransform(np.array([[(0, 0), (w, 0)]], float), to_px)[0]
    cv2.line(out, tuple(map(int, up[0])), tuple(map(int, up[1])), (0, 0, 255), 3 * thick,
             cv2.LINE_AA)
    for marker_id, corners in profile.markers_px.items():
        pts = np.round(np.asarray(corners)).astype(np.int32)
        cv2.polylines(out, [pts], True, (0, 255, 0), 2 * thick, cv2.LINE_AA)
        cv2.putText(out, str(marker_id), tuple(pts[0]), cv2.FONT_HERSHEY_SIMPLEX,
                    0.6 * thick, (0, 255, 0), thick, cv2.LINE_AA)
    return out
