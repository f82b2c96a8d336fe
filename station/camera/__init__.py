"""Cameras over the tray, each a small adapter chosen by `camera.source` in the config.

Every camera has `capture() -> BGR numpy image` and `close()`, and may have
`expect(kind, count, purpose)`: told what the station just asked the players to roll.
Real cameras ignore it; the replay camera moves to its next photo; the synthetic tray rolls
exactly those dice (it plays the player in simulation).

- `picamera2`: the Raspberry Pi camera (apt's python3-picamera2).
- `opencv`: any camera or video file cv2.VideoCapture opens (a laptop webcam).
- `replay`: tray photos from files, in turn.
- `synthetic`: the synthetic tray renderer (station/fakes/tray.py), for --simulate.
"""

from __future__ import annotations

import glob
import logging
from pathlib import Path
from typing import Any, Protocol

import numpy as np

log = logging.getLogger(__name__)

FRAME_WAIT_S = 2.0      # the Pi camera is called stopped after this long without a frame


class CameraError(Exception):
    """The camera cannot give a frame: the message says what is wrong and what to check."""


class Camera(Protocol):
    name: str

    def capture(self) -> np.ndarray: ...

    def close(self) -> None: ...


class Picamera2Camera:
    name = "picamera2"

    def __init__(self, resolution: tuple[int, int], fps: float = 20.0) -> None:
        self.fps = fps
        try:
            from picamera2 import Picamera2
        except ImportError as error:
            raise CameraError("camera.source = \"picamera2\" needs apt's python3-picamera2 and a "
                              "venv made with --system-site-packages (docs/service.md); on a "
                              "laptop use source = \"opencv\"") from error
        try:
            self._camera = Picamera2()
            # A stream, not stills: picamera2's still configuration has one buffer (each
            # capture waits out a whole frame), high-quality denoising and exposures up to
            # seconds long in dim light. Every frame lasts exactly 1/fps, so the settle
            # watcher's clock holds and no exposure is long enough to smear a rolling die.
            # RGB888 is laid out B, G, R in memory: what OpenCV expects.
            frame_us = round(1_000_000 / fps)
            self._camera.configure(self._camera.create_preview_configuration(
                main={"size": tuple(resolution), "format": "RGB888"},
                controls={"FrameDurationLimits": (frame_us, frame_us)}))
            self._camera.start()
        except Exception as error:   # libcamera raises RuntimeError, IndexError when absent
            raise CameraError(f"no Pi camera found ({error}): check the ribbon cable and "
                              "`rpicam-hello --list-cameras`") from error

    def capture(self) -> np.ndarray:
        # picamera2 would wait for ever for a frame that does not come (a loose ribbon
        # cable): wait a few frame periods, then say so and drop the pending capture.
        wait_s = max(FRAME_WAIT_S, 5 / self.fps)
        try:
            return self._camera.capture_array("main", wait=False).get_result(timeout=wait_s)
        except TimeoutError:
            flush = getattr(self._camera, "cancel_all_and_flush", None)
            if flush is not None:
                flush()
            raise CameraError(f"no frame from the Pi camera in {wait_s:.0f} s: check the ribbon "
                              "cable and `rpicam-hello --list-cameras`") from None
        except Exception as error:
            raise CameraError(f"the Pi camera stopped ({error})") from error

    def close(self) -> None:
        self._camera.close()


class OpenCVCamera:
    name = "opencv"

    def __init__(self, device: int | str, resolution: tuple[int, int], fps: float = 20.0) -> None:
        import cv2
        self._cv2 = cv2
        self.device, self.resolution, self.fps = device, resolution, fps
        self._capture = self._open()
        if not self._capture.isOpened():
            raise CameraError(f"camera.device {device!r}: no camera or video there; give another "
                              "index (0, 1, ...) or a video file, or camera.source = \"replay\"")

    def _open(self) -> Any:
        cv2 = self._cv2
        capture = cv2.VideoCapture(self.device)
        self._ask(capture)
        # Uncompressed frames over USB 2 come slowly at high resolutions (1280x960 YUYV: often
        # 5-10 fps): then ask for MJPEG, which most webcams film at full rate.
        if 0 < capture.get(cv2.CAP_PROP_FPS) < self.fps:
            capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
            self._ask(capture)
        # A webcam filming faster than the station takes frames queues them (four with
        # V4L2): the station would see the tray as it was a few frames ago and read late.
        capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        if isinstance(self.device, int):
            log.info("webcam %s films %.0fx%.0f at %.0f fps (asked %dx%d at %.0f)", self.device,
                     capture.get(cv2.CAP_PROP_FRAME_WIDTH), capture.get(cv2.CAP_PROP_FRAME_HEIGHT),
                     capture.get(cv2.CAP_PROP_FPS), *self.resolution, self.fps)
        return capture

    def _ask(self, capture: Any) -> None:
        """The configured size and rate (video files and drivers that cannot ignore them)."""
        cv2 = self._cv2
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.resolution[0])
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.resolution[1])
        capture.set(cv2.CAP_PROP_FPS, self.fps)

    def capture(self) -> np.ndarray:
        ok, frame = self._capture.read()
        if not ok or frame is None:           # unplugged? plugged back in? open it again once
            self._capture.release()
            self._capture = self._open()
            ok, frame = self._capture.read()
        if not ok or frame is None:
            raise CameraError(f"camera {self.device!r} gave no frame (unplugged?)")
        return frame

    def close(self) -> None:
        self._capture.release()


class ReplayCamera:
    """Photos from files: each new roll the station asks for moves to the next photo."""

    name = "replay"

    def __init__(self, pattern: str) -> None:
        import cv2
        self._cv2 = cv2
        self.files = sorted(glob.glob(str(Path(pattern).expanduser())))
        if not self.files:
            raise CameraError(f"camera.files {pattern!r} matches no file; give a glob of tray "
                              "photos, e.g. \"photos/*.jpg\"")
        self.index = -1
        self._frame: np.ndarray | None = None
        self.expect("", 0, "")

    def expect(self, kind: str, count: int, purpose: str) -> None:
        self.index = (self.index + 1) % len(self.files)
        path = self.files[self.index]
        frame = self._cv2.imread(path, self._cv2.IMREAD_COLOR)
        if frame is None:
            raise CameraError(f"{path} is not an image OpenCV can read")
        self._frame = frame

    def capture(self) -> np.ndarray:
        assert self._frame is not None
        return self._frame

    def close(self) -> None:
        pass


def open_camera(settings: dict[str, Any], *, simulate_rng: Any = None) -> Camera:
    """The camera `settings` (the config's [camera] table) describe."""
    source = settings["source"]
    resolution = tuple(settings["resolution"])
    if source == "picamera2":
        return Picamera2Camera(resolution, settings["fps"])
    if source == "opencv":
        return OpenCVCamera(settings["device"], resolution, settings["fps"])
    if source == "replay":
        return ReplayCamera(settings["files"])
    from station.camera.synthetic import SyntheticTray
    return SyntheticTray(resolution, rng=simulate_rng, fps=settings["fps"])
