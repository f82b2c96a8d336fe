"""The laser tape as the session sees it: `measure()` gives a `station.laser.measurement.
Measurement` (raw, corrected, inches) or raises `LaserError`, never a wrong distance.

The wire protocol, the serial transport and the calibration live in `station.laser`
(`LaserDevice`); `station.service.devices.TapeGauge` is the service's edge over it.
"""

from __future__ import annotations

from typing import Protocol

from station.laser.measurement import Measurement


class LaserError(Exception):
    """No distance: the device reported an error, timed out, or is gone (`lost`)."""

    def __init__(self, message: str, *, lost: bool = False) -> None:
        super().__init__(message)
        self.lost = lost


class LaserGauge(Protocol):
    def measure(self) -> Measurement: ...

    def close(self) -> None: ...
