"""benchmarks/special_dice.py --faces: a trial face network is the one the benchmark reads
with (how session 6 compared networks), and the committed one is left as the default."""

import runpy
import sys
from pathlib import Path

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
