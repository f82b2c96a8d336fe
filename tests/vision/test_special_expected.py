"""read_tray told that special dice are expected (`expect_special`, issue 4): a die the d6
network reads as pips with some doubt that it is special is read by the special reader too,
whose sure reading wins; real pip dice stay pip dice."""

import math

import numpy as np
import pytest

from station.fakes.tray import random_tray, render_roll
from station.rules.faces import Face
from station.vision import read_tray
from station.vision.classifier import CLASSES, COCKED, SPECIAL
from station.vision.reader import MAYBE_SPECIAL, _describe
from station.vision.segment import Candidate


def as_pip_die(p_special: float) -> np.ndarray:
    """The d6 network's output for a die it reads as a 4, with some doubt that it is special."""
    p = np.zeros(CLASSES, np.float32)
    p[SPECIAL], p[4] = p_special, 1.0 - p_special
    return p


def describe(image, c, p, expect_special):
    return _describe(image, c, p, False, None, expect_special)


def test_a_special_die_read_as_pips_is_read_again_only_when_expected():
    shot = render_roll([Face("artillery", 8)], np.random.default_rng(4), size=(1280, 960))
    t = shot.truth[0]
    c = Candidate(*t.center, t.box[2] - t.box[0])
    doubt = as_pip_die(2 * MAYBE_SPECIAL)
    die = describe(shot.image, c, doubt, expect_special=True)
    assert (die.kind, die.value) == ("artillery", 8) and die.confidence >= 0.95
    assert describe(shot.image, c, doubt, expect_special=False).value == 4
    assert describe(shot.image, c, as_pip_die(0.0), expect_special=True).value == 4


def test_a_flat_special_die_the_d6_network_calls_cocked_is_read_when_expected():
    """The d6 network calls some flat special dice leaning, with doubt; when special dice are
    expected the special reader, sure of a face (its own cocked checks passed), is believed.
    Not when the d6 network is sure of the lean (a leaning die can read as a face:
    test_special_cocked.py)."""
    shot = render_roll([Face("artillery", 8)], np.random.default_rng(4), size=(1280, 960))
    t = shot.truth[0]
    c = Candidate(*t.center, t.box[2] - t.box[0])
    doubted, sure = np.zeros((2, CLASSES), np.float32)
    doubted[SPECIAL], doubted[COCKED], doubted[4] = 0.1, 0.6, 0.3
    sure[SPECIAL], sure[COCKED] = 0.05, 0.95
    die = describe(shot.image, c, doubted, expect_special=True)
    assert (die.kind, die.value, "cocked" in die.flags) == ("artillery", 8, False)
    assert describe(shot.image, c, doubted, expect_special=False).value is None
    assert describe(shot.image, c, sure, expect_special=True).value is None


@pytest.fixture
def doubting_network(monkeypatch):
    """The d6 network as if it read every special die as a 1, with 5 % doubt that it is
    special: what an older network did with small special dice, made certain here so that
    the test does not depend on one network's mistakes."""
    from station.vision import reader
    network = reader.default_classifier()

    class Doubting(type(network)):
        def __init__(self):
            self.net = network.net

        def predict_normalised(self, crops):     # `predict` goes through it too
            p = super().predict_normalised(crops)
            special = p[:, SPECIAL] >= 0.5
            p[special, 1] += p[special, SPECIAL] - 0.05
            p[special, SPECIAL] = 0.05
            return p

    monkeypatch.setattr(reader, "default_classifier", Doubting)


def special_tray():
    """1280x960, three d6, an artillery 8 and a scatter HIT, all read right by read_tray."""
    return random_tray(np.random.default_rng(5), size=(1280, 960), dice=(2, 4),
                       special={"artillery": (1, 1), "scatter": (1, 1)})


def kind_and_value_near(dice, truth):
    reach = (truth.box[2] - truth.box[0]) / 2
    near = [d for d in dice if math.dist(d.center, truth.center) < reach]
    assert near, f"{truth.kind} {truth.value} not found"
    return near[0].kind, near[0].value


def test_special_dice_read_as_pips_are_read_right_when_expected(doubting_network):
    shot = special_tray()
    expected = read_tray(shot.image, expect_special=True)
    unexpected = read_tray(shot.image)
    for t in shot.truth:
        assert kind_and_value_near(expected, t) == (t.kind, t.value)
        assert kind_and_value_near(unexpected, t) == (("d6", 1) if t.kind != "d6" else
                                                      (t.kind, t.value))


def test_real_pip_dice_stay_pip_dice_when_special_dice_are_expected(real_sample):
    """Every real pip die given the second opinion (as if the d6 network had doubts) and every
    real photo read expecting special dice: no die is taken for a special one."""
    for name, image, labels in real_sample:
        assert all(d.kind == "d6" for d in read_tray(image, expect_special=True)), name
        for label in labels:
            x0, y0, x1, y1 = label["box"]
            c = Candidate((x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0))
            die = describe(image, c, as_pip_die(0.5), expect_special=True)
            assert die.kind == "d6", f"{name}: the {label['value']} at {c} read as {die.kind}"


def test_station_read_expects_special_dice_unless_told_not_to(tmp_path, capsys,
                                                              doubting_network):
    """`station read` looks again at dice read as pips by default (a one-shot reading of a
    photo whose dice are unknown); --no-expect-special reads as the service does for d6."""
    import json

    import cv2

    from station.cli import main

    shot = special_tray()
    image = tmp_path / "tray.png"
    cv2.imwrite(str(image), shot.image)
    kinds = {}
    for flag in ([], ["--no-expect-special"]):
        assert main(["read", str(image), "--json", *flag]) == 0
        kinds[bool(flag)] = sorted(d["kind"] for d in json.loads(capsys.readouterr().out)["dice"])
    assert kinds[False] == sorted(t.kind for t in shot.truth)
    assert kinds[True] == ["d6"] * len(shot.truth)
