"""Die-level scoring: what counts as read, missed, false and read as another kind."""

from station.vision.evaluation import (BOX_BANDS, MISSED, OTHER_KIND, UNREADABLE, Score,
                                       score_image, score_leaning, size_band, size_bands)
from station.vision.types import DetectedDie

LABELS = [{"value": 3, "box": [0, 0, 10, 10]}, {"value": 5, "box": [20, 0, 30, 10]},
          {"value": 1, "box": [40, 0, 50, 10]}, {"value": 2, "box": [60, 0, 70, 10]}]


def die(x, value, kind="d6"):
    return DetectedDie(kind=kind, value=value, center=(x, 5.0), confidence=0.9,
                       colour="red", flags=[])


def test_every_kind_of_detection_is_scored():
    score = score_image([die(5, 3), die(6, 3),            # read, and a second reading: false
                         die(25, None),                   # unreadable
                         die(45, 8, "artillery"),         # a pip die read as a special die
                         die(90, "hit", "scatter")],      # a special die where there is none
                        LABELS)
    assert (score.labelled, score.correct, score.false) == (4, 1, 2)
    assert score.confusion[3, 3] == 1
    assert score.confusion[5, UNREADABLE] == 1
    assert score.confusion[1, OTHER_KIND] == 1
    assert score.confusion[2, MISSED] == 1
    assert score.accuracy == 1 / 6
    assert "special" in score.confusion_text().splitlines()[0]
    assert score.by_size_text() == "right by the die's box side (px): <24 1/4  24-32 0/0  " \
        "32-48 0/0  48-72 0/0  >=72 0/0"


def test_dice_are_counted_by_their_size():
    labels = [{"value": 3, "box": [0, 0, 30, 40]}, {"value": 5, "box": [100, 0, 180, 80]}]
    total = Score()
    for _ in range(2):
        total.add(score_image([die(15, 3), DetectedDie(kind="d6", value=4, center=(140.0, 40.0),
                                                        confidence=0.9, colour="red", flags=[])],
                              labels))
    assert total.by_size_text().endswith("24-32 2/2  32-48 0/0  48-72 0/0  >=72 0/2")


def test_size_bands():
    assert [size_band(side, (16, 20, 28, 40)) for side in (11.9, 16, 19.99, 27, 28, 39, 40, 400)] \
        == ["<16", "16-20", "16-20", "20-28", "28-40", "28-40", ">=40", ">=40"]
    assert size_bands((16, 20, 28, 40)) == ["<16", "16-20", "20-28", "28-40", ">=40"]
    assert len(size_bands(BOX_BANDS)) == len(BOX_BANDS) + 1


def test_leaning_dice_given_a_value_count_against_the_reader():
    # A die leaning on its neighbour: their boxes overlap. Each reading belongs to the die
    # whose top face is nearest, so the neighbour's own reading is not the leaning die's.
    labels = [{"value": 4, "box": [0, 0, 20, 10], "center": [5, 5], "cocked": False},
              {"value": 2, "box": [8, 0, 30, 10], "center": [22, 5], "cocked": True},
              {"value": 6, "box": [40, 0, 50, 10], "center": [45, 5], "cocked": True},
              {"value": 1, "box": [60, 0, 70, 10], "center": [65, 5], "cocked": False}]
    cocked = die(45, None)
    cocked.flags.append("cocked")
    score = score_leaning([die(9, 4),            # the flat 4, inside both boxes
                           die(21, 2),           # the leaning 2 given a value
                           cocked,               # the leaning 6 flagged
                           die(65, 3)], labels)  # the flat 1 read wrong
    assert (score.leaning, score.given_a_value, score.flagged) == (2, 1, 1)
    assert (score.flat, score.flat_right) == (2, 1)
