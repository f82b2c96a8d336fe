"""Die-level scoring: what counts as read, missed, false and read as another kind."""

from station.vision.evaluation import MISSED, OTHER_KIND, UNREADABLE, score_image
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
