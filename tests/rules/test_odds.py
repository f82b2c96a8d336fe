"""Exact odds (no Monte Carlo): distributions against brute-force enumeration."""

from collections import Counter
from fractions import Fraction
from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

from station.rules.expr import parse
from station.rules.odds import D6, Dist, expr_dist, half_up


def brute_force(text, reroll_faces=frozenset()):
    """Enumerate every face sequence of the expression (re-rolls included), by hand."""
    expression = parse(text)
    sides = [term.atom.sides for term in expression.terms if hasattr(term.atom, "count")
             for _ in range(term.atom.count)]

    def per_die(side):
        """(natural face, probability) after the DICE-4 re-roll: a D3 by its result."""
        out = []
        for first in range(1, 7):
            if (half_up(first) if side == 3 else first) in reroll_faces:
                out += [(second, Fraction(1, 36)) for second in range(1, 7)]
            else:
                out.append((first, Fraction(1, 6)))
        return out
    art = [(v, Fraction(1, 6)) for v in (2, 4, 6, 8, 10, "misfire")] \
        if expression.has_artillery else [(None, Fraction(1))]
    out = Counter()
    for dice in product(*(per_die(side) for side in sides)):
        for a, pa in art:
            faces = iter(f for f, _ in dice)
            total = 0
            for term in expression.terms:
                atom = term.atom
                if hasattr(atom, "count"):
                    value = sum(half_up(next(faces)) if atom.sides == 3 else next(faces)
                                for _ in range(atom.count))
                elif atom.__class__.__name__ == "Artillery":
                    value = a
                else:
                    value = atom.value
                if value == "misfire" or total == "misfire":
                    total = "misfire"
                else:
                    total += term.sign * term.factor * value
            p = pa
            for _, q in dice:
                p *= q
            out[total] += p
    return dict(out)


def test_dice1_seed_ranges():
    assert set(expr_dist(parse("2D6+5")).weights) == set(range(7, 18))
    assert set(expr_dist(parse("3D6-3")).weights) == set(range(0, 16))
    assert set(expr_dist(parse("D6x5")).weights) == {5, 10, 15, 20, 25, 30}
    assert set(expr_dist(parse("D6+2")).weights) == set(range(3, 9))
    assert set(expr_dist(parse("2D6")).weights) == set(range(2, 13))
    assert set(expr_dist(parse("3D6")).weights) == set(range(3, 19))


def test_dice1_d3_and_special_dice():
    assert expr_dist(parse("D3")).probabilities() == {v: Fraction(1, 3) for v in (1, 2, 3)}
    artillery = expr_dist(parse("A")).probabilities()
    assert artillery == {v: Fraction(1, 6) for v in (2, 4, 6, 8, 10, "misfire")}
    assert expr_dist(parse("S")).probabilities() == {"arrow": Fraction(2, 3),
                                                     "hit": Fraction(1, 3)}
    assert expr_dist(parse("A+2")).prob("misfire") == Fraction(1, 6)


def test_dice4_reroll_of_ones_matches_hand_count():
    d6 = expr_dist(parse("D6"), frozenset({1}))
    assert d6.prob(1) == Fraction(1, 36)
    assert d6.prob(6) == Fraction(7, 36)


def test_reroll_if_whole_roll():
    # re-roll a 2D6 below 7 once: P(12) = 1/36 + P(<7)·1/36
    first = D6.repeat(2)
    rerolled = first.reroll_if(lambda v: v < 7)
    assert rerolled.prob(12) == Fraction(1, 36) + Fraction(15, 36) * Fraction(1, 36)
    assert sum(rerolled.probabilities().values()) == 1


def test_forty_dice_with_rerolls_is_exact():
    dist = expr_dist(parse("40D6"), frozenset({1}))
    assert sum(dist.probabilities().values()) == 1
    assert dist.prob(40) == Fraction(1, 36) ** 40
    assert dist.prob(240) == Fraction(7, 36) ** 40
    # the mean of one re-rolled die is (sum f·p) = 4.0833…; 40 of them exactly 40 times that
    mean = sum(v * p for v, p in dist.probabilities().items())
    assert mean == 40 * sum(f * D6.reroll_if(lambda v: v == 1).prob(f) for f in range(1, 7))


small_exprs = st.sampled_from(["D6", "2D6", "D3", "2D3+1", "D6x5", "3D6-3", "2D6+5",
                               "A", "A+D6", "D6-4", "2D6x2+D3", "A+2-D3"])


@settings(max_examples=40, deadline=None)
@given(small_exprs, st.sets(st.integers(1, 6), max_size=2))
def test_property_odds_sum_to_one_and_match_enumeration(text, reroll):
    dist = expr_dist(parse(text), frozenset(reroll))
    assert sum(dist.probabilities().values()) == 1
    assert dist.probabilities() == brute_force(text, frozenset(reroll))


@settings(deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=6), st.integers(1, 4))
def test_property_repeat_is_convolution(weights, n):
    if not any(weights):
        weights[0] = 1
    die = Dist({i: w for i, w in enumerate(weights)}, sum(weights))
    slow = Dist.certain(0)
    for _ in range(n):
        slow = slow.combine(die, lambda a, b: a + b)
    assert die.repeat(n).probabilities() == slow.probabilities()
