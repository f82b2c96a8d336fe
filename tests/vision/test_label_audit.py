"""The label audit of the real photos (benchmarks/label_audit.json): the benchmark's second
accuracy line relabels exactly the dice the audit names, and each of them is in the labels."""

import importlib.util
import json
from pathlib import Path

import pytest

from station.vision.training.train_classifier import DEFAULT_DATA

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "vision_bench.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("vision_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_audit_relabels_only_the_die_it_names(bench):
    labels = [{"value": 2, "box": [10.4, 10.0, 40.2, 40.0]},
              {"value": 2, "box": [60.0, 10.0, 90.0, 40.0]},
              {"value": 5, "box": [10.0, 60.0, 40.0, 90.0]}]
    audit = [{"image": "a.jpg", "box": [10, 10, 40, 40], "label": 2, "shows": 3},
             {"image": "a.jpg", "box": [10, 60, 40, 90], "label": 4, "shows": 5},  # label differs
             {"image": "b.jpg", "box": [60, 10, 90, 40], "label": 2, "shows": 1}]  # other photo
    assert [d["value"] for d in bench.audited("a.jpg", labels, audit)] == [3, 2, 5]
    assert [d["value"] for d in labels] == [2, 2, 5]      # the labels themselves untouched


@pytest.mark.skipif(not (DEFAULT_DATA / "labels.json").exists(),
                    reason="needs the real photos' labels (../shared/data/real-dice)")
def test_every_audited_die_is_one_labelled_die_with_the_audited_label(bench):
    labels = json.loads((DEFAULT_DATA / "labels.json").read_text())
    for entry in json.loads(bench.AUDIT.read_text())["dice"]:
        matches = [lab for lab in labels[entry["image"]] if all(
            abs(a - b) <= 1 for a, b in zip(lab["box"], entry["box"]))]
        assert [lab["value"] for lab in matches] == [entry["label"]], entry
        assert entry["shows"] != entry["label"] and entry["why"]
