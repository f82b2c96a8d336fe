"""A laser reading turned into what the table needs (MEAS-1, MEAS-2).

MEAS-1: distances are inches, 1 in = 25.4 mm exactly, base edge to base edge.
MEAS-2: a reading is the distance from the device's reference edge to the spot. The
calibration takes out the device's offset (and scale); when the spot falls on a model, its
base radius is taken off too, giving base-to-base inches. The raw reading is always shown
beside the result. The arithmetic is the rules core's (`station.rules.geometry`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from station.laser.calibration import Calibration
from station.laser.codec import Reading
from station.rules.geometry import laser_base_to_base_in, mm_to_in

ROUND_BASES_MM = (25, 32, 40, 50)     # the round base diameters players use


def base_radius(diameter_mm: float) -> float:
    return diameter_mm / 2


@dataclass(frozen=True)
class Measurement:
    device: str
    raw_mm: float
    mm: float                          # corrected by the calibration (raw if none)
    quality: float | None
    at: datetime
    calibrated: bool
    base_radius_mm: float | None = None
    warning: str | None = None
    reference_edge: str | None = None  # as the device reported it, when it does

    @property
    def inches(self) -> float:
        return mm_to_in(self.mm)

    @property
    def base_to_base_inches(self) -> float | None:
        """The calibration already holds the reference-edge offset; the base radius goes."""
        if self.base_radius_mm is None:
            return None
        return laser_base_to_base_in(self.mm, target_radius_mm=self.base_radius_mm)

    def to_json(self) -> dict:
        data = {"device": self.device, "raw_mm": round(self.raw_mm, 2),
                "mm": round(self.mm, 2), "inches": round(self.inches, 3),
                "quality": self.quality, "at": self.at.isoformat(timespec="milliseconds"),
                "calibrated": self.calibrated}
        if self.base_radius_mm is not None:
            data["base_radius_mm"] = self.base_radius_mm
            data["base_to_base_inches"] = round(self.base_to_base_inches, 3)
        if self.reference_edge is not None:
            data["reference_edge"] = self.reference_edge
        if self.warning:
            data["warning"] = self.warning
        return data

    def text(self) -> str:
        """One line for a person at the table: the answer first, the raw reading beside."""
        if self.base_radius_mm is not None:
            head = (f"{self.base_to_base_inches:.2f} in base to base "
                    f"({self.inches:.2f} in to the spot, base radius "
                    f"{self.base_radius_mm:g} mm)")
        else:
            head = f"{self.inches:.2f} in"
        calibration = "calibrated" if self.calibrated else "UNCALIBRATED"
        quality = f", signal {self.quality:g}" if self.quality is not None else ""
        line = (f"{head}  [raw {self.raw_mm:.1f} mm, {calibration} {self.mm:.1f} mm"
                f"{quality}; {self.device}; MEAS-2]")
        return line + (f"\n  warning: {self.warning}" if self.warning else "")


def convert(device: str, reading: Reading, calibration: Calibration | None,
            base_radius_mm: float | None = None,
            at: datetime | None = None) -> Measurement:
    mm = calibration.corrected(reading.raw_mm) if calibration else reading.raw_mm
    warnings = []
    if (calibration and calibration.device_edge_code and reading.reference_edge
            and reading.reference_edge != calibration.device_edge_code):
        warnings.append(f"the device now measures from edge {reading.reference_edge}, but "
                        f"was calibrated from edge {calibration.device_edge_code} "
                        f"({calibration.reference_edge}): set it back or calibrate again")
    if base_radius_mm is not None and mm < base_radius_mm:
        warnings.append("the reading is shorter than the base radius: the bases touch")
    return Measurement(device=device, raw_mm=reading.raw_mm, mm=mm, quality=reading.quality,
                       at=at or datetime.now(timezone.utc).astimezone(),
                       calibrated=calibration is not None, base_radius_mm=base_radius_mm,
                       warning="; ".join(warnings) or None,
                       reference_edge=reading.reference_edge)
