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
