"""The reader's output: one `DetectedDie` per die seen in a frame."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Flag = Literal["cocked", "touching", "unreadable"]

# A die given a value less surely than this is shown "check by eye" (`doubtful`): on the
# 200 real photos the reader's values under 70 % sure were wrong 11 times in 81, from 70 % 9
# times in 1403 (docs/vision.md, "Confidence").
CHECK_BELOW = 0.7


@dataclass
class DetectedDie:
    """A die in a frame.

    kind: "d6", "scatter" or "artillery".
    value: d6 1..6; scatter "arrow"/"hit"; artillery 2, 4, 6, 8, 10 or "misfire";
        None when a flag says the face cannot be trusted ("cocked", "unreadable").
    center: [x, y] in image pixels; center_mm: in tray millimetres once calibrated.
    bearing_deg: scatter dice, degrees clockwise from up (image -y, or the tray's up edge).
    image_bearing_deg: once calibrated, the same arrow's bearing in the image (clockwise from
        image -y), which a mark drawn on the frame follows; None otherwise.
    colour: a plain colour name (red, blue, white, black, green, yellow, purple, orange, grey);
        None on a frame without colour (a monochrome camera's), or for a die typed in.
    """

    kind: str
    value: int | str | None
    center: tuple[float, float]
    confidence: float
    colour: str | None
    flags: list[str] = field(default_factory=list)
    bearing_deg: float | None = None
    center_mm: tuple[float, float] | None = None
    image_bearing_deg: float | None = None

    @property
    def doubtful(self) -> bool:
        """Given a value, but less than `CHECK_BELOW` sure: the player should look."""
        return self.value is not None and self.confidence < CHECK_BELOW

    def to_json(self) -> dict:
        out = {
            "kind": self.kind,
            "value": self.value,
            "center": [round(float(self.center[0]), 1), round(float(self.center[1]), 1)],
            "confidence": round(float(self.confidence), 3),
            "colour": self.colour,
            "flags": list(self.flags),
        }
        if self.bearing_deg is not None:
            out["bearing_deg"] = round(float(self.bearing_deg), 1)
        if self.image_bearing_deg is not None:
            out["image_bearing_deg"] = round(float(self.image_bearing_deg), 1)
        if self.center_mm is not None:
            out["center_mm"] = [round(float(v), 1) for v in self.center_mm]
        return out
