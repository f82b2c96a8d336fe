"""Calibration fit and profile, and the conversion to inches and base-to-base inches
(MEAS-1: 1 in = 25.4 mm, base edge to base edge; MEAS-2: offsets from the reference edge
and the target's base radius, raw reading kept)."""

import json

import pytest

from station.laser.calibration import (
    CalibrationError, calibrate, fit, load_profile, save_calibration)
from station.laser.codec import Reading
from station.laser.measurement import convert


def test_two_points_give_an_offset_only():
    offset, scale, residual = fit([(100, 103), (1000, 1003)])
    assert (offset, scale) == (pytest.approx(-3), 1.0) and residual == pytest.approx(0)


def test_a_real_scale_error_is_fitted():
    points = [(known, known * 1.01 + 2.0) for known in (100, 400, 800, 1200, 1600)]
    offset, scale, residual = fit(points)
    assert scale == pytest.approx(1 / 1.01) and residual < 1e-6
    assert scale * (1000 * 1.01 + 2.0) + offset == pytest.approx(1000)


def test_noise_alone_does_not_make_a_scale():
    noise = [0.8, -1.1, 0.4, -0.6, 1.0]
    points = [(k, k + 3 + e) for k, e in zip((100, 400, 800, 1200, 1600), noise)]
    offset, scale, _ = fit(points)
    assert scale == 1.0 and offset == pytest.approx(-3 - sum(noise) / 5)


def test_no_points_is_a_clear_error():
    with pytest.raises(CalibrationError, match="at least one reading"):
        fit([])


def test_profile_keeps_each_device_and_its_reference_edge(tmp_path):
    path = tmp_path / "station" / "laser.json"
    save_calibration(path, calibrate("glm", [(500, 502)], "front", "1"))
    save_calibration(path, calibrate("jrt", [(500, 497)], "pin"))
    profile = load_profile(path)
    assert profile["glm"].reference_edge == "front" and profile["glm"].offset_mm == -2
    assert profile["glm"].device_edge_code == "1"
    assert profile["jrt"].corrected(1000) == 1003
    assert json.loads(path.read_text())["version"] == 1


def test_broken_profile_says_what_to_do(tmp_path):
    path = tmp_path / "laser.json"
    path.write_text("{not json")
    with pytest.raises(CalibrationError, match="calibrate laser"):
        load_profile(path)


def test_inches_and_base_to_base():
    cal = calibrate("jrt", [(500, 510)], "rear")          # reads 10 mm long
    m = convert("jrt", Reading(264.0), cal, base_radius_mm=12.5)
    assert m.raw_mm == 264.0 and m.mm == 254.0 and m.inches == pytest.approx(10.0)
    assert m.base_to_base_inches == pytest.approx((254.0 - 12.5) / 25.4)
    assert m.to_json()["base_to_base_inches"] == pytest.approx(9.508, abs=1e-3)
    assert "raw 264.0 mm" in m.text() and "MEAS-2" in m.text()


def test_bases_touching_is_zero_not_negative():
    m = convert("jrt", Reading(10.0), None, base_radius_mm=20)
    assert m.base_to_base_inches == 0.0 and "bases touch" in m.warning
    assert not m.calibrated and "UNCALIBRATED" in m.text()


def test_edge_changed_since_calibration_is_flagged():
    cal = calibrate("glm", [(500, 500)], "rear", device_edge_code="2")
    m = convert("glm", Reading(300.0, pushed=True, reference_edge="1"), cal)
    assert "calibrate again" in m.warning


@pytest.mark.parametrize("entry", [
    ["not", "an", "entry"],
    {"offset_mm": "abc"},                     # a number as text
    {"scale": True},
    {"offset_mm": float("nan")},              # written as NaN
    {"scale": "HUGE"},                        # 1e999: read back as infinity
    {"points": [[500, float("nan")]]},
    {"points": [[500]]},
    {"reference_edge": 7},
])
def test_a_profile_with_wrong_or_non_finite_values_is_refused(tmp_path, entry):
    path = tmp_path / "laser.json"
    if isinstance(entry, dict):
        entry = {"device": "glm", "points": [[500, 502]], **entry}
    path.write_text(json.dumps({"version": 1, "devices": {"glm": entry}})
                    .replace('"HUGE"', "1e999"))
    with pytest.raises(CalibrationError, match="cannot read the laser calibration profile"):
        load_profile(path)


def test_a_profile_whose_devices_are_not_named_is_refused(tmp_path):
    path = tmp_path / "laser.json"
    path.write_text('{"version": 1, "devices": []}')
    with pytest.raises(CalibrationError, match="not an object of device names"):
        load_profile(path)
