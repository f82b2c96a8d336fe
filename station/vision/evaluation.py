"""Die-level scoring of the reader against labelled photos (the benchmark and the tests).

A labelled die is read when a detection's centre falls in its box with the right value.
Each detection matches at most one labelled die (the nearest box centre); detections in no
box, and extra detections in an already matched box, are false dice. Accuracy =
correct / (labelled + false): missed dice and false dice both count against. Detections of
every kind count: a pip die read as a scatter or artillery die is not read (column
"special"), and a special die where there is no die is a false one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

# Confusion columns: predicted 1..6, then "unreadable" (value None), "missed", and "special"
# (read as another kind of die).
UNREADABLE, MISSED, OTHER_KIND = 7, 8, 9
BOX_BANDS = (24, 32, 48, 72)   # edges, pixels of a labelled box's shorter side (`Score.by_size`)


def size_band(side: float, edges: tuple[float, ...]) -> str:
    """The band between `edges` that a size falls in: "<24", "24-32", ..., ">=72"."""
    low = max((edge for edge in edges if edge <= side), default=None)
    high = min((edge for edge in edges if edge > side), default=None)
    return f"<{high}" if low is None else f">={low}" if high is None else f"{low}-{high}"


def size_bands(edges: tuple[float, ...]) -> list[str]:
    """Every band of `size_band`, smallest first."""
    return [size_band(edge - 0.5, edges) for edge in edges] + [size_band(edges[-1], edges)]


@dataclass
class Score:
    labelled: int = 0
    correct: int = 0
    false: int = 0
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((7, 10), int))
    by_size: Counter = field(default_factory=Counter)   # band -> [labelled, correct]: how
    # much of the loss lies on small dice (the labelled box's shorter side, `BOX_BANDS`)

    @property
    def accuracy(self) -> float:
        total = self.labelled + self.false
        return self.correct / total if total else 1.0

    def add(self, other: "Score") -> None:
        self.labelled += other.labelled
        self.correct += other.correct
        self.false += other.false
        self.confusion += other.confusion
        self.by_size.update(other.by_size)

    def by_size_text(self) -> str:
        return "right by the die's box side (px): " + "  ".join(
            f"{band} {self.by_size[band, True]}/{self.by_size[band, True] + self.by_size[band, False]}"
            for band in size_bands(BOX_BANDS))

    def confusion_text(self) -> str:
        head = "true\\read " + " ".join(f"{v:>5}" for v in range(1, 7)) + "  unread missed special"
        rows = [head]
        for v in range(1, 7):
            row = self.confusion[v]
            rows.append(f"{v:>9} " + " ".join(f"{n:>5}" for n in row[1:7])
                        + f" {row[UNREADABLE]:>7} {row[MISSED]:>6} {row[OTHER_KIND]:>7}")
        return "\n".join(rows)


def match(detections, labels) -> tuple[dict[int, int], int]:
    """The benchmark's matching: each detection goes to the labelled box holding its centre
    whose centre is nearest; a box's nearest detection is its reading, the others (and
    detections in no box) are false. Returns {label index: detection index}, false count."""
    dice = list(detections)
    claimed: dict[int, list[int]] = {}
    false = 0
    for i, d in enumerate(dice):
        x, y = d.center
        inside = [j for j, lab in enumerate(labels)
                  if lab["box"][0] <= x <= lab["box"][2] and lab["box"][1] <= y <= lab["box"][3]]
        if not inside:
            false += 1
            continue
        j = min(inside, key=lambda j: _distance_to_centre(labels[j]["box"], x, y))
        claimed.setdefault(j, []).append(i)
    best = {}
    for j, hits in claimed.items():
        best[j] = min(hits, key=lambda i: _distance_to_centre(labels[j]["box"], *dice[i].center))
        false += len(hits) - 1
    return best, false


def score_image(detections, labels) -> Score:
    """`detections`: DetectedDie list; `labels`: [{"value", "box"}, ...] of pip dice."""
    score = Score(labelled=len(labels))
    dice = list(detections)
    best, score.false = match(dice, labels)
    for j, lab in enumerate(labels):
        truth = lab["value"]
        x0, y0, x1, y1 = lab["box"]
        band = size_band(min(x1 - x0, y1 - y0), BOX_BANDS)
        right = j in best and dice[best[j]].kind == "d6" and dice[best[j]].value == truth
        score.by_size[band, right] += 1
        if j not in best:
            score.confusion[truth, MISSED] += 1
            continue
        value = dice[best[j]].value
        if dice[best[j]].kind != "d6":
            score.confusion[truth, OTHER_KIND] += 1
            continue
        score.confusion[truth, value if isinstance(value, int) else UNREADABLE] += 1
        score.correct += value == truth
    return score


def _distance_to_centre(box, x, y) -> float:
    return ((box[0] + box[2]) / 2 - x) ** 2 + ((box[1] + box[3]) / 2 - y) ** 2


@dataclass
class LeaningScore:
    """Trays with leaning dice: how many leaning dice the reader gave a value (it should
    flag them `cocked`), how many it flagged, and how many flat dice it read right."""
    leaning: int = 0
    given_a_value: int = 0
    flagged: int = 0
    flat: int = 0
    flat_right: int = 0

    def add(self, other: "LeaningScore") -> None:
        for name in ("leaning", "given_a_value", "flagged", "flat", "flat_right"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def score_leaning(detections, labels) -> LeaningScore:
    """`labels`: [{"value", "box", "center", "cocked"}, ...] (`center`: the top face's).
    Each detection belongs to the die whose box holds its centre and whose top face is
    nearest (boxes of a leaning die and the die it leans on overlap). A leaning die is
    given a value when a detection with a value belongs to it, flagged when one flagged
    `cocked` does; a flat die is read right when its nearest detection has its value."""
    score = LeaningScore()
    owned: dict[int, list] = {}
    for d in detections:
        x, y = d.center
        inside = [j for j, lab in enumerate(labels)
                  if lab["box"][0] <= x <= lab["box"][2] and lab["box"][1] <= y <= lab["box"][3]]
        if inside:
            j = min(inside, key=lambda j: (labels[j]["center"][0] - x) ** 2
                    + (labels[j]["center"][1] - y) ** 2)
            owned.setdefault(j, []).append(d)
    for j, lab in enumerate(labels):
        mine = owned.get(j, [])
        if lab["cocked"]:
            score.leaning += 1
            score.given_a_value += any(d.value is not None for d in mine)
            score.flagged += any("cocked" in d.flags for d in mine)
        else:
            score.flat += 1
            cx, cy = lab["center"]
            nearest = min(mine, key=lambda d: (d.center[0] - cx) ** 2 + (d.center[1] - cy) ** 2,
                          default=None)
            score.flat_right += nearest is not None and nearest.value == lab["value"] \
                and nearest.kind == "d6"
    return score
