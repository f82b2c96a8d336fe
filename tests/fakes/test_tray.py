"""The synthetic tray renderer: its truth must be exact, since readers are judged by it."""

import dataclasses
import math

import cv2
import numpy as np
import pytest

from station.fakes.tray import (DiePose, Finish, _face_corners, draw_dice, place_dice,
                                random_look, random_tray, render_roll)
from station.fakes.tray_camera import make_camera
from station.fakes.tray_faces import (TEXTURE, FaceStyle, available_fonts, pip_face,
                                      random_small_arrow, random_style, scatter_face,
                                      unusual_style)
from station.rules.faces import Face

CLEAN = Finish(blur=0.0, noise=0.0, jpeg_quality=None, vignette=0.0)


def test_truth_follows_the_faces_in_order():
    faces = [Face("d6", 1), Face("d6", 6), Face("scatter", "hit"), Face("artillery", "misfire"),
             Face("artillery", 8), Face("scatter", "arrow", 123.0)]
    shot = render_roll(faces, np.random.default_rng(1), size=(800, 600))
    assert shot.image.shape == (600, 800, 3) and shot.image.dtype == np.uint8
    assert [(t.kind, t.value) for t in shot.truth] == [(f.kind, f.value) for f in faces]
    for t in shot.truth:
        x0, y0, x1, y1 = t.box
        assert 0 <= x0 < t.center[0] < x1 <= 800 and 0 <= y0 < t.center[1] < y1 <= 600
    assert shot.truth[-1].bearing_tray_deg == pytest.approx(123.0, abs=1e-6)
    assert shot.truth[0].bearing_deg is None


def test_same_seed_same_picture():
    a = random_tray(np.random.default_rng(7), size=(640, 480))
    b = random_tray(np.random.default_rng(7), size=(640, 480))
    assert np.array_equal(a.image, b.image)


def test_marker_corners_and_homography_match_what_opencv_detects():
    shot = render_roll([Face("d6", 3)], np.random.default_rng(2), size=(1280, 960),
                       markers=True, tilt_deg=6, yaw_deg=20)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(shot.image)
    found = {int(i): np.asarray(c).reshape(4, 2) for c, i in zip(corners, np.ravel(ids))}
    assert set(found) == {0, 1, 2, 3}
    for marker_id, truth in shot.markers.items():
        assert np.abs(found[marker_id] - truth).max() < 1.5
    # The floor homography maps the die's floor centre to below its top face's centre.
    die = shot.truth[0]
    p = cv2.perspectiveTransform(np.array([[die.center_mm]], float), shot.homography)[0, 0]
    assert np.hypot(*(p - die.center)) < 0.6 * shot.camera.px_per_mm() * shot.die_mm


@pytest.mark.parametrize("bearing", [0.0, 37.0, 90.0, 200.0, 315.0])
def test_scatter_bearing_truth_matches_the_drawn_arrow(bearing):
    shot = render_roll([Face("scatter", "arrow", bearing)], np.random.default_rng(3),
                       size=(1280, 960), tray_mm=(120, 100), die_mm=30, colours=["black"],
                       finish=CLEAN, tilt_deg=0, yaw_deg=0, floor="felt-green")
    die = shot.truth[0]
    x0, y0, x1, y1 = (int(v) for v in die.box)
    crop = cv2.cvtColor(shot.image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    ys, xs = np.nonzero(crop > 200)           # the white arrow on the black die
    pts = np.column_stack([xs, ys]).astype(float)
    centre = pts.mean(axis=0)
    _, vecs = np.linalg.eigh(np.cov((pts - centre).T))
    axis = vecs[:, -1]
    along = (pts - centre) @ axis
    across = np.abs((pts - centre) @ np.array([-axis[1], axis[0]]))
    # The head is the wide end.
    if across[along > 0].max() < across[along < 0].max():
        axis = -axis
    measured = math.degrees(math.atan2(axis[0], -axis[1])) % 360
    assert abs((measured - die.bearing_deg + 180) % 360 - 180) < 3
    assert die.bearing_deg == pytest.approx(bearing, abs=1.0)   # camera straight, no yaw


def test_cocked_dice_are_flagged_and_touching_dice_too():
    faces = [Face("d6", v) for v in (1, 2, 3, 4, 5, 6, 1, 2)]
    shot = render_roll(faces, np.random.default_rng(4), size=(640, 480), cocked=0.5,
                       touching=0.4)
    flags = [f for t in shot.truth for f in t.flags]
    assert "cocked" in flags and "touching" in flags


def test_artillery_numerals_come_in_at_least_three_fonts():
    assert len(available_fonts()) >= 3
    faces = [Face("artillery", v) for v in (2, 4, 6, 8, 10, "misfire")] * 2
    shot = render_roll(faces, np.random.default_rng(5), size=(640, 480))
    assert all(t.font in available_fonts() for t in shot.truth)


def test_4k_frame_and_bad_sizes():
    shot = render_roll([Face("d6", 5)] * 3, np.random.default_rng(6), size=(3840, 2160))
    assert shot.image.shape == (2160, 3840, 3)
    with pytest.raises(ValueError, match="size"):
        render_roll([Face("d6", 5)], np.random.default_rng(6), size=(10, 10))
    with pytest.raises(ValueError, match="colour"):
        render_roll([Face("d6", 5)], np.random.default_rng(6), colours=["teal"])


def test_a_seed_draws_the_tray_it_always_drew():
    """Unusual materials are opt-in: without them a seed gives the dice it gave before the
    option existed (the benchmark's and the validation trays depend on it)."""
    shot = random_tray(np.random.default_rng(7), size=(640, 480), dice=(6, 6),
                       special={"scatter": (1, 1)})
    assert [(t.kind, t.value, t.colour, [round(v) for v in t.box]) for t in shot.truth] == [
        ("scatter", "hit", "green", [361, 231, 383, 253]), ("d6", 5, "green", [312, 330, 342, 362]),
        ("d6", 6, "red", [260, 371, 292, 406]), ("d6", 6, "yellow", [366, 108, 396, 141]),
        ("d6", 4, "green", [268, 148, 294, 175]), ("d6", 4, "green", [287, 155, 314, 183]),
        ("d6", 5, "red", [171, 364, 198, 390])]


def test_colour_share_paints_that_share_of_the_dice():
    """Training data for the colours read worst: {"grey": 0.5} makes about half the dice
    grey (one in nine would be by chance); an unknown colour is refused."""
    colours = [t.colour for seed in range(4) for t in random_tray(
        np.random.default_rng(seed), size=(640, 480), dice=(30, 30),
        colour_share={"grey": 0.5}).truth]
    assert 0.38 < colours.count("grey") / len(colours) < 0.62
    assert len(set(colours)) >= 6
    with pytest.raises(ValueError, match="teal"):
        random_tray(np.random.default_rng(1), size=(640, 480), colour_share={"teal": 0.5})


def test_materials_make_d6_unusual_and_leave_special_dice_plain():
    faces = [Face("d6", int(v)) for v in range(1, 7)] * 5 + [Face("scatter", "arrow")] * 4
    rng = np.random.default_rng(3)
    look = random_look(rng)
    poses = place_dice(faces, rng, look, 12.0, touching=0.0, cocked=0.0,
                       fonts=available_fonts(), materials=1.0)
    d6 = {p.style.material for p in poses if p.face.kind == "d6"}
    assert d6 == {"marbled", "translucent", "metallic", "low-contrast"}
    assert {p.style.material for p in poses if p.face.kind != "d6"} == {"plain"}
    plain = place_dice(faces, np.random.default_rng(3), random_look(np.random.default_rng(3)),
                       12.0, touching=0.0, cocked=0.0, fonts=available_fonts())
    assert {p.style.material for p in plain} == {"plain"}


def test_translucent_die_lets_the_floor_and_its_far_pips_through():
    rng = np.random.default_rng(11)
    style = next(s for s in (unusual_style(rng, random_style(rng)) for _ in range(100))
                 if s.material == "translucent")
    face = pip_face(6, style)
    n = TEXTURE
    assert face[n // 2, n // 2, 3] < 240          # the body: the floor shows through
    assert face[int(0.5 * n), int(0.27 * n), 3] == 255   # a pip: paint, opaque
    # The far face (1) shows faintly at the centre, a blank spot of a 6; not without ghost.
    ghostless = pip_face(6, dataclasses.replace(style, ghost=0.0))
    ink = np.array(style.ink, float)
    centre = (slice(n // 2 - 3, n // 2 + 3),) * 2
    near_ghost = np.linalg.norm(face[centre][..., :3].mean(axis=(0, 1)) - ink)
    near_plain = np.linalg.norm(ghostless[centre][..., :3].mean(axis=(0, 1)) - ink)
    assert near_ghost < near_plain - 5


def test_translucent_die_shows_the_floor_darkened_through_its_body():
    """A smoke die on a white floor is still dark (the floor seen through it is tinted by
    the body), but not as dark as on a black floor; a plain die looks the same on both."""
    camera = make_camera(np.random.default_rng(5), (320, 240), (60, 45), (30, 22), tilt_deg=0)
    smoke = FaceStyle(body=(55, 58, 62), ink=(45, 40, 185), colour="black",
                      material="translucent", opacity=0.7)
    plain = dataclasses.replace(smoke, material="plain", opacity=1.0)

    def body_pixel(style, floor):
        image = np.full((240, 320, 3), floor, np.uint8)
        pose = DiePose.flat(Face("d6", 6), style, 16.0, 30.0, 22.0, 0.0)
        draw_dice(image, [pose], camera)
        top = camera.project(_face_corners(pose, 0))
        x, y = top[0] + 0.5 * (top[1] - top[0]) + 0.12 * (top[3] - top[0])  # between pips
        return image[int(round(y)), int(round(x))].astype(int)

    on_white, on_black = body_pixel(smoke, 220), body_pixel(smoke, 20)
    assert on_white.max() < 90 and (on_white - on_black).min() > 10
    assert np.array_equal(body_pixel(plain, 220), body_pixel(plain, 20))


def _gap_to_wall(pose, look) -> float:
    fp = pose.footprint()
    W, H = look.tray_mm
    return float(min(fp[:, 0].min(), fp[:, 1].min(), W - fp[:, 0].max(), H - fp[:, 1].max()))


def test_by_wall_lays_flat_dice_against_the_tray_wall():
    """The opt-in `by_wall` share: flat dice against the wall, where otherwise only leaning
    dice lie (training needs both there, or "by the wall" becomes the sign of a leaning die)."""
    faces = [Face("d6", v) for v in (1, 2, 3, 4, 5, 6)] * 2
    look = random_look(np.random.default_rng(8), tray_mm=(300, 240))
    walled = place_dice(faces, np.random.default_rng(8), look, 16.0, touching=0.0, cocked=0.0,
                        fonts=available_fonts(), by_wall=1.0)
    gaps = [_gap_to_wall(p, look) for p in walled]
    assert sum(0.5 < g <= 1.0 for g in gaps) >= 10, gaps
    assert all(p.flags == [] and np.allclose(p.R[:, 2], (0, 0, 1)) for p in walled)  # flat
    assert all(abs(p.centre[2] + p.size / 2) < 1e-9 for p in walled)   # on the floor
    loose = place_dice(faces, np.random.default_rng(8), look, 16.0, touching=0.0, cocked=0.0,
                       fonts=available_fonts())
    assert sum(_gap_to_wall(p, look) <= 1.0 for p in loose) <= 1


def test_hit_faces_small_arrow_in_other_makers_proportions():
    """`small_arrow_shapes` draws a HIT face's small arrow in other proportions (a bigger
    one holds more ink); the word is the same, and at 0 no random number is drawn for it."""
    plain = FaceStyle(body=(40, 120, 40), ink=(240, 240, 238), colour="green")
    big = dataclasses.replace(plain, small_arrow=(0.34, 0.075, 0.4, 3.0))
    ink = [int((scatter_face("hit", 90.0, style).min(axis=2) > 200).sum())
           for style in (plain, big, dataclasses.replace(plain, hit_arrow=False))]
    assert ink[1] > ink[0] > ink[2]
    rng = np.random.default_rng(0)
    for _ in range(20):
        length, width = random_small_arrow(rng)[:2]
        assert 0.18 <= length <= 0.34 and 0.035 <= width <= 0.075
    faces = [Face("scatter", "hit", 40.0), Face("scatter", "arrow", 200.0)]
    base = render_roll(faces, np.random.default_rng(8), size=(640, 480))
    again = render_roll(faces, np.random.default_rng(8), size=(640, 480), small_arrow_shapes=0.0)
    assert np.array_equal(base.image, again.image)
