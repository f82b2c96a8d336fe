"""The laser tape as the session sees it: `measure()` gives a `Measurement` or a `LaserError`.

The wire protocol, the serial transport and the calibration live in `station.laser`; this
is the service's edge over them (and, with --simulate, over a simulated device on a
pseudo-terminal, read through the same transport and codec).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Protocol

MM_PER_INCH = 25.4


@dataclass(frozen=True)
class Measurement:
    device: str
    raw_mm: float                 # what the device said (MEAS-2)
    mm: float                     # after the calibration's offset and scale
    quality: float | None = None
    at: str = ""

    @property
    def inches(self) -> float:    # MEAS-1
        return self.mm / MM_PER_INCH

    def to_json(self) -> dict:
        return {"device": self.device, "raw_mm": round(self.raw_mm, 2), "mm": round(self.mm, 2),
                "inches": round(self.inches, 3), "quality": self.quality,
                "at": self.at or datetime.now(timezone.utc).isoformat(timespec="milliseconds")}


class LaserError(Exception):
    """No distance: the device reported an error, timed out, or is gone (`lost`)."""

    def __init__(self, message: str, *, lost: bool = False) -> None:
        super().__init__(message)
        self.lost = lost


class LaserGauge(Protocol):
    def measure(self) -> Measurement: ...

    def close(self) -> None: ...
