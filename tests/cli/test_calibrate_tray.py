"""`station calibrate tray --preview`: the preview's name is checked before any work."""

import cv2
import numpy as np
import pytest

from station.cli import main
from station.fakes.tray import random_tray


@pytest.fixture(scope="module")
def tray(tmp_path_factory):
    path = tmp_path_factory.mktemp("tray") / "tray.png"
    shot = random_tray(np.random.default_rng(21), size=(1280, 960), dice=(6, 10), markers=True)
    cv2.imwrite(str(path), shot.image)
    return path


def test_a_bad_preview_name_is_refused_before_the_profile_is_written(tray, tmp_path, capsys):
    (tmp_path / "a-file").touch()
    profile = tmp_path / "tray.json"
    for preview, said in ((tmp_path / "out" / "p.xyz", "ending in .png, .jpg or .jpeg"),
                          (tmp_path / "out" / "p", "ending in .png, .jpg or .jpeg"),
                          (tmp_path, "is a folder"),
                          (tmp_path / "a-file" / "p.png", "a-file is a file, not a folder")):
        assert main(["calibrate", "tray", str(tray), "--out", str(profile),
                     "--preview", str(preview)]) == 2, preview
        assert said in capsys.readouterr().err, preview
        assert not profile.exists()


def test_a_preview_in_a_new_folder_is_written(tray, tmp_path, capsys):
    preview = tmp_path / "new" / "deeper" / "p.jpg"
    assert main(["calibrate", "tray", str(tray), "--out", str(tmp_path / "tray.json"),
                 "--preview", str(preview)]) == 0
    assert cv2.imread(str(preview)).shape == (960, 1280, 3)
