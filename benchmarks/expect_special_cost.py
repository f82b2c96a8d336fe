"""What `expect_special` (`station read`'s default) costs on photos of pip dice alone.

    PYTHONPATH=. python benchmarks/expect_special_cost.py [--data DIR]

Reads every labelled real photo twice, with and without `read_tray(..., expect_special=True)`,
the order alternating from photo to photo so that a busy machine weighs on both alike, and
prints each setting's CPU time (one thread) and its die-level score (correct, read as a
special die, false detections): the figure behind `station read --no-expect-special`'s help.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vision_bench import DEFAULT_DATA, real_items                  # noqa: E402
from station.vision import read_tray, warm_up                      # noqa: E402
from station.vision.evaluation import OTHER_KIND, Score, score_image  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    warm_up()
    items = list(real_items(args.data, "all"))
    cpu = {False: 0.0, True: 0.0}
    score = {False: Score(), True: Score()}
    for k, (image, labels, _) in enumerate(items):
        for expect in ((False, True) if k % 2 else (True, False)):
            start = time.process_time()
            dice = read_tray(image, expect_special=expect)
            cpu[expect] += time.process_time() - start
            score[expect].add(score_image(dice, labels))
    for expect in (False, True):
        s = score[expect]
        print(f"expect_special={expect}: {len(items)} photos, CPU {cpu[expect]:.1f} s; "
              f"correct {s.correct}/{s.labelled}, read as special {s.confusion[:, OTHER_KIND].sum()}, "
              f"false {s.false}")
    print(f"expecting special dice: {cpu[True] / cpu[False] - 1:+.1%} CPU time; "
          f"--no-expect-special saves {1 - cpu[False] / cpu[True]:.1%}")


if __name__ == "__main__":
    main()
