"""The tray profile at start-up: the station says in its log when the profile, at the
camera's resolution, gives dice too small to read the special dice well, and refuses a
profile made at another aspect ratio."""

import logging

import numpy as np
import pytest

from station.config import ConfigError
from station.fakes.tray import random_tray
from station.service.devices import tray_reader
from station.vision.calibration import calibrate_image, load_profile


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    """A 1280x960 photo whose dice are about 36 px wide, and its profile's path."""
    shot = random_tray(np.random.default_rng(21), size=(1280, 960), dice=(3, 3),
                       markers=True, yaw_deg=30.0)
    path = tmp_path_factory.mktemp("tray") / "tray.json"
    calibrate_image(shot.image).save(str(path))
    return shot.image, str(path)


@pytest.fixture(scope="module")
def profile_path(calibrated):
    return calibrated[1]


def test_a_camera_turned_since_calibration_is_said_on_every_screen(calibrated):
    from station.service.session import Session
    image, path = calibrated
    read = tray_reader(path, "", (1280, 960))
    session = Session.__new__(Session)               # only its hardware lines
    session.hardware, session.laser, session.read, session.journal = {}, None, read, None
    read(image)
    assert read.calibration.markers_in_place(image) and session.hardware_down() == {}
    read(image[::-1, ::-1].copy())                   # the camera turned half round
    assert "markers are not where camera.calibration saw them" in session.hardware_down()["tray"]
    read(np.zeros_like(image))                       # all covered: no verdict, the last stands
    assert "tray" in session.hardware_down()
    read(image)                                      # turned back
    assert session.hardware_down() == {}


def warnings_at(resolution, profile_path, caplog) -> str:
    caplog.clear()
    caplog.set_level(logging.WARNING, logger="station.service.devices")
    assert tray_reader(profile_path, "", resolution).calibration is not None
    return " ".join(r.getMessage() for r in caplog.records)


def test_small_dice_are_told_at_start(profile_path, caplog):
    profile = load_profile(profile_path)
    assert profile.die_side_px()[0] >= 20
    assert warnings_at((1280, 960), profile_path, caplog) == ""
    assert warnings_at((2592, 1944), profile_path, caplog) == ""
    small = profile.for_image(640, 480).die_side_px()[0]
    assert small < 20
    told = warnings_at((640, 480), profile_path, caplog)
    assert f"camera.resolution 640x480 the dice's top faces come out {small:.0f} px" in told


def test_a_profile_of_another_aspect_ratio_stops_the_station(profile_path):
    # it used to be a warning, and then every ROLL failed and nothing was journalled
    with pytest.raises(ConfigError, match=r"camera.calibration: the profile was made on "
                                          r"1280x960 frames and this one is 1920x1080.*"
                                          r"camera.resolution to the profile's shape, e.g. "
                                          r"\[1280, 960\]"):
        tray_reader(profile_path, "", (1920, 1080))
