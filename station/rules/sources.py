"""Dice sources other than the camera: scripted faces (tests, typed entry), seeded random
(simulation), and a replay that serves a previous roll before the live source (re-rolls).

Scripted faces are tokens in consumption order: integers (d6 faces 1-6, artillery 2, 4, 6,
8, 10), `misfire`, `hit`, `hit@DEG` and `arrow@DEG` (the scatter die with its bearing in
degrees clockwise from the tray's up edge, SCAT-2). An integer is a d6 or an artillery face
according to what the ruling asks for at that point.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Sequence

from station.rules.faces import (ARTILLERY_FACES, D6_FACES, SCATTER_FACES, DiceExhausted,
                                 DiceSource, DieKind, Face)


class FaceError(ValueError):
    """A scripted face that does not fit: the message says which token and what fits."""


_TOKEN = re.compile(r"^(?:(?P<int>\d+)|(?P<word>misfire|hit|arrow))"
                    r"(?:@(?P<deg>[-+]?\d+(?:\.\d+)?))?$")
_EXPECTED = {
    "d6": "a d6 face 1-6",
    "artillery": "an artillery face 2, 4, 6, 8, 10 or misfire",
    "scatter": "a scatter face hit, hit@DEG or arrow@DEG",
}


def split_tokens(items: Iterable[str]) -> list[str]:
    """"3,4 hit@30" → ["3", "4", "hit@30"]: commas and spaces both separate faces."""
    return [t for item in items for t in re.split(r"[,\s]+", item.strip()) if t]


def check_token(token: str) -> None:
    """Raise FaceError unless `token` is a face token of some kind."""
    match = _TOKEN.match(token.lower())
    if not match:
        raise FaceError(f"{token!r} is not a die face; use integers, misfire, hit, hit@DEG "
                        "or arrow@DEG")
    if match["word"] == "arrow" and match["deg"] is None:
        raise FaceError(f"{token!r}: an arrow needs its bearing, arrow@DEG (degrees clockwise "
                        "from the tray's up edge, SCAT-2)")
    if match["deg"] is not None and match["word"] in (None, "misfire"):
        raise FaceError(f"{token!r}: only hit and arrow take a bearing")
    if match["deg"] is not None and not math.isfinite(float(match["deg"])):
        raise FaceError(f"{token!r}: the bearing is too large; give degrees 0-360")


def token_to_face(token: str, kind: DieKind) -> Face | None:
    """The face `token` stands for when a die of `kind` is asked for, or None if it cannot."""
    match = _TOKEN.match(token.lower())
    if not match:
        return None
    if kind == "d6":
        value = int(match["int"]) if match["int"] else None
        return Face("d6", value) if value in D6_FACES else None
    if kind == "artillery":
        value = int(match["int"]) if match["int"] else match["word"]
        return Face("artillery", value) if value in ARTILLERY_FACES else None
    if match["word"] in ("hit", "arrow"):
        bearing = float(match["deg"]) % 360 if match["deg"] is not None else None
        if match["word"] == "arrow" and bearing is None:
            return None
        return Face("scatter", match["word"], bearing)
    return None


class ScriptedSource:
    """Serves faces from a list of tokens, in order; `unused` lists what was left over."""

    def __init__(self, tokens: Sequence[str]) -> None:
        for token in tokens:
            check_token(token)
        self.tokens = list(tokens)
        self.used = 0

    @property
    def unused(self) -> list[str]:
        return self.tokens[self.used:]

    def take(self, kind: DieKind, count: int, purpose: str) -> list[Face]:
        faces = []
        for i in range(count):
            if self.used >= len(self.tokens):
                given = len(self.tokens)
                raise DiceExhausted(kind, count - i, purpose,
                                    f"{given} face{'' if given == 1 else 's'} given")
            token = self.tokens[self.used]
            face = token_to_face(token, kind)
            if face is None:
                raise FaceError(f"face {self.used + 1} ({token!r}) is not {_EXPECTED[kind]}, "
                                f"which is what {purpose} needs")
            faces.append(face)
            self.used += 1
        return faces


class RandomSource:
    """Fair dice from a seeded generator (simulation); scatter bearings are continuous."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def take(self, kind: DieKind, count: int, purpose: str) -> list[Face]:
        return [self._one(kind) for _ in range(count)]

    def _one(self, kind: DieKind) -> Face:
        if kind == "d6":
            return Face("d6", self.rng.choice(D6_FACES))
        if kind == "artillery":
            return Face("artillery", self.rng.choice(ARTILLERY_FACES))
        return Face("scatter", self.rng.choice(SCATTER_FACES),
                    round(self.rng.uniform(0.0, 360.0), 1) % 360.0)


class ReplaySource:
    """Serves `faces` (a roll already made) first, then asks `then` for the rest.

    Used for a re-roll: the ruling runs again with its re-roll option, consumes the first
    roll from the replay and the re-roll from the live source.
    """

    def __init__(self, faces: Sequence[Face], then: DiceSource) -> None:
        self.pending = list(faces)
        self.then = then

    def take(self, kind: DieKind, count: int, purpose: str) -> list[Face]:
        if not self.pending:
            return self.then.take(kind, count, purpose)
        served, self.pending = self.pending[:count], self.pending[count:]
        if any(f.kind != kind for f in served) or len(served) < count:
            raise ValueError(f"the replayed roll does not match {purpose}")
        return served
