"""The service configuration: defaults, the example file, and errors that name the key."""

import re
from pathlib import Path

import pytest

from station import config
from station.config import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path, text):
    path = tmp_path / "station.toml"
    path.write_text(text)
    return path


def test_defaults_load_without_a_file():
    c = config.load(None)
    assert c.camera["source"] == "picamera2"
    assert [a.name for a in c.actions][:2] == ["Roll 2D6", "Impaler spear"]
    assert c.actions[1].ruling == "wm.ranged" and c.actions[1].params == {"rat": "5", "def": "13"}
    assert c.actions[1].command == "wm.ranged rat=5 def=13"


def test_example_file_documents_exactly_the_defaults():
    example = config.load(ROOT / "station.example.toml")
    defaults = config.load(None)
    for section in ("camera", "laser", "controls", "display"):
        assert getattr(example, section) == getattr(defaults, section), section
    assert example.actions == defaults.actions
    assert example.journal == defaults.journal
    assert example.journal_key_file == defaults.journal_key_file is None


@pytest.mark.parametrize("text, key, words", [
    ("[camera]\nsorce = 'opencv'\n", "camera.sorce", "Use one of"),
    ("[camra]\n", "camra", "Use one of"),
    ("[camera]\nfps = 'ten'\n", "camera.fps", "must be a whole number"),
    ("[camera]\nsource = 'webcam'\n", "camera.source", "opencv"),
    ("[camera]\nsource = 'replay'\n", "camera.files", "glob"),
    ("[camera]\nstill_frames = 0\n", "camera.still_frames", "still_frames = 4"),
    ("[camera]\nstill_frames = 40\n", "camera.still_frames", "is not 1-16"),
    ("[camera]\nsettle_seconds = nan\n", "camera.settle_seconds", "must be a finite number, not nan"),
    ("[camera]\nsettle_seconds = inf\n", "camera.settle_seconds", "finite number"),
    ("[camera]\nsettle_seconds = -0.1\n", "camera.settle_seconds", "is not 0-10 seconds"),
    ("[camera]\nfps = 0\n", "camera.fps", "fps = 20"),
    ("[controls]\nhold_seconds = nan\n", "controls.hold_seconds", "finite number"),
    ("[controls]\nhold_seconds = 0.01\n", "controls.hold_seconds", "hold_seconds = 1.5"),
    ("[controls]\nbounce_ms = -1\n", "controls.bounce_ms", "bounce_ms = 40"),
    ("[camera]\nsource = 'opencv'\ndevice = -1\n", "camera.device", "not a camera index"),
    ("[laser]\nbaud = -5\n", "laser.baud", "-5 is not a baud rate"),
    ("[laser]\ntimeout_seconds = -1\n", "laser.timeout_seconds", "is not 0.5-60 seconds"),
    ("[laser]\ntimeout_seconds = nan\n", "laser.timeout_seconds", "finite number"),
    ("[laser]\ntimeout_seconds = -inf\n", "laser.timeout_seconds", "finite number"),
    ("[controls]\nroll = 99\n", "controls.roll", "BCM number"),
    ("[controls]\nmeasure = 'GPIO2x'\n", "controls.measure", "not a GPIO pin"),
    ("[controls]\nnext = 17\n", "controls.next", "already used by controls.roll"),
    ("[display]\nsinks = ['hdmi', 'tv']\n", "display.sinks", "hdmi, lcd, png, terminal"),
    ("[display]\nsinks = ['png']\n", "display.png_dir", "folder"),
    ("[display]\nweb_port = 70000\n", "display.web_port", "port number"),
    ("[camera]\nresolution = ['a', 'b']\n", "camera.resolution", "every item must be a whole number"),
    ("[camera]\nresolution = [1280, '960']\n", "camera.resolution", "not [1280, '960']"),
    ("[camera]\nresolution = [1280, 960.5]\n", "camera.resolution", "default is [1280, 960]"),
    ("[display]\nsize = ['800', 480]\n", "display.size", "every item must be a whole number"),
    ("[display]\nlcd_size = [128, true]\n", "display.lcd_size", "every item must be a whole number"),
    ("[display]\nsinks = [1]\n", "display.sinks", "every item must be a string"),
    ("[laser]\ndevice = 'glm'\n", "laser.port", "/dev/rfcomm0"),
    ("[[actions]]\nname = 'x'\nruling = 'wm.ranged rat5'\n", "actions[0].ruling", "name=value"),
    ("[[actions]]\nname = 'x'\n", "actions[0].ruling", "is missing"),
    ("[[actions]]\nruling = 'dice.roll expr=2D6 expr=3D6'\n", "actions[0].ruling",
     "expr given twice"),
    ("[[actions]]\nruling = 'dice.roll'\n[[actions]]\nruling = 'dice.roll'\ncolour = 'red'\n",
     "actions[1].colour", "Use one of: name, ruling"),
    ("actions = []\n", "actions", "at least one"),
    ("[camera\n", "station.toml", "not valid TOML"),
])
def test_bad_settings_name_the_key_and_the_fix(tmp_path, text, key, words):
    with pytest.raises(ConfigError) as caught:
        config.load(write(tmp_path, text))
    assert caught.value.key.endswith(key)
    assert words in str(caught.value)


def test_unknown_ruling_lists_the_known_ones(tmp_path):
    path = write(tmp_path, "[[actions]]\nname = 'Spear'\nruling = 'wm.rangd rat=5'\n")
    with pytest.raises(ConfigError, match=r"actions\[0\].ruling: 'wm.rangd' is not a ruling.*wm.ranged"):
        config.load(path, known_rulings={"wm.ranged": None, "dice.roll": None})


def test_missing_file_says_so(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        config.load(tmp_path / "nope.toml")


def test_a_file_that_cannot_be_read_says_why(tmp_path):
    # both used to end in a traceback (UnicodeDecodeError, IsADirectoryError)
    latin = tmp_path / "latin.toml"
    latin.write_bytes("# Gr\u00f6\u00dfe\n[camera]\nfps = 20\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=r"latin.toml: is not UTF-8 text \(byte 0xf6 on line 1\)"
                                          r".*save it as UTF-8"):
        config.load(latin)
    with pytest.raises(ConfigError, match=r"--config: cannot read .* \(Is a directory\)"):
        config.load(tmp_path)


def test_partial_file_keeps_other_defaults(tmp_path):
    c = config.load(write(tmp_path, "[controls]\nroll = 6\n[camera]\nsettle_seconds = 1\n"))
    assert c.controls["roll"] == 6 and c.controls["measure"] == 27
    assert c.camera["settle_seconds"] == 1.0


def test_the_laser_timeout_outlasts_the_station_tapes_own():
    # the tape's "ERR timeout" must reach the station before it stops waiting
    firmware = (ROOT / "firmware/laser_tape/config.py").read_text()
    tape_ms = int(re.search(r"^MEASURE_TIMEOUT_MS = (\d+)", firmware, re.M).group(1))
    assert config.DEFAULTS["laser"]["timeout_seconds"] >= tape_ms / 1000 + 0.5
