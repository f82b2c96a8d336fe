"""Tray calibration with four ArUco markers: image pixels <-> tray millimetres, and "up".

The printed sheet (calibration/README.md) has four ArUco 4x4_50 markers, ids 0-3, each
MARKER_MM wide (`marker_mm` for a print off scale, its tile to the same scale) and centred
on a TILE_MM square tile. Cut the tiles out and push them into the
tray's corners: 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left. The edge from 0 to 1
is the tray's "up" edge (bearings are clockwise from it, RULES.md SCAT-2) unless the profile
says another edge is up.

    profile = calibrate_image(image)                   # finds the markers, or raises
    profile.save("tray.json"); profile = load_profile("tray.json")
    profile = profile.for_image(width, height)         # frames of another size, same camera
    x_mm, y_mm = profile.to_mm(x_px, y_px)             # a die's centre on the tray
    bearing = profile.bearing_to_tray(image_bearing_deg, x_px, y_px)

How: the marker centres fix a homography up to the tray's size; the markers' known width
then gives the size in mm; all 16 marker corners give the final floor homography. Die tops
stand above the floor, so a camera that is not infinitely far sees them displaced outward;
the profile also keeps a camera pose (solvePnP on the 16 corners, with a focal length from
the camera's field of view, `DEFAULT_HFOV_DEG` unless given) and maps a pixel to the tray by
intersecting its viewing ray with the plane at the point's height above the floor.
Works with OpenCV 4.x (old `cv2.aruco.detectMarkers` and 4.7+'s `ArucoDetector`) and 5.x,
whose marker corner and id arrays come in different shapes.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from station.vision.constants import DEFAULT_DIE_MM, DEFAULT_HFOV_DEG, UP_EDGES
from station.vision.crops import unsharp

MARKER_DICT = "DICT_4X4_50"
MARKER_IDS = (0, 1, 2, 3)      # top-left, top-right, bottom-right, bottom-left
MARKER_MM = 30.0               # black square side, as printed
TILE_MM = 40.0                 # the white tile each marker sits on, pushed into a corner
PROFILE_VERSION = 1
CORNER_NAMES = {0: "top-left", 1: "top-right", 2: "bottom-right", 3: "bottom-left"}
# A right layout fits its 16 corners to well under a pixel (0.04-0.44 px on rendered trays);
# tiles in the wrong corners or not flat fit far worse (100 px for a left-right swap).
MAX_FIT_SHARE = 0.10           # refused above this share of a marker's side in pixels
MARKER_SHARPEN = (1.0, 3.0)    # markers not all found: looked for again through this unsharp
                               # mask (amount, Gaussian sigma in pixels at 1280 px): a camera
                               # out of focus blurs them past the detector. Development trays
                               # blurred 1.2-2.0 px (at 1280 wide): 17 of 150 missed a marker,
                               # none with it; sharp trays miss none either way (sixty-eighth
                               # session, docs/calibration.md)


class CalibrationError(ValueError):
    """The image or profile cannot calibrate the tray: the message says what to do."""


def tile_mm(marker_mm: float = MARKER_MM) -> float:
    """The tile's side for markers printed `marker_mm` wide: a print scale scales both."""
    return TILE_MM * marker_mm / MARKER_MM


def marker_corners_mm(tray_mm: tuple[float, float],
                      marker_mm: float = MARKER_MM) -> dict[int, np.ndarray]:
    """Each marker's corners (TL, TR, BR, BL) in tray mm when its tile sits in its corner."""
    w, h = tray_mm
    tile = tile_mm(marker_mm)
    inset = (tile - marker_mm) / 2
    origins = {0: (inset, inset), 1: (w - tile + inset, inset),
               2: (w - tile + inset, h - tile + inset), 3: (inset, h - tile + inset)}
    return {i: np.array([(x, y), (x + marker_mm, y), (x + marker_mm, y + marker_mm),
                         (x, y + marker_mm)], float) for i, (x, y) in origins.items()}


def marker_dictionary():
    name = getattr(cv2.aruco, MARKER_DICT)
    if hasattr(cv2.aruco, "getPredefinedDictionary"):
        return cv2.aruco.getPredefinedDictionary(name)
    return cv2.aruco.Dictionary_get(name)   # OpenCV < 4.7


def marker_image(marker_id: int, pixels: int) -> np.ndarray:
    """The marker as a square uint8 image (black on white, no quiet zone)."""
    dictionary = marker_dictionary()
    if hasattr(cv2.aruco, "generateImageMarker"):
        return cv2.aruco.generateImageMarker(dictionary, marker_id, pixels)
    return cv2.aruco.drawMarker(dictionary, marker_id, pixels)   # OpenCV < 4.7


# AprilTag's edge fit places corners without the inward pull that corner refinement on blurred
# squares has (a few tenths of a pixel: about 1 % of the tray's size); SUBPIX where missing.
_REFINE = getattr(cv2.aruco, "CORNER_REFINE_APRILTAG", cv2.aruco.CORNER_REFINE_SUBPIX)


def detect_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """Marker id -> its 4 corners (TL, TR, BR, BL) in pixels, for every marker found.

    Handles both detector APIs and both return layouts: corners as (1, 4, 2) arrays
    (OpenCV 4.x) or (4, 2); ids as (N, 1) (4.x) or (N,) (5.x) or None when nothing is found.
    """
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    dictionary = marker_dictionary()
    if hasattr(cv2.aruco, "ArucoDetector"):
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = _REFINE
        corners, ids, _ = cv2.aruco.ArucoDetector(dictionary, params).detectMarkers(grey)[:3]
    else:
        params = cv2.aruco.DetectorParameters_create()
        params.cornerRefinementMethod = _REFINE
        corners, ids, _ = cv2.aruco.detectMarkers(grey, dictionary, parameters=params)
    if ids is None or len(corners) == 0:
        return {}
    found: dict[int, np.ndarray] = {}
    for marker_corners, marker_id in zip(corners, np.asarray(ids).reshape(-1)):
        found.setdefault(int(marker_id), np.asarray(marker_corners, float).reshape(4, 2))
    return found


# A step edge blurred by a Gaussian of sigma s rises from 10 % to 90 % over 2.563 s.
_RISE_PER_SIGMA = 2.563


def marker_edge_blur(image: np.ndarray, markers_px: dict[int, list]) -> float | None:
    """How soft the frame is: the Gaussian sigma, in pixels, that the markers' outer edges
    (black marker on its white tile) are blurred by, from their 10-90 % rise at seven places
    along each side (median; pixel sampling alone gives about 0.3). None when no edge shows
    enough contrast to measure (a dark or glared sheet)."""
    grey = (image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    grey = grey.astype(np.float32)
    rises = []
    for corners in markers_px.values():
        corners = np.asarray(corners, float)
        for k in range(4):
            start, end = corners[k], corners[(k + 1) % 4]
            side = float(np.linalg.norm(end - start))
            if side < 8:
                continue
            along = (end - start) / side
            outward = np.array([along[1], -along[0]])
            if np.dot(outward, (start + end) / 2 - corners.mean(axis=0)) < 0:
                outward = -outward
            # Across the edge, from inside the marker's black border (a sixth of its side)
            # to its white tile (a sixth of the side round it).
            steps = np.arange(-0.15 * side, 0.15 * side + 1e-9, 0.25)
            for t in np.linspace(0.25, 0.75, 7):
                points = (start + t * (end - start))[None, :] + steps[:, None] * outward
                profile = cv2.remap(grey, points[:, 0].astype(np.float32)[None, :],
                                    points[:, 1].astype(np.float32)[None, :],
                                    cv2.INTER_LINEAR).ravel()
                plateau = max(2, len(profile) // 5)
                dark, light = profile[:plateau].mean(), profile[-plateau:].mean()
                if light - dark < 40:
                    continue
                level = (profile - dark) / (light - dark)
                low, high = np.nonzero(level >= 0.1)[0], np.nonzero(level >= 0.9)[0]
                if len(low) and len(high):
                    rises.append(steps[high[0]] - steps[low[0]])
    return float(np.median(rises)) / _RISE_PER_SIGMA if rises else None


def _up_transform(up_edge: str, size_mm: tuple[float, float]
                  ) -> tuple[np.ndarray, tuple[float, float]]:
    """Sheet mm -> tray mm when `up_edge` of the sheet layout is the tray's up edge."""
    w, h = size_mm
    if up_edge == "top":
        return np.eye(3), (w, h)
    if up_edge == "right":
        return np.array([[0, 1, 0], [-1, 0, w], [0, 0, 1]], float), (h, w)
    if up_edge == "bottom":
        return np.array([[-1, 0, w], [0, -1, h], [0, 0, 1]], float), (w, h)
    if up_edge == "left":
        return np.array([[0, -1, h], [1, 0, 0], [0, 0, 1]], float), (h, w)
    raise CalibrationError(f"unknown up edge {up_edge!r}: use one of {', '.join(UP_EDGES)}")


@dataclass
class TrayCalibration:
    """A calibrated tray: see the module docstring. All lengths in mm, angles in degrees."""

    image_size: tuple[int, int]        # (width, height) of the calibration image
    tray_mm: tuple[float, float]       # tray floor (width, height), in the up-edge frame
    up_edge: str
    to_tray: np.ndarray                # 3x3 homography: image px -> tray mm on the floor
    camera_matrix: np.ndarray
    rvec: np.ndarray                   # sheet frame -> camera (solvePnP)
    tvec: np.ndarray
    sheet_to_tray: np.ndarray          # 3x3: sheet layout mm -> tray mm (the up edge)
    hfov_deg: float = DEFAULT_HFOV_DEG
    die_mm: float = DEFAULT_DIE_MM
    reprojection_px: float = 0.0
    markers_px: dict[int, list] = field(default_factory=dict)
    marker_mm: float = MARKER_MM       # the printed markers' side (`--marker-mm`)

    # ------------------------------------------------------------ pixels -> tray

    def to_mm(self, x: float, y: float, height_mm: float | None = None) -> tuple[float, float]:
        """The tray position (mm) seen at pixel (x, y) on a point `height_mm` above the floor.

        height_mm: default half a die (the die's centre, where a die's outline centre
        lies); pass the die's height for a top-face centre, 0 for things on the floor.
        """
        height = self.die_mm / 2 if height_mm is None else float(height_mm)
        if height == 0:
            p = self.to_tray @ np.array([x, y, 1.0])
            return float(p[0] / p[2]), float(p[1] / p[2])
        R, _ = cv2.Rodrigues(self.rvec)
        centre = -R.T @ self.tvec.reshape(3)
        ray = R.T @ np.linalg.solve(self.camera_matrix, np.array([x, y, 1.0]))
        if abs(ray[2]) < 1e-9:
            raise CalibrationError("that pixel looks parallel to the tray: recalibrate")
        s = (-height - centre[2]) / ray[2]
        sheet = centre + s * ray
        p = self.sheet_to_tray @ np.array([sheet[0], sheet[1], 1.0])
        return float(p[0]), float(p[1])

    def bearing_to_tray(self, bearing_deg: float, x: float, y: float,
                        height_mm: float | None = None) -> float:
        """An image bearing at pixel (x, y) as a tray bearing (clockwise from the up edge)."""
        step = 4.0
        a = math.radians(bearing_deg)
        p0 = np.array(self.to_mm(x, y, height_mm))
        p1 = np.array(self.to_mm(x + step * math.sin(a), y - step * math.cos(a), height_mm))
        d = p1 - p0
        return math.degrees(math.atan2(d[0], -d[1])) % 360.0

    def die_side_px(self, steps: int = 5) -> tuple[float, float]:
        """The smallest and the largest side, in pixels, of a die's top face (`die_mm` up,
        square to the tray) over the tray floor, a die or more from the walls: how large the
        reader sees the dice, which decides how surely it reads a numeral or a word
        (`station calibrate tray` tells a build; docs/calibration.md)."""
        back = np.linalg.inv(self.sheet_to_tray)
        (w, h), d = self.tray_mm, self.die_mm
        square = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], float) * d / 2
        sides = []
        for u in np.linspace(d, w - d, steps):
            for v in np.linspace(d, h - d, steps):
                sheet = cv2.perspectiveTransform((square + (u, v)).reshape(1, -1, 2), back)[0]
                top = np.column_stack([sheet, np.full(4, -d)])     # the sheet's z points down
                px, _ = cv2.projectPoints(top, self.rvec, self.tvec, self.camera_matrix, None)
                px = px.reshape(4, 2)
                sides.append(np.mean(np.hypot(*(px - np.roll(px, -1, axis=0)).T)))
        return float(min(sides)), float(max(sides))

    def on_marker(self, x: float, y: float) -> bool:
        """Whether pixel (x, y) falls on one of the marker tiles (not a die: skip it)."""
        return any(x0 <= x <= x1 and y0 <= y <= y1
                   and cv2.pointPolygonTest(tile, (float(x), float(y)), False) >= 0
                   for tile, (x0, y0, x1, y1) in self._tiles)

    @functools.cached_property
    def _tiles(self) -> list[tuple[np.ndarray, tuple[float, float, float, float]]]:
        """Each marker's tile in pixels and its bounding box (the reader asks about every
        candidate of a frame, a few hundred)."""
        tiles = []
        for corners in self.markers_px.values():
            c = np.asarray(corners, float)
            centre = c.mean(axis=0)
            tile = (centre + (c - centre) * (TILE_MM / MARKER_MM)).astype(np.float32)
            tiles.append((tile, (*tile.min(axis=0), *tile.max(axis=0))))
        return tiles

    def for_image(self, width: int, height: int) -> TrayCalibration:
        """This profile for frames of another size from the same camera (same aspect)."""
        w0, h0 = self.image_size
        if (width, height) == (w0, h0):
            return self
        if abs(width / height - w0 / h0) > 0.01:
            raise CalibrationError(
                f"the profile was made on {w0}x{h0} frames and this one is {width}x{height}: "
                "calibrate again at this resolution (`station calibrate tray IMAGE`)")
        k = width / w0
        scale = np.diag([k, k, 1.0])
        return TrayCalibration(
            image_size=(width, height), tray_mm=self.tray_mm, up_edge=self.up_edge,
            to_tray=self.to_tray @ np.linalg.inv(scale), camera_matrix=scale @ self.camera_matrix,
            rvec=self.rvec, tvec=self.tvec, sheet_to_tray=self.sheet_to_tray,
            hfov_deg=self.hfov_deg, die_mm=self.die_mm, reprojection_px=self.reprojection_px * k,
            markers_px={i: (np.asarray(c) * k).tolist() for i, c in self.markers_px.items()},
            marker_mm=self.marker_mm)

    def markers_in_place(self, image: np.ndarray, whole_frame: bool = False) -> bool | None:
        """Are the tray's markers still where this profile saw them? True when one is found at
        its place; False when markers are found there but none is its own (the camera was
        turned or moved: every bearing and millimetre would be wrong); None when none can be
        seen (covered by hands or dice, dark). Looks only round the four places: a few ms.
        whole_frame: when none is seen there, look in the whole frame too (0.15 s at
        1280x960): a camera turned or moved further leaves none near its place."""
        height, width = image.shape[:2]
        here = self.for_image(width, height)
        places = {i: np.asarray(c, float) for i, c in here.markers_px.items()}
        seen = False
        for corners in places.values():
            side = float(np.ptp(corners, axis=0).max())
            x0, y0 = np.maximum(corners.min(axis=0) - side, 0).astype(int)
            x1, y1 = np.minimum(corners.max(axis=0) + side, (width, height)).astype(int)
            verdict = _found_in_place(image, places, (x0, y0, x1, y1))
            if verdict:
                return True
            seen = seen or verdict is False
        if not seen and whole_frame:
            return _found_in_place(image, places, (0, 0, width, height))
        return False if seen else None

    # ------------------------------------------------------------ files

    def to_json(self) -> dict:
        return {
            "version": PROFILE_VERSION,
            "image_size": list(self.image_size),
            "tray_mm": [round(v, 2) for v in self.tray_mm],
            "up_edge": self.up_edge,
            "die_mm": self.die_mm,
            "marker_mm": self.marker_mm,
            "hfov_deg": self.hfov_deg,
            "reprojection_px": round(self.reprojection_px, 3),
            "pixels_to_tray_mm": self.to_tray.tolist(),
            "sheet_to_tray_mm": self.sheet_to_tray.tolist(),
            "camera": {"matrix": self.camera_matrix.tolist(),
                       "rvec": self.rvec.reshape(3).tolist(),
                       "tvec": self.tvec.reshape(3).tolist()},
            "markers_px": {str(i): np.asarray(c).round(2).tolist()
                           for i, c in self.markers_px.items()},
        }

    @classmethod
    def from_json(cls, data: dict) -> TrayCalibration:
        """The profile `to_json` wrote; raises CalibrationError naming the field that is
        missing or wrong (a hand-edited or damaged file would fail later, at every roll)."""
        if not isinstance(data, dict):
            raise CalibrationError(f"not a tray calibration profile (it holds {_shown(data)}, "
                                   f"not a JSON object): {_AGAIN}")
        if data.get("version") != PROFILE_VERSION:
            raise CalibrationError(f"profile version {data.get('version')!r} is not "
                                   f"{PROFILE_VERSION}: {_AGAIN}")
        camera = data.get("camera")
        if not isinstance(camera, dict):
            raise CalibrationError(f"the profile's camera is {_shown(camera)}, not a JSON object "
                                   f"with matrix, rvec and tvec: {_AGAIN}")
        matrix = _invertible(camera, "matrix", "camera.")
        if not (matrix[0, 0] > 0 and matrix[1, 1] > 0):
            raise CalibrationError(f"the profile's camera.matrix {_shown(matrix.tolist())} has "
                                   f"no focal length above 0: {_AGAIN}")
        markers = data.get("markers_px", {})
        if not isinstance(markers, dict) or not all(str(k).isdigit() for k in markers):
            raise CalibrationError(f"the profile's markers_px is {_shown(markers)}, not marker ids "
                                   f"with their corners: {_AGAIN}")
        up_edge = data.get("up_edge")
        if up_edge not in UP_EDGES:
            raise CalibrationError(f"the profile's up_edge is {_shown(up_edge)}, not one of "
                                   f"{', '.join(UP_EDGES)}: {_AGAIN}")
        return cls(
            image_size=tuple(int(v) for v in _numbers(data, "image_size", (2,),
                                                       "[width, height] in pixels", above=0)),
            tray_mm=tuple(float(v) for v in _numbers(data, "tray_mm", (2,),
                                                      "[width, height] in mm", above=0)),
            up_edge=up_edge,
            to_tray=_invertible(data, "pixels_to_tray_mm"),
            camera_matrix=matrix,
            rvec=_numbers(camera, "rvec", (3, 1), "3 numbers", "camera."),
            tvec=_numbers(camera, "tvec", (3, 1), "3 numbers", "camera."),
            sheet_to_tray=_invertible(data, "sheet_to_tray_mm"),
            hfov_deg=float(_numbers(data, "hfov_deg", (), "degrees", above=0,
                                    default=DEFAULT_HFOV_DEG)),
            die_mm=float(_numbers(data, "die_mm", (), "mm", above=0, default=DEFAULT_DIE_MM)),
            # Profiles written before --marker-mm have none: their markers were MARKER_MM.
            marker_mm=float(_numbers(data, "marker_mm", (), "mm", above=0, default=MARKER_MM)),
            reprojection_px=float(_numbers(data, "reprojection_px", (), "pixels", default=0.0)),
            markers_px={int(k): _numbers(markers, k, (4, 2), "four [x, y] corners",
                                         "markers_px.").tolist() for k in markers})

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as out:
            json.dump(self.to_json(), out, indent=2)
            out.write("\n")

    @classmethod
    def load(cls, path: str) -> TrayCalibration:
        try:
            with open(path, encoding="utf-8") as source:
                data = json.load(source)
        except OSError as error:
            raise CalibrationError(f"cannot read calibration profile {path}: "
                                   f"{error.strerror or error}") from error
        except json.JSONDecodeError as error:
            raise CalibrationError(f"{path} is not JSON ({error}): give a profile written "
                                   "by `station calibrate tray`") from error
        return cls.from_json(data)


_AGAIN = "calibrate again with `station calibrate tray IMAGE`"


def _found_in_place(image: np.ndarray, places: dict[int, np.ndarray],
                    box: tuple[int, int, int, int]) -> bool | None:
    """The tray's markers found in `box` (x0, y0, x1, y1) of the image: True when one lies at
    its place in `places` (within a fifth of its side), False when only elsewhere, None when
    none is found."""
    x0, y0, x1, y1 = box
    found = {i: c + (x0, y0) for i, c in detect_markers(image[y0:y1, x0:x1]).items()
             if i in places}
    if not found:
        return None
    return any(np.abs(c - places[i]).max() < np.ptp(places[i], axis=0).max() / 5
               for i, c in found.items())


def _shown(value) -> str:
    """A profile's value as the file has it, cut short."""
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _numbers(table: dict, key: str, shape: tuple[int, ...], what: str, prefix: str = "",
             above: float | None = None, default: float | None = None) -> np.ndarray:
    """table[key] as finite numbers of `shape` (all above `above`), or a CalibrationError
    naming the field."""
    if key not in table and default is None:
        raise CalibrationError(f"the profile has no {prefix}{key}: {_AGAIN}")
    value = table.get(key, default)
    try:
        array = np.array(value, float)
    except (TypeError, ValueError):        # not numbers, or rows of different lengths
        array = np.array([])
    if array.size != math.prod(shape) or not np.isfinite(array).all() \
            or (above is not None and (array <= above).any()):
        more = f" above {above:g}" if above is not None else ""
        raise CalibrationError(f"the profile's {prefix}{key} is {_shown(value)}, not {what}{more}: "
                               f"{_AGAIN}")
    return array.reshape(shape)


def _invertible(table: dict, key: str, prefix: str = "") -> np.ndarray:
    """A 3x3 matrix of the profile that has an inverse (pixels <-> mm both ways need it)."""
    matrix = _numbers(table, key, (3, 3), "a 3x3 matrix", prefix)
    if np.linalg.matrix_rank(matrix) < 3:
        raise CalibrationError(f"the profile's {prefix}{key} {_shown(matrix.tolist())} has no "
                               f"inverse: {_AGAIN}")
    return matrix


_PLACE_TILES = ("put tile 0 in the tray's top-left corner, 1 top-right, 2 bottom-right and "
                "3 bottom-left (calibration/README.md)")


def _check_order(found: dict[int, np.ndarray]) -> None:
    """Refuse marker centres 0 -> 1 -> 2 -> 3 that do not go clockwise round a convex
    quadrilateral (as seen from above, image y down): tiles swapped between corners, which
    would otherwise give a tray of the wrong size or dice off by centimetres."""
    centres = np.array([found[i].mean(axis=0) for i in MARKER_IDS])
    edges = np.roll(centres, -1, axis=0) - centres
    turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] \
        - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    if (turns <= 0).any():
        where = ", ".join(f"{i} at ({c[0]:.0f}, {c[1]:.0f})" for i, c in zip(MARKER_IDS, centres))
        raise CalibrationError(
            f"the markers are not in their corners (found {where} px; going 0, 1, 2, 3 they "
            f"must run clockwise round the tray): {_PLACE_TILES}, then try again")


def _refuse_a_mirror(image: np.ndarray, found: int) -> None:
    """ArUco markers are not found in a mirror image: when more of them are found in the photo
    flipped left-right than in the photo, the camera mirrors (some webcams, phones' front
    cameras). Calibrating the photo flipped back would leave the station reading mirrored
    frames, every scatter bearing backwards: the camera must stop mirroring."""
    flipped = detect_markers(np.ascontiguousarray(image[:, ::-1]))
    seen = [str(i) for i in MARKER_IDS if i in flipped]
    if len(seen) > found:
        raise CalibrationError(
            f"the photo looks mirrored: marker{'s' if len(seen) > 1 else ''} "
            f"{', '.join(seen)} {'are' if len(seen) > 1 else 'is'} found only in its mirror "
            "image. Turn off mirroring in the "
            "camera or the app that took the photo (a webcam's mirror setting, or "
            "`v4l2-ctl -c horizontal_flip=0`; a phone's front camera mirrors: use the back "
            "one), then take the photo again; flipping the photo back would not do, the "
            "station's frames would still be mirrored")


def _layout_frame(found: dict[int, np.ndarray]) -> np.ndarray:
    """Homography from pixels to the unit square through the four marker centres."""
    centres = np.array([found[i].mean(axis=0) for i in MARKER_IDS])
    unit = np.array([(0, 0), (1, 0), (1, 1), (0, 1)], float)
    return cv2.getPerspectiveTransform(centres.astype(np.float32), unit.astype(np.float32))


def _square_up(found: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """Each marker's corners reordered TL, TR, BR, BL in the tray's frame, so that a tile
    put down turned by a quarter still counts."""
    H = _layout_frame(found)
    out = {}
    for i, corners in found.items():
        c = cv2.perspectiveTransform(corners.reshape(1, 4, 2), H)[0]
        first = int(np.argmin(c[:, 0] + c[:, 1]))
        out[i] = np.roll(corners, -first, axis=0)
    return out


def _tray_size(found: dict[int, np.ndarray], marker_mm: float) -> tuple[float, float]:
    """The tray's floor size from where the four markers sit and how wide they look."""
    H = _layout_frame(found)
    widths, heights = [], []
    for i in MARKER_IDS:
        c = cv2.perspectiveTransform(found[i].reshape(1, 4, 2), H)[0]
        widths += [np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[3])]
        heights += [np.linalg.norm(c[3] - c[0]), np.linalg.norm(c[2] - c[1])]
    # Between marker centres lie (size - tile) mm; a marker spans marker_mm of it.
    w = tile_mm(marker_mm) + marker_mm / float(np.mean(widths))
    h = tile_mm(marker_mm) + marker_mm / float(np.mean(heights))
    return w, h


def calibrate_image(image: np.ndarray, up_edge: str = "top",
                    hfov_deg: float = DEFAULT_HFOV_DEG,
                    die_mm: float = DEFAULT_DIE_MM,
                    marker_mm: float = MARKER_MM) -> TrayCalibration:
    """Find the four markers in a BGR (or grey) tray image and build its profile.

    marker_mm: the printed markers' black square, measured (a print scaled to 97 % has
    29.1 mm markers on 38.8 mm tiles; the default is the sheet's true size)."""
    if image is None or image.ndim not in (2, 3) or min(image.shape[:2]) < 32:
        raise CalibrationError("calibration needs a tray image (BGR or grey, at least 32 px)")
    if not 10 <= hfov_deg <= 170:
        raise CalibrationError(f"field of view {hfov_deg} degrees is not plausible: give the "
                               "camera's horizontal field of view, 10-170 degrees")
    if not (math.isfinite(marker_mm) and 0.5 * MARKER_MM <= marker_mm <= 1.5 * MARKER_MM):
        raise CalibrationError(
            f"marker side {marker_mm} mm is not a print of the {MARKER_MM:g} mm markers: "
            f"measure a printed marker's black square and give it in mm, "
            f"{0.5 * MARKER_MM:g}-{1.5 * MARKER_MM:g} (or print the sheet again at 100 %)")
    found = detect_markers(image)
    if any(i not in found for i in MARKER_IDS):
        amount, sigma = MARKER_SHARPEN
        sharpened = detect_markers(unsharp(image, amount, sigma * max(image.shape[:2]) / 1280))
        # all four from one frame: the corners of blurred markers sit a little out, those of
        # sharpened ones less (centres 0.9-1.9 mm off against 1.6-2.6 mixed, on trays
        # blurred 2.85 px)
        found = sharpened if all(i in sharpened for i in MARKER_IDS) else {**sharpened, **found}
    missing = [i for i in MARKER_IDS if i not in found]
    if missing:
        _refuse_a_mirror(image, len(MARKER_IDS) - len(missing))
        raise CalibrationError(
            "tray markers not found: " + ", ".join(f"{i} ({CORNER_NAMES[i]})" for i in missing)
            + ". Put the four printed markers (calibration/markers.pdf) in the tray's corners, "
            "flat, fully in view, in focus and lit without glare, then try again")
    _check_order(found)
    found = _square_up({i: found[i] for i in MARKER_IDS})
    sheet_mm = _tray_size(found, marker_mm)
    layout = marker_corners_mm(sheet_mm, marker_mm)
    image_pts = np.concatenate([found[i] for i in MARKER_IDS])
    sheet_pts = np.concatenate([layout[i] for i in MARKER_IDS])
    px_to_sheet, _ = cv2.findHomography(image_pts, sheet_pts, 0)
    if px_to_sheet is None:
        raise CalibrationError("the markers' corners do not make a plane: check that the "
                               "sheet lies flat and the markers are in the right corners")
    back = cv2.perspectiveTransform(sheet_pts.reshape(1, -1, 2),
                                    np.linalg.inv(px_to_sheet))[0]
    reprojection = float(np.sqrt(((back - image_pts) ** 2).sum(axis=1).mean()))
    side_px = float(np.mean([np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1).mean()
                             for c in found.values()]))
    if reprojection > MAX_FIT_SHARE * side_px:
        # The corners do not lie where four tiles in the tray's corners would put them: a
        # profile from them measures the tray and the dice wrong by centimetres.
        raise CalibrationError(
            f"the markers fit the tray layout to {reprojection:.1f} px, more than "
            f"{100 * MAX_FIT_SHARE:.0f} % of their {side_px:.0f} px side: {_PLACE_TILES}, "
            "each flat on the floor and pushed right into its corner, then try again")
    h_img, w_img = image.shape[:2]
    f = (w_img / 2) / math.tan(math.radians(hfov_deg) / 2)
    K = np.array([[f, 0, w_img / 2], [0, f, h_img / 2], [0, 0, 1]])
    object_pts = np.column_stack([sheet_pts, np.zeros(len(sheet_pts))])
    ok, rvec, tvec = cv2.solvePnP(object_pts, image_pts, K, None,
                                  flags=cv2.SOLVEPNP_ITERATIVE)
    if not ok:
        raise CalibrationError("could not place the camera from the markers: recalibrate "
                               "with the whole tray in view")
    sheet_to_tray, tray_mm = _up_transform(up_edge, sheet_mm)
    return TrayCalibration(
        image_size=(w_img, h_img), tray_mm=tray_mm, up_edge=up_edge,
        to_tray=sheet_to_tray @ px_to_sheet, camera_matrix=K, rvec=rvec, tvec=tvec,
        sheet_to_tray=sheet_to_tray, hfov_deg=hfov_deg, die_mm=die_mm,
        reprojection_px=reprojection, markers_px={i: found[i].tolist() for i in MARKER_IDS},
        marker_mm=marker_mm)


def moved_warning(profile: str) -> str:
    """What to say when `markers_in_place` is False, naming the profile as the user knows it."""
    return (f"the tray's markers are not where {profile} saw them (camera moved or turned?): "
            "bearings and mm are wrong; calibrate again")


def load_profile(path: str) -> TrayCalibration:
    """The profile saved by `station calibrate tray` (raises CalibrationError, a ValueError)."""
    return TrayCalibration.load(path)
