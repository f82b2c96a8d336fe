"""Die-level scoring of the reader against labelled photos (the benchmark and the tests).

A labelled die is read when a detection's centre falls in its box with the right value.
Each detection matches at most one labelled die (the nearest box centre); detections in no
box, and extra detections in an already matched box, are false dice. Accuracy =
correct / (labelled + false): missed dice and false dice both count against. Detections of
every kind count: a pip die read as a scatter or artillery die is not read (column
"special"), and a special die where there is no die is a false one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# Confusion columns: predicted 1..6, then "unreadable" (value None), "missed", and "special"
# (read as another kind of die).
UNREADABLE, MISSED, OTHER_KIND = 7, 8, 9


@dataclass
class Score:
    labelled: int = 0
    correct: int = 0
    false: int = 0
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((7, 10), int))

    @property
    def accuracy(self) -> float:
        total = self.labelled + self.false
        return self.correct / total if total else 1.0

    def add(self, other: "Score") -> None:
        self.labelled += other.labelled
        self.correct += other.correct
        self.false += other.false
        self.confusion += other.confusion

    def confusion_text(self) -> str:
        head = "true\\read " + " ".join(f"{v:>5}" for v in range(1, 7)) + "  unread missed special"
        rows = [head]
        for v in range(1, 7):
            row = self.confusion[v]
            rows.append(f"{v:>9} " + " ".join(f"{n:>5}" for n in row[1:7])
                        + f" {row[UNREADABLE]:>7} {row[MISSED]:>6} {row[OTHER_KIND]:>7}")
        return "\n".join(rows)


def score_image(detections, labels) -> Score:
    """`detections`: DetectedDie list; `labels`: [{"value", "box"}, ...] of pip dice."""
    score = Score(labelled=len(labels))
    dice = list(detections)
    claimed: dict[int, list[int]] = {}
    for i, d in enumerate(dice):
        x, y = d.center
        inside = [j for j, lab in enumerate(labels)
                  if lab["box"][0] <= x <= lab["box"][2] and lab["box"][1] <= y <= lab["box"][3]]
        if not inside:
            score.false += 1
            continue
        j = min(inside, key=lambda j: _distance_to_centre(labels[j]["box"], x, y))
        claimed.setdefault(j, []).append(i)
    for j, lab in enumerate(labels):
        truth = lab["value"]
        hits = claimed.get(j, [])
        if not hits:
            score.confusion[truth, MISSED] += 1
            continue
        best = min(hits, key=lambda i: _distance_to_centre(lab["box"], *dice[i].center))
        score.false += len(hits) - 1
        value = dice[best].value
        if dice[best].kind != "d6":
            score.confusion[truth, OTHER_KIND] += 1
            continue
        score.confusion[truth, value if isinstance(value, int) else UNREADABLE] += 1
        score.correct += value == truth
    return score


def _distance_to_centre(box, x, y) -> float:
    return ((box[0] + box[2]) / 2 - x) ** 2 + ((box[1] + box[3]) / 2 - y) ** 2
