"""Helpers for the rules tests: run a ruling on typed faces, and walk every dice sequence."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import pytest

from station.rules.actions import parse_params, resolve
from station.rules.faces import ARTILLERY_FACES, D6_FACES, Face
from station.rules.sources import ScriptedSource


def run(name: str, *params: str, dice: str = ""):
    """Resolve `name` with `params` ("rat=5") on the typed faces in `dice` ("6 6")."""
    return resolve(name, parse_params(name, list(params)), ScriptedSource(dice.split()))


class _NeedMore(Exception):
    def __init__(self, kind: str) -> None:
        self.kind = kind


class _TreeSource:
    """Serves a fixed prefix of faces, then asks the walker to branch on the next die."""

    def __init__(self, prefix: list[Face]) -> None:
        self.prefix, self.used = prefix, 0

    def take(self, kind, count, purpose):
        out = []
        for _ in range(count):
            if self.used >= len(self.prefix):
                raise _NeedMore(kind)
            face = self.prefix[self.used]
            assert face.kind == kind, (face, kind, purpose)
            out.append(face)
            self.used += 1
        return out


_ALL_FACES = {
    "d6": [Face("d6", v) for v in D6_FACES],
    "artillery": [Face("artillery", v) for v in ARTILLERY_FACES],
    "scatter": [Face("scatter", v, 30.0) for v in ("arrow",) * 4 + ("hit",) * 2],
}


def walk(name: str, *params: str, max_dice: int = 7, truncate: bool = False):
    """Every complete sequence of faces the ruling can consume, with its probability:
    yields (probability, outcome). Every die kind has six equally likely faces.
    With `truncate`, sequences longer than `max_dice` (endless re-rolls) are dropped."""
    values = parse_params(name, list(params))
    stack: list[list[Face]] = [[]]
    while stack:
        prefix = stack.pop()
        try:
            outcome = resolve(name, values, _TreeSource(prefix))
        except _NeedMore as need:
            if truncate and len(prefix) >= max_dice:
                continue
            assert len(prefix) < max_dice, f"{name} needs more than {max_dice} dice"
            stack.extend(prefix + [face] for face in _ALL_FACES[need.kind])
            continue
        yield Fraction(1, 6 ** len(prefix)), outcome


def check_odds_by_enumeration(name: str, *params: str, max_dice: int = 7) -> int:
    """The odds each outcome reports equal the total probability of every dice sequence that
    reaches the same result (`odds_of`); returns how many results there were."""
    leaves = list(walk(name, *params, max_dice=max_dice))
    mass: dict[str, Fraction] = defaultdict(Fraction)
    for p, outcome in leaves:
        mass[outcome.odds_of] += p
    assert sum(p for p, _ in leaves) == 1
    for _, outcome in leaves:
        assert outcome.odds == mass[outcome.odds_of], (outcome.odds_of, outcome.odds,
                                                       mass[outcome.odds_of])
    return len(mass)


@pytest.fixture(name="run")
def run_fixture():
    """run(name, "param=value", ..., dice="6 6") → Outcome."""
    return run


@pytest.fixture(name="walk")
def walk_fixture():
    return walk


@pytest.fixture(name="odds_check")
def odds_check_fixture():
    """odds_check(name, "param=value", ...): reported odds match exhaustive enumeration."""
    return check_odds_by_enumeration
