"""Ruling parameters the laser tape gives (`distance=tape`): MEASURE, then ROLL."""

import csv
import dataclasses
import io

import pytest

from station.cli import main
from station.config import ActionChoice
from station.controls import Intent
from station.laser.codec import Reading
from station.laser.measurement import convert
from station.service.laser import LaserError
from station.service.measured import TapeParam, base_to_base, tape_param
from station.service.replay import screen_of

from .test_run import small_config
from .test_session import Laser, make

SPEAR_AT = ActionChoice("Impaler spear", "wm.ranged",
                        {"rat": "5", "def": "13", "rng": "8", "distance": "tape"})
ENGAGED = ActionChoice("Engaged?", "t9a.engaged", {"gap": "tape"})
ROLL_2D6 = ActionChoice("Roll 2D6", "dice.roll", {"expr": "2D6"})


def outcomes(session):
    return list(session.journal.entries(kind="outcome"))


def test_roll_waits_for_a_measurement_then_the_ruling_takes_it(tmp_path):
    # 254 mm = 10 in, beyond RNG 8: WM-RNG-1 decides without dice
    session, tray, shown = make(tmp_path, [SPEAR_AT], laser=Laser([254.0, 152.4]))
    assert "MEASURE first (distance comes from the laser tape)" in shown[-1].prompt
    session.handle(Intent.ROLL)
    assert shown[-1].level == "warn" and "MEASURE first" in shown[-1].prompt
    assert outcomes(session) == []
    session.handle(Intent.MEASURE)
    assert shown[-1].state == "measured" and shown[-1].headline == "10.00 in"
    assert "distance=10 for Impaler spear" in shown[-1].details[0]
    measurement = next(session.journal.entries(kind="measurement"))
    assert measurement.data["base_to_base_inches"] == 10.0
    session.handle(Intent.ROLL)
    result = shown[-1]
    assert result.state == "resolved" and "WM-RNG-1" in result.rules
    outcome = outcomes(session)[-1]
    assert outcome.data["measured"] == {"param": "distance", "inches": 10.0,
                                        "entry": measurement.id}
    assert outcome.data["command"].endswith("rng=8 distance=10")
    assert outcome.data["params"]["distance"] == 10.0

    # the distance stays for the next attack at that target ...
    session.handle(Intent.ROLL)
    assert len(outcomes(session)) == 2 and outcomes(session)[-1].data["params"]["distance"] == 10.0
    # ... and a new measurement replaces it: 6 in is within RNG 8, so the attack is rolled
    session.handle(Intent.MEASURE)
    session.handle(Intent.ROLL)
    assert [t.kind for t in tray.rendered.truth] == ["d6", "d6"]
    waiting = next(s for s in shown if s.state == "waiting")
    assert waiting.details == ["distance 6 in, measured (journal #4)"]
    assert shown[-1].details != waiting.details and session.rolling_details == []
    assert outcomes(session)[-1].data["params"]["distance"] == 6.0


def test_next_forgets_the_measured_distance(tmp_path):
    session, _, shown = make(tmp_path, [SPEAR_AT, ROLL_2D6], laser=Laser([254.0]))
    session.handle(Intent.MEASURE)
    session.handle(Intent.NEXT)
    session.handle(Intent.NEXT)
    session.handle(Intent.ROLL)
    assert "MEASURE first" in shown[-1].prompt and outcomes(session) == []


def test_a_failed_or_doubtful_measurement_leaves_no_distance(tmp_path):
    # the players aim at a new target: a failed MEASURE must not leave the last one's distance
    warned = dataclasses.replace(convert("glm", Reading(100.0), None),
                                 warning="the device now measures from edge 1")
    laser = Laser([254.0, LaserError("no answer in 4 s"), 254.0])
    laser.answers.append(warned)
    session, _, shown = make(tmp_path, [SPEAR_AT], laser=laser)
    session.handle(Intent.MEASURE)
    session.handle(Intent.MEASURE)
    session.handle(Intent.ROLL)
    assert "MEASURE first" in shown[-1].prompt and outcomes(session) == []
    session.handle(Intent.MEASURE)
    session.handle(Intent.MEASURE)                  # a reading from another edge
    assert shown[-1].level == "warn" and "ROLL will not take it" in shown[-1].prompt
    session.handle(Intent.ROLL)
    assert "MEASURE first" in shown[-1].prompt and outcomes(session) == []


def test_a_reroll_takes_the_distance_of_the_roll_it_rerolls(tmp_path):
    spear = ActionChoice("Spear", "wm.ranged", {"rat": "5", "def": "30", "rng": "8",
                                                 "distance": "tape"})
    session, _, shown = make(tmp_path, [spear], laser=Laser([152.4, 101.6]))
    session.handle(Intent.MEASURE)                  # 6 in
    session.handle(Intent.ROLL)
    session.handle(Intent.MEASURE)                  # 4 in: the next target's
    session.handle(Intent.REROLL)
    first, again = outcomes(session)
    assert again.data["reroll_of"] == first.id
    assert again.data["measured"] == first.data["measured"]
    assert again.data["params"]["distance"] == 6.0


def test_base_contact_is_not_taken_from_the_tape():
    with pytest.raises(ValueError, match="no laser spot can measure"):
        tape_param(ENGAGED)


def test_a_tape_measurement_is_redrawn_and_exported_with_the_distance_it_gave(tmp_path, capsys):
    session, _, shown = make(tmp_path, [SPEAR_AT], laser=Laser([274.0]))
    session.handle(Intent.MEASURE)
    entry = next(session.journal.entries(kind="measurement"))
    assert screen_of(session.journal, entry).details == shown[-1].details
    assert main(["journal", "export", "--format", "csv",
                 "--journal", str(tmp_path / "j.sqlite")]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows[0]["base_to_base_in"] == "10.79" and rows[0]["inches"] == "10.787"


def test_measurements_for_other_actions_change_nothing(tmp_path):
    session, _, shown = make(tmp_path, [ROLL_2D6], laser=Laser([254.0]))
    session.handle(Intent.MEASURE)
    assert shown[-1].headline == "10.0 in" and session.measured is None
    assert "param" not in next(session.journal.entries(kind="measurement")).data


def test_base_to_base_takes_off_the_radius_and_never_goes_below_zero():
    reading = convert("glm", Reading(100.0), None)
    assert base_to_base(TapeParam("distance", None), reading) == pytest.approx(3.94)
    assert base_to_base(TapeParam("distance", 50.0), reading) == pytest.approx(2.95)
    assert base_to_base(TapeParam("distance", 250.0), reading) == 0.0


@pytest.mark.parametrize("params, words", [
    ({"rat": "5", "def": "13", "rng": "tape", "distance": "tape"}, "both tape"),
    ({"rat": "tape", "def": "13"}, "only a distance"),
    ({"rat": "5", "def": "13", "rng": "8", "distance": "tape:0"}, "base diameter"),
    ({"rat": "5", "def": "13", "rng": "8", "distance": "tape:big"}, "base diameter"),
])
def test_what_the_tape_cannot_give_is_refused(params, words):
    with pytest.raises(ValueError, match=words):
        tape_param(ActionChoice("x", "wm.ranged", params))


def test_tape_parameters_are_checked_at_start(tmp_path, capsys):
    bad = small_config(tmp_path, "[[actions]]\nname = 'Spear'\n"
                                 "ruling = 'wm.ranged rat=5 def=13 distance=tape'\n")
    assert main(["run", "--simulate", "--config", str(bad), "--script", "roll"]) == 2
    assert "rng" in capsys.readouterr().err                 # WM-RNG-1 needs both
    no_tape = small_config(tmp_path, "[display]\nsinks = ['terminal']\n[[actions]]\n"
                                     "ruling = 'wm.ranged rat=5 def=13 rng=8 distance=tape'\n")
    assert main(["run", "--config", str(no_tape), "--script", "roll",
                 "--journal", str(tmp_path / "j.sqlite")]) == 2
    assert "distance=tape needs a laser tape" in capsys.readouterr().err


def test_a_distance_too_near_the_range_for_the_tape_is_checked_by_hand(tmp_path):
    # 204.5 mm = 8.05 in against RNG 8: out of range by less than the tape can tell
    session, _, shown = make(tmp_path, [SPEAR_AT], laser=Laser([204.5, 228.6]))
    session.handle(Intent.MEASURE)
    session.handle(Intent.ROLL)
    assert outcomes(session)[-1].data["close_call"] == "8.05 in is within 0.1 in of RNG 8"
    assert shown[-1].prompt.startswith("CHECK by hand: 8.05 in is within 0.1 in of RNG 8")
    assert shown[-1].level == "warn"
    session.handle(Intent.MEASURE)                  # 9 in: plainly out of range
    session.handle(Intent.ROLL)
    assert "close_call" not in outcomes(session)[-1].data
    assert not shown[-1].prompt.startswith("CHECK by hand")
