"""`station calibrate faces` then `station read --faces`: the round trip a player makes."""

import json

import cv2
import numpy as np
import pytest

from station.cli import main
from station.fakes.tray import render_roll
from station.fakes.tray_faces import MARKED_DICE
from station.rules.faces import Face

STAR6 = MARKED_DICE["star6"]


def write(path, faces, seed, **options):
    shot = render_roll(faces, np.random.default_rng(seed), size=(1280, 960), marks=STAR6,
                       **options)
    cv2.imwrite(str(path), shot.image)
    return shot


@pytest.fixture(scope="module")
def taught(tmp_path_factory):
    folder = tmp_path_factory.mktemp("faces")
    photos = [folder / f"star{seed}.png" for seed in range(900, 905)]
    for seed, path in zip(range(900, 905), photos):
        write(path, [Face("d6", 6)], seed)
    return folder, photos


def test_teach_then_read_json(taught, capsys):
    folder, photos = taught
    profile = folder / "faces.npz"
    status = main(["calibrate", "faces", "--kind", "d6", "--face", "6", *map(str, photos),
                   "--out", str(profile)])
    out = capsys.readouterr().out
    assert status == 0 and profile.exists()
    assert "d6 6: 5 photos, taken from a score of" in out and "self-check:" in out
    tray = folder / "tray.png"
    shot = write(tray, [Face("d6", 6), Face("d6", 2), Face("d6", 6)], 31, touching=0.0)
    assert main(["read", str(tray), "--json", "--faces", str(profile)]) == 0
    dice = json.loads(capsys.readouterr().out)["dice"]
    for truth in shot.truth:
        die = min(dice, key=lambda d: np.hypot(d["center"][0] - truth.center[0],
                                               d["center"][1] - truth.center[1]))
        assert die["value"] == truth.value
        assert ("taught" in die["flags"]) == (truth.value == 6)
    assert main(["read", str(tray), "--faces", str(profile)]) == 0
    assert "read by a taught face: d6 6 at" in capsys.readouterr().out
    assert main(["calibrate", "faces", "--list", "--json", "--out", str(profile)]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert list(listed["faces"]) == ["d6:6"] and listed["faces"]["d6:6"]["photos"] == 5
    assert main(["calibrate", "faces", "--kind", "d6", "--forget", "6",
                 "--out", str(profile)]) == 0
    assert "forgot d6:6" in capsys.readouterr().out
    assert main(["calibrate", "faces", "--list", "--out", str(profile)]) == 0
    assert "no taught faces" in capsys.readouterr().out


def test_bad_input_exits_2_and_says_what_to_do(taught, tmp_path, capsys):
    folder, photos = taught
    two = tmp_path / "two.png"
    write(two, [Face("d6", 6), Face("d6", 3)], 950, touching=0.0)
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.zeros((1, 1, 3), np.uint8))
    out = str(tmp_path / "faces.npz")
    cases = [
        (["--kind", "d6", "--face", "6", str(two)], "--at X,Y"),
        (["--kind", "d6", "--face", "6", str(two), "--at", "nowhere"], "give the die's pixel"),
        (["--kind", "d6", "--face", "6", str(two), "--at", "nan,nan"], "give the die's pixel"),
        (["--kind", "d6", "--face", "6", str(two), "--at", "inf,3"], "give the die's pixel"),
        (["--kind", "d6", "--face", "6", str(tiny)], "1x1 image is too small"),
        (["--kind", "d6", "--face", "9", str(photos[0])], "not a face of the d6"),
        (["--face", "6", str(photos[0])], "--kind d6"),
        (["--kind", "d6", "--face", "6", str(tmp_path / "missing.png")], "no such file"),
        (["--kind", "d6", "--forget", "6"], "has no taught face d6:6"),
    ]
    for args, message in cases:
        assert main(["calibrate", "faces", *args, "--out", out]) == 2, args
        assert message in capsys.readouterr().err, args
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"nonsense")
    assert main(["read", str(photos[0]), "--faces", str(bad)]) == 2
    assert "teach the faces again with `station calibrate faces`" in capsys.readouterr().err
    assert main(["read", str(photos[0]), "--faces", str(tmp_path / "none.npz")]) == 2
    assert "no taught-faces profile" in capsys.readouterr().err
