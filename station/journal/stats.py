"""Are the dice fair? Face frequencies per colour and die kind, with a chi-square test.

Each group (a die kind in one colour: the players' own way of telling dice apart) is tested
against the faces' expected shares: d6 and artillery faces 1/6 each, the scatter die's arrow
4/6 and HIT 2/6 (DICE-1). The verdict says plainly when there are too few rolls: the test
needs at least five expected rolls per face to mean anything, and even then a die whose one
face comes up 1/5 of the time instead of 1/6 needs about a thousand rolls to show.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

EXPECTED_SHARES: dict[str, dict[str, float]] = {
    "d6": {str(v): 1 / 6 for v in range(1, 7)},
    "artillery": {str(v): 1 / 6 for v in (2, 4, 6, 8, 10, "misfire")},
    "scatter": {"arrow": 4 / 6, "hit": 2 / 6},
}
MIN_EXPECTED_PER_FACE = 5
ROLLS_TO_SHOW_SLIGHT_BIAS = 1000
SIGNIFICANCE = 0.01


@dataclass(frozen=True)
class GroupStats:
    kind: str
    colour: str
    rolls: int
    counts: dict[str, int]
    chi_square: float | None
    p_value: float | None
    verdict: str

    def to_json(self) -> dict:
        return {"kind": self.kind, "colour": self.colour, "rolls": self.rolls,
                "counts": self.counts, "chi_square": self.chi_square,
                "p_value": self.p_value, "verdict": self.verdict}


def face_stats(rows: list[tuple[str, str, str]]) -> list[GroupStats]:
    """`rows` are (kind, colour, value) of every die read; one GroupStats per kind and colour."""
    groups: dict[tuple[str, str], Counter] = {}
    for kind, colour, value in rows:
        groups.setdefault((kind, colour), Counter())[str(value)] += 1
    return [_group(kind, colour, counts) for (kind, colour), counts in sorted(groups.items())]


def _group(kind: str, colour: str, counts: Counter) -> GroupStats:
    shares = EXPECTED_SHARES.get(kind)
    rolls = sum(counts.values())
    if shares is None:
        return GroupStats(kind, colour, rolls, dict(counts), None, None,
                          f"no fairness test for {kind} dice")
    ordered = {face: counts.get(face, 0) for face in shares}
    needed = math.ceil(MIN_EXPECTED_PER_FACE / min(shares.values()))
    if rolls < needed:
        return GroupStats(kind, colour, rolls, ordered, None, None,
                          f"too few rolls to judge: {rolls} so far, the test needs at least "
                          f"{needed} (and about {ROLLS_TO_SHOW_SLIGHT_BIAS} to show a slightly biased face)")
    chi2 = sum((ordered[f] - rolls * s) ** 2 / (rolls * s) for f, s in shares.items())
    p = chi_square_sf(chi2, len(shares) - 1)
    if p < SIGNIFICANCE:
        verdict = f"looks biased (p = {p:.4f}): these faces are unlikely from a fair die"
    elif rolls < ROLLS_TO_SHOW_SLIGHT_BIAS:
        verdict = (f"no sign of bias (p = {p:.2f}), but {rolls} rolls only show gross bias; "
                   f"a slightly biased face needs about {ROLLS_TO_SHOW_SLIGHT_BIAS} rolls")
    else:
        verdict = f"no sign of bias (p = {p:.2f}) over {rolls} rolls"
    return GroupStats(kind, colour, rolls, ordered, round(chi2, 3), round(p, 4), verdict)


def chi_square_sf(x: float, dof: int) -> float:
    """P(X >= x) for a chi-square distribution: the regularised upper gamma Q(dof/2, x/2)."""
    return _gamma_q(dof / 2, x / 2)


def _gamma_q(a: float, x: float) -> float:
    if x <= 0:
        return 1.0
    log_prefix = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:                       # series for P, then Q = 1 - P
        term = total = 1 / a
        n = a
        while abs(term) > abs(total) * 1e-15:
            n += 1
            term *= x / n
            total += term
        return max(0.0, 1 - total * math.exp(log_prefix))
    # continued fraction for Q (Lentz's method)
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 500):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_prefix) * h)
