"""Synthetic tray photos with exact ground truth: the fake camera and the readers' test data.

    from station.fakes.tray import render_roll, random_tray
    shot = render_roll([Face("d6", 4), Face("scatter", "arrow", 30.0)], rng, size=(1280, 960))
    shot.image    # BGR uint8, as a camera would give it (JPEG round-trip included)
    shot.truth    # one DieTruth per die: kind, value, box, center, bearing_deg, colour, flags

Each die is a real 3D cube (rounded-corner faces, bevelled edges) seen by a pinhole camera
with slight tilt, so side faces show as in real top-down photos; then shadows, glare, blur,
sensor noise and JPEG. Scatter bearings and die centres are projected from the 3D scene, so
the truth is exact, not estimated. Trays can carry ArUco markers at their corners
(`markers=True`) with the true floor homography for calibration tests; `render_sequence`
(in `station.fakes.tray_sequence`) films a roll for settle tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from station.fakes.tray_camera import Camera, make_camera, rot_y, rot_z
from station.fakes.tray_faces import (DIE_COLOURS, TEXTURE, FaceStyle, available_fonts,
                                      face_texture, random_arrow, random_small_arrow,
                                      random_style)
from station.rules.faces import ARTILLERY_FACES, Face
from station.vision.calibration import MARKER_MM, marker_corners_mm, marker_image, tile_mm

FLOOR_COLOURS = {  # BGR of tray floors seen in real photos and at clubs
    "cardboard": (168, 172, 172), "felt-green": (50, 95, 40), "felt-black": (38, 38, 40),
    "wood": (80, 120, 165), "white": (215, 218, 220), "felt-blue": (110, 60, 30),
}


@dataclass
class DieTruth:
    """What the renderer drew for one die.

    center: the top face's centre in image pixels. center_mm: the die's centre on the tray
    floor in tray mm. box: [x0, y0, x1, y1] in pixels, the whole die (top and sides).
    bearing_deg: scatter only, the arrow's direction in the image, degrees clockwise from
    image up; bearing_tray_deg: the same on the tray, clockwise from its up edge (SCAT-2).
    None on a HIT face without a small arrow.
    """

    kind: str
    value: int | str
    box: list[float]
    center: tuple[float, float]
    center_mm: tuple[float, float]
    colour: str
    flags: list[str] = field(default_factory=list)
    bearing_deg: float | None = None
    bearing_tray_deg: float | None = None
    font: str | None = None
    top_corners: np.ndarray | None = None  # 4x2 pixels: the top face's corners

    def face(self) -> Face:
        return Face(self.kind, self.value, self.bearing_tray_deg)


@dataclass
class RenderedTray:
    image: np.ndarray
    truth: list[DieTruth]
    camera: Camera
    tray_mm: tuple[float, float]
    homography: np.ndarray            # tray floor mm -> image pixels (exact)
    markers: dict[int, np.ndarray]    # marker id -> its 4 corners in pixels (TL, TR, BR, BL)
    die_mm: float = 16.0


@dataclass
class DiePose:
    """A die in the scene: its face, look and 3D pose (centre in tray mm, rotation)."""

    face: Face
    style: FaceStyle
    size: float
    centre: np.ndarray      # 3D centre in world mm
    R: np.ndarray           # local -> world rotation; local -z is the face shown on top
    arrow_deg: float = 0.0  # scatter: the arrow's angle on the face texture
    flags: list[str] = field(default_factory=list)
    glare: tuple[float, float, float] | None = None  # (u, v, strength) on the top face
    side_values: tuple = ()

    @classmethod
    def flat(cls, face, style, size, x, y, yaw, arrow_deg=0.0, flags=None, **kw):
        return cls(face, style, size, np.array([x, y, -size / 2]), rot_z(yaw), arrow_deg,
                   list(flags or []), **kw)

    def footprint(self) -> np.ndarray:
        """The die's outline on the floor (convex, tray mm), for overlap tests."""
        pts = self.vertices()[:, :2]
        return cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)

    def vertices(self) -> np.ndarray:
        h = self.size / 2
        corners = np.array([(x, y, z) for x in (-h, h) for y in (-h, h) for z in (-h, h)])
        return corners @ self.R.T + self.centre


# (normal, u axis, v axis) of each cube face in the die's own frame; texture row 0 is -v.
_CUBE_FACES = [
    ((0, 0, -1), (1, 0, 0), (0, 1, 0)),   # top
    ((0, 0, 1), (1, 0, 0), (0, -1, 0)),   # bottom
    ((0, -1, 0), (1, 0, 0), (0, 0, 1)),
    ((0, 1, 0), (-1, 0, 0), (0, 0, 1)),
    ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    ((-1, 0, 0), (0, -1, 0), (0, 0, 1)),
]
_LIGHT = np.array([-0.35, -0.45, -1.0]) / np.linalg.norm([-0.35, -0.45, -1.0])


def _face_corners(pose: DiePose, index: int) -> np.ndarray:
    n, u, v = (np.array(a, float) for a in _CUBE_FACES[index])
    h = pose.size / 2
    local = [n * h + (a - 0.5) * pose.size * u + (b - 0.5) * pose.size * v
             for a, b in ((0, 0), (1, 0), (1, 1), (0, 1))]
    return np.array(local) @ pose.R.T + pose.centre


def _local_to_world_dir(pose: DiePose, local: np.ndarray) -> np.ndarray:
    return pose.R @ local


def bearing_of(vec: np.ndarray) -> float:
    """Degrees clockwise from up (-y) of a 2D vector in image or tray axes, in [0, 360)."""
    return math.degrees(math.atan2(vec[0], -vec[1])) % 360.0


def _arrow_anchor_and_dir(pose: DiePose) -> tuple[np.ndarray, np.ndarray] | None:
    """The scatter arrow's centre and direction in world coordinates (None: no arrow)."""
    if pose.face.kind != "scatter" or (pose.face.value == "hit" and not pose.style.hit_arrow):
        return None
    a = math.radians(pose.arrow_deg)
    direction = np.array([math.sin(a), -math.cos(a), 0.0])
    offset = np.array([0.0, 0.28 * pose.size if pose.face.value == "hit" else 0.0,
                       -pose.size / 2])
    return pose.R @ offset + pose.centre, pose.R @ direction


def die_truth(pose: DiePose, camera: Camera) -> DieTruth:
    verts = camera.project(pose.vertices())
    top = camera.project(_face_corners(pose, 0))
    center = top.mean(axis=0)
    truth = DieTruth(
        kind=pose.face.kind, value=pose.face.value,
        box=[float(verts[:, 0].min()), float(verts[:, 1].min()),
             float(verts[:, 0].max()), float(verts[:, 1].max())],
        center=(float(center[0]), float(center[1])),
        center_mm=(float(pose.centre[0]), float(pose.centre[1])),
        colour=pose.style.colour, flags=list(pose.flags),
        font=pose.style.font if pose.face.kind == "artillery" else None, top_corners=top)
    arrow = _arrow_anchor_and_dir(pose)
    if arrow is not None:
        anchor, direction = arrow
        a, b = camera.project(np.array([anchor, anchor + direction * 0.5]))
        truth.bearing_deg = bearing_of(b - a)
        truth.bearing_tray_deg = bearing_of(direction[:2])
    return truth


def _draw_die(image: np.ndarray, pose: DiePose, camera: Camera,
              textures: dict[int, np.ndarray]) -> None:
    eye = camera.position
    h_img, w_img = image.shape[:2]
    e0, e1 = -0.5, TEXTURE - 0.5   # the texture's outer edges, in pixel-centre coordinates
    src = np.array([(e0, e0), (e1, e0), (e1, e1), (e0, e1)], np.float32)
    for index, (n_local, _u, _v) in enumerate(_CUBE_FACES):
        corners = _face_corners(pose, index)
        normal = pose.R @ np.array(n_local, float)
        if normal @ (eye - corners.mean(axis=0)) <= 0:
            continue
        dst = camera.project(corners).astype(np.float32)
        x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 2
        x0c, y0c, x1c, y1c = max(x0, 0), max(y0, 0), min(x1, w_img), min(y1, h_img)
        if x1c <= x0c or y1c <= y0c:
            continue
        M = cv2.getPerspectiveTransform(src, dst - np.array([x0c, y0c], np.float32))
        warped = cv2.warpPerspective(textures[index], M, (x1c - x0c, y1c - y0c),
                                     flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
        shade = 0.5 + 0.5 * max(0.0, float(normal @ _LIGHT))
        alpha = warped[..., 3:4].astype(np.float32) / 255.0
        roi = image[y0c:y1c, x0c:x1c].astype(np.float32)
        if pose.style.opacity < 1:
            # Translucent: what shows of the floor comes through the body, tinted by it (the
            # face's outline is where its alpha is at least the body's opacity).
            see_through = np.clip(alpha / pose.style.opacity, 0, 1) - alpha
            tint = np.sqrt(np.array(pose.style.body, np.float32) / 255)
            roi = roi * (1 - alpha - see_through * (1 - tint))
        else:
            roi = roi * (1 - alpha)
        roi = roi + warped[..., :3].astype(np.float32) * shade * alpha
        image[y0c:y1c, x0c:x1c] = roi.clip(0, 255).astype(np.uint8)
    if pose.glare is not None:
        u, v, strength = pose.glare
        corners = _face_corners(pose, 0)
        p = corners[0] + u * (corners[1] - corners[0]) + v * (corners[3] - corners[0])
        centre = camera.project(p[None])[0]
        radius = 0.12 * camera.px_per_mm(pose.centre) * pose.size
        _add_spot(image, centre, radius, strength)


def _add_spot(image: np.ndarray, centre, radius: float, strength: float) -> None:
    r = int(radius * 3) + 1
    cx, cy = int(round(centre[0])), int(round(centre[1]))
    y0, y1 = max(cy - r, 0), min(cy + r + 1, image.shape[0])
    x0, x1 = max(cx - r, 0), min(cx + r + 1, image.shape[1])
    if y1 <= y0 or x1 <= x0:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1]
    spot = strength * np.exp(-((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2)
                             / (2 * max(radius, 0.5) ** 2))
    image[y0:y1, x0:x1] = (image[y0:y1, x0:x1] + spot[..., None]).clip(0, 255).astype(np.uint8)


def textures_for(pose: DiePose) -> dict[int, np.ndarray]:
    """Textures of the six faces: the face shown on top, plausible faces on the sides."""
    kind, value = pose.face.kind, pose.face.value
    textures = {0: face_texture(kind, value, pose.style, pose.arrow_deg)}
    sides = list(pose.side_values)
    for index in range(1, 6):
        side = sides[index - 1] if index - 1 < len(sides) else value
        textures[index] = face_texture(kind, side, pose.style, 0.0)
    return textures


def _side_values(face: Face, rng) -> tuple:
    if face.kind == "d6":
        v = int(face.value)
        others = [x for x in range(1, 7) if x not in (v, 7 - v)]
        rng.shuffle(others)
        return (7 - v, *others)
    if face.kind == "scatter":
        return tuple(rng.permutation(["arrow", "arrow", "arrow", "hit", "hit"]))
    others = [x for x in ARTILLERY_FACES if x != face.value]
    return tuple(others[i] for i in rng.permutation(len(others)))


# ---------------------------------------------------------------- scene: tray and background


@dataclass
class TrayLook:
    tray_mm: tuple[float, float]
    wall_mm: float
    floor: tuple[int, int, int]
    wall: tuple[int, int, int]
    table: tuple[int, int, int]
    markers: bool
    marker_mm: float = MARKER_MM       # printed side; another is a sheet printed to scale


def random_look(rng, tray_mm=None, markers=False, floor: str | None = None) -> TrayLook:
    tray_mm = tray_mm or (float(rng.uniform(220, 360)), float(rng.uniform(180, 280)))
    floor_name = floor or str(rng.choice(list(FLOOR_COLOURS)))
    base = np.array(FLOOR_COLOURS[floor_name]) + rng.integers(-12, 13, size=3)
    wall = np.array((45, 42, 42)) if rng.random() < 0.5 else base * rng.uniform(0.75, 0.95)
    table = (np.array((222, 224, 226)) - rng.integers(0, 60)) if rng.random() < 0.6 else \
        rng.integers(60, 200, size=3)
    return TrayLook(tray_mm=tuple(tray_mm), wall_mm=float(rng.uniform(25, 45)),
                    floor=tuple(int(c) for c in np.clip(base, 0, 255)),
                    wall=tuple(int(c) for c in np.clip(wall, 0, 255)),
                    table=tuple(int(c) for c in np.clip(table, 0, 255)), markers=markers)


def _noise_field(rng, shape, scale: int) -> np.ndarray:
    small = rng.standard_normal((max(2, shape[0] // scale), max(2, shape[1] // scale)))
    return cv2.resize(small.astype(np.float32), (shape[1], shape[0]),
                      interpolation=cv2.INTER_CUBIC)


def render_background(look: TrayLook, camera: Camera, rng) -> tuple[np.ndarray, dict]:
    """The empty tray: table, walls, textured floor and, when asked, the ArUco markers."""
    w_img, h_img = camera.size
    image = np.empty((h_img, w_img, 3), np.float32)
    image[:] = look.table
    image += _noise_field(rng, image.shape[:2], 128)[..., None] * 3
    W, H = look.tray_mm
    wall, rim = look.wall_mm, 8.0

    def poly(points_mm):
        return np.round(camera.project(np.array(points_mm, float))).astype(np.int32)

    outer = [(-rim, -rim, -wall), (W + rim, -rim, -wall), (W + rim, H + rim, -wall),
             (-rim, H + rim, -wall)]
    cv2.fillPoly(image, [poly(outer)], tuple(float(c) * 0.85 for c in look.wall), cv2.LINE_AA)
    floor = [(0, 0, 0), (W, 0, 0), (W, H, 0), (0, H, 0)]
    top = [(0, 0, -wall), (W, 0, -wall), (W, H, -wall), (0, H, -wall)]
    for i in range(4):
        quad = [floor[i], floor[(i + 1) % 4], top[(i + 1) % 4], top[i]]
        shade = (0.8, 1.0, 1.1, 0.9)[i]
        cv2.fillPoly(image, [poly(quad)], tuple(min(255.0, c * shade) for c in look.wall),
                     cv2.LINE_AA)
    floor_mask = np.zeros((h_img, w_img), np.uint8)
    cv2.fillPoly(floor_mask, [poly(floor)], 255, cv2.LINE_AA)
    floor_img = np.empty_like(image)
    floor_img[:] = look.floor
    floor_img += (_noise_field(rng, image.shape[:2], 96) * 2.5
                  + rng.standard_normal(image.shape[:2]).astype(np.float32) * 3)[..., None]
    # A few dark specks, as on cardboard and felt.
    for _ in range(int(rng.integers(0, 12))):
        x, y = rng.uniform(0, W), rng.uniform(0, H)
        p = camera.project(np.array([[x, y, 0.0]]))[0]
        cv2.circle(floor_img, (int(p[0]), int(p[1])), int(rng.integers(1, 3)),
                   tuple(float(c) * 0.6 for c in look.floor), -1)
    a = (floor_mask.astype(np.float32) / 255.0)[..., None]
    image = image * (1 - a) + floor_img * a
    markers_px: dict[int, np.ndarray] = {}
    if look.markers:
        Hf = camera.floor_homography()
        tile_side = tile_mm(look.marker_mm)
        for marker_id, corners_mm in marker_corners_mm(look.tray_mm, look.marker_mm).items():
            inset = (tile_side - look.marker_mm) / 2
            side_px = 240
            tile_px = int(side_px * tile_side / look.marker_mm)
            tile = np.full((tile_px, tile_px), 255, np.uint8)
            off = (tile_px - side_px) // 2
            tile[off:off + side_px, off:off + side_px] = marker_image(marker_id, side_px)
            x0, y0 = corners_mm[0] - inset
            scale = tile_side / tile_px
            # Pixel i of the tile covers [i, i + 1) * scale mm: its centre is at (i + 0.5).
            to_mm = np.array([[scale, 0, x0 + scale / 2], [0, scale, y0 + scale / 2], [0, 0, 1]])
            M = Hf @ to_mm
            warped = cv2.warpPerspective(tile, M, (w_img, h_img), flags=cv2.INTER_AREA,
                                         borderValue=0)
            mask = cv2.warpPerspective(np.full_like(tile, 255), M, (w_img, h_img),
                                       flags=cv2.INTER_LINEAR, borderValue=0)
            paper = np.float32(232) + rng.uniform(-10, 10)
            m = (mask.astype(np.float32) / 255.0)[..., None]
            ink = warped.astype(np.float32)[..., None] / 255.0 * (paper - 30) + 30
            image = image * (1 - m) + ink * m
            projected = cv2.perspectiveTransform(corners_mm[None].astype(np.float64), Hf)[0]
            markers_px[marker_id] = projected
    return image.clip(0, 255).astype(np.uint8), markers_px


# ---------------------------------------------------------------- placing dice


def _overlaps(poly: np.ndarray, others: list[np.ndarray], gap: float) -> bool:
    grown = _grow(poly, gap)
    for other in others:
        area, _ = cv2.intersectConvexConvex(grown.astype(np.float32), other.astype(np.float32))
        if area > 1e-3:
            return True
    return False


def _grow(poly: np.ndarray, gap: float) -> np.ndarray:
    c = poly.mean(axis=0)
    d = poly - c
    n = np.linalg.norm(d, axis=1, keepdims=True)
    return c + d * (n + gap) / np.maximum(n, 1e-6)


def place_dice(faces: list[Face], rng, look: TrayLook, die_mm: float, touching: float,
               cocked: float, fonts, colours=None, materials: float = 0.0,
               by_wall: float = 0.0) -> list[DiePose]:
    """Random non-overlapping poses for `faces` on the tray floor.

    touching: chance that a die is put against one already placed (face to face);
    cocked: chance that a die leans on a die or the wall (flagged "cocked");
    materials: chance that a d6 is marbled, translucent, metallic or has low-contrast pips;
    by_wall: chance that a die lies flat against the tray wall (else only leaning dice are
    put there). With materials and by_wall 0 a seed places the dice it always did.
    """
    W, H = look.tray_mm
    margin = die_mm * 0.75
    keep_out = []
    if look.markers:
        for corners in marker_corners_mm(look.tray_mm, look.marker_mm).values():
            c = corners.mean(axis=0)
            half = tile_mm(look.marker_mm) / 2 + 1
            keep_out.append(np.array([c + (-half, -half), c + (half, -half), c + (half, half),
                                      c + (-half, half)]))
    poses: list[DiePose] = []
    for index, face in enumerate(faces):
        colour = colours[index] if colours else None
        style = random_style(rng, colour, fonts, materials if face.kind == "d6" else 0.0)
        size = die_mm * rng.uniform(0.94, 1.06)
        arrow = float(rng.choice([0.0, 45.0]) + 90 * rng.integers(0, 4) + rng.uniform(-3, 3)) \
            if face.kind == "scatter" else 0.0
        extra = dict(arrow_deg=arrow, side_values=_side_values(face, rng),
                     glare=(float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.2, 0.8)),
                            float(rng.uniform(40, 150))) if rng.random() < 0.3 else None)
        pose = None
        roll = rng.random()
        for _attempt in range(200):
            footprints = [p.footprint() for p in poses] + keep_out
            if poses and roll < cocked:
                pose = _leaning(face, style, size, rng, poses, look, **extra)
            elif poses and roll < cocked + touching:
                pose = _touching(face, style, size, rng, poses, **extra)
            elif cocked + touching <= roll < cocked + touching + by_wall:
                pose = _by_wall(face, style, size, rng, look, **extra)
            else:
                pose = DiePose.flat(face, style, size, rng.uniform(margin, W - margin),
                                    rng.uniform(margin, H - margin), rng.uniform(0, 360),
                                    **extra)
            fp = pose.footprint()
            inside = (fp[:, 0].min() > 0.5 and fp[:, 1].min() > 0.5
                      and fp[:, 0].max() < W - 0.5 and fp[:, 1].max() < H - 0.5)
            if inside and not _overlaps(fp, footprints, 0.0 if "touching" in pose.flags
                                        or "cocked" in pose.flags else 1.0):
                break
            roll = rng.random() * (cocked + touching + by_wall + 1)  # later: any placement
        else:
            raise ValueError(f"could not fit {len(faces)} dice of {die_mm:.0f} mm in a "
                             f"{W:.0f}x{H:.0f} mm tray: use fewer dice or a bigger tray")
        if "touching" in pose.flags:
            for other in poses:
                if _overlaps(fp, [other.footprint()], 0.8) and "touching" not in other.flags:
                    other.flags.append("touching")
        poses.append(pose)
    return poses


def _touching(face, style, size, rng, poses, **extra) -> DiePose:
    flat = [p for p in poses if "cocked" not in p.flags] or poses
    other = flat[int(rng.integers(len(flat)))]
    yaw = math.degrees(math.atan2(other.R[1, 0], other.R[0, 0]))
    side = rng.integers(0, 4)
    gap = rng.uniform(0.0, 0.3)
    slide = rng.uniform(-0.45, 0.45) * size
    dist = (size + other.size) / 2 + gap
    axis = other.R[:2, 0] if side % 2 == 0 else other.R[:2, 1]
    ortho = np.array([-axis[1], axis[0]])
    sign = 1 if side < 2 else -1
    x, y = other.centre[:2] + sign * axis * dist + ortho * slide
    return DiePose.flat(face, style, size, x, y, yaw + rng.uniform(-2, 2),
                        flags=["touching"], **extra)


def _by_wall(face, style, size, rng, look, **extra) -> DiePose:
    """A flat die against one of the tray's walls, 0.55-1 mm off it (the placement keeps
    every die 0.5 mm inside the floor): half of them face to face with the wall, the others
    at any turn, an edge towards it."""
    W, H = look.tray_mm
    wall = int(rng.integers(4))                 # the wall at y = 0, x = W, y = H, x = 0
    yaw = float(rng.uniform(-3, 3)) if rng.random() < 0.5 else float(rng.uniform(0, 90))
    along = rng.uniform(0.6 * size, (W if wall % 2 == 0 else H) - 0.6 * size)
    gap = rng.uniform(0.55, 1.0)
    pose = DiePose.flat(face, style, size, 0.0, 0.0, yaw, **extra)
    fp = pose.footprint()
    pose.centre[:2] = {0: (along, gap - fp[:, 1].min()), 1: (W - gap - fp[:, 0].max(), along),
                       2: (along, H - gap - fp[:, 1].max()), 3: (gap - fp[:, 0].min(), along)}[wall]
    return pose


def _leaning(face, style, size, rng, poses, look, **extra) -> DiePose:
    tilt = rng.uniform(18, 35)
    spin = rng.uniform(0, 360)
    support: list[np.ndarray] = []
    if rng.random() < 0.5 and poses:
        other = poses[int(rng.integers(len(poses)))]
        support = [other.footprint()]
        phi = rng.uniform(0, 360)
        d = np.array([math.cos(math.radians(phi)), math.sin(math.radians(phi))])
        start = other.centre[:2] - d * (other.size * 0.5 + size * 0.55)
    else:
        W, H = look.tray_mm
        wall = int(rng.integers(4))
        phi = (270.0, 0.0, 90.0, 180.0)[wall]  # lean toward that wall
        d = np.array([math.cos(math.radians(phi)), math.sin(math.radians(phi))])
        along = rng.uniform(0.15, 0.85)
        edge = {0: (along * W, 0.0), 1: (W, along * H), 2: (along * W, H), 3: (0.0, along * H)}
        start = np.array(edge[wall]) - d * size * 0.6
    R = rot_z(phi) @ rot_y(-tilt) @ rot_z(spin)
    pose = DiePose(face, style, size, np.array([start[0], start[1], 0.0]), R, flags=["cocked"],
                   **extra)
    pose.centre[2] -= pose.vertices()[:, 2].max()  # its lowest edge on the floor
    # Slide back from the support until the outlines just stop crossing.
    for _ in range(40):
        fp = pose.footprint()
        if support and not _overlaps(fp, support, 0.0):
            break
        if not support and (fp @ d).max() <= np.array(edge[wall]) @ d - 0.6:
            break
        pose.centre[:2] -= d * size * 0.05
    return pose


# ---------------------------------------------------------------- rendering


@dataclass
class Finish:
    """Camera effects applied to the whole frame."""

    blur: float = 0.6         # Gaussian sigma at 1280 px wide (scaled with the width)
    noise: float = 3.0        # sensor noise, grey levels
    jpeg_quality: int | None = 88
    vignette: float = 0.15


def random_finish(rng) -> Finish:
    return Finish(blur=float(rng.uniform(0.2, 1.1)), noise=float(rng.uniform(1.0, 5.0)),
                  jpeg_quality=int(rng.integers(65, 96)), vignette=float(rng.uniform(0, 0.3)))


def draw_shadows(image: np.ndarray, poses: list[DiePose], camera: Camera, strength=0.45):
    mask = np.zeros(image.shape[:2], np.float32)
    for pose in poses:
        verts = pose.vertices()
        t = verts[:, 2] / _LIGHT[2]
        shadow = verts - _LIGHT * t[:, None]
        pts = np.vstack([shadow, verts[verts[:, 2] > -0.5]])
        hull = cv2.convexHull(camera.project(pts).astype(np.float32))
        cv2.fillPoly(mask, [np.round(hull).astype(np.int32)], 1.0, cv2.LINE_AA)
    sigma = max(1.0, camera.px_per_mm() * 1.2)
    mask = cv2.GaussianBlur(mask, (0, 0), sigma)
    image[:] = (image.astype(np.float32) * (1 - strength * mask)[..., None]).astype(np.uint8)


def draw_dice(image: np.ndarray, poses: list[DiePose], camera: Camera,
              textures: list[dict[int, np.ndarray]] | None = None) -> None:
    eye = camera.position
    order = sorted(range(len(poses)), key=lambda i: -np.linalg.norm(poses[i].centre - eye))
    for i in order:
        _draw_die(image, poses[i], camera, textures[i] if textures else textures_for(poses[i]))


def apply_finish(image: np.ndarray, finish: Finish, rng) -> np.ndarray:
    h, w = image.shape[:2]
    out = image.astype(np.float32)
    if finish.vignette:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        out *= (1 - finish.vignette * r2)[..., None]
    sigma = finish.blur * w / 1280
    if sigma > 0.1:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    if finish.noise:
        out += rng.standard_normal(out.shape[:2]).astype(np.float32)[..., None] * finish.noise
        out += rng.standard_normal(out.shape).astype(np.float32) * finish.noise * 0.5
    out = out.clip(0, 255).astype(np.uint8)
    if finish.jpeg_quality:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, finish.jpeg_quality])
        out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return out


def render_roll(faces: list[Face], rng: np.random.Generator, size=(1280, 960), *,
                markers: bool = False, tray_mm: tuple[float, float] | None = None,
                die_mm: float | None = None, touching: float = 0.15, cocked: float = 0.0,
                tilt_deg: float = 4.0, yaw_deg: float | None = None, fonts=None,
                colours: list[str] | None = None, floor: str | None = None,
                finish: Finish | None = None, materials: float = 0.0,
                by_wall: float = 0.0, marks: dict | None = None,
                marked: float = 1.0, arrow_shapes: float = 0.0,
                small_arrow_shapes: float = 0.0, marker_mm: float = MARKER_MM) -> RenderedTray:
    """A top-down photo of `faces` rolled into a tray, with ground truth.

    Faces keep their given order in `.truth`. A scatter face's `bearing_deg`, when given, is
    the arrow's bearing on the tray (clockwise from the tray's up edge); otherwise random.
    markers: ArUco markers in the tray corners (calibration tests); marker_mm their printed
    side (tiles to scale: a sheet printed at 97 % has 29.1 mm markers). touching / cocked:
    chance per die of lying against another / leaning (cocked dice are flagged in truth).
    by_wall: chance per die of lying flat against the tray wall; 0 (the default) renders
    every seed as it always did.
    yaw_deg: the camera's rotation relative to the tray (default: random within ±4°).
    fonts: artillery numeral fonts to draw from (default: all of `available_fonts()`).
    colours: one colour name per face (default: random). finish: blur/noise/JPEG.
    materials: chance per d6 of an unusual material (swirled, translucent, metallic, or
    low-contrast pips; `tray_faces.unusual_style`); 0 (the default) renders every seed as
    it always did.
    marks: custom faces, (kind, value) -> symbol (`tray_faces.MARKED_DICE`), drawn on every
    die of those kinds, or on each with the chance `marked` (e.g. logo dice among plain
    ones); None (the default) renders every seed as it always did.
    arrow_shapes: chance per scatter die that its arrow has another maker's proportions
    (`tray_faces.random_arrow`; training data); 0 (the default) renders every seed as it
    always did. small_arrow_shapes: the same for a HIT face's small arrow
    (`tray_faces.random_small_arrow`).
    """
    size = (int(size[0]), int(size[1]))
    if not (160 <= size[0] <= 8192 and 120 <= size[1] <= 8192):
        raise ValueError(f"image size {size} out of range: use 160x120 to 8192x8192")
    if colours is not None and len(colours) != len(faces):
        raise ValueError("give one colour per face, or none")
    for name in colours or ():
        if name not in DIE_COLOURS:
            raise ValueError(f"unknown colour {name!r}: one of {', '.join(DIE_COLOURS)}")
    look = random_look(rng, tray_mm, markers, floor)
    look.marker_mm = float(marker_mm)
    die_mm = die_mm or float(rng.uniform(14, 18))
    poses = place_dice(faces, rng, look, die_mm, touching, cocked,
                       tuple(fonts) if fonts else available_fonts(), colours, materials,
                       by_wall)
    if marks:
        _mark_dice(poses, marks, marked, rng)
    for pose in poses if arrow_shapes > 0 else ():
        if pose.face.kind == "scatter" and rng.random() < arrow_shapes:
            pose.style = replace(pose.style, arrow=random_arrow(rng))
    for pose in poses if small_arrow_shapes > 0 else ():
        if pose.face.kind == "scatter" and rng.random() < small_arrow_shapes:
            pose.style = replace(pose.style, small_arrow=random_small_arrow(rng))
    for pose in poses:
        if pose.face.kind == "scatter" and pose.face.bearing_deg is not None:
            pose.arrow_deg = 0.0
            pose.R = rot_z(float(pose.face.bearing_deg)) if "cocked" not in pose.flags else \
                pose.R
    yaw = float(rng.uniform(-4, 4)) if yaw_deg is None else float(yaw_deg)
    W, H = look.tray_mm
    margin = look.wall_mm + 10
    camera = make_camera(rng, size, (W + 2 * margin, H + 2 * margin), (W / 2, H / 2),
                         tilt_deg=tilt_deg, yaw_deg=yaw, fill=float(rng.uniform(0.85, 1.0)))
    image, markers_px = render_background(look, camera, rng)
    draw_shadows(image, poses, camera)
    draw_dice(image, poses, camera)
    image = apply_finish(image, finish or random_finish(rng), rng)
    return RenderedTray(image=image, truth=[die_truth(p, camera) for p in poses],
                        camera=camera, tray_mm=look.tray_mm,
                        homography=camera.floor_homography(), markers=markers_px, die_mm=die_mm)


def _mark_dice(poses: list[DiePose], marks: dict, share: float, rng) -> None:
    """Dice of the kinds in `marks` get its custom faces, each with the chance `share`."""
    kinds = {kind for kind, _ in marks}
    for pose in poses:
        if pose.face.kind in kinds and (share >= 1.0 or rng.random() < share):
            pose.style = replace(pose.style, marks=dict(marks))


def random_faces(rng, count: int, kinds=("d6",)) -> list[Face]:
    faces = []
    for _ in range(count):
        kind = str(rng.choice(kinds))
        if kind == "d6":
            faces.append(Face("d6", int(rng.integers(1, 7))))
        elif kind == "scatter":
            faces.append(Face("scatter", "hit" if rng.random() < 1 / 3 else "arrow"))
        else:
            faces.append(Face("artillery", ARTILLERY_FACES[int(rng.integers(6))]))
    return faces


def random_tray(rng: np.random.Generator, size=None, dice=(1, 40), kinds=("d6",),
                special: dict[str, tuple[int, int]] | None = None,
                colour_share: dict[str, float] | None = None, **options) -> RenderedTray:
    """A random tray for benchmarks: 1-40 d6 by default, any size from 640x480 to 4K.

    kinds: die kinds to draw the `dice` count from. special: extra dice per kind, e.g.
    {"scatter": (1, 2), "artillery": (0, 1)}. colour_share: each die's chance of a colour,
    e.g. {"grey": 0.3} (training data for the colours read worst); the rest are random
    colours, and None (the default) renders every seed as it always did. Other options go
    to `render_roll`.
    """
    if size is None:
        sizes = [(640, 480), (800, 600), (1280, 960), (1920, 1080), (2592, 1944), (3840, 2160)]
        size = sizes[int(rng.integers(len(sizes)))]
    count = int(rng.integers(dice[0], dice[1] + 1))
    faces = random_faces(rng, count, kinds)
    for kind, (lo, hi) in (special or {}).items():
        faces += random_faces(rng, int(rng.integers(lo, hi + 1)), (kind,))
    order = rng.permutation(len(faces))
    faces = [faces[i] for i in order]
    options.setdefault("tray_mm", (float(rng.uniform(260, 380)), float(rng.uniform(200, 290)))
                       if len(faces) > 20 else None)
    if colour_share:
        options["colours"] = [shared_colour(rng, colour_share) for _ in faces]
    return render_roll(faces, rng, size, **options)


def shared_colour(rng: np.random.Generator, share: dict[str, float]) -> str:
    """A colour drawn with the chances in `share`, any colour for the rest."""
    draw = rng.random()
    for name, chance in share.items():
        if name not in DIE_COLOURS:
            raise ValueError(f"unknown colour {name!r}: one of {', '.join(DIE_COLOURS)}")
        if draw < chance:
            return name
        draw -= chance
    return str(rng.choice(list(DIE_COLOURS)))
