"""The label audit of the real photos (benchmarks/label_audit.json): the benchmark's second
accuracy line relabels exactly the dice the audit names, each of them in the labels, and adds
the dice it names as unlabelled, none of them in the labels."""

import json

import pytest

from station.vision.training.train_classifier import DEFAULT_DATA


@pytest.fixture(scope="module")
def bench(benchmark_module):
    return benchmark_module("vision_bench")


def test_the_audit_relabels_only_the_die_it_names(bench):
    labels = [{"value": 2, "box": [10.4, 10.0, 40.2, 40.0]},
              {"value": 2, "box": [60.0, 10.0, 90.0, 40.0]},
              {"value": 5, "box": [10.0, 60.0, 40.0, 90.0]}]
    audit = [{"image": "a.jpg", "box": [10, 10, 40, 40], "label": 2, "shows": 3},
             {"image": "a.jpg", "box": [10, 60, 40, 90], "label": 4, "shows": 5},  # label differs
             {"image": "b.jpg", "box": [60, 10, 90, 40], "label": 2, "shows": 1}]  # other photo
    assert [d["value"] for d in bench.audited("a.jpg", labels, audit)] == [3, 2, 5]
    assert [d["value"] for d in labels] == [2, 2, 5]      # the labels themselves untouched


def test_the_audit_adds_the_unlabelled_dice_it_names(bench):
    labels = [{"value": 2, "box": [10.0, 10.0, 40.0, 40.0]}]
    audit = [{"image": "a.jpg", "box": [60, 10, 90, 40], "label": None, "shows": 6},
             {"image": "b.jpg", "box": [60, 60, 90, 90], "label": None, "shows": 1}]
    assert bench.audited("a.jpg", labels, audit) == [
        {"value": 2, "box": [10.0, 10.0, 40.0, 40.0]}, {"value": 6, "box": [60, 10, 90, 40]}]
    assert len(labels) == 1


@pytest.mark.skipif(not (DEFAULT_DATA / "labels.json").exists(),
                    reason="needs the real photos' labels (../shared/data/real-dice)")
def test_every_audited_die_is_one_labelled_die_with_the_audited_label(bench):
    labels = json.loads((DEFAULT_DATA / "labels.json").read_text())
    for entry in json.loads(bench.AUDIT.read_text())["dice"]:
        assert entry["why"] and entry["shows"] in range(1, 7), entry
        if entry["label"] is None:      # unlabelled: its centre in no labelled box
            x0, y0, x1, y1 = entry["box"]
            x, y = (x0 + x1) / 2, (y0 + y1) / 2
            assert not [lab for lab in labels[entry["image"]]
                        if lab["box"][0] <= x <= lab["box"][2]
                        and lab["box"][1] <= y <= lab["box"][3]], entry
            continue
        matches = [lab for lab in labels[entry["image"]] if all(
            abs(a - b) <= 1 for a, b in zip(lab["box"], entry["box"]))]
        assert [lab["value"] for lab in matches] == [entry["label"]], entry
        assert entry["shows"] != entry["label"]
