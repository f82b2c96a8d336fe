"""The two inference engines (`station.vision.networks`): ONNX Runtime, the default, and
OpenCV's dnn module, the fallback where no onnxruntime wheel exists, give the committed
networks' outputs alike, so the reader reads the same dice on either."""

import numpy as np
import pytest

from station.fakes.tray import random_tray
from station.vision import classifier, networks, read_tray, special_dice
from station.vision.classifier import (DETAIL_SIZE, DETAIL_WEIGHTS, GATE_WEIGHTS,
                                       OUTWARD_WEIGHTS, WEIGHTS, normalise)
from station.vision.special_dice import FACE_CROP, WEIGHTS as FACE_WEIGHTS

needs_onnxruntime = pytest.mark.skipif(not networks.onnxruntime_installed(),
                                       reason="onnxruntime is not installed here")


def tray_crops(size: int) -> np.ndarray:
    """Crops of a rendered tray, dice and floor alike: the kind of input the networks read."""
    image = random_tray(np.random.default_rng(3), size=(1280, 960), dice=(12, 12)).image
    rng = np.random.default_rng(4)
    corners = rng.integers(0, [image.shape[1] - 3 * size, image.shape[0] - 3 * size], (24, 2))
    return np.stack([image[y:y + 3 * size:3, x:x + 3 * size:3] for x, y in corners])


@needs_onnxruntime
@pytest.mark.parametrize("path, size", [(WEIGHTS, 32), (GATE_WEIGHTS, 32), (OUTWARD_WEIGHTS, 32),
                                        (DETAIL_WEIGHTS, DETAIL_SIZE), (FACE_WEIGHTS, FACE_CROP)],
                         ids=lambda v: getattr(v, "name", str(v)))
def test_both_engines_give_the_same_outputs(path, size):
    x = normalise(tray_crops(size))
    fast = networks.Network(path, "onnxruntime").run(x)
    fallback = networks.Network(path, "opencv").run(x)
    assert fast.shape == fallback.shape == (len(x), fast.shape[1])
    assert np.abs(fast - fallback).max() < 1e-3 * max(1.0, np.abs(fast).max())


def test_engine_follows_the_environment(monkeypatch):
    monkeypatch.setenv("STATION_INFERENCE", "OpenCV")
    assert networks.engine() == "opencv"
    assert networks.Network(GATE_WEIGHTS).engine == "opencv"
    monkeypatch.delenv("STATION_INFERENCE")
    assert networks.engine() == ("onnxruntime" if networks.onnxruntime_installed() else "opencv")


def test_a_wrong_engine_name_says_which_ones_exist(monkeypatch):
    monkeypatch.setenv("STATION_INFERENCE", "tensorflow")
    with pytest.raises(ValueError, match="onnxruntime, opencv"):
        networks.engine()


def test_onnxruntime_asked_for_but_missing_says_what_to_do(monkeypatch):
    monkeypatch.setattr(networks, "onnxruntime_installed", lambda: False)
    monkeypatch.setenv("STATION_INFERENCE", "onnxruntime")
    with pytest.raises(ValueError, match="pip install onnxruntime"):
        networks.engine()
    monkeypatch.delenv("STATION_INFERENCE")
    assert networks.engine() == "opencv"


def load_networks_anew():
    """The reader's networks are cached; the next read loads them on the engine chosen now."""
    for loader in (classifier.default_classifier, classifier.default_gate,
                   classifier.default_detail, classifier.default_outward, special_dice._model):
        loader.cache_clear()


@pytest.fixture
def fresh_networks():
    """The reader's networks loaded anew in the test, and again after it (on the default)."""
    load_networks_anew()
    yield
    load_networks_anew()


@needs_onnxruntime
def test_the_reader_reads_the_same_dice_on_either_engine(monkeypatch, fresh_networks):
    shot = random_tray(np.random.default_rng(7), size=(1280, 960), dice=(14, 14),
                       special={"scatter": (1, 1), "artillery": (1, 1)})

    def read(engine_name):
        monkeypatch.setenv("STATION_INFERENCE", engine_name)
        load_networks_anew()
        return [(d.kind, d.value, round(d.center[0]), round(d.center[1]), sorted(d.flags))
                for d in read_tray(shot.image, expect_special=True)]

    fast = read("onnxruntime")
    assert len(fast) >= 14
    assert read("opencv") == fast
