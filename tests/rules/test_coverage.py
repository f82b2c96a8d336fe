"""Every rule ID of RULES.md is implemented and cited: by an action, or (geometry-only and
procedural rules) in the module that implements it."""

import inspect

import pytest

from station.rules import geometry
from station.rules.actions import list_actions

RULE_IDS = (
    [f"DICE-{i}" for i in range(1, 8)] + ["MEAS-1", "MEAS-2", "MEAS-3", "TMPL-1"]
    + [f"SCAT-{i}" for i in range(1, 4)] + ["WM-DEV-1"]
    + [f"WM-THR-{i}" for i in range(1, 6)] + ["WM-SLAM-1", "WM-TRM-1"]
    + [f"WM-RNG-{i}" for i in range(1, 6)] + ["WM-MEL-1"]
    + [f"WM-AOE-{i}" for i in range(1, 4)] + ["T9A-COV-1"]
    + [f"T9A-MEL-{i}" for i in range(1, 5)] + ["T9A-ENG-1"]
)
GEOMETRY_ONLY = {"MEAS-2", "MEAS-3"}  # pure functions the laser and the screen use


@pytest.mark.parametrize("rule", RULE_IDS)
def test_rule_is_cited(rule):
    cited = {r for act in list_actions() for r in act.rules}
    if rule in GEOMETRY_ONLY:
        assert rule in inspect.getsource(geometry)
    else:
        assert rule in cited, f"no action cites {rule}"


def test_actions_describe_their_dice_and_params():
    for act in list_actions():
        described = act.describe()
        assert described["summary"] and described["rules"]
        for param in described["params"]:
            assert param["help"] and param["allowed"]
