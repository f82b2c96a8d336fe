"""Dice sources: scripted tokens, seeded random, replay; the DiceSource contract."""

import pytest

from station.rules.actions import parse_params, resolve
from station.rules.faces import DiceExhausted, Face
from station.rules.sources import (FaceError, RandomSource, ReplaySource, ScriptedSource,
                                   split_tokens)


def test_tokens_by_kind():
    source = ScriptedSource(["4", "misfire", "8", "hit", "hit@10", "arrow@370.5"])
    assert source.take("d6", 1, "x") == [Face("d6", 4)]
    assert source.take("artillery", 2, "x") == [Face("artillery", "misfire"),
                                                 Face("artillery", 8)]
    assert source.take("scatter", 3, "x") == [Face("scatter", "hit"),
                                               Face("scatter", "hit", 10.0),
                                               Face("scatter", "arrow", 10.5)]


@pytest.mark.parametrize("token, message", [
    ("arrow", "needs its bearing"), ("7x", "not a die face"), ("misfire@3", "only hit and arrow"),
    ("4@30", "only hit and arrow"),
])
def test_bad_tokens(token, message):
    with pytest.raises(FaceError, match=message):
        ScriptedSource([token])


@pytest.mark.parametrize("token, kind", [("7", "d6"), ("3", "artillery"), ("hit", "d6"),
                                          ("4", "scatter"), ("misfire", "d6")])
def test_face_that_does_not_fit_the_request(token, kind):
    with pytest.raises(FaceError, match="face 1"):
        ScriptedSource([token]).take(kind, 1, "2 d6: attack roll")


def test_exhausted_names_what_is_still_needed():
    source = ScriptedSource(["3"])
    with pytest.raises(DiceExhausted) as error:
        source.take("d6", 3, "3 d6: boosted attack roll")
    assert error.value.count == 2 and error.value.kind == "d6"
    assert "still needed: 2 d6 (3 d6: boosted attack roll; 1 face given)" in str(error.value)


def test_split_tokens():
    assert split_tokens(["3,4", "hit@30 5"]) == ["3", "4", "hit@30", "5"]


def test_random_source_is_seeded_and_fair_in_kind():
    a, b = RandomSource(7), RandomSource(7)
    for kind in ("d6", "artillery", "scatter"):
        faces = a.take(kind, 50, "x")
        assert faces == b.take(kind, 50, "x")
        assert all(f.kind == kind for f in faces)
    bearings = [f.bearing_deg for f in RandomSource(1).take("scatter", 200, "x")]
    assert all(0 <= x < 360 for x in bearings) and len(set(bearings)) > 150


def test_one_request_per_physical_roll_with_a_purpose_players_understand():
    asked = []

    class Spy:
        def take(self, kind, count, purpose):
            asked.append((kind, count, purpose))
            return [Face(kind, 3)] * count

    resolve("wm.ranged", parse_params("wm.ranged", ["rat=5", "def=12", "boosted=1"]), Spy())
    assert asked == [("d6", 3, "3 d6: boosted ranged attack roll")]
    asked.clear()
    resolve("wm.throw", parse_params("wm.throw", ["str=11", "target_str=8"]), Spy())
    assert [a[2] for a in asked] == ["1 d6: attacker's throw contest",
                                     "1 d6: target's throw contest",
                                     "1 d6: deviation direction",
                                     "1 d6: deviation distance (d3)"]


def test_replay_then_live():
    source = ReplaySource([Face("d6", 1), Face("d6", 2)], ScriptedSource(["6"]))
    assert source.take("d6", 2, "x") == [Face("d6", 1), Face("d6", 2)]
    assert source.take("d6", 1, "x") == [Face("d6", 6)]


def test_seeded_resolve_is_reproducible():
    params = parse_params("dice.roll", ["expr=10D6"])
    one = resolve("dice.roll", params, RandomSource(5))
    two = resolve("dice.roll", params, RandomSource(5))
    assert one.to_json() == two.to_json()
