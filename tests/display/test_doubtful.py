"""Dice read with doubt: marked "4?" in their own colour, and the result asks to check them."""

import numpy as np

from station.display.render import MARK_CHECK, MARK_OK, render
from station.display.screen import DieMark, TrayView
from station.service.screens import outcome_screen


def test_a_die_read_with_doubt_is_marked_with_a_question():
    unsure = DieMark.from_json({"kind": "d6", "value": 4, "center": [180, 160],
                                "confidence": 0.55, "colour": "red", "flags": []})
    assert (unsure.label, unsure.doubtful, unsure.problem) == ("4?", True, "")
    sure = DieMark.from_json({"kind": "d6", "value": 4, "center": [180, 160],
                              "confidence": 0.95, "colour": "red", "flags": []})
    assert (sure.label, sure.doubtful) == ("4", False)
    # A flagged die is a re-roll, not a doubt; an older journal entry has no confidence.
    cocked = DieMark.from_json({"value": None, "center": [1, 2], "confidence": 0.3,
                                "flags": ["cocked"]})
    assert (cocked.label, cocked.doubtful, cocked.problem) == ("?", False, "cocked")
    assert not DieMark.from_json({"value": "misfire", "center": [1, 2]}).doubtful


def test_the_result_asks_to_check_doubtful_dice_and_draws_them_apart(screens):
    frame = screens["resolved"].frame
    data = {"outcome": "hit", "headline": "HIT", "action": "wm.ranged", "steps": [], "rules": []}
    sure = [DieMark((180, 160), "4", "red"), DieMark((330, 300), "5", "red")]
    assert "CHECK" not in outcome_screen(data, [TrayView(frame, sure)], 1, position=(1, 1)).prompt
    doubtful = [DieMark((180, 160), "4?", "red", doubtful=True), sure[1]]
    screen = outcome_screen(data, [TrayView(frame, doubtful)], 1, position=(1, 1))
    assert screen.prompt.startswith("CHECK the die marked ?")
    pixels = np.asarray(render(screen)).reshape(-1, 3)
    assert (pixels == MARK_CHECK).all(axis=1).sum() > 50
    assert (pixels == MARK_OK).all(axis=1).sum() > 50
    plain = np.asarray(render(outcome_screen(data, [TrayView(frame, sure)], 1,
                                             position=(1, 1)))).reshape(-1, 3)
    assert (plain == MARK_CHECK).all(axis=1).sum() == 0
