"""Running the readers' small ONNX networks: ONNX Runtime where it is installed, else OpenCV.

Every network of the readers (the gate, the classifier, the detail and outward networks, the
special dice' face network) is a few hundred KB of ONNX. ONNX Runtime, an inference engine
and no deep-learning framework (no training; wheels for x86_64 and 64-bit ARM: a Raspberry
Pi 4 or 5 on 64-bit Raspberry Pi OS), runs them about twice as fast as OpenCV's dnn module on
one core (a composite frame's network calls: 13.9 against 26.9 ms), with the same outputs to
about 1e-6
(docs/history/vision.md, "Eighteenth session: ONNX Runtime"). Where no wheel exists (32-bit
Raspberry Pi OS) the station falls back to `cv2.dnn`, which is always there.

`STATION_INFERENCE=opencv` (or `onnxruntime`) in the environment chooses the engine by hand
(`opencv` on a Pi short of memory: the station at rest then holds 30-50 MB less, and
reads about a third slower); `engine()` says which one a new network gets.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import cv2
import numpy as np

ENGINES = ("onnxruntime", "opencv")


def onnxruntime_installed() -> bool:
    """Whether onnxruntime can be imported (no wheel for 32-bit ARM: cv2.dnn does the work
    there). Only looked up: the import itself, 30 MB resident, waits for the first network
    that runs on it."""
    return importlib.util.find_spec("onnxruntime") is not None


def engine() -> str:
    """The engine a network loaded now runs on: `STATION_INFERENCE` if set, else ONNX Runtime
    when it is installed, else OpenCV."""
    chosen = os.environ.get("STATION_INFERENCE", "").strip().lower()
    if chosen:
        if chosen not in ENGINES:
            raise ValueError(f"STATION_INFERENCE={chosen!r}: use one of {', '.join(ENGINES)}")
        if chosen == "onnxruntime" and not onnxruntime_installed():
            raise ValueError("STATION_INFERENCE=onnxruntime, but onnxruntime is not installed "
                             "(pip install onnxruntime, or unset STATION_INFERENCE)")
        return chosen
    return "onnxruntime" if onnxruntime_installed() else "opencv"


def read_opencv(path: Path) -> cv2.dnn.Net:
    """An ONNX network for cv2.dnn. OpenCV 5's classic engine runs these small networks about
    a fifth faster than its new one (same outputs); OpenCV 4 has only the classic one."""
    classic = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    if classic is None:
        return cv2.dnn.readNetFromONNX(str(path))
    return cv2.dnn.readNetFromONNX(str(path), classic)


class Network:
    """One ONNX network with one input and one output: `run(x)` -> the output for the batch x
    (float32, N x C x H x W)."""

    def __init__(self, path: Path, engine_name: str | None = None) -> None:
        self.path = Path(path)
        self.engine = engine_name or engine()
        if self.engine not in ENGINES:
            raise ValueError(f"engine {self.engine!r}: use one of {', '.join(ENGINES)}")
        if self.engine == "onnxruntime":
            import onnxruntime

            options = onnxruntime.SessionOptions()
            # one thread: the reader's batches are a few dozen 32x32 crops, too small to
            # share, and the station's other work (camera, screen) has the other cores
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            # no memory arena nor planned buffers per network: 11 MB less resident, no
            # slower on these batches
            options.enable_cpu_mem_arena = False
            options.enable_mem_pattern = False
            self._session = onnxruntime.InferenceSession(
                str(self.path), options, providers=["CPUExecutionProvider"])
            self._input = self._session.get_inputs()[0].name
        else:
            self._net = read_opencv(self.path)

    def run(self, x: np.ndarray) -> np.ndarray:
        if self.engine == "onnxruntime":
            return self._session.run(None, {self._input: x})[0]
        self._net.setInput(x)
        return self._net.forward()
