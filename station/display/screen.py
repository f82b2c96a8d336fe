"""What the station shows, as data: the session fills a `Screen`, the renderers draw it.

Keeping the screen a plain value means the same screen can be drawn full size on HDMI, in a
compact layout on a small OLED, as text in a terminal, and again later from the journal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from station.rules.geometry import bearing_text
from station.vision.types import CHECK_BELOW

# Session states, as the display names them.
STATE_LABELS = {
    "idle": "READY",
    "waiting": "ROLL THE DICE",
    "settling": "SETTLING",
    "reading": "READING",
    "resolved": "RESULT",
    "measuring": "MEASURING",
    "measured": "DISTANCE",
    "manual": "MANUAL ENTRY",
    "error": "PROBLEM",
}

# Headline colours by tone: good for the roller, bad, neutral.
TONES = ("good", "bad", "neutral")


@dataclass(frozen=True)
class DieMark:
    """One die as seen on the frame: where it is and what to write beside it."""

    center: tuple[float, float]       # frame pixels
    label: str                        # "4", "8", "MF", "HIT", "ARROW"; "4?" when doubtful
    colour: str = ""
    problem: str = ""                 # "cocked", "unreadable", "extra": drawn in red
    bearing_deg: float | None = None  # the arrow's way on the frame (image bearing), drawn
    doubtful: bool = False            # a value read less than CHECK_BELOW sure: drawn amber

    @classmethod
    def from_detected(cls, die: Any, problem: str = "") -> "DieMark":
        """From a vision `DetectedDie`; a flagged die shows its flag instead of a value."""
        return cls.from_json(die.to_json(), problem)

    @classmethod
    def from_json(cls, die: dict[str, Any], problem: str = "") -> "DieMark":
        """From a die as the reader's JSON (and the journal) hold it. The label gives the
        bearing the rules use (on the tray once calibrated); the arrow drawn follows the die's
        arrow in the frame (`image_bearing_deg`), whichever way the camera is turned."""
        flagged = [f for f in die.get("flags", []) if f in ("cocked", "unreadable")]
        value, bearing = die.get("value"), die.get("bearing_deg")
        doubtful = value is not None and not flagged and \
            die.get("confidence", 1.0) < CHECK_BELOW
        label = "?" if value is None or flagged else \
            face_label(value, bearing) + ("?" if doubtful else "")
        return cls((float(die["center"][0]), float(die["center"][1])), label,
                   die.get("colour") or "", problem or (flagged[0] if flagged else ""),
                   die.get("image_bearing_deg", bearing), doubtful)


@dataclass(frozen=True)
class TrayView:
    """One roll of a ruling as the camera saw it: the frame, its dice and what it was for."""

    frame: np.ndarray
    marks: list[DieMark]
    caption: str = ""                 # "attacker's throw contest"


def dice_text(marks: list[DieMark]) -> str:
    """"4(red) 2(blue) ?(red)!cocked": the dice of a frame as a line of text."""
    return " ".join(f"{m.label}{'(' + m.colour + ')' if m.colour else ''}"
                    f"{'!' + m.problem if m.problem else ''}" for m in marks)


def face_label(value: int | str, bearing_deg: float | None = None) -> str:
    """"4", "MF", "HIT", "ARROW 117°": what is written beside a die."""
    word = {"misfire": "MF", "hit": "HIT", "arrow": "ARROW"}.get(str(value), str(value))
    if value == "arrow" and bearing_deg is not None:
        return f"{word} {bearing_text(bearing_deg)}°"
    return word


@dataclass
class Screen:
    state: str                                  # a key of STATE_LABELS
    action: str                                 # the action's name
    command: str = ""                           # its ruling with parameters
    position: tuple[int, int] = (1, 1)          # action i of n (NEXT ACTION walks them)
    headline: str = ""                          # the big result: "HIT", "7", "12.3 in"
    tone: str = "neutral"                       # good | bad | neutral
    details: list[str] = field(default_factory=list)
    key_detail: int | None = None               # the detail the result rests on: kept first
    rules: list[str] = field(default_factory=list)
    odds: float | None = None                   # probability of this result
    odds_of: str = ""                           # what the odds are of ("a hit on the target")
    prompt: str = ""                            # what to do now, or what went wrong
    level: str = "info"                         # info | warn | error
    frame: np.ndarray | None = None             # the tray image (BGR) the dice were read from
    marks: list[DieMark] = field(default_factory=list)
    # A ruling read from several rolls (a throw: the attacker's die, then the target's) shows
    # every roll, so each die the result rests on is on the screen; frame and marks are the last.
    rolls: list[TrayView] = field(default_factory=list)
    reroll_offered: bool = False
    hardware: dict[str, str] = field(default_factory=dict)  # name -> problem, for what is down
    entry_id: int | None = None                 # journal id of what is shown
    seal: str = ""                              # the start of its seal, for players to note

    @property
    def state_label(self) -> str:
        return STATE_LABELS.get(self.state, self.state.upper())

    def journal_line(self) -> str:
        """The journal id and seal of what is shown: written down or photographed, it is what
        `station journal verify --head` checks the journal against later."""
        return f"journal #{self.entry_id}" + (f" · seal {self.seal}" if self.seal else "")

    def odds_percent(self) -> str:
        if self.odds is None:
            return ""
        percent = self.odds * 100
        return f"{percent:.1f}%" if percent >= 0.1 else f"{percent:.3f}%"

    def odds_text(self) -> str:
        if self.odds is None:
            return ""
        return f"chance {self.odds_percent()}" + (f" of {self.odds_of}" if self.odds_of else "")

    def dice_lines(self) -> list[str]:
        """The dice read, in words: one line, or one per roll of a ruling read from several."""
        if len(self.rolls) > 1:
            return [f"dice, {view.caption or f'roll {i}'}: {dice_text(view.marks)}"
                    for i, view in enumerate(self.rolls, 1)]
        return ["dice: " + dice_text(self.marks)] if self.marks else []

    def text_lines(self) -> list[str]:
        """Everything on the screen as plain text (terminal, logs, tests)."""
        command = f"  [{self.command}]" if self.command else ""    # a journal record has none
        lines = [f"{self.action}{command}  {self.position[0]}/{self.position[1]}  {self.state_label}"]
        if self.headline:
            lines.append(self.headline)
        lines.extend(self.details)
        facts = "  ".join(x for x in (self.odds_text(), " ".join(self.rules)) if x)
        if facts:
            lines.append(facts)
        lines.extend(self.dice_lines())
        for name, problem in self.hardware.items():
            lines.append(f"{name}: {problem}")
        if self.prompt:
            lines.append(("! " if self.level != "info" else "> ") + self.prompt)
        if self.entry_id is not None:
            lines.append(self.journal_line())
        return lines
