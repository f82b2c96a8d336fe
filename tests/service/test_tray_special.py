"""The tray source tells the reader when the rules ask for scatter or artillery dice (issue 4):
small special dice are often read as pips unless the reader is told to look again."""

import numpy as np

from station.rules.faces import Face
from station.service.tray_source import TraySource
from station.vision.types import DetectedDie

PIPS, EXPECTING = "pips only", "expecting special dice"


def die(value, x, kind="d6", bearing=None):
    return DetectedDie(kind, value, (x, 100.0), 0.95, "red", [], bearing)


class Reader:
    """A tray of two d6 and an artillery die that is read as a 5 unless special dice are
    expected; records how it was asked."""

    def __init__(self):
        self.calls = []

    def __call__(self, frame):
        self.calls.append(PIPS)
        return [die(3, 100), die(4, 200), die(5, 300)]

    def expecting_special(self, frame):
        self.calls.append(EXPECTING)
        return [die(3, 100), die(4, 200), die(8, 300, kind="artillery")]


class Host:
    def __init__(self):
        self.readings = []

    def prompt(self, *args, **kwargs):
        pass

    def next_intent(self, timeout):
        return None

    def live(self, frame):
        pass

    def journal_reading(self, data, dice, frame):
        self.readings.append((data, dice))
        return len(self.readings)


class Camera:
    def capture(self):
        return np.zeros((4, 4, 3), np.uint8)


class StillAtOnce:
    def feed(self, frame, t):
        return "still"


def tray_source(read):
    return TraySource(Host(), Camera(), read, StillAtOnce, fps=1000)


def test_special_dice_asked_for_are_read_expecting_them():
    read = Reader()
    tray = tray_source(read)
    assert tray.take("artillery", 1, "artillery die") == [Face("artillery", 8)]
    assert read.calls == [EXPECTING]
    assert tray.take("d6", 2, "2D6+A") == [Face("d6", 3), Face("d6", 4)]   # held, not re-read
    assert read.calls == [EXPECTING]


def test_d6_read_first_and_too_many_are_read_again_expecting_special_dice():
    """2D6+A asks for the d6 first: the artillery die read as a third d6 is read again."""
    read = Reader()
    tray = tray_source(read)
    assert tray.take("d6", 2, "2D6+A") == [Face("d6", 3), Face("d6", 4)]
    assert read.calls == [PIPS, EXPECTING]
    assert tray.take("artillery", 1, "2D6+A") == [Face("artillery", 8)]
    assert read.calls == [PIPS, EXPECTING]
    assert [d["accepted"] for d, _ in tray.host.readings] == [True]   # the re-read journalled


def test_d6_that_answer_the_request_are_read_once_pips_only():
    read = Reader()
    tray = tray_source(read)
    assert tray.take("d6", 3, "3 d6") == [Face("d6", 3), Face("d6", 4), Face("d6", 5)]
    assert read.calls == [PIPS]


def test_a_plain_reader_function_still_serves_special_requests():
    tray = tray_source(lambda frame: [die("hit", 100, kind="scatter")])
    assert tray.take("scatter", 1, "scatter die") == [Face("scatter", "hit", None)]
