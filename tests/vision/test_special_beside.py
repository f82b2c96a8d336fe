"""A special die touching a pip die, found by the looks for touching dice: the beside,
other-colour and residue looks take a place read as a special die as they take one read as
a pip face, and the special reader reads it (docs/history/vision.md, "Thirty-sixth
session")."""

import numpy as np

from station.fakes.tray import random_tray
from station.vision import read_tray, reader


def test_an_artillery_die_touching_a_pip_die_is_found_and_read(monkeypatch, read_at):
    # 640x480: a yellow artillery 2 touches a yellow pip 2; the two are one blob, read as
    # the pip die. Read beside it, the artillery die's place reads as a special die.
    rendered = random_tray(np.random.default_rng([36000, 33]), dice=(0, 6),
                           special={"scatter": (1, 2), "artillery": (1, 2)})
    truth = rendered.truth[5]
    assert (truth.kind, truth.value, truth.colour) == ("artillery", 2, "yellow")
    assert "touching" in truth.flags
    found = read_at(read_tray(rendered.image), truth)
    assert (found.kind, found.value) == ("artillery", 2)
    # The looks taking pip faces only: the artillery die is missed (the test can fail).
    monkeypatch.setattr(reader, "_any_face", reader._pip_face)
    found = read_at(read_tray(rendered.image), truth)
    assert found is None or (found.kind, found.value) != ("artillery", 2)


def test_a_scatter_die_touching_a_die_found_is_sought_round_it_when_special_dice_are_expected(
        monkeypatch, read_at):
    # 800x600: a scatter HIT touches another die, and no look finds it (the pair reads as
    # the other die). Expecting special dice, the reader seeks one round each die found
    # (`_special_beside_look`; docs/history/special-dice.md, forty-second session).
    rendered = random_tray(np.random.default_rng([42000, 129]), dice=(0, 6),
                           special={"scatter": (1, 2), "artillery": (1, 2)})
    truth = rendered.truth[3]
    assert (truth.kind, truth.value) == ("scatter", "hit") and "touching" in truth.flags
    found = read_at(read_tray(rendered.image, expect_special=True), truth)
    assert found is not None and (found.kind, found.value) == ("scatter", "hit")
    assert read_at(read_tray(rendered.image), truth) is None      # not sought unless expected
    monkeypatch.setattr(reader, "_special_beside_look", lambda source, dice, special, skip: dice)
    assert read_at(read_tray(rendered.image, expect_special=True), truth) is None


def test_a_die_read_leaning_stays_and_no_special_die_is_read_on_it(monkeypatch):
    """Round a die the special reader read as leaning, places are read only clear of it, and
    it stays (sought within it, and giving way to a face read there, leaning dice were read
    as faces: their tilted face reads as a flat one)."""
    from station.vision.segment import Candidate
    from station.vision.special_dice import SpecialReading
    source = reader.CropSource(np.zeros((400, 400, 3), np.uint8))
    leaning, flat = Candidate(100, 100, 40), Candidate(140, 100, 40)   # side by side
    p = np.zeros(reader.CLASSES, np.float32)
    p[reader.SPECIAL] = 1.0
    special = {leaning: SpecialReading("artillery", None, None, 0.9, (100, 100)),
               flat: SpecialReading("artillery", 4, None, 0.99, (140, 100))}
    looked = []
    monkeypatch.setattr(reader, "special_face_probability",
                        lambda image, places, turns: np.ones(len(places)))
    monkeypatch.setattr(reader, "read_segmented", lambda image, x, y, side: looked.append(
        (x, y)) or SpecialReading("scatter", "hit", None, 0.99, (x, y)))
    dice = reader._special_beside_look(source, [(leaning, p), (flat, p)], special, None)
    clear = reader.SPECIAL_CLEAR * reader.SPECIAL_TOP_FACE * 40
    assert looked and all(np.hypot(x - 100, y - 100) > clear for x, y in looked)
    assert [c for c, _ in dice[:2]] == [leaning, flat] and special[leaning].value is None
    added = [c for c, _ in dice[2:]]
    assert added and all(special[c].value == "hit" for c in added)
    assert all(np.hypot(a.x - b.x, a.y - b.y) > clear for a in added for b in added if a != b)
