"""The service reads with the taught faces named by `[camera] faces` in its configuration."""

import numpy as np
import pytest

from station import config
from station.config import ConfigError
from station.service.devices import tray_reader
from station.vision.taught_faces import TaughtFaces


def test_the_camera_section_names_the_taught_faces_profile(tmp_path):
    path = tmp_path / "station.toml"
    path.write_text('[camera]\nfaces = "~/faces.npz"\n')
    assert config.load(path).camera["faces"] == "~/faces.npz"
    assert config.load(None).camera["faces"] == ""


def test_the_tray_reader_passes_the_taught_faces_to_read_tray(tmp_path):
    profile = tmp_path / "faces.npz"
    TaughtFaces().save(str(profile))
    seen = []
    for path in (str(profile), ""):
        read = tray_reader("", path)
        read.read_tray = lambda frame, calibration, **options: seen.append(options) or []
        read(np.zeros((8, 8, 3), np.uint8))
        read.expecting_special(np.zeros((8, 8, 3), np.uint8))
    assert isinstance(seen[0]["faces"], TaughtFaces) and seen[1]["expect_special"]
    assert "faces" in seen[1] and seen[2:] == [{}, {"expect_special": True}]


def test_a_bad_profile_stops_the_service_with_the_key_and_the_fix(tmp_path):
    with pytest.raises(ConfigError, match=r"camera.faces: no taught-faces profile .*calibrate "
                                          r"faces.*leave it empty"):
        tray_reader("", str(tmp_path / "missing.npz"))
