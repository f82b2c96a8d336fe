"""benchmarks/real_variants.py: the real photos through another camera keep every labelled
die (its box moved with it) and are read; the held-out part is the benchmark's split."""

import json
import shutil
from pathlib import Path

import pytest

REAL = Path(__file__).parent / "data" / "real"


@pytest.fixture(scope="module")
def bench(benchmark_module):
    return benchmark_module("real_variants")


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The committed sample of real photos laid out as the real-dice folder is."""
    folder = tmp_path_factory.mktemp("real-dice")
    (folder / "images").mkdir()
    labels = json.loads((REAL / "labels.json").read_text())
    for name in labels:
        shutil.copy(REAL / name, folder / "images" / name)
    shutil.copy(REAL / "labels.json", folder / "labels.json")
    return folder, labels


@pytest.mark.parametrize("camera", ["as taken", "turned 90 deg", "0.75x smaller",
                                    "out of focus (0.75 px)"])
def test_every_die_is_scored_through_the_change(bench, sample, camera):
    folder, labels = sample
    # --blur's changes are made on the command line, not taken from VARIANTS
    change = bench.VARIANTS.get(camera) or bench.CameraChange(blur=0.75)
    name, held, every = bench.score_variant(camera, change, folder, None)
    assert name == camera
    assert every.labelled == sum(len(v) for v in labels.values()) == 60
    held_names = [n for i, n in enumerate(sorted(labels)) if i % 5 == 4]
    assert held.labelled == sum(len(labels[n]) for n in held_names)
    # A wrong box (not turned, not scaled with the photo) would score most dice missed.
    assert every.accuracy >= 0.9, every.confusion_text()
