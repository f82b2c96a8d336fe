"""Tray calibration from the four ArUco markers (issue 4: centres within 2 mm)."""

import json
import math
import re
import types
from pathlib import Path

import cv2
import numpy as np
import pytest

from station.cli import main
from station.display.screen import DieMark, face_label
from station.fakes.tray import Finish, random_tray, render_roll
from station.rules.faces import Face
from station.vision import calibration, read_tray
from station.vision.calibration import (CalibrationError, TrayCalibration, calibrate_image,
                                        detect_markers)


@pytest.fixture(scope="module")
def shot():
    return random_tray(np.random.default_rng(21), size=(1280, 960), dice=(6, 10),
                       special={"scatter": (2, 2)}, markers=True, yaw_deg=30.0)


@pytest.fixture(scope="module")
def profile(shot):
    return calibrate_image(shot.image, die_mm=shot.die_mm)


def test_tray_size_and_die_centres_in_mm(shot, profile):
    assert profile.tray_mm == pytest.approx(shot.tray_mm, abs=1.0)
    for die in shot.truth:
        if "cocked" in die.flags:
            continue
        x, y = profile.to_mm(*die.center, height_mm=shot.die_mm)   # top face centre
        assert math.hypot(x - die.center_mm[0], y - die.center_mm[1]) < 2.0


def test_bearings_relative_to_the_up_edge(shot, profile):
    scatter = [d for d in shot.truth if d.bearing_deg is not None]
    assert scatter
    for die in scatter:
        got = profile.bearing_to_tray(die.bearing_deg, *die.center, height_mm=shot.die_mm)
        assert abs((got - die.bearing_tray_deg + 180) % 360 - 180) < 1.0


def angle_off(a: float, b: float) -> float:
    return abs((a - b + 180) % 360 - 180)


def test_a_turned_camera_marks_the_arrow_as_the_die_shows_it():
    # The camera a quarter turn from the tray: the rules get the tray bearing (SCAT-2), the
    # screen's arrow follows the die's arrow in the frame, not the tray's number.
    rendered = render_roll([Face("scatter", "arrow", bearing_deg=0.0), Face("d6", 3)],
                           np.random.default_rng(7), size=(1280, 960), markers=True,
                           yaw_deg=90.0, touching=0.0)
    truth = rendered.truth[0]
    read = read_tray(rendered.image, calibrate_image(rendered.image), expect_special=True)
    die = next(d for d in read if d.kind == "scatter")
    assert angle_off(die.bearing_deg, truth.bearing_tray_deg) < 5
    assert angle_off(die.image_bearing_deg, truth.bearing_deg) < 5
    assert angle_off(truth.bearing_deg, truth.bearing_tray_deg) > 60     # the test means it
    mark = DieMark.from_json(die.to_json())
    assert angle_off(mark.bearing_deg, truth.bearing_deg) < 5
    assert mark.label == face_label("arrow", die.bearing_deg)
    uncalibrated = next(d for d in read_tray(rendered.image, expect_special=True)
                        if d.kind == "scatter")
    assert uncalibrated.image_bearing_deg is None and "image_bearing_deg" not in \
        uncalibrated.to_json()


def test_another_up_edge_turns_the_tray(shot, profile):
    right = calibrate_image(shot.image, up_edge="right", die_mm=shot.die_mm)
    assert right.tray_mm == pytest.approx(profile.tray_mm[::-1], abs=1e-6)
    die = shot.truth[0]
    top = profile.bearing_to_tray(100.0, *die.center)
    assert right.bearing_to_tray(100.0, *die.center) == pytest.approx((top - 90) % 360, abs=0.01)


def test_profile_round_trip_and_bad_files(tmp_path, shot, profile):
    path = tmp_path / "tray.json"
    profile.save(str(path))
    again = TrayCalibration.load(str(path))
    die = shot.truth[0]
    assert again.to_mm(*die.center) == pytest.approx(profile.to_mm(*die.center), abs=1e-6)
    with pytest.raises(CalibrationError, match="cannot read"):
        TrayCalibration.load(str(tmp_path / "missing.json"))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(CalibrationError, match="not JSON"):
        TrayCalibration.load(str(tmp_path / "bad.json"))
    (tmp_path / "old.json").write_text(json.dumps({"version": 99}))
    with pytest.raises(CalibrationError, match="calibrate again"):
        TrayCalibration.load(str(tmp_path / "old.json"))



def edited(profile, change):
    data = json.loads(json.dumps(profile.to_json()))
    change(data)
    return data


@pytest.mark.parametrize("change, words", [
    (lambda d: d.update(image_size=[0, 0]), "image_size is [0, 0], not [width, height] in pixels"),
    (lambda d: d.update(image_size=[-1280, -960]), "image_size is [-1280, -960]"),
    (lambda d: d.update(image_size=["a", 960]), "image_size"),
    (lambda d: d.update(markers_px=[1, 2]), "markers_px is [1, 2], not marker ids"),
    (lambda d: d.update(markers_px={"0": [1, 2]}), "markers_px.0 is [1, 2], not four [x, y] corners"),
    (lambda d: d.update(die_mm=float("nan")), "die_mm is NaN, not mm above 0"),
    (lambda d: d.update(tray_mm=[300, float("inf")]), "tray_mm is [300, Infinity]"),
    (lambda d: d["camera"].update(matrix=[[0] * 3] * 3), "camera.matrix [[0.0, 0.0, 0.0]"),
    (lambda d: d["camera"].update(matrix=[[-1, 0, 0], [0, -1, 0], [0, 0, 1]]), "no focal length"),
    (lambda d: d["camera"].update(rvec=[1, 2]), "camera.rvec is [1, 2], not 3 numbers"),
    (lambda d: d.update(camera=None), "camera is null, not a JSON object"),
    (lambda d: d.pop("tray_mm"), "has no tray_mm"),
    (lambda d: d.update(pixels_to_tray_mm=[[1, 2, 3], [2, 4, 6], [0, 0, 1]]), "pixels_to_tray_mm"),
    (lambda d: d.update(up_edge="north"), "up_edge is \"north\", not one of top"),
])
def test_a_damaged_profile_names_the_field(profile, change, words):
    # a hand-edited or damaged profile used to load and then fail at every roll (or stop
    # the service with a traceback): now it is refused at once, naming what is wrong
    with pytest.raises(CalibrationError) as caught:
        TrayCalibration.from_json(edited(profile, change))
    assert words in str(caught.value) and "calibrate again" in str(caught.value)


@pytest.mark.parametrize("top", ["[]", "null", "3"])
def test_a_profile_that_is_not_an_object_is_refused(tmp_path, top):
    (tmp_path / "top.json").write_text(top)
    with pytest.raises(CalibrationError, match=re.escape(f"it holds {top}, not a JSON object")):
        calibration.load_profile(str(tmp_path / "top.json"))

def test_same_camera_at_half_resolution(shot, profile):
    half = profile.for_image(640, 480)
    die = shot.truth[0]
    assert half.to_mm(die.center[0] / 2, die.center[1] / 2) == \
        pytest.approx(profile.to_mm(*die.center), abs=0.05)
    with pytest.raises(CalibrationError, match="calibrate again"):
        profile.for_image(640, 640)


def test_missing_markers_are_named():
    bare = render_roll([Face("d6", 2)], np.random.default_rng(3), size=(640, 480))
    with pytest.raises(CalibrationError, match=r"0 \(top-left\).*3 \(bottom-left\)"):
        calibrate_image(bare.image)


def test_a_mirrored_photo_is_said_to_be_mirrored(shot, tmp_path, capsys):
    """A camera that mirrors (some webcams, phones' front cameras) shows markers the detector
    does not find: the user is told to turn the mirroring off, and no profile is written."""
    mirrored = np.fliplr(shot.image)
    with pytest.raises(CalibrationError, match=r"looks mirrored: markers 0, 1, 2, 3 are found"):
        calibrate_image(mirrored)
    covered = shot.image.copy()
    for i in (0, 1, 2):                                # a hand over three markers
        cv2.fillConvexPoly(covered, np.asarray(shot.markers[i], np.int32), (128, 128, 128))
    with pytest.raises(CalibrationError, match=r"looks mirrored: marker 3 is found"):
        calibrate_image(np.fliplr(covered))
    image = tmp_path / "mirrored.png"
    cv2.imwrite(str(image), mirrored)
    out = tmp_path / "tray.json"
    assert main(["calibrate", "tray", str(image), "--out", str(out)]) == 2
    assert "Turn off mirroring in the camera" in capsys.readouterr().err
    assert not out.exists()


def test_a_tile_put_down_turned_still_counts(shot):
    found = detect_markers(shot.image)
    found[2] = np.roll(found[2], 1, axis=0)        # tile 2 turned a quarter
    squared = calibration._square_up(found)
    assert np.allclose(squared[2], detect_markers(shot.image)[2])


def test_opencv_4_detector_api_and_shapes(monkeypatch, shot):
    """OpenCV < 4.7: module functions, corners (1, 4, 2), ids (N, 1)."""
    real = cv2.aruco
    detector = real.ArucoDetector(real.getPredefinedDictionary(real.DICT_4X4_50),
                                  real.DetectorParameters())

    def detect(grey, dictionary, parameters=None):
        corners, ids, rejected = detector.detectMarkers(grey)
        return ([np.asarray(c).reshape(1, 4, 2) for c in corners],
                np.asarray(ids).reshape(-1, 1), rejected)

    old = types.SimpleNamespace(
        DICT_4X4_50=real.DICT_4X4_50, CORNER_REFINE_SUBPIX=real.CORNER_REFINE_SUBPIX,
        Dictionary_get=real.getPredefinedDictionary,
        DetectorParameters_create=real.DetectorParameters, detectMarkers=detect)
    monkeypatch.setattr(calibration.cv2, "aruco", old)
    found = calibration.detect_markers(shot.image)
    monkeypatch.undo()
    assert sorted(found) == [0, 1, 2, 3]
    assert all(c.shape == (4, 2) for c in found.values())


def test_cli_writes_a_profile_and_rejects_bad_input(tmp_path, shot, capsys):
    image = tmp_path / "tray.png"
    cv2.imwrite(str(image), shot.image)
    out = tmp_path / "profiles" / "tray.json"
    preview = tmp_path / "preview.png"
    assert main(["calibrate", "tray", str(image), "--out", str(out),
                 "--preview", str(preview)]) == 0
    printed = capsys.readouterr()
    assert "profile written" in printed.out
    low, high = calibrate_image(shot.image).die_side_px()
    assert f"top faces {low:.0f}-{high:.0f} px wide in these 1280x960 frames" in printed.out
    assert low >= 20 and "warning" not in printed.err
    assert TrayCalibration.load(str(out)).tray_mm == pytest.approx(shot.tray_mm, abs=1.0)
    assert cv2.imread(str(preview)) is not None
    assert main(["calibrate", "tray", str(tmp_path / "nope.jpg")]) == 2
    assert "cannot read image" in capsys.readouterr().err


def test_marker_tiles_are_not_dice(shot, profile):
    assert all(profile.on_marker(*np.mean(c, axis=0)) for c in shot.markers.values())
    assert not any(profile.on_marker(*die.center) for die in shot.truth)


def test_the_dice_size_in_pixels_is_foreseen(shot, profile):
    """`die_side_px` tells from the markers alone how wide the dice's top faces will be: the
    rendered dice (each within 6 % of the tray's die size, seen by a camera whose field of
    view the profile only assumes) fall in its range, give or take a tenth."""
    low, high = profile.die_side_px()
    sides = [np.mean(np.hypot(*(t.top_corners - np.roll(t.top_corners, -1, axis=0)).T))
             for t in shot.truth if "cocked" not in t.flags]
    assert 0.9 * low <= min(sides) and max(sides) <= 1.1 * high
    assert 0.95 * low <= np.median(sides) <= 1.05 * high
    doubled = TrayCalibration.from_json({**profile.to_json(), "die_mm": 2 * shot.die_mm})
    assert doubled.die_side_px()[0] > 1.8 * low
    half = profile.for_image(640, 480)
    assert half.die_side_px() == pytest.approx((low / 2, high / 2), rel=1e-6)


def test_cli_warns_when_the_dice_come_out_too_small(tmp_path, shot, capsys):
    """At 640x480 the same tray's dice are under 20 px, where the artillery faces are read
    less surely (`SMALL_DIE_PX`): the build is told to raise the resolution."""
    image = tmp_path / "small.png"
    cv2.imwrite(str(image), cv2.resize(shot.image, (640, 480), interpolation=cv2.INTER_AREA))
    assert main(["calibrate", "tray", str(image), "--out", str(tmp_path / "t.json")]) == 0
    printed = capsys.readouterr()
    assert "profile written" in printed.out
    assert "warning: dice as small as" in printed.err and "higher resolution" in printed.err


@pytest.mark.parametrize("blur", [0.5, 1.0, 2.0])
def test_the_frame_softness_is_measured_on_the_markers(blur):
    """`marker_edge_blur` finds the Gaussian blur of a rendered tray (its `Finish.blur`, at
    1280 px wide) from the markers' edges, give or take a few hundredths of a pixel and
    the pixel sampling's own (about 0.3 px, which adds in quadrature)."""
    shot = random_tray(np.random.default_rng(21), size=(1280, 960), dice=(6, 10),
                       markers=True, yaw_deg=30.0,
                       finish=Finish(blur=blur, noise=2.0, jpeg_quality=90, vignette=0.1))
    measured = calibration.marker_edge_blur(shot.image, detect_markers(shot.image))
    assert measured == pytest.approx(math.hypot(blur, 0.3), abs=0.15)


def test_cli_warns_when_the_frame_is_soft(tmp_path, capsys):
    """A tray whose 46 px top faces are blurred by 2 px (4 % of a face, as 1.5 px on the real
    photos' faces of about 36 px, which cost them 3.4 points) is told to focus; the same tray
    sharp is not."""
    told = {}
    for blur in (0.3, 2.0):
        shot = random_tray(np.random.default_rng(21), size=(1920, 1440), dice=(6, 10),
                           markers=True, yaw_deg=30.0,
                           finish=Finish(blur=blur * 1280 / 1920, noise=2.0, jpeg_quality=90,
                                         vignette=0.1))
        image = tmp_path / f"tray-{blur}.png"
        cv2.imwrite(str(image), shot.image)
        assert main(["calibrate", "tray", str(image), "--out", str(tmp_path / "t.json")]) == 0
        printed = capsys.readouterr()
        assert "focus: the markers' edges are blurred by" in printed.out
        told[blur] = "warning: the frame is soft" in printed.err
    assert told == {0.3: False, 2.0: True}


def swapped_tray(monkeypatch, swap: dict[int, int], seed: int = 5):
    """A rendered tray whose tiles sit in the wrong corners: the tile drawn where marker i
    belongs carries marker swap[i]."""
    from station.fakes import tray as fake_tray
    real = fake_tray.marker_image
    monkeypatch.setattr(fake_tray, "marker_image",
                        lambda marker_id, pixels: real(swap.get(marker_id, marker_id), pixels))
    shot = render_roll([Face("d6", 3), Face("d6", 5)], np.random.default_rng(seed),
                       size=(1280, 960), markers=True, tray_mm=(342.0, 234.0), yaw_deg=10.0)
    monkeypatch.undo()
    return shot


@pytest.mark.parametrize("swap", [
    {0: 1, 1: 0, 2: 3, 3: 2},      # left-right: gave a 234.5 x 342.1 mm tray for 342 x 234
    {0: 3, 3: 0, 1: 2, 2: 1},      # top-bottom
    {0: 2, 2: 0},                  # a diagonal: the right size, dice off by centimetres
    {1: 3, 3: 1},
    {2: 3, 3: 2},                  # the uncut sheet's old order
    {0: 1, 1: 0},
])
def test_tiles_in_the_wrong_corners_are_refused(monkeypatch, swap, tmp_path, capsys):
    shot = swapped_tray(monkeypatch, swap)
    with pytest.raises(CalibrationError, match="put tile 0 in the tray's top-left corner, 1 "
                                               "top-right, 2 bottom-right and 3 bottom-left"):
        calibrate_image(shot.image)
    image = tmp_path / "swapped.png"
    cv2.imwrite(str(image), shot.image)
    assert main(["calibrate", "tray", str(image), "--out", str(tmp_path / "t.json")]) == 2
    assert "not in their corners" in capsys.readouterr().err
    assert not (tmp_path / "t.json").exists()


def test_the_right_corners_still_calibrate(monkeypatch):
    shot = swapped_tray(monkeypatch, {})
    assert calibrate_image(shot.image).tray_mm == pytest.approx((342.0, 234.0), abs=1.0)


def test_markers_that_do_not_fit_the_layout_are_refused(monkeypatch, shot):
    # In their corners but not where tiles pushed into them would be (a tile lifted, or
    # printed at another size): the fit error, not the order, gives it away.
    found = detect_markers(shot.image)
    centre = found[1].mean(axis=0)
    found[1] = centre + (found[1] - centre) * 1.8
    monkeypatch.setattr(calibration, "detect_markers", lambda image: found)
    with pytest.raises(CalibrationError, match=r"fit the tray layout to [\d.]+ px, more than "
                                               r"10 % of their \d+ px side"):
        calibrate_image(shot.image)


@pytest.fixture(scope="module")
def make_sheet():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "calibration" / "make_sheet.py"
    spec = importlib.util.spec_from_file_location("make_sheet", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def sheet_page(make_sheet):
    return make_sheet.sheet()


def test_the_uncut_sheet_is_a_valid_tray(make_sheet, sheet_page):
    # The tiles sat in reading order (2 bottom-left, though labelled bottom-right): a photo
    # of the uncut sheet calibrated to nonsense. Now it is a 130 x 120 mm tray.
    profile = calibrate_image(sheet_page)
    assert make_sheet.SHEET_TRAY_MM == (130.0, 120.0)
    assert profile.tray_mm == pytest.approx(make_sheet.SHEET_TRAY_MM, abs=0.3)


def test_the_sheet_labels_are_on_the_tiles(make_sheet, sheet_page):
    # The labels were printed 8 mm below each tile, outside the cut line, and were cut off.
    # Now each sits in its tile's bottom margin, and the markers are still found, also small
    # and soft (44 px wide, as in a photo of the tray).
    mm = make_sheet.mm
    for marker_id, (col, row) in make_sheet.SHEET_PLACE.items():
        x0 = make_sheet.SHEET_ORIGIN_MM[0] + col * 90
        y0 = make_sheet.SHEET_ORIGIN_MM[1] + row * 80
        below = sheet_page[mm(y0 + calibration.TILE_MM) + 3:mm(y0 + calibration.TILE_MM + 12),
                           mm(x0):mm(x0 + calibration.TILE_MM)]
        assert below.min() == 255, f"ink below tile {marker_id}, outside its cut line"
        margin = sheet_page[mm(y0 + calibration.TILE_MM - 5) + 2:mm(y0 + calibration.TILE_MM) - 3,
                            mm(x0) + 3:mm(x0 + calibration.TILE_MM) - 3]
        assert (margin < 128).sum() > 500, f"no label in tile {marker_id}'s margin"
    for shrink in (1, 8):
        small = cv2.resize(sheet_page, None, fx=1 / shrink, fy=1 / shrink,
                           interpolation=cv2.INTER_AREA)
        assert sorted(detect_markers(cv2.GaussianBlur(small, (0, 0), 1.0))) == [0, 1, 2, 3]


def test_the_sheet_files_print_true_size(make_sheet, tmp_path):
    # The PNG had no DPI, though the README says 300 dpi: a viewer printed it at 72 or 96.
    from PIL import Image
    make_sheet.main(str(tmp_path))
    with Image.open(tmp_path / "markers.png") as png:
        assert png.size == (2480, 3508)
        assert png.info["dpi"] == pytest.approx((300, 300), abs=0.01)
    box = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]",
                    (tmp_path / "markers.pdf").read_bytes())
    assert (float(box[1]), float(box[2])) == pytest.approx((595.2, 841.92), abs=0.01)   # A4
    assert make_sheet.mm(calibration.MARKER_MM) == 354


@pytest.fixture(scope="module")
def shrunk_print():
    """A tray whose sheet was printed at 97 %: 29.1 mm markers on 38.8 mm tiles."""
    return random_tray(np.random.default_rng(21), size=(1280, 960), dice=(6, 10),
                       markers=True, yaw_deg=30.0, marker_mm=29.1)


def centre_errors(profile, shot) -> list[float]:
    return [math.hypot(*(np.subtract(profile.to_mm(*d.center, height_mm=shot.die_mm),
                                     d.center_mm))) for d in shot.truth if "cocked" not in d.flags]


def test_marker_mm_corrects_a_scaled_print(tmp_path, shrunk_print, capsys):
    image = tmp_path / "tray.png"
    cv2.imwrite(str(image), shrunk_print.image)
    out = tmp_path / "tray.json"
    assert main(["calibrate", "tray", str(image), "--out", str(out), "--marker-mm", "29.1",
                 "--die-mm", str(shrunk_print.die_mm)]) == 0
    assert "markers (29.1 mm)" in capsys.readouterr().out
    profile = TrayCalibration.load(str(out))
    assert profile.marker_mm == 29.1
    assert profile.tray_mm == pytest.approx(shrunk_print.tray_mm, abs=1.0)
    assert max(centre_errors(profile, shrunk_print)) < 2.0
    # without it, the tray comes out 3 % too big and the dice are off by more
    unscaled = calibrate_image(shrunk_print.image, die_mm=shrunk_print.die_mm)
    assert max(centre_errors(unscaled, shrunk_print)) > 3.0


def test_a_profile_without_marker_mm_still_loads(profile):
    data = profile.to_json()
    assert data["marker_mm"] == calibration.MARKER_MM
    del data["marker_mm"]                  # as written before --marker-mm
    assert TrayCalibration.from_json(data).marker_mm == calibration.MARKER_MM


def test_the_example_profile_holds_every_field(profile):
    """calibration/profiles/example-tray.json shows the format: it holds every field a profile
    is written with now (it was once older than marker_mm), as written."""
    path = Path(__file__).parents[2] / "calibration" / "profiles" / "example-tray.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert set(data) == set(profile.to_json())
    assert TrayCalibration.from_json(data).to_json() == data


@pytest.mark.parametrize("value", ["0", "-30", "nan", "100"])
def test_a_marker_side_that_is_no_print_is_refused(tmp_path, shot, capsys, value):
    image = tmp_path / "tray.png"
    cv2.imwrite(str(image), shot.image)
    assert main(["calibrate", "tray", str(image), "--out", str(tmp_path / "t.json"),
                 "--marker-mm", value]) == 2
    assert "measure a printed marker's black square" in capsys.readouterr().err


def test_markers_blurred_past_the_detector_are_found_sharpened():
    """A camera out of focus (2.85 px of blur at 1920x1080): the top-left marker is not
    found as the frame is; looked for again in the frame sharpened (`MARKER_SHARPEN`), the
    tray calibrates and its dice's centres are within 2 mm."""
    shot = random_tray(np.random.default_rng(0), size=(1920, 1080), dice=(6, 10),
                       markers=True, yaw_deg=30.0,
                       finish=Finish(blur=1.9, noise=2.0, jpeg_quality=90, vignette=0.1))
    assert 0 not in detect_markers(shot.image)
    profile = calibrate_image(shot.image, die_mm=shot.die_mm)
    assert profile.tray_mm == pytest.approx(shot.tray_mm, abs=1.0)
    for die in shot.truth:
        if "cocked" not in die.flags:
            x, y = profile.to_mm(*die.center, height_mm=shot.die_mm)
            assert math.hypot(x - die.center_mm[0], y - die.center_mm[1]) < 2.0
