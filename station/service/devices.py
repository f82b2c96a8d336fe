"""The service's edges over the other parts of the station: the laser tape (transport and
codec from `station.laser`), the dice reader and its tray calibration (`station.vision`), and
settle detection. Each turns the part's own errors into the service's (`ConfigError` at
start-up, `LaserError` while running).
"""

from __future__ import annotations

import logging
import random
import threading
from pathlib import Path
from typing import Any

import numpy as np

from station.config import ConfigError
from station.service.laser import LaserError

log = logging.getLogger(__name__)


class TapeGauge:
    """A laser tape on a serial port (or a pty) through `station.laser.LaserDevice`: the real
    transport, codec and calibration."""

    def __init__(self, device: str, port: str, baud: int, timeout: float,
                 calibration: str | None, simulated: Any = None,
                 aims: random.Random | None = None) -> None:
        """calibration: a profile path, "" for the default profile, None for none.
        aims: with a simulated tape, draws where the player aims it (--seed repeats them)."""
        from station.laser.calibration import (CalibrationError, default_profile_path,
                                               load_profile)
        from station.laser.device import LaserDevice
        from station.laser.protocols import codec_class
        try:
            profile = {} if calibration is None else load_profile(
                Path(calibration).expanduser() if calibration else default_profile_path())
        except CalibrationError as error:
            raise ConfigError("laser.calibration", str(error), "") from None
        if calibration and device not in profile:
            raise ConfigError("laser.calibration", f"{calibration} holds no calibration for {device}",
                              f"Run `station calibrate laser --device {device}`, or leave it empty")
        try:
            # a tape whose own button sends readings (GLM auto-sync, DISTO, the firmware
            # tape's trigger) is set up to: each press is a measurement (`on_pushed`)
            self.tape = LaserDevice(device, port, baud or None, calibration=profile.get(device),
                                    watch=codec_class(device).button_pushes)
        except KeyError as error:
            raise ConfigError("laser.device", str(error).strip("'\""),
                              "Use one of those names, or device = \"none\"") from None
        self.device, self.port, self.timeout = device, port, timeout
        self.simulated = simulated            # the simulated tape, when there is one
        self.aims = aims or random.Random()
        # A tape not plugged in (or not bound) when the station starts is waited for: the
        # dice work meanwhile, and the screen says what is missing.
        self.tape.open(wait=True)

    @property
    def down(self) -> str | None:
        """Why the tape is not connected now (for the screen's hardware lines), or None."""
        transport = self.tape.transport
        if transport.connected.is_set():
            return None
        return (f"the {self.device} is not connected ({transport.last_error or self.port}): "
                "switch it on and plug it in (or bind its Bluetooth port), or fix laser.port; "
                "it is used as soon as it is there")

    def measure(self) -> Any:
        from station.laser.codec import DeviceError
        from station.laser.transport import LinkTimeout
        if self.simulated is not None:        # the player aims at another model
            self.simulated.set_distance(round(self.aims.uniform(60, 900), 1))
        try:
            result = self.tape.measure(timeout=self.timeout)
        except LinkTimeout as error:
            raise LaserError(str(error), lost=not self.tape.transport.connected.is_set()) from None
        except Exception as error:         # the port went away under us
            raise LaserError(f"the {self.device} link failed ({error})", lost=True) from None
        if isinstance(result, DeviceError):
            raise LaserError(f"the {self.device} reported error {result.code}: {result.message}")
        return result

    def on_pushed(self, callback: Any) -> None:
        """Call `callback()` (from the tape's listener thread) when it sends a reading."""
        self.tape.transport.on_pushed = callback

    def latest_pushed(self) -> Any:
        """The last reading the tape sent by itself (older ones unshown are dropped: the
        players pressed again), or None."""
        from station.laser.codec import DeviceError
        latest = None
        while (event := self.tape.next_pushed(0)) is not None:
            latest = event
        if isinstance(latest, DeviceError):
            raise LaserError(f"the {self.device} reported error {latest.code}: {latest.message}")
        return latest

    def close(self) -> None:
        self.tape.close()
        if self.simulated is not None:
            self.simulated.close()


def open_laser(settings: dict[str, Any], *, simulate: bool, hardware: dict[str, str],
               seed: int | None = None) -> TapeGauge | None:
    """The configured laser tape; with `simulate`, that device (or a GLM) simulated on a pty,
    aimed at distances drawn from `seed`."""
    device = settings["device"]
    if simulate:
        from station.fakes.laser import start_simulated
        device = device if device != "none" else "glm"
        simulated = start_simulated(device, distance_mm=300.0)
        return TapeGauge(device, simulated.port, settings["baud"], settings["timeout_seconds"],
                         None, simulated=simulated, aims=random.Random(seed))
    if device == "none":
        return None
    return TapeGauge(device, settings["port"], settings["baud"], settings["timeout_seconds"],
                     settings["calibration"])


class SettleWatcher:
    """`station.vision.settle` as the tray source wants it: "still" exactly once per still
    period of `still_s` seconds, "rolling"/"hand" while something moves, else "quiet".

    The detector calls a scene "empty" when it matches the first frame it saw; a watcher is
    made at each request, so dice already lying still when ROLL is pressed look "empty" to
    it. They are read all the same: the tray source then judges what is there (an empty tray
    gets "roll the dice"), and any later reading needs motion first.
    """

    def __init__(self, still_s: float) -> None:
        from station.vision.settle import SettleConfig, SettleDetector
        self.still_s = still_s
        self.detector = SettleDetector(SettleConfig(still_s=still_s))
        self.read = False

    def feed(self, frame: np.ndarray, t: float) -> str:
        update = self.detector.update(frame, t)
        if update.state in ("rolling", "hand"):
            self.read = False
            return update.state
        if update.still_for >= self.still_s and not self.read:
            self.read = True
            return "still"
        return "quiet"


def settle_watcher(still_s: float) -> SettleWatcher:
    return SettleWatcher(still_s)


class TrayReader:
    """read(frame) -> the dice on it (`station.vision.read_tray`), with the tray profile and
    the taught faces; read.expecting_special(frame): the same when the rules asked for a
    scatter or artillery die (the reader then gives dice read as pips a second look as
    special dice)."""

    def __init__(self, calibration: Any, faces: Any = None) -> None:
        from station.vision import read_tray
        self.read_tray, self.calibration = read_tray, calibration
        self.options = {"faces": faces} if faces is not None else {}
        self.problem: str | None = None      # for the screens' hardware lines
        # cv2.dnn networks (the fallback engine, station.vision.networks) are not safe to
        # run from two threads at once
        self._lock = threading.Lock()

    def __call__(self, frame: np.ndarray) -> list[Any]:
        with self._lock:
            self._check_markers(frame)
            return self.read_tray(frame, self.calibration, **self.options)

    def expecting_special(self, frame: np.ndarray) -> list[Any]:
        with self._lock:
            self._check_markers(frame)
            return self.read_tray(frame, self.calibration, expect_special=True, **self.options)

    def _check_markers(self, frame: np.ndarray) -> None:
        """A camera turned or moved since the tray was calibrated gives wrong bearings and
        millimetres without a sign: say so on every screen until the markers are back."""
        if self.calibration is None:
            return
        from station.vision.calibration import moved_warning
        # Round the profile's places only: the whole frame would add 0.2 s to every reading
        # while hands or dice cover the markers.
        in_place = self.calibration.markers_in_place(frame)
        if in_place is False:
            self.problem = moved_warning("camera.calibration")
        elif in_place:
            self.problem = None

    def warm_up_in_background(self) -> threading.Thread:
        """Load the reader's networks and tables while the station starts
        (`station.vision.warm_up`), so the first roll is read as quickly as the others; a
        read asked for meanwhile waits for it."""
        def warm_up() -> None:
            from station.vision import warm_up
            with self._lock:
                try:
                    warm_up()
                except Exception as error:      # the first read reports it, where it matters
                    log.warning("the dice reader did not warm up: %s", error)
        thread = threading.Thread(target=warm_up, name="reader-warm-up", daemon=True)
        thread.start()
        return thread


def tray_reader(calibration_path: str, faces_path: str = "",
                resolution: tuple[int, int] | None = None) -> TrayReader:
    """The reader with the tray profile and the taught faces. With the camera's
    `resolution`: a ConfigError when the profile was made at another aspect ratio (every
    roll would fail on it), and a warning in the log when the profile says the dice come out
    too small in such frames to read the special dice well."""
    calibration = None
    if calibration_path:
        calibration = load_tray_calibration(calibration_path)
        if resolution:
            _check_at_resolution(calibration, *resolution)
    return TrayReader(calibration, load_taught_faces(faces_path) if faces_path else None)


def _check_at_resolution(calibration: Any, width: int, height: int) -> None:
    from station.vision.calibration import CalibrationError
    from station.vision.constants import SMALL_DIE_PX
    try:
        low, _ = calibration.for_image(width, height).die_side_px()
    except CalibrationError as error:
        w0, h0 = calibration.image_size
        raise ConfigError("camera.calibration", str(error),
                          f"Or set camera.resolution to the profile's shape, e.g. [{w0}, {h0}]"
                          ) from None
    if low < SMALL_DIE_PX:
        log.warning("camera.calibration: at camera.resolution %dx%d the dice's top faces come out "
                    "%.0f px wide; under %d px the artillery die is read less surely "
                    "(docs/calibration.md): raise camera.resolution or bring the camera closer",
                    width, height, low, SMALL_DIE_PX)


def load_taught_faces(path: str) -> Any:
    from station.vision.taught_faces import TaughtFaces, TaughtFacesError
    try:
        return TaughtFaces.load(str(Path(path).expanduser()))
    except TaughtFacesError as error:
        raise ConfigError("camera.faces", str(error),
                          "Or leave it empty to read without taught faces") from None


def load_tray_calibration(path: str) -> Any:
    from station.vision.calibration import load_profile
    try:
        return load_profile(path)
    except (OSError, ValueError, KeyError) as error:
        raise ConfigError("camera.calibration", f"cannot load {path} ({error})",
                          "Make one with `station calibrate tray IMAGE`, or leave it empty") from None
