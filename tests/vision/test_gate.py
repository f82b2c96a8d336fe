"""The gate network in front of the die classifier: it saves crops and changes no reading."""

import numpy as np
import pytest

from station.fakes.tray import random_tray
from station.vision import classifier, read_tray


@pytest.fixture
def counted_crops():
    """Counts the crops the (full) die classifier reads; the gate restored afterwards."""
    die_classifier = classifier.default_classifier()
    count = [0]

    def predict_normalised(crops):     # `predict` goes through it too
        count[0] += len(crops)
        return type(die_classifier).predict_normalised(die_classifier, crops)

    die_classifier.predict_normalised = predict_normalised
    yield count
    del die_classifier.predict_normalised
    classifier.use_gate(classifier.GATE_WEIGHTS)


def frames(real_sample):
    yield from (image for _, image, _ in real_sample[:4])
    for seed in (3, 8):
        yield random_tray(np.random.default_rng([41, seed]), size=(1280, 960), dice=(20, 30),
                          cocked=0.1, special={"scatter": (0, 1), "artillery": (0, 1)}).image


def readings(dice):
    return [(d.kind, d.value, round(d.center[0]), round(d.center[1]), d.flags) for d in dice]


def test_gate_changes_no_reading_and_saves_crops(real_sample, counted_crops):
    gated, ungated = [], []
    crops = {}
    for gate in (classifier.GATE_WEIGHTS, None):
        classifier.use_gate(gate)
        counted_crops[0] = 0
        (gated if gate else ungated).extend(readings(read_tray(f)) for f in frames(real_sample))
        crops[gate is not None] = counted_crops[0]
    assert gated == ungated
    # Measured: 243 of 486 crops (four real photos, two rendered trays).
    assert crops[True] < 0.7 * crops[False], crops
