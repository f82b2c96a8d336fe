"""Benchmark: settle detection on filmed synthetic rolls (issue 4: read within 300 ms after
the dice stop, never while one moves).

    PYTHONPATH=. python benchmarks/settle_latency.py [--rolls 40] [--fps 30] [--still 0.2]
        [--still-frames 4]

Each roll (640x480, 1-20 dice, some touching or leaning) is an empty tray, a hand dropping
the dice, tumbling, then stillness (`station.fakes.tray_sequence`). The detector sees the
frames one by one. Printed: the latency from the frame in which the last die came to rest
to the frame that triggered the reading (median, max), readings taken while a die still
moved (by the renderer's truth: more than 0.15 mm or 0.3 degrees from its resting pose) or
while the hand was in the tray, readings whose averaged still frames (the station's
`camera.still_frames`, kept as the tray source keeps them: every frame since the last one
the detector saw moving) include one in which a die moved, rolls with no reading, extra
readings of a roll (the detector thought the dice moved again), and the detector's time per
frame.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import deque

import numpy as np

from station.fakes.tray import random_faces
from station.fakes.tray_sequence import render_sequence
from station.vision.settle import SettleConfig, SettleDetector


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=40)
    parser.add_argument("--fps", type=float, default=30.0)
    parser.add_argument("--still", type=float, default=0.2, help="still time before reading, s")
    parser.add_argument("--still-frames", type=int, default=4,
                        help="still frames averaged into the frame read")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    latencies, while_moving, during_hand, missed, extra = [], 0, 0, 0, 0
    averaged_moving = 0
    state_right = state_total = 0
    detect_s, frames_seen = 0.0, 0
    for _ in range(args.rolls):
        faces = random_faces(rng, int(rng.integers(1, 21)), ("d6", "d6", "scatter",
                                                           "artillery"))
        seq = render_sequence(faces, rng, size=(640, 480), fps=args.fps,
                              cocked=0.1, touching=0.2)
        detector = SettleDetector(SettleConfig(still_s=args.still))
        reads, averaged = [], []
        still = deque(maxlen=args.still_frames)     # indices of the frames averaged
        for i, frame in enumerate(seq.frames):
            start = time.perf_counter()
            update = detector.update(frame, i / args.fps)
            detect_s += time.perf_counter() - start
            frames_seen += 1
            state_total += 1
            state_right += update.state == seq.states[i]
            if update.state in ("rolling", "hand"):
                still.clear()
            else:
                still.append(i)
            if update.read_now:
                reads.append(i)
                averaged.append(list(still))
        if not reads:
            missed += 1
            continue
        extra += len(reads) - 1
        for r, frames in zip(reads, averaged):
            while_moving += seq.moving[r]
            during_hand += seq.states[r] == "hand"
            averaged_moving += any(seq.moving[f] for f in frames)
        latencies.append((reads[0] - seq.stop_index) / args.fps * 1000)
    lat = np.array(latencies)
    print(f"rolls: {args.rolls} at {args.fps:g} fps, still time {args.still * 1000:.0f} ms")
    if len(lat):
        print(f"latency after the last die stopped: median {np.median(lat):.0f} ms, "
              f"max {lat.max():.0f} ms, min {lat.min():.0f} ms")
    print(f"readings while a die moved: {while_moving}; while the hand was in the tray: "
          f"{during_hand}; rolls without a reading: {missed}; extra readings: {extra}")
    print(f"readings whose {args.still_frames} averaged still frames include one in which a "
          f"die moved: {averaged_moving}")
    print(f"frame states right (empty/hand/rolling/still): "
          f"{100 * state_right / max(1, state_total):.1f} %")
    print(f"detector: {1000 * detect_s / max(1, frames_seen):.2f} ms per 640x480 frame")
    return 0


if __name__ == "__main__":
    sys.exit(main())
