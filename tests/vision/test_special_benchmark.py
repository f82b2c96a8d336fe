"""benchmarks/special_dice.py: --faces and the cut-off options are what the benchmark reads with
(how sessions 6 and 7 compared networks), and a flat special die read wrong is counted."""

import re
import runpy
from collections import Counter, defaultdict, namedtuple
import sys
from pathlib import Path

import numpy as np
import pytest

from station.vision import special_dice

BENCHMARK = Path(__file__).parents[2] / "benchmarks" / "special_dice.py"


@pytest.fixture
def fresh_network(monkeypatch):
    monkeypatch.setattr(special_dice, "WEIGHTS", special_dice.WEIGHTS)
    special_dice._model.cache_clear()
    yield
    special_dice._model.cache_clear()


def run_benchmark(monkeypatch, *args):
    monkeypatch.setattr(sys, "argv", ["special_dice.py", "--only", "cocked", "--trays", "5",
                                      "--seed", "7", *args])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(BENCHMARK), run_name="__main__")
    return done.value.code


def test_faces_names_the_network_read_with(monkeypatch, tmp_path, fresh_network):
    missing = tmp_path / "trial.onnx"
    with pytest.raises(FileNotFoundError, match="trial.onnx"):
        run_benchmark(monkeypatch, "--faces", str(missing))


def test_without_faces_the_committed_network_reads(monkeypatch, capsys, fresh_network):
    assert run_benchmark(monkeypatch) == 0
    assert capsys.readouterr().out.startswith("== cocked, per die:")
    assert special_dice.WEIGHTS.endswith("weights/special_faces.onnx")


def test_other_arrows_reads_other_trays(monkeypatch, capsys, fresh_network):
    """--other-arrows draws other makers' arrows (another set of trays, named in the report)."""
    assert run_benchmark(monkeypatch) == 0
    plain = capsys.readouterr().out
    assert run_benchmark(monkeypatch, "--other-arrows", "1") == 0
    other = capsys.readouterr().out
    assert other.startswith("== cocked, per die, other makers' arrows 1:")
    assert plain.splitlines()[1:] != other.splitlines()[1:]



def test_blur_draws_every_tray_that_out_of_focus(monkeypatch, capsys, fresh_network):
    """--blur LOW HIGH: each tray's camera blur drawn from that range (a camera out of focus),
    named in the report."""
    from station.fakes import tray

    blurs = []

    def recording(rng, **options):
        blurs.append(options["finish"].blur)
        return random_tray(rng, **options)

    random_tray = tray.random_tray
    monkeypatch.setattr(tray, "random_tray", recording)
    assert run_benchmark(monkeypatch, "--blur", "1.5", "1.8") == 0
    assert capsys.readouterr().out.startswith("== cocked, per die, blur 1.5-1.8:")
    assert len(blurs) == 1 and all(1.5 <= b <= 1.8 for b in blurs), blurs


def test_a_tray_whose_markers_are_not_found_leaves_the_next_trays_as_they_are(monkeypatch):
    """The calibrated set's trays do not hang on the calibration: a tray skipped because its
    markers were not found draws what a calibrated one does (its places with no die)."""
    from station.fakes import tray
    from station.vision import calibration

    real_tray, real_calibrate = tray.random_tray, calibration.calibrate_image

    def drawn(skip_first):
        shots = []

        def recording(rng, **options):
            shots.append(real_tray(rng, **options))
            return shots[-1]

        def calibrate(image):
            if skip_first and len(shots) == 1:
                raise calibration.CalibrationError("markers not found")
            return real_calibrate(image)

        monkeypatch.setattr(tray, "random_tray", recording)
        monkeypatch.setattr(calibration, "calibrate_image", calibrate)
        result = runpy.run_path(str(BENCHMARK))["run"](2, 5, True)
        return [shot.image for shot in shots], result["counts"]

    as_found, _ = drawn(False)
    one_skipped, counts = drawn(True)
    assert counts["trays whose markers were not found"] == 1
    assert np.array_equal(as_found[1], one_skipped[1])


@pytest.fixture
def committed_cut_offs(monkeypatch):
    monkeypatch.setattr(special_dice, "COCKED_PROBABILITY", special_dice.COCKED_PROBABILITY)
    monkeypatch.setattr(special_dice, "OUTLINE_COCKED_PROBABILITY",
                        special_dice.OUTLINE_COCKED_PROBABILITY)
    monkeypatch.setattr(special_dice, "MIN_PROBABILITY", special_dice.MIN_PROBABILITY)
    monkeypatch.setattr(special_dice, "LEAN_CUTOFF", special_dice.LEAN_CUTOFF)


def test_cut_offs_are_the_ones_read_with(monkeypatch, capsys, fresh_network, committed_cut_offs):
    """--cocked-probability 0: every die read is flagged cocked, the flat ones too (seed 9's
    one tray with leaning dice has no leaning special die: the flat dice's report)."""
    assert run_benchmark(monkeypatch, "--cocked-probability", "0", "--min-probability",
                         "0.7", "--outline-cocked-probability", "0.9",
                         "--lean-cutoff", "1.5") == 0
    assert (special_dice.COCKED_PROBABILITY, special_dice.MIN_PROBABILITY,
            special_dice.OUTLINE_COCKED_PROBABILITY, special_dice.LEAN_CUTOFF) == \
        (0.0, 0.7, 0.9, 1.5)
    out = capsys.readouterr().out
    totals = [int(n) for n in re.findall(r"^(?:scatter HIT/arrow|artillery) right: 0/(\d+)",
                                         out, re.M)]
    assert len(totals) == 2 and sum(totals) > 0
    assert f"flat special dice flagged cocked: {sum(totals)}\n" in out
    assert "flat special dice read wrong: 0 (as a d6: 0)" in out


Truth = namedtuple("Truth", "kind value flags font bearing_deg bearing_tray_deg top_corners")
SQUARE_18 = np.array([(0, 0), (18, 0), (18, 18), (0, 18)], float)     # a top face 18 px wide
Reading = namedtuple("Reading", "kind value bearing_deg flags")


@pytest.mark.parametrize("reading, wrong, as_d6", [
    (Reading("artillery", 8, None, ()), 0, 0),          # right
    (Reading("artillery", 6, None, ()), 1, 0),          # the wrong face
    (Reading("scatter", "hit", None, ()), 1, 0),        # the wrong kind
    (Reading("d6", 3, None, ()), 1, 1),                 # pips
    (Reading("artillery", None, None, ("cocked",)), 0, 0),   # a re-roll, not a reading
    (Reading("d6", None, None, ("unreadable",)), 0, 0),
    (None, 0, 0),                                       # not found / left to the d6 reader
])
def test_a_flat_special_die_read_wrong_is_counted(reading, wrong, as_d6):
    bench = runpy.run_path(str(BENCHMARK))
    counts = Counter()
    bench["score"](0, Truth("artillery", 8, (), "lato", None, None, SQUARE_18), reading, False,
                   counts, defaultdict(list), Counter(), Counter(), False)
    assert counts["artillery"] == 1
    assert counts["artillery 16-20"] == 1
    assert counts["flat special read wrong"] == wrong
    assert counts["flat special read wrong, as a d6"] == as_d6
    assert counts["artillery right"] == (reading is not None and reading.value == 8)
    assert counts["artillery 16-20 right"] == counts["artillery right"]


@pytest.mark.parametrize("reading, taken", [
    (Reading("scatter", None, None, ("cocked",)), 1),    # a cocked scatter die: not there
    (Reading("artillery", 6, None, ()), 1),
    (Reading("d6", None, None, ("cocked",)), 0),         # a cocked pip die: right
    (None, 0),
])
def test_a_leaning_d6_taken_for_a_special_die_is_counted(reading, taken):
    """A leaning pip die named a special one (a real brown pip 6 was called a cocked scatter
    die, docs/history/special-dice.md), which the leaning special dice's lines miss."""
    bench = runpy.run_path(str(BENCHMARK))
    counts = Counter()
    bench["score"](0, Truth("d6", 6, ("cocked",), None, None, None, SQUARE_18), reading, False,
                   counts, defaultdict(list), Counter(), Counter(), False)
    assert counts["cocked d6"] == 1
    assert counts["cocked d6 taken for special"] == taken
    assert counts["cocked d6 given a value"] == (reading is not None and reading.value is not None)
    assert counts["cocked special"] == 0


@pytest.mark.parametrize("reading, right, unread", [
    (Reading("d6", 6, None, ()), 1, 0),
    (Reading("d6", 5, None, ()), 0, 0),
    (Reading("d6", None, None, ("cocked",)), 0, 0),      # flagged: a re-roll, but a reading
    (Reading("artillery", 6, None, ()), 0, 0),
    (None, 0, 1),
])
def test_a_flat_d6_read_or_left_unread_is_counted(reading, right, unread):
    """End to end a pip die beside special dice can be left without any reading (its only
    sign a flag between it and a special die, seventy-fifth session)."""
    bench = runpy.run_path(str(BENCHMARK))
    counts = Counter()
    bench["score"](0, Truth("d6", 6, ("touching",), None, None, None, SQUARE_18), reading, False,
                   counts, defaultdict(list), Counter(), Counter(), False)
    assert (counts["d6"], counts["d6 right"], counts["d6 without a reading"]) == (1, right, unread)


@pytest.mark.parametrize("truth_bearing, read_bearing, corners, counted", [
    (90.0, None, SQUARE_18, {"hit arrow without bearing": 1,
                             "hit arrow without bearing, small": 1}),
    (90.0, None, SQUARE_18 * 2, {"hit arrow without bearing": 1,
                                 "hit arrow without bearing, small": 0}),
    (90.0, 92.0, SQUARE_18, {"hit arrow without bearing": 0}),
    (None, 92.0, SQUARE_18, {"hit without arrow given a bearing": 1}),
    (None, None, SQUARE_18, {"hit without arrow given a bearing": 0}),
])
def test_hit_small_arrow_bearings_are_counted(truth_bearing, read_bearing, corners, counted):
    """A HIT face's small arrow left without a bearing, and whether its die is under
    SMALL_ARROW_SIDE (none is given there by design); a bearing given to a HIT face drawn
    without a small arrow."""
    bench = runpy.run_path(str(BENCHMARK))
    counts, stats = Counter(), defaultdict(list)
    bench["score"](0, Truth("scatter", "hit", (), None, truth_bearing, truth_bearing, corners),
                   Reading("scatter", "hit", read_bearing, ()), False, counts, stats,
                   Counter(), Counter(), False)
    assert {key: counts[key] for key in counted} == counted
    assert stats["hit arrow"] == ([2.0] if truth_bearing and read_bearing else [])


def test_touching_puts_the_dice_against_each_other(monkeypatch, capsys, fresh_network):
    """--touching 1 renders other trays, where most flat special dice touch another die (on
    the default's trays few do); the line counting them is in every print."""
    def touching_dice(*args):
        monkeypatch.setattr(sys, "argv", ["special_dice.py", "--only", "uncalibrated",
                                          "--trays", "4", "--seed", "7", *args])
        with pytest.raises(SystemExit) as done:
            runpy.run_path(str(BENCHMARK), run_name="__main__")
        assert done.value.code == 0
        out = capsys.readouterr().out
        right, touching = map(int, re.search(
            r"^flat special dice touching another die read right: (\d+)/(\d+)$", out,
            re.M).groups())
        total = sum(int(n) for n in re.findall(
            r"^(?:scatter HIT/arrow|artillery) right: \d+/(\d+)", out, re.M))
        assert right <= touching <= total
        return out.splitlines()[0], touching / total

    heading, share = touching_dice("--touching", "1")
    assert heading.startswith("== uncalibrated, per die, touching 1:")
    assert share >= 0.5 > touching_dice()[1]
