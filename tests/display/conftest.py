"""Screens used by the display tests, built from fixed inputs (no renderer, no randomness)."""

import cv2
import numpy as np
import pytest

from station.display.screen import DieMark, Screen, TrayView


def tray_frame() -> np.ndarray:
    frame = np.full((480, 640, 3), (60, 110, 60), np.uint8)
    for x, y, colour in [(180, 160, (40, 40, 200)), (330, 300, (40, 40, 200)),
                         (480, 180, (230, 230, 230))]:
        cv2.rectangle(frame, (x - 32, y - 32), (x + 32, y + 32), colour, -1)
    return frame


@pytest.fixture
def screens() -> dict[str, Screen]:
    resolved = Screen(
        state="resolved", action="Impaler spear", command="wm.ranged rat=5 def=13",
        position=(2, 5), headline="HIT", tone="good",
        details=["2D6+5: 4+5+5 = 14", "14 >= DEF 13: hit"], rules=["WM-RNG-2", "WM-RNG-4"],
        odds=0.5833, prompt="ROLL again, NEXT action, MEASURE", frame=tray_frame(),
        marks=[DieMark((180, 160), "4", "red"), DieMark((330, 300), "5", "red"),
               DieMark((480, 180), "?", "white", "cocked")], entry_id=12, seal="3fa9c2e107bd")
    idle = Screen(state="idle", action="Stone thrower scatter", command="wfb.scatter distance=A",
                  position=(3, 5), details=["Scatter die and artillery die", "dice: S, A"],
                  rules=["SCAT-1", "SCAT-3"],
                  prompt="Press ROLL, then roll the dice (hold ROLL to type them in)")
    error = Screen(state="error", action="Roll 2D6", command="dice.roll expr=2D6",
                   prompt="Camera: camera 0 gave no frame (unplugged?)", level="error",
                   hardware={"laser": "the glm link failed"})
    measured = Screen(state="measured", action="Impaler spear", headline="7.1 in",
                      details=["180 mm from the reference edge", "raw reading 180.2 mm (glm)"],
                      rules=["MEAS-1", "MEAS-2"], prompt="MEASURE again, ROLL for the dice")
    scatter = Screen(state="resolved", action="Stone thrower scatter", command="wfb.scatter distance=A",
                     position=(3, 5), headline='ARROW 8" AT 117°', details=["A = 8: moves 8\" along 117.2°"],
                     rules=["SCAT-2", "SCAT-1"], odds=1 / 9, odds_of='an arrow and 8" (any bearing)',
                     frame=tray_frame(), marks=[DieMark((180, 160), "ARROW 117°", "white", "", 117.2),
                                                DieMark((330, 300), "8", "red")])
    rolls = [TrayView(tray_frame(), [DieMark((180, 160), "6", "red")], "1 d6: attacker's throw contest"),
             TrayView(tray_frame(), [DieMark((480, 180), "2", "white")], "1 d6: target's throw contest")]
    throw = Screen(state="resolved", action="Warpwolf throw", command="wm.throw str=11 target_str=9",
                   position=(4, 5), headline="THROWN", tone="good",
                   details=["attacker 6+STR 11 = 17, target 2+STR 9 = 11"], rules=["WM-THR-1"],
                   frame=rolls[-1].frame, marks=rolls[-1].marks, rolls=rolls, entry_id=7)
    return {"resolved": resolved, "idle": idle, "error": error, "measured": measured,
            "scatter": scatter, "throw": throw}
