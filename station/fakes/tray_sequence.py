"""A roll filmed from above: empty tray, a hand drops the dice, they tumble, then lie still.

    seq = render_sequence([Face("d6", 3), Face("scatter", "arrow")], rng, fps=30)
    seq.frames[i]      # BGR frames
    seq.states[i]      # "empty", "hand", "rolling" or "still" (the truth a settle detector
                       # should find), seq.moving[i]: some die is visibly moving in frame i
    seq.stop_index     # first frame in which every die lies at its final pose
    seq.final          # RenderedTray of the still dice (truth for the reading)

"Moving" means some die is more than `STOP_MM` from its resting place or turned more than
`STOP_DEG` from its resting rotation: below that, nothing changes in the picture.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from station.fakes.tray import (DiePose, Finish, RenderedTray, apply_finish, die_truth,
                                draw_dice, draw_shadows, place_dice, random_look,
                                render_background, textures_for)
from station.fakes.tray_camera import make_camera, rot_x, rot_z
from station.fakes.tray_faces import available_fonts
from station.rules.faces import Face

STOP_MM = 0.15
STOP_DEG = 0.3
SKIN = (120, 160, 215)


@dataclass
class RollSequence:
    frames: list[np.ndarray]
    states: list[str]
    moving: list[bool]
    fps: float
    stop_index: int
    final: RenderedTray


def _tumble(final: DiePose, start_xy, progress: float, spin: float, turns: int,
            axis_deg: float) -> DiePose:
    """The die on its way from the drop point to its resting pose (progress 0..1)."""
    ease = 1 - (1 - progress) ** 2.2
    xy = np.asarray(start_xy) + (final.centre[:2] - np.asarray(start_xy)) * ease
    left = 1 - ease
    R = rot_z(axis_deg) @ rot_x(90.0 * turns * left) @ rot_z(-axis_deg) @ \
        rot_z(spin * left) @ final.R
    pose = DiePose(final.face, final.style, final.size, np.array([xy[0], xy[1], 0.0]), R,
                   final.arrow_deg, list(final.flags), final.glare, final.side_values)
    pose.centre[2] -= pose.vertices()[:, 2].max()
    return pose


def _pose_distance(a: DiePose, b: DiePose) -> tuple[float, float]:
    shift = float(np.linalg.norm(a.centre - b.centre))
    cos = (np.trace(a.R.T @ b.R) - 1) / 2
    return shift, math.degrees(math.acos(max(-1.0, min(1.0, cos))))


def _draw_hand(image: np.ndarray, centre_px, px_per_mm: float, angle_deg: float) -> None:
    """A flat-ish hand seen from above: palm, four fingers and a thumb, with a soft shadow."""
    shadow = np.zeros(image.shape[:2], np.float32)
    hand = np.zeros(image.shape[:2], np.uint8)
    s = px_per_mm
    a = math.radians(angle_deg)
    ux, uy = math.sin(a), -math.cos(a)      # toward the fingertips
    vx, vy = math.cos(a), math.sin(a)       # across the palm

    def at(along, across):
        return (int(centre_px[0] + ux * along * s + vx * across * s),
                int(centre_px[1] + uy * along * s + vy * across * s))

    # The arm: from the wrist back out of the frame, the way the hand came in.
    for target, offset in ((shadow, (int(12 * s), int(16 * s))), (hand, (0, 0))):
        wrist, elbow = at(-40, 0), at(-1000, 0)
        cv2.line(target, (wrist[0] + offset[0], wrist[1] + offset[1]),
                 (elbow[0] + offset[0], elbow[1] + offset[1]), 1.0 if target is shadow else 255,
                 max(2, int(70 * s)), cv2.LINE_AA)
    parts = [(at(0, 0), (int(45 * s), int(55 * s)))]
    parts += [(at(62, off), (int(9 * s), int(32 * s))) for off in (-30, -10, 10, 29)]
    parts += [(at(10, 52), (int(11 * s), int(28 * s)))]
    for target, offset in ((shadow, (int(12 * s), int(16 * s))), (hand, (0, 0))):
        for (x, y), axes in parts:
            tilt = angle_deg + (50 if axes == parts[-1][1] else 0)
            cv2.ellipse(target, (x + offset[0], y + offset[1]), axes, tilt, 0, 360,
                        1.0 if target is shadow else 255, -1, cv2.LINE_AA)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 6 * s)
    out = image.astype(np.float32) * (1 - 0.4 * shadow)[..., None]
    m = cv2.GaussianBlur(hand, (3, 3), 0).astype(np.float32)[..., None] / 255.0
    yy = np.linspace(0.85, 1.05, image.shape[0], dtype=np.float32)[:, None, None]
    out = out * (1 - m) + np.array(SKIN, np.float32) * yy * m
    image[:] = out.clip(0, 255).astype(np.uint8)


def render_sequence(faces: list[Face], rng: np.random.Generator, size=(640, 480),
                    fps: float = 30.0, empty_s: float = 0.3, hand_s: float = 0.6,
                    roll_s: float = 0.9, still_s: float = 1.2, cocked: float = 0.0,
                    touching: float = 0.1, finish: Finish | None = None,
                    markers: bool = False) -> RollSequence:
    """Film a roll of `faces`; frame times are i / fps seconds."""
    if fps <= 0:
        raise ValueError("fps must be positive")
    look = random_look(rng, None, markers)
    die_mm = float(rng.uniform(14, 18))
    finals = place_dice(faces, rng, look, die_mm, touching, cocked, available_fonts())
    W, H = look.tray_mm
    margin = look.wall_mm + 10
    camera = make_camera(rng, size, (W + 2 * margin, H + 2 * margin), (W / 2, H / 2),
                         yaw_deg=float(rng.uniform(-3, 3)), fill=0.95)
    background, markers_px = render_background(look, camera, rng)
    finish = finish or Finish(blur=0.5, noise=2.5, jpeg_quality=None, vignette=0.1)
    px_per_mm = camera.px_per_mm((W / 2, H / 2, 0))
    textures = [textures_for(p) for p in finals]

    drop = np.array([rng.uniform(0.3, 0.7) * W, rng.uniform(0.55, 0.8) * H])
    entry = np.array([drop[0], H + 140.0])
    starts = [drop + rng.normal(0, die_mm * 0.6, 2) for _ in finals]
    spins = [float(rng.uniform(-400, 400)) for _ in finals]
    turns = [int(rng.integers(1, 5)) for _ in finals]
    axes = [float(rng.uniform(0, 360)) for _ in finals]
    # Each die stops at its own time; the last stop ends the roll.
    durations = [roll_s * rng.uniform(0.6, 1.0) for _ in finals]
    durations[int(rng.integers(len(finals)))] = roll_s if finals else 0

    n_empty, n_hand = round(empty_s * fps), round(hand_s * fps)
    n_roll, n_still = math.ceil(roll_s * fps), round(still_s * fps)
    leave = max(1, round(0.3 * fps))  # the hand clears the tray while the dice roll
    frames, states, moving = [], [], []
    for i in range(n_empty + n_hand + n_roll + n_still):
        t_roll = (i - n_empty - n_hand) / fps
        image = background.copy()
        hand_at = None
        if n_empty <= i < n_empty + n_hand:
            k = (i - n_empty + 1) / n_hand
            hand_at = entry + (drop - entry) * min(1.0, 1.6 * k)
        elif 0 <= t_roll * fps < leave:
            k = (t_roll * fps + 1) / leave
            hand_at = drop + (entry - drop) * k
        poses = []
        if t_roll >= 0:
            for j, final in enumerate(finals):
                progress = min(1.0, t_roll / durations[j]) if durations[j] else 1.0
                poses.append(_tumble(final, starts[j], progress, spins[j], turns[j], axes[j]))
            draw_shadows(image, poses, camera)
            draw_dice(image, poses, camera, textures)
        if hand_at is not None:
            hand_px = camera.project(np.array([[hand_at[0], hand_at[1], -60.0]]))[0]
            _draw_hand(image, hand_px, px_per_mm * 1.15, float(rng.uniform(-8, 8)))
        frames.append(apply_finish(image, finish, rng))
        is_moving = bool(poses) and any(
            d > STOP_MM or a > STOP_DEG
            for p, f in zip(poses, finals) for d, a in [_pose_distance(p, f)])
        moving.append(is_moving)
        if hand_at is not None:
            states.append("hand")
        elif not poses:
            states.append("empty")
        else:
            states.append("rolling" if is_moving else "still")
    stop_index = next(i for i in range(len(frames)) if not moving[i]
                      and all(not m for m in moving[i:]) and states[i] == "still")
    final = RenderedTray(image=frames[-1], truth=[die_truth(p, camera) for p in finals],
                         camera=camera, tray_mm=look.tray_mm,
                         homography=camera.floor_homography(), markers=markers_px,
                         die_mm=die_mm)
    return RollSequence(frames, states, moving, fps, stop_index, final)
