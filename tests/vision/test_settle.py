"""Settle detection on filmed synthetic rolls (issue 4: read after the dice stop, never
while one moves)."""

import numpy as np
import pytest

from station.fakes.tray import random_faces
from station.fakes.tray_sequence import render_sequence
from station.vision.settle import SettleConfig, SettleDetector, StillFrames


@pytest.fixture(scope="module", params=[31, 32])
def roll(request):
    rng = np.random.default_rng(request.param)
    return render_sequence(random_faces(rng, 6), rng, size=(320, 240), fps=15,
                           still_s=0.8, touching=0.3)


def run(seq, still_s):
    detector = SettleDetector(SettleConfig(still_s=still_s))
    return [detector.update(f, i / seq.fps) for i, f in enumerate(seq.frames)]


def test_one_reading_after_the_dice_stop_and_never_while_moving(roll):
    updates = run(roll, still_s=0.2)
    reads = [i for i, u in enumerate(updates) if u.read_now]
    assert len(reads) == 1
    read = reads[0]
    assert not roll.moving[read] and roll.states[read] == "still"
    # Within the still time plus two frames of the last die's stop.
    assert (read - roll.stop_index) / roll.fps <= 0.2 + 2 / roll.fps


def test_states_follow_the_roll(roll):
    states = [u.state for u in run(roll, still_s=0.2)]
    assert states[1] == "empty" and states[-1] == "still"
    hand = [i for i, s in enumerate(roll.states) if s == "hand"]
    assert sum(states[i] == "hand" for i in hand) >= 0.7 * len(hand)
    rolling = [i for i, s in enumerate(roll.states) if s == "rolling"]
    assert sum(states[i] in ("rolling", "hand") for i in rolling) >= 0.7 * len(rolling)


def test_a_longer_still_time_waits_longer(roll):
    early = next(i for i, u in enumerate(run(roll, 0.1)) if u.read_now)
    late = next(i for i, u in enumerate(run(roll, 0.5)) if u.read_now)
    assert late - early >= round(0.4 * roll.fps) - 1


def test_noise_alone_is_not_movement():
    rng = np.random.default_rng(5)
    base = rng.integers(60, 200, (240, 320, 3)).astype(np.float32)
    detector = SettleDetector()
    for i in range(30):
        frame = np.clip(base + rng.normal(0, 3, base.shape), 0, 255).astype(np.uint8)
        update = detector.update(frame, i / 30)
    assert update.state == "empty" and update.changed_px < 3


def test_bad_frames_and_settings():
    with pytest.raises(ValueError, match="camera frame"):
        SettleDetector().update(np.zeros((2, 2), np.uint8), 0.0)
    with pytest.raises(ValueError, match="still_s"):
        SettleDetector(SettleConfig(still_s=-1))


def test_still_frames_average_out_sensor_noise():
    rng = np.random.default_rng(6)
    scene = rng.integers(40, 215, (60, 80, 3)).astype(np.float32)
    still = StillFrames(4)
    for _ in range(6):              # two more than kept: the oldest fall out
        still.add(np.clip(scene + rng.normal(0, 8, scene.shape), 0, 255).astype(np.uint8))
    assert len(still) == 4
    noise = float(np.std(still.mean().astype(np.float32) - scene))
    assert 3.2 < noise < 4.8        # 8 / sqrt(4) = 4, give or take the rounding


def test_still_frames_start_again_when_cleared_or_resized():
    still = StillFrames(3)
    still.add(np.full((4, 4, 3), 10, np.uint8))
    still.add(np.full((4, 4, 3), 20, np.uint8))
    assert still.mean()[0, 0, 0] == 15
    still.add(np.full((8, 8, 3), 30, np.uint8))          # the camera reconfigured
    assert len(still) == 1 and still.mean().shape == (8, 8, 3)
    still.clear()
    with pytest.raises(ValueError, match="no still frame"):
        still.mean()
    with pytest.raises(ValueError, match="at least one"):
        StillFrames(0)


def test_still_frames_keep_their_own_copy():
    frame = np.full((4, 4, 3), 50, np.uint8)
    still = StillFrames(1)
    still.add(frame)
    frame[:] = 0                    # the camera refills its buffer with the next frame
    assert still.mean()[0, 0, 0] == 50
