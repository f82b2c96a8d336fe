"""The command-line contract of issue 2: station actions / resolve / roll."""

import json
import subprocess
import sys

import pytest

from station.cli import main


def cli_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def cli_error(capsys, *argv):
    assert main(list(argv)) == 2
    return capsys.readouterr().err


def test_actions_lists_every_ruling_with_params_and_dice(capsys):
    listed = cli_json(capsys, "actions")
    names = {a["name"] for a in listed}
    assert {"dice.roll", "dice.rolloff", "dice.allocate", "dice.test", "wfb.scatter",
            "wm.ranged", "wm.throw", "wm.aoe", "t9a.cover", "t9a.initiative"} <= names
    ranged = next(a for a in listed if a["name"] == "wm.ranged")
    params = {p["name"]: p for p in ranged["params"]}
    for flag in ("boosted", "aim", "back_strike", "concealment", "cover", "elevated_target",
                 "knocked_down", "stationary", "target_in_melee"):
        assert params[flag]["default"] is False and params[flag]["type"] == "flag"
    assert params["rat"]["required"] and ranged["dice"][0].startswith("the attack roll")
    assert main(["actions"]) == 0
    text = capsys.readouterr().out
    assert "wm.throw" in text and "attacker's contest" in text


def test_resolve_json_common_fields(capsys):
    out = cli_json(capsys, "resolve", "wm.ranged", "rat=5", "def=13", "--dice", "6", "6")
    assert out["action"] == "wm.ranged" and out["outcome"] == "hit"
    assert out["dice"] == [6, 6] and out["rules"] == ["WM-RNG-3"]
    assert out["steps"][0]["rule"] == "WM-RNG-3"
    assert out["odds"] == pytest.approx(15 / 36) and out["odds_fraction"] == "5/12"
    assert out["total"] == 17 and out["effective_def"] == 13
    assert out["headline"] == "HIT — WM-RNG-3 all 6s"


def test_dice_roll_and_roll_shortcut(capsys):
    out = cli_json(capsys, "resolve", "dice.roll", "expr=2D6+5", "--dice", "3,4")
    assert out["total"] == 12 and out["outcome"] == "12" and out["rerollable"] is True
    short = cli_json(capsys, "roll", "2D6+5", "--dice", "3", "4")
    assert short["total"] == 12 and short["action"] == "dice.roll"
    rerolled = cli_json(capsys, "roll", "2D6", "reroll=1", "--dice", "6", "6", "1", "2")
    assert rerolled["total"] == 3 and rerolled["dice"] == [6, 6, 1, 2]
    assert "re-roll" in cli_error(capsys, "roll", "A", "reroll=1", "--dice", "4", "4")


def test_rolloff_allocate_test(capsys):
    off = cli_json(capsys, "resolve", "dice.rolloff", "--dice", "2", "2", "6", "1")
    assert off["winner"] == 1 and off["rounds"] == [[2, 2], [6, 1]]
    alloc = cli_json(capsys, "resolve", "dice.allocate", "subjects=5", "--dice", "6", "2")
    assert alloc["subject"] == 2
    test = cli_json(capsys, "resolve", "dice.test", "values=3,4", "--dice", "5")
    assert test["characteristic"] == 4 and test["passed"] is False


def test_wfb_scatter_fields(capsys):
    out = cli_json(capsys, "resolve", "wfb.scatter", "distance=2D6", "--dice", "arrow@90",
                   "3", "4")
    assert out["result"] == "arrow" and out["outcome"] == "arrow"
    assert out["bearing_deg"] == 90 and out["distance_in"] == 7
    assert out["offset_in"] == pytest.approx([7, 0])
    hit = cli_json(capsys, "resolve", "wfb.scatter", "distance=2D6", "--dice", "hit")
    assert hit["result"] == "hit" and hit["offset_in"] == [0, 0]
    misfire = cli_json(capsys, "resolve", "wfb.scatter", "distance=A", "--dice",
                       "arrow@10", "misfire")
    assert misfire["result"] == "misfire"


def test_wm_throw_fields_seed_example(capsys):
    out = cli_json(capsys, "resolve", "wm.throw", "str=11", "target_str=8", "--dice",
                   "4", "2", "3", "6")
    assert out["outcome"] == "thrown" and out["throw_distance_in"] == 5.5
    assert out["deviation_direction"] == 3 and out["deviation_in"] == 2.75


def test_wm_aoe_fields(capsys):
    out = cli_json(capsys, "resolve", "wm.aoe", "rat=5", "def=14", "pow=12", "aoe=4",
                   "rng=10", "distance=8", "--dice", "1", "2", "5", "6")
    assert out["outcome"] == "deviated" and out["deviation_direction"] == 5
    assert out["deviation_in"] == 4 and out["blast_pow"] == 6


def test_t9a_fields(capsys):
    cover = cli_json(capsys, "resolve", "t9a.cover", "shooter=standard",
                     "intervening=standard", "target=large")
    assert cover["cover"] == "soft" and cover["to_hit_modifier"] == -1
    order = cli_json(capsys, "resolve", "t9a.initiative", "attacks=Knights:4:charged,Orcs:3")
    assert [s["agility"] for s in order["steps"]] == list(range(10, -1, -1))
    assert order["steps"][5] == {"rule": "T9A-MEL-3", "text": order["steps"][5]["text"],
                                 "agility": 5, "attacks": ["Knights"]}


def test_random_source_with_seed_is_reproducible(capsys):
    one = cli_json(capsys, "roll", "3D6", "--seed", "42")
    two = cli_json(capsys, "roll", "3D6", "--seed", "42")
    assert one == two and one["seed"] == 42 and len(one["dice"]) == 3
    unseeded = cli_json(capsys, "resolve", "wm.ranged", "rat=5", "def=12")
    assert isinstance(unseeded["seed"], int)


@pytest.mark.parametrize("argv, message", [
    (["resolve", "wm.nope"], "unknown action 'wm.nope'"),
    (["resolve", "wm.ranged", "rat=5"], "needs def="),
    (["resolve", "wm.ranged", "rat=5", "def=12", "speed=3"], "no parameter 'speed'"),
    (["resolve", "wm.ranged", "rat=five", "def=12"], "rat='five': expected a whole number"),
    (["resolve", "wm.ranged", "rat=5", "def=12", "--dice", "6"],
     "still needed: 1 d6 (2 d6: ranged attack roll"),
    (["resolve", "wm.ranged", "rat=5", "def=12", "--dice", "6", "hit"], "face 2 ('hit')"),
    (["resolve", "wfb.scatter", "--dice", "arrow"], "arrow@DEG"),
    (["roll", "2D6+"], "column 5"),
    (["roll", "2D6", "--dice", "1", "1", "--seed", "3"], "not both"),
    (["resolve", "wm.ranged", "rat"], "name=value"),
    (["resolve", "wm.ranged", "--dice", "6", "6", "rat=5"], "put name=value parameters before"),
    # numbers that are no measurement: a JSON answer must never carry NaN or Infinity
    (["resolve", "template.covers", "template=small", "offset=0,0", "base_mm=-5"],
     "base_mm='-5'"),
    (["resolve", "template.covers", "template=small", "offset=0,0", "base_mm=nan"],
     "base_mm='nan'"),
    (["resolve", "template.covers", "template=small", "offset=nan,0", "base_mm=25"],
     "offset='nan,0'"),
    (["resolve", "template.covers", "template=small", "offset=1e400,0", "base_mm=25"],
     "offset='1e400,0'"),
    (["resolve", "wfb.scatter", "--dice", "arrow@" + "9" * 400, "3", "4"], "bearing"),
])
def test_bad_input_exits_2_with_a_clear_message(capsys, argv, message):
    assert message in cli_error(capsys, *argv)


def test_unused_faces_are_noted(capsys):
    assert main(["roll", "D6", "--dice", "3", "4"]) == 0
    assert "not used: 4" in capsys.readouterr().err


def test_human_output_reads_well(capsys):
    assert main(["resolve", "wm.ranged", "rat=5", "def=13", "cover=1", "--dice", "6 6"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == "wm.ranged: HIT — WM-RNG-3 all 6s"
    assert "dice   6 6" in text and "2.778% (1/36)" in text
    assert "WM-RNG-4  DEF 13: cover +4 → 17" in text
    assert "rules  WM-RNG-4, WM-RNG-3" in text


def test_subprocess_contract():
    """The real entry point, as outside checks call it."""
    done = subprocess.run([sys.executable, "-m", "station", "resolve", "wm.ranged", "rat=5",
                           "def=12", "--dice", "1", "1", "--json"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outcome"] == "miss"
    bad = subprocess.run([sys.executable, "-m", "station", "roll", "2D9"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "column 3" in bad.stderr


def test_a_trample_contacts_no_absurd_number_of_models(capsys):
    err = cli_error(capsys, "resolve", "wm.trample", "spd=5", "mat=6", "str=10",
                    "defs=" + ",".join(["12"] * 5000), "--seed", "1")
    assert "at most 250 of them" in err and len(err) < 300     # the list is not echoed whole
    most = cli_json(capsys, "resolve", "wm.trample", "spd=5", "mat=6", "str=10",
                    "defs=" + ",".join(["12"] * 250), "--seed", "1")
    assert len(most["hits"]) == 250
    assert main(["resolve", "wm.trample", "spd=5", "mat=6", "str=10",
                 "defs=" + ",".join(["12"] * 250), "--seed", "1"]) == 0
    assert "TRAMPLE:" in capsys.readouterr().out


def test_a_distance_from_the_tape_is_said_to_belong_to_the_station(capsys):
    err = cli_error(capsys, "resolve", "wm.ranged", "rat=5", "def=13", "rng=10",
                    "distance=tape:40", "--dice", "3,4")
    assert "distance=tape:40: the tape gives a distance to the station's actions" in err


def test_actions_say_which_distance_the_tape_cannot_give(capsys):
    listed = {a["name"]: a for a in cli_json(capsys, "actions")}
    gap = listed["t9a.engaged"]["params"][0]
    assert gap["name"] == "gap" and "no laser spot can measure" in gap["no_tape"]
    assert all(p["no_tape"] is None for p in listed["wm.ranged"]["params"])
    assert main(["actions"]) == 0
    assert "not from the laser tape: base contact" in capsys.readouterr().out
