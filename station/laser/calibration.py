"""Laser calibration: readings at known distances give an offset (and a scale where the fit
shows one), stored per device with its reference edge in a calibration profile (MEAS-2).

A laser tape reads from its own reference edge (rear, front, pin, tripod thread). Held
against a model's base, that edge is where the measure starts; what the device adds or
misses there, and any scale error of a cheap module, the fit takes out:
    corrected_mm = scale * raw_mm + offset_mm

The profile is a JSON file, by default ~/.config/station/laser.json (XDG_CONFIG_HOME
respected), with one entry per device name.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

PROFILE_VERSION = 1
MIN_SCALE_EFFECT = 0.0005     # below 0.05 % a scale is not worth fitting on a table
SCALE_SIGNIFICANCE = 3.0      # the scale must differ from 1 by 3 standard errors


class CalibrationError(ValueError):
    """The points or the profile file cannot give a calibration; the message says why."""


@dataclass
class Calibration:
    device: str
    reference_edge: str = "rear"           # the edge the device measures from
    offset_mm: float = 0.0
    scale: float = 1.0
    residual_mm: float = 0.0               # RMS error left after the fit
    points: list[tuple[float, float]] = field(default_factory=list)   # (known, raw) mm
    device_edge_code: str | None = None    # the edge code the device itself reported
    calibrated_at: str = ""

    def corrected(self, raw_mm: float) -> float:
        return self.scale * raw_mm + self.offset_mm


def fit(points: list[tuple[float, float]]) -> tuple[float, float, float]:
    """(offset_mm, scale, residual_mm) from (known_mm, raw_mm) points.

    Offset only, unless there are three or more distinct distances and the least-squares
    scale differs from 1 both significantly and by more than MIN_SCALE_EFFECT.
    """
    if not points:
        raise CalibrationError("no calibration points: take at least one reading at a "
                               "known distance (more, spread over the table, fit a scale)")
    known = [k for k, _ in points]
    raw = [r for _, r in points]
    n = len(points)
    offset = sum(k - r for k, r in points) / n
    result = (offset, 1.0, _rms([k - (r + offset) for k, r in points]))
    mean_raw = sum(raw) / n
    spread = sum((r - mean_raw) ** 2 for r in raw)
    if n < 3 or spread < 1e-9:
        return result
    mean_known = sum(known) / n
    scale = sum((r - mean_raw) * (k - mean_known) for k, r in points) / spread
    linear_offset = mean_known - scale * mean_raw
    errors = [k - (scale * r + linear_offset) for k, r in points]
    sigma = math.sqrt(sum(e * e for e in errors) / (n - 2))
    scale_error = sigma / math.sqrt(spread)
    if abs(scale - 1) > max(MIN_SCALE_EFFECT, SCALE_SIGNIFICANCE * scale_error):
        return linear_offset, scale, _rms(errors)
    return result


def _rms(values: list[float]) -> float:
    return math.sqrt(sum(v * v for v in values) / len(values))


def calibrate(device: str, points: list[tuple[float, float]], reference_edge: str,
              device_edge_code: str | None = None) -> Calibration:
    offset, scale, residual = fit(points)
    return Calibration(device=device, reference_edge=reference_edge, offset_mm=offset,
                       scale=scale, residual_mm=residual, points=list(points),
                       device_edge_code=device_edge_code,
                       calibrated_at=datetime.now(timezone.utc).isoformat(timespec="seconds"))


def default_profile_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "station" / "laser.json"


def load_profile(path: Path) -> dict[str, Calibration]:
    """The calibrations in a profile file by device name; empty if there is no file."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
        entries = data["devices"] if isinstance(data, dict) else None
        if not isinstance(entries, dict):
            raise ValueError('"devices" is not an object of device names')
        return {name: _calibration(name, entry) for name, entry in entries.items()}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise CalibrationError(
            f"cannot read the laser calibration profile {path}: {error}. Fix or delete it, "
            "then run `station calibrate laser` again") from None


NUMBERS = ("offset_mm", "scale", "residual_mm")
TEXTS = ("device", "reference_edge", "calibrated_at")


def _calibration(name: str, entry: object) -> Calibration:
    """One device's entry; ValueError saying which field is wrong. Every number must be
    finite: a NaN offset would turn every later measurement into "nan in"."""
    if not isinstance(entry, dict):
        raise ValueError(f"the entry of {name!r} is not an object")
    calibration = Calibration(**{**entry, "points": [tuple(p) for p in entry.get("points", [])]})
    values = [getattr(calibration, key) for key in NUMBERS]
    values += [v for point in calibration.points for v in point]
    if (any(len(point) != 2 for point in calibration.points)
            or not all(_finite(v) for v in values)):
        raise ValueError(f"{name!r}: {', '.join(NUMBERS)} and the (known, raw) points must "
                         "be finite numbers")
    if not all(isinstance(getattr(calibration, key), str) for key in TEXTS) or not (
            calibration.device_edge_code is None or isinstance(calibration.device_edge_code, str)):
        raise ValueError(f"{name!r}: {', '.join(TEXTS)} and device_edge_code must be text")
    return calibration


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def calibration_for(device: str, path: Path | None = None) -> Calibration | None:
    """The device's calibration from the profile (the default one if no path), or None."""
    return load_profile(path or default_profile_path()).get(device)


def save_calibration(path: Path, calibration: Calibration) -> None:
    """Add or replace the device's entry in the profile file, keeping the others."""
    entries = load_profile(path)
    entries[calibration.device] = calibration
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"version": PROFILE_VERSION,
            "devices": {name: asdict(entry) for name, entry in sorted(entries.items())}}
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    tmp.replace(path)
