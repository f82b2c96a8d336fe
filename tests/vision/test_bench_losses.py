"""The benchmark's --verbose list of the dice not read right (benchmarks/vision_bench.py
`print_losses`): one line per such die with what the labels say of it and what it was read
as, one per false detection, nothing for the dice read right."""

import pytest

from station.vision.types import DetectedDie


@pytest.fixture(scope="module")
def bench(benchmark_module):
    return benchmark_module("vision_bench")


def test_each_die_not_read_right_and_each_false_die_gets_a_line(bench, capsys):
    labels = [{"value": 4, "box": [0, 0, 40, 40], "colour": "grey", "touching": True},
              {"value": 2, "box": [100, 0, 130, 30]},
              {"value": 6, "box": [200, 0, 240, 40], "colour": "red", "touching": False},
              {"value": 1, "box": [300, 0, 340, 40]}]
    dice = [DetectedDie("d6", None, (20, 20), 0.99, "grey", ["touching", "cocked"]),
            DetectedDie("d6", 3, (115, 15), 0.87, "white"),
            DetectedDie("d6", 1, (320, 20), 0.98, "white"),
            DetectedDie("d6", 5, (500, 500), 0.91, "blue")]
    bench.print_losses(dice, labels)
    assert capsys.readouterr().out.splitlines() == [
        "    die 0: 4 grey touching 40 px -> d6 None 0.99 touching cocked",
        "    die 1: 2 30 px -> d6 3 0.87",
        "    die 2: 6 red 40 px -> missed",
        "    false: d6 5 at (500, 500)",
    ]
