import importlib.util
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from station.vision.classifier import CLASSES

REAL = Path(__file__).parent / "data" / "real"
BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="session")
def benchmark_module():
    """load(NAME): benchmarks/NAME.py as a module (the benchmarks are scripts, not a package)."""
    def load(name: str):
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return load


@pytest.fixture(scope="session")
def real_sample():
    """(name, BGR image, labels) for the committed held-out sample of real photos."""
    labels = json.loads((REAL / "labels.json").read_text())
    return [(name, cv2.imread(str(REAL / name)), labels[name]) for name in sorted(labels)]


@pytest.fixture
def reading():
    """reading(top, p_top): a reader's class probabilities, `top` read `p_top` sure and the
    rest shared evenly (for the reader's checks with stand-in networks)."""
    def make(top: int, p_top: float) -> np.ndarray:
        p = np.full(CLASSES, (1 - p_top) / (CLASSES - 1))
        p[top] = p_top
        return p
    return make


class _Reads:
    """A stand-in network that reads every crop as `face`, `sure` sure."""

    def __init__(self, face: int, sure: float) -> None:
        self.face, self.sure = face, sure

    def predict(self, crops):
        rest = (1 - self.sure) / (CLASSES - 1)
        probs = np.full((len(crops), CLASSES), rest)
        probs[:, self.face] = self.sure
        return probs


@pytest.fixture
def network():
    """network(face, sure): a stand-in network that reads every crop as `face`, `sure` sure
    (for the reader's looks with stand-in networks)."""
    return _Reads


@pytest.fixture
def read_at():
    """read_at(dice, truth): the reading nearest a rendered die's top-face centre within
    half its box's width, or None."""
    def nearest(dice, truth):
        half = 0.5 * (truth.box[2] - truth.box[0])
        near = [d for d in dice if np.hypot(d.center[0] - truth.center[0],
                                            d.center[1] - truth.center[1]) < half]
        return min(near, default=None, key=lambda d: np.hypot(d.center[0] - truth.center[0],
                                                              d.center[1] - truth.center[1]))
    return nearest


@pytest.fixture
def read_only_with(monkeypatch, read_at):
    """read_only_with(look, rendered, index, value, colour, touching=True): the rendered
    tray's die `index`, a die of that value and colour (touching another, or not), is read
    with its value, and not once the reader's `look` (a function of `station.vision.reader`)
    is switched off: the test can fail. The lean check's reading of dice the classifier reads
    as leaning (`reader.FLAT_BY_CHECK`), the pip-cluster look (`reader._pip_cluster_look`)
    and the recentring at a faceless die's pips (`reader._recentred_on_pips`; both seventy-
    first session), other ways to some of the same dice, are off then too."""
    from station.vision import read_tray, reader

    def check(look: str, rendered, index: int, value: int, colour: str,
              touching: bool = True) -> None:
        truth = rendered.truth[index]
        assert (truth.value, truth.colour) == (value, colour)
        assert ("touching" in truth.flags) == touching
        assert read_at(read_tray(rendered.image), truth).value == value
        monkeypatch.setattr(reader, look, lambda source, dice, *args: dice)
        monkeypatch.setattr(reader, "FLAT_BY_CHECK", 0.0)
        monkeypatch.setattr(reader, "_pip_cluster_look", lambda source, dice, *args: dice)
        monkeypatch.setattr(reader, "_recentred_on_pips", lambda source, dice, *args: dice)
        found = read_at(read_tray(rendered.image), truth)
        assert found is None or found.value != value
    return check
