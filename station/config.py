"""The service's configuration: a TOML file (tomllib) over built-in defaults.

`station.example.toml` at the top of the repository documents every key with its default;
a test keeps the two in step. Every problem is a `ConfigError` whose message names the key
(`controls.roll`, `actions[2].ruling`) and says how to fix it, and the service stops before
it touches any hardware.
"""

from __future__ import annotations

import copy
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_JOURNAL = "~/.local/share/station/journal.sqlite"
SIMULATED_JOURNAL = "~/.local/share/station/simulated.sqlite"   # `station run --simulate`'s

DEFAULTS: dict[str, Any] = {
    "journal": {"path": DEFAULT_JOURNAL,
                "key_file": ""},              # seal entries with this secret (HMAC-SHA256)
    "camera": {
        "source": "picamera2",        # picamera2 | opencv | replay | synthetic
        "device": 0,                  # opencv: camera index or a video file / URL
        "files": "",                  # replay: a glob of tray photos, shown in turn
        "resolution": [1280, 960],
        "fps": 20,
        "settle_seconds": 0.2,        # how long the dice must lie still before reading
        "still_frames": 4,            # still frames averaged into the frame read (less noise)
        "calibration": "",            # tray calibration profile (station calibrate tray)
        "faces": "",                  # taught-faces profile (station calibrate faces)
    },
    "laser": {
        "device": "none",             # a codec name (glm, disto, jrt, m80, dollar, tape) or none
        "port": "",                   # /dev/ttyUSB0, /dev/rfcomm0 or VID:PID
        "baud": 0,                    # 0: the device's own default
        "calibration": "",            # laser calibration profile (station calibrate laser)
        # above the station's own tape's timeout_ms (3 s): its "module did not answer"
        # then reaches the screen, not a bare "no answer"
        "timeout_seconds": 4.0,
    },
    "controls": {
        "roll": 17, "measure": 27, "next": 22, "reroll": 23,
        "led": 5,
        "buzzer": -1,                 # -1: no buzzer
        "bounce_ms": 40,
        "hold_seconds": 1.5,          # a long press on ROLL opens manual entry
        "keyboard": True,             # r/m/n/e keys as well (laptop, terminal)
    },
    "display": {
        "sinks": ["hdmi"],            # hdmi (pygame), lcd (luma), png, terminal, web
        "size": [800, 480],
        "png_dir": "",                # png sink: where screens go
        "lcd_driver": "ssd1306",      # luma device class: ssd1306, sh1106, st7735, ili9341...
        "lcd_interface": "i2c",       # i2c | spi
        "lcd_port": -1,               # -1: the interface's usual on a Pi (I2C bus 1, SPI0)
        "lcd_address": 0x3C,
        "lcd_size": [128, 64],
        "web_host": "0.0.0.0",        # web sink: every network the Pi is on ("127.0.0.1": itself only)
        "web_port": 8080,
    },
    "actions": [
        {"name": "Roll 2D6", "ruling": "dice.roll expr=2D6"},
        {"name": "Impaler spear", "ruling": "wm.ranged rat=5 def=13"},
        {"name": "Stone thrower scatter", "ruling": "wfb.scatter distance=A"},
        {"name": "Warpwolf throw", "ruling": "wm.throw str=11 target_str=9 base=large target_base=medium"},
        {"name": "Leadership roll-off", "ruling": "dice.rolloff"},
    ],
}

CAMERA_SOURCES = ("picamera2", "opencv", "replay", "synthetic")
SINKS = ("hdmi", "lcd", "png", "terminal", "web")
ACTION_KEYS = ("name", "ruling")
PIN_KEYS = ("roll", "measure", "next", "reroll", "led", "buzzer")
MAX_STILL_FRAMES = 16        # camera.still_frames: 16 frames already cut the noise to a quarter
# Numbers that a value out of range does not stop but breaks: a settle time of hours never
# reads, a hold time of 0.01 s makes every press a hold, a timeout under 0 fails every MEASURE.
RANGES = {
    ("camera", "settle_seconds"): (0.0, 10.0, "the dice lie still this long before they are read"),
    ("controls", "hold_seconds"): (0.3, 10.0, "holding ROLL this long opens manual entry"),
    ("laser", "timeout_seconds"): (0.5, 60.0, "how long a measurement may take"),
}
NAMES_OR_NUMBERS = {("camera", "device"), *(("controls", key) for key in PIN_KEYS)}
TYPE_WORDS = {int: "a whole number", float: "a number", str: "a string", bool: "true or false",
              list: "a list", dict: "a table"}


class ConfigError(Exception):
    """A setting is wrong: the message names the key and the fix."""

    def __init__(self, key: str, problem: str, fix: str) -> None:
        self.key = key
        super().__init__(f"{key}: {problem}. {fix}")


@dataclass(frozen=True)
class ActionChoice:
    """One entry of the NEXT ACTION carousel: a name and a ruling with its parameters."""

    name: str
    ruling: str                     # the ruling's name, e.g. "wm.ranged"
    params: dict[str, str] = field(default_factory=dict)

    @property
    def command(self) -> str:
        return " ".join([self.ruling, *(f"{k}={v}" for k, v in self.params.items())])


@dataclass
class Config:
    journal: Path
    camera: dict[str, Any]
    laser: dict[str, Any]
    controls: dict[str, Any]
    display: dict[str, Any]
    actions: list[ActionChoice]
    source: str = "built-in defaults"
    journal_key_file: Path | None = None


def load(path: str | Path | None = None, *, known_rulings: dict[str, Any] | None = None) -> Config:
    """Read the TOML file at `path` (None: the defaults) and check every key.

    `known_rulings` maps ruling names to anything; when given, an action naming another
    ruling is an error (the caller passes the rules registry).
    """
    raw: dict[str, Any] = {}
    source = "built-in defaults"
    if path is not None:
        path = Path(path)
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError("--config", f"{path} does not exist",
                              "Give the path of a TOML file; station.example.toml is a template")
        except OSError as error:            # a folder, no permission
            raise ConfigError("--config", f"cannot read {path} ({error.strerror or error})",
                              "Give the path of a TOML file the station's user can read")
        except UnicodeDecodeError as error:     # saved as Latin-1 or another code page
            line = error.object[:error.start].count(b"\n") + 1
            raise ConfigError(str(path), f"is not UTF-8 text (byte {error.object[error.start]:#04x} "
                              f"on line {line})", "TOML files are UTF-8: save it as UTF-8, e.g. "
                              f"iconv -f latin1 -t utf-8 {path} > station.toml")
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(str(path), f"not valid TOML ({error})",
                              "Fix the line it names; station.example.toml shows the syntax")
        source = str(path)
    merged = _merge(DEFAULTS, raw)
    config = Config(
        journal=Path(str(merged["journal"]["path"])).expanduser(),
        camera=merged["camera"], laser=merged["laser"], controls=merged["controls"],
        display=merged["display"], actions=_actions(merged["actions"], known_rulings),
        source=source,
        journal_key_file=(Path(merged["journal"]["key_file"]).expanduser()
                          if merged["journal"]["key_file"] else None))
    _check(config)
    return config


def _merge(defaults: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(defaults)
    for section, value in raw.items():
        if section not in defaults:
            raise ConfigError(section, "is not a setting the station knows",
                              f"Use one of: {', '.join(defaults)}")
        if section == "actions":
            merged["actions"] = value
            continue
        if not isinstance(value, dict):
            raise ConfigError(section, "must be a table", f"Write it as [{section}]")
        for key, item in value.items():
            if key not in defaults[section]:
                raise ConfigError(f"{section}.{key}", "is not a setting the station knows",
                                  f"Use one of: {', '.join(defaults[section])}")
            expected = type(defaults[section][key])
            if expected is float and isinstance(item, int):
                item = float(item)
            if isinstance(item, float) and not math.isfinite(item):     # TOML has nan and inf
                raise ConfigError(f"{section}.{key}", f"must be a finite number, not {item!r}",
                                  f"The default is {defaults[section][key]!r}")
            named = (section, key) in NAMES_OR_NUMBERS and isinstance(item, str)
            if not named and (not isinstance(item, expected)
                                 or (expected is int and isinstance(item, bool))):
                raise ConfigError(f"{section}.{key}", f"must be {TYPE_WORDS[expected]}, not {item!r}",
                                  f"The default is {defaults[section][key]!r}")
            if expected is list:                # [1280, "960"] would fail later, unexplained
                inner = type(defaults[section][key][0])
                if not all(isinstance(v, inner) and not isinstance(v, bool) for v in item):
                    raise ConfigError(f"{section}.{key}",
                                      f"every item must be {TYPE_WORDS[inner]}, not {item!r}",
                                      f"The default is {defaults[section][key]!r}")
            merged[section][key] = item
    return merged


def _actions(entries: Any, known_rulings: dict[str, Any] | None) -> list[ActionChoice]:
    if not isinstance(entries, list) or not entries:
        raise ConfigError("actions", "needs at least one [[actions]] entry",
                          'Add one: [[actions]] name = "Roll 2D6", ruling = "dice.roll expr=2D6"')
    actions = []
    for index, entry in enumerate(entries):
        key = f"actions[{index}]"
        if isinstance(entry, dict) and (unknown := sorted(entry.keys() - set(ACTION_KEYS))):
            raise ConfigError(f"{key}.{unknown[0]}", "is not a setting the station knows",
                              f"Use one of: {', '.join(ACTION_KEYS)}")
        if not isinstance(entry, dict) or not isinstance(entry.get("ruling"), str):
            raise ConfigError(f"{key}.ruling", "is missing",
                              'Give the ruling and its parameters: ruling = "wm.ranged rat=5 def=13"')
        words = entry["ruling"].split()
        if not words:
            raise ConfigError(f"{key}.ruling", "is empty", "Name a ruling from `station actions`")
        ruling, params = words[0], {}
        for word in words[1:]:
            name, sep, value = word.partition("=")
            if not sep or not name or not value:
                raise ConfigError(f"{key}.ruling", f"parameter {word!r} is not name=value",
                                  "Write parameters as name=value, e.g. rat=5")
            if name in params:              # as `station resolve` refuses it: which one was meant?
                raise ConfigError(f"{key}.ruling", f"{name} given twice",
                                  "Give each parameter once")
            params[name] = value
        if known_rulings is not None and ruling not in known_rulings:
            raise ConfigError(f"{key}.ruling", f"{ruling!r} is not a ruling the station knows",
                              f"Use one listed by `station actions`: {', '.join(sorted(known_rulings))}")
        name = entry.get("name", entry["ruling"])
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"{key}.name", "must be a non-empty string", "Name the action as players call it")
        actions.append(ActionChoice(name.strip(), ruling, params))
    return actions


_PIN = re.compile(r"^(GPIO|BCM)?\d+$|^(BOARD\d+|J8:\d+)$", re.IGNORECASE)


def _check(config: Config) -> None:
    camera = config.camera
    if camera["source"] not in CAMERA_SOURCES:
        raise ConfigError("camera.source", f"{camera['source']!r} is not a camera source",
                          f"Use one of: {', '.join(CAMERA_SOURCES)}")
    if camera["source"] == "replay" and not camera["files"]:
        raise ConfigError("camera.files", "is empty but camera.source is replay",
                          'Give a glob of tray photos, e.g. files = "photos/*.jpg"')
    if len(camera["resolution"]) != 2 or min(camera["resolution"]) < 64:
        raise ConfigError("camera.resolution", f"{camera['resolution']!r} is not [width, height]",
                          "Use e.g. [1280, 960]")
    if isinstance(camera["device"], int) and camera["device"] < 0:     # OpenCV segfaults on -1
        raise ConfigError("camera.device", f"{camera['device']} is not a camera index",
                          "Use 0 for the first camera, 1 for the next, or a video file's path")
    if camera["fps"] <= 0:
        raise ConfigError("camera.fps", f"{camera['fps']!r} is not positive", "Use e.g. fps = 20")
    for (section, key), (low, high, meaning) in RANGES.items():
        value = getattr(config, section)[key]
        if not low <= value <= high:
            raise ConfigError(f"{section}.{key}", f"{value!r} is not {low:g}-{high:g} seconds",
                              f"It is {meaning}: e.g. {key} = {DEFAULTS[section][key]!r}")
    if not 1 <= camera["still_frames"] <= MAX_STILL_FRAMES:
        raise ConfigError("camera.still_frames", f"{camera['still_frames']!r} is not 1-{MAX_STILL_FRAMES}",
                          "Use e.g. still_frames = 4 (1 reads the last frame alone)")
    pins: dict[str, str] = {}
    for key in PIN_KEYS:
        pin = config.controls[key]
        if key == "buzzer" and pin == -1:
            continue
        if isinstance(pin, int) and not 0 <= pin <= 27 or not _PIN.match(str(pin)):
            raise ConfigError(f"controls.{key}", f"{pin!r} is not a GPIO pin",
                              "Use a BCM number 0-27 (e.g. 17) or a name such as \"BOARD11\"")
        label = str(pin).upper().removeprefix("GPIO").removeprefix("BCM")
        if label in pins:
            raise ConfigError(f"controls.{key}", f"pin {pin} is already used by controls.{pins[label]}",
                              "Give every button, the LED and the buzzer a pin of its own")
        pins[label] = key
    if config.controls["bounce_ms"] < 0:
        raise ConfigError("controls.bounce_ms", f"{config.controls['bounce_ms']!r} is negative",
                          "Use e.g. bounce_ms = 40")
    display = config.display
    for sink in display["sinks"]:
        if sink not in SINKS:
            raise ConfigError("display.sinks", f"{sink!r} is not a display", f"Use any of: {', '.join(SINKS)}")
    if len(display["size"]) != 2 or min(display["size"]) < 120:
        raise ConfigError("display.size", f"{display['size']!r} is too small or not [width, height]",
                          "Use the screen's pixel size, e.g. [800, 480]")
    check_port("display.web_port", display["web_port"])
    if "png" in display["sinks"] and not display["png_dir"]:
        raise ConfigError("display.png_dir", "is empty but display.sinks has png",
                          'Give a folder for the screens, e.g. png_dir = "screens"')
    if not 0 <= config.laser["baud"] <= 4_000_000:        # 4 Mbaud: the fastest Linux knows
        raise ConfigError("laser.baud", f"{config.laser['baud']!r} is not a baud rate",
                          "Use 0 for the device's own rate, or the rate its manual gives, e.g. 9600")
    if config.laser["device"] != "none" and not config.laser["port"]:
        raise ConfigError("laser.port", f"is empty but laser.device is {config.laser['device']!r}",
                          'Give the serial port (e.g. "/dev/rfcomm0" or "0403:6001"), or device = "none"')


def check_port(key: str, port: int) -> None:
    """The web display's TCP port (0: any free one), or a ConfigError naming `key`."""
    if not 0 <= port <= 65535:
        raise ConfigError(key, f"{port!r} is not a TCP port", "Use a port number such as 8080")
