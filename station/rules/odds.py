"""Exact odds: finite distributions with integer weights over one denominator (no Monte Carlo).

A `Dist` maps outcomes (integers, or words such as "misfire", "hit", "arrow") to integer
weights; the probability of an outcome is its weight over `denominator`. Everything stays
in Python integers until `prob()` hands out a `Fraction`, which keeps a 40-dice sum with
re-rolls to a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from fractions import Fraction
from math import gcd

from station.rules import expr as ex
from station.rules.faces import ARTILLERY_FACES, D6_FACES, SCATTER_FACES

Value = Hashable


class Dist:
    __slots__ = ("weights", "denominator")

    def __init__(self, weights: dict[Value, int], denominator: int) -> None:
        self.weights = {v: w for v, w in weights.items() if w}
        self.denominator = denominator

    @classmethod
    def uniform(cls, values: Iterable[Value]) -> Dist:
        """One fair die whose faces carry `values` (repeats add weight: the scatter die)."""
        weights: dict[Value, int] = {}
        count = 0
        for value in values:
            weights[value] = weights.get(value, 0) + 1
            count += 1
        return cls(weights, count)

    @classmethod
    def certain(cls, value: Value) -> Dist:
        return cls({value: 1}, 1)

    def prob(self, event: Value | Callable[[Value], bool]) -> Fraction:
        """P(outcome == event), or P(event(outcome)) when `event` is a predicate."""
        if callable(event):
            weight = sum(w for v, w in self.weights.items() if event(v))
        else:
            weight = self.weights.get(event, 0)
        return Fraction(weight, self.denominator)

    def probabilities(self) -> dict[Value, Fraction]:
        return {v: Fraction(w, self.denominator) for v, w in self.weights.items()}

    def map(self, f: Callable[[Value], Value]) -> Dist:
        weights: dict[Value, int] = {}
        for v, w in self.weights.items():
            key = f(v)
            weights[key] = weights.get(key, 0) + w
        return Dist(weights, self.denominator)

    def combine(self, other: Dist, op: Callable[[Value, Value], Value]) -> Dist:
        """The distribution of op(x, y) for independent x ~ self, y ~ other."""
        weights: dict[Value, int] = {}
        for a, wa in self.weights.items():
            for b, wb in other.weights.items():
                key = op(a, b)
                weights[key] = weights.get(key, 0) + wa * wb
        return Dist(weights, self.denominator * other.denominator)._reduced()

    def repeat(self, n: int) -> Dist:
        """The sum of `n` independent copies (integer outcomes only)."""
        if n < 1:
            return Dist.certain(0)
        lo, hi = min(self.weights), max(self.weights)
        step = [self.weights.get(lo + i, 0) for i in range(hi - lo + 1)]
        acc = step
        for _ in range(n - 1):  # plain convolution of weight lists: fast for a few hundred
            out = [0] * (len(acc) + len(step) - 1)
            for i, wa in enumerate(acc):
                if wa:
                    for j, wb in enumerate(step):
                        out[i + j] += wa * wb
            acc = out
        weights = {lo * n + i: w for i, w in enumerate(acc)}
        return Dist(weights, self.denominator ** n)._reduced()

    def reroll_if(self, should_reroll: Callable[[Value], bool]) -> Dist:
        """DICE-4: roll once, re-roll once when `should_reroll(first)`, the re-roll stands."""
        again = sum(w for v, w in self.weights.items() if should_reroll(v))
        weights = {v: w * (0 if should_reroll(v) else self.denominator) + again * w
                   for v, w in self.weights.items()}
        return Dist(weights, self.denominator ** 2)._reduced()

    def _reduced(self) -> Dist:
        common = self.denominator
        for w in self.weights.values():
            common = gcd(common, w)
            if common == 1:
                return self
        if common > 1:
            self.weights = {v: w // common for v, w in self.weights.items()}
            self.denominator //= common
        return self

    def __repr__(self) -> str:
        return f"Dist({self.probabilities()})"


D6 = Dist.uniform(D6_FACES)
ARTILLERY = Dist.uniform(ARTILLERY_FACES)
SCATTER = Dist.uniform(SCATTER_FACES)


def half_up(value: int) -> int:
    """DICE-3: halve and round up (7 → 4, D3 from a D6: 1-2 → 1, 3-4 → 2, 5-6 → 3)."""
    return -(-value // 2)


def add_values(a: Value, b: Value) -> Value:
    """Sum two outcomes; a word (a MISFIRE) absorbs any number it is added to."""
    if isinstance(a, str):
        return a
    if isinstance(b, str):
        return b
    return a + b  # type: ignore[operator]


def d6_dist(reroll_faces: frozenset[int] = frozenset()) -> Dist:
    """One D6, re-rolled once when it shows one of `reroll_faces` (DICE-4)."""
    return D6.reroll_if(lambda f: f in reroll_faces) if reroll_faces else D6


def expr_dist(expression: ex.Expr, reroll_faces: frozenset[int] = frozenset()) -> Dist:
    """The exact distribution of one roll of `expression` (DICE-1).

    `reroll_faces`: the faces re-rolled once, die by die, a D3 by its result (DICE-4, as a
    granting rule may say: "re-roll the 1s"). The result is an integer, "misfire", or for the
    scatter die "hit"/"arrow".
    """
    total = Dist.certain(0)
    for term in expression.terms:
        atom = term.atom
        scale = term.sign * term.factor
        if isinstance(atom, ex.Dice):
            if atom.sides == 3:  # a D3 is re-rolled by its result, not its D6 face
                die = D6.map(half_up).reroll_if(lambda v: v in reroll_faces)
            else:
                die = d6_dist(reroll_faces)
            part = die.repeat(atom.count).map(lambda v, k=scale: v * k)
        elif isinstance(atom, ex.Artillery):
            part = ARTILLERY.map(lambda v, k=scale: v if isinstance(v, str) else v * k)
        elif isinstance(atom, ex.Scatter):
            return SCATTER
        else:
            part = Dist.certain(atom.value * scale)
        total = total.combine(part, add_values)
    return total
