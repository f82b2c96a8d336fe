"""Golden images: each layout is compared with a committed reference PNG.

A small tolerance absorbs anti-aliasing differences between FreeType builds; moving,
resizing or recolouring anything fails. Regenerate after an intended change with
STATION_UPDATE_GOLDEN=1 and look at the new PNGs before committing them.
"""

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from station.display.render import render, render_compact

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("STATION_UPDATE_GOLDEN") == "1"


def differs(image: Image.Image, reference: Image.Image) -> str:
    """'' when the images match within tolerance, else what is different."""
    if image.size != reference.size:
        return f"size {image.size} != {reference.size}"
    a = np.asarray(image.convert("RGB"), np.int16)
    b = np.asarray(reference.convert("RGB"), np.int16)
    diff = np.abs(a - b).max(axis=2)
    changed = float((diff > 48).mean())
    if changed > 0.002 or diff.mean() > 1.5:
        return f"{changed:.2%} of pixels changed, mean difference {diff.mean():.2f}"
    return ""


def check(name: str, image: Image.Image) -> None:
    path = GOLDEN / f"{name}.png"
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"no golden image {path}; run with STATION_UPDATE_GOLDEN=1 and inspect it")
        image.save(path)
    problem = differs(image, Image.open(path))
    assert not problem, f"{name} differs from {path}: {problem}"


@pytest.mark.parametrize("name", ["resolved", "idle", "error", "measured", "scatter", "throw"])
def test_full_layout_matches_golden(screens, name):
    check(f"full-{name}", render(screens[name], (800, 480)))


@pytest.mark.parametrize("name, size", [("resolved", (128, 64)), ("measured", (320, 240))])
def test_compact_layout_matches_golden(screens, name, size):
    check(f"compact-{name}-{size[0]}x{size[1]}", render_compact(screens[name], size))


def test_layout_changes_are_caught(screens):
    reference = Image.open(GOLDEN / "full-resolved.png")
    moved = dataclasses.replace(screens["resolved"], headline="MISS", tone="bad")
    assert differs(render(moved), reference)
    fewer = dataclasses.replace(screens["resolved"], marks=screens["resolved"].marks[:2])
    assert differs(render(fewer), reference)
    assert differs(render(screens["resolved"], (800, 600)), reference).startswith("size")


def test_render_scales_to_other_screens(screens):
    for size in [(1920, 1080), (480, 320)]:
        image = render(screens["resolved"], size)
        assert image.size == size
        assert np.asarray(image).std() > 20          # something drawn, not a blank
