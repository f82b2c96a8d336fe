import json
from pathlib import Path

import cv2
import pytest

REAL = Path(__file__).parent / "data" / "real"


@pytest.fixture(scope="session")
def real_sample():
    """(name, BGR image, labels) for the committed held-out sample of real photos."""
    labels = json.loads((REAL / "labels.json").read_text())
    return [(name, cv2.imread(str(REAL / name)), labels[name]) for name in sorted(labels)]
