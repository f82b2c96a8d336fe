"""A pinhole camera above the tray, for the synthetic renderer.

World frame = tray millimetres: x to the right, y toward the tray's bottom edge (so the tray's
"up" edge is y = 0), z pointing down into the table (right-handed), the floor at z = 0, so
things above the floor have negative z. The camera's own frame is OpenCV's (x right, y down,
z forward); a camera straight above with no yaw sees the tray the right way up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def rot_x(deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])


def rot_y(deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])


def rot_z(deg: float) -> np.ndarray:
    """Turns +x toward +y: clockwise as seen from above, like a bearing."""
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])


@dataclass
class Camera:
    K: np.ndarray          # 3x3 intrinsics
    R: np.ndarray          # world -> camera rotation
    t: np.ndarray          # world -> camera translation
    size: tuple[int, int]  # (width, height) in pixels

    @property
    def position(self) -> np.ndarray:
        return -self.R.T @ self.t

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (N, 3) in mm -> image points (N, 2) in pixels."""
        cam = np.asarray(points, float) @ self.R.T + self.t
        uvw = cam @ self.K.T
        return uvw[:, :2] / uvw[:, 2:3]

    def floor_homography(self) -> np.ndarray:
        """The exact 3x3 homography from tray mm on the floor (z = 0) to image pixels."""
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        return H / H[2, 2]

    def px_per_mm(self, point_mm=(0.0, 0.0, 0.0)) -> float:
        p = np.asarray(point_mm, float)
        a, b = self.project(np.array([p, p + (1.0, 0, 0)]))
        return float(np.hypot(*(b - a)))


def make_camera(rng: np.random.Generator, size: tuple[int, int], view_mm: tuple[float, float],
                centre_mm: tuple[float, float], tilt_deg: float = 4.0, yaw_deg: float = 0.0,
                fill: float = 0.9, hfov_deg: float | None = None) -> Camera:
    """A camera looking down at `centre_mm` so that a `view_mm` area fills `fill` of the frame.

    tilt_deg: largest random tilt away from straight down (slight perspective, side faces
    of dice show). yaw_deg: the image's rotation with respect to the tray.
    """
    w, h = size
    hfov = hfov_deg if hfov_deg is not None else rng.uniform(52, 72)
    f = (w / 2) / math.tan(math.radians(hfov) / 2)
    K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    # Extent of the view rectangle once turned by the yaw, in the camera's axes.
    c, s = abs(math.cos(math.radians(yaw_deg))), abs(math.sin(math.radians(yaw_deg)))
    ext_x = view_mm[0] * c + view_mm[1] * s
    ext_y = view_mm[0] * s + view_mm[1] * c
    distance = max(f * ext_x / (fill * w), f * ext_y / (fill * h))
    tilt_x, tilt_y = rng.uniform(-tilt_deg, tilt_deg, size=2)
    R = rot_x(tilt_x) @ rot_y(tilt_y) @ rot_z(-yaw_deg)
    # Keep the view centred: put the camera on the line through the centre along its axis.
    axis = R.T @ np.array([0.0, 0.0, 1.0])
    target = np.array([centre_mm[0], centre_mm[1], 0.0])
    position = target - axis * distance / axis[2]
    t = -R @ position
    return Camera(K=K, R=R, t=t, size=(w, h))
