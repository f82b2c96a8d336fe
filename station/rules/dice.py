"""Dice and arithmetic (RULES.md §1, DICE-1..7): rolling expressions, re-rolls, roll-offs,
random allocation and characteristic tests."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from station.rules import expr as ex
from station.rules.faces import Face
from station.rules.odds import D6, add_values, expr_dist, half_up
from station.rules.outcome import Outcome, Record, RuleRefused
from station.rules.registry import EXPR, FACES, FLAG, Param, action, int_list_type, int_type


def round_up_div(value: int, divisor: int) -> int:
    """DICE-3: divide and round any fraction up (7/2 → 4)."""
    return -(-value // divisor)


def percent_round_up(percent: int, of: int) -> int:
    """DICE-3: a percentage of a value, rounded up (10% of 51 → 6)."""
    return round_up_div(percent * of, 100)


@dataclass
class Rolled:
    """One roll of an expression: the faces it used and what they add up to."""

    expression: ex.Expr
    d6: list[int]
    artillery: Face | None
    scatter: Face | None

    @property
    def faces(self) -> list[Face]:
        out = [Face("d6", v) for v in self.d6]
        return out + [f for f in (self.artillery, self.scatter) if f is not None]

    @property
    def total(self) -> int | str:
        """The modified total (an int), "misfire" (SCAT-3), or "hit"/"arrow" for S."""
        if self.scatter is not None:
            return str(self.scatter.value)
        total: int | str = 0
        d6 = iter(self.d6)
        for term in self.expression.terms:
            atom = term.atom
            if isinstance(atom, ex.Dice):
                faces = [next(d6) for _ in range(atom.count)]
                value: int | str = sum(half_up(f) if atom.sides == 3 else f for f in faces)
            elif isinstance(atom, ex.Artillery):
                assert self.artillery is not None
                value = self.artillery.value
            else:
                value = atom.value  # type: ignore[union-attr]
            if not isinstance(value, str):
                value *= term.sign * term.factor
            total = add_values(total, value)
        return total

    def read_values(self) -> list[int]:
        """Each d6 as the rules read it: its face, or for a D3 the face halved up (DICE-1);
        a granting rule's "re-roll 1s" means a D3 reading 1 as well (DICE-4)."""
        sides = [term.atom.sides for term in self.expression.terms
                 if isinstance(term.atom, ex.Dice) for _ in range(term.atom.count)]
        return [half_up(f) if s == 3 else f for f, s in zip(self.d6, sides)]

    def describe(self) -> str:
        shown = [str(v) for v in self.d6]
        shown += [str(f.value).upper() for f in (self.artillery, self.scatter) if f]
        return ", ".join(shown) or "no dice"


def roll_expr(rec: Record, expression: ex.Expr, what: str) -> Rolled:
    """Ask for the dice of one roll of `expression`: the d6s as one request, then the
    artillery die, or the scatter die alone."""
    d6 = [int(f.value) for f in rec.take("d6", expression.d6_count, what)]
    artillery = (rec.take("artillery", 1, what)[0] if expression.has_artillery else None)
    scatter = rec.take("scatter", 1, what)[0] if expression.is_scatter else None
    return Rolled(expression, d6, artillery, scatter)


def refuse_special_reroll(expression: ex.Expr) -> None:
    if expression.has_artillery or expression.is_scatter:
        raise RuleRefused("DICE-4: the artillery and scatter dice cannot be re-rolled unless "
                          "a rule explicitly allows it")


def _d3_note(expression: ex.Expr, d6: list[int]) -> str | None:
    """DICE-1/DICE-3: how each D3 was read from its D6."""
    notes, faces = [], iter(d6)
    for term in expression.terms:
        if isinstance(term.atom, ex.Dice):
            for _ in range(term.atom.count):
                face = next(faces)
                if term.atom.sides == 3:
                    notes.append(f"{face}→{half_up(face)}")
    return ", ".join(notes) if notes else None


def _faces_words(faces: frozenset[int]) -> str:
    """{1, 2} → "1/2s" (as in "re-roll the 1/2s")."""
    return "/".join(map(str, sorted(faces))) + "s"


def _result_words(total: int | str) -> str:
    return {"misfire": "MISFIRE", "hit": "HIT", "arrow": "ARROW"}.get(str(total), str(total))


@action("dice.roll", "Roll a dice expression: 2D6+5, D3, D6x5, A, S",
        rules=("DICE-1", "DICE-2", "DICE-3", "DICE-4", "SCAT-3"),
        params=(Param("expr", EXPR, "what to roll (DICE-1)"),
                Param("reroll", FLAG, "re-roll the whole first roll once; the re-roll stands "
                      "(DICE-4)", False),
                Param("reroll_dice", FACES, "re-roll once each die showing these faces, as a "
                      "granting rule may say ('re-roll 1s'); a D3 by its result 1-3 "
                      "(DICE-4)", frozenset())),
        dice=("the expression's d6s in one roll, then the artillery die or the scatter die",
              "with reroll=1: the whole roll again",
              "with reroll_dice: the dice showing those faces again"),
        reroll_param="reroll")
def roll(rec: Record, expr: ex.Expr, reroll: bool, reroll_dice: frozenset[int]) -> Outcome:
    """DICE-1 roll an expression; DICE-2 natural faces kept; DICE-4 re-rolls."""
    if reroll or reroll_dice:
        refuse_special_reroll(expr)
    if (reroll or reroll_dice) and expr.d6_count == 0:
        raise RuleRefused(f"DICE-4: {expr} has no dice to re-roll")
    if reroll and reroll_dice:
        raise RuleRefused("DICE-4: no die is re-rolled more than once: use reroll=1 (the "
                          "whole roll) or reroll_dice (some dice), not both")
    rolled = roll_expr(rec, expr, f"{expr}")
    rec.step("DICE-1", f"{expr}: rolled {rolled.describe()} → {_result_words(rolled.total)}")
    first_faces = len(rec.dice)
    if reroll:
        before = rolled.total
        rolled = roll_expr(rec, expr, f"re-roll of {expr}")
        rec.step("DICE-4", f"re-rolled all the dice (was {before}): {rolled.describe()}; the "
                           "re-roll stands")
    elif reroll_dice:
        again = [i for i, v in enumerate(rolled.read_values()) if v in reroll_dice]
        if again:
            new = rec.take("d6", len(again), f"re-roll of the {_faces_words(reroll_dice)}")
            old = [rolled.d6[i] for i in again]
            for i, face in zip(again, new):
                rolled.d6[i] = int(face.value)
            rec.step("DICE-4", f"re-rolled {', '.join(map(str, old))} → "
                               f"{', '.join(str(f.value) for f in new)}; each die at most once")
    d3 = _d3_note(expr, rolled.d6)
    if d3:
        rec.step("DICE-3", f"D3 = D6 halved, rounded up: {d3}")
    total = rolled.total
    shown = rolled.describe() if len(rolled.d6) <= 6 else f"{len(rolled.d6)} dice"
    because = ("DICE-4", "the re-roll stands") if reroll else ("DICE-1", f"{expr}: {shown}")
    if total == "misfire":
        rec.step("SCAT-3", "the artillery die shows MISFIRE: the roll is a misfire")
        because = ("SCAT-3", "the artillery die misfired")
    elif not expr.is_scatter:
        rec.step("DICE-2", f"natural {rolled.describe()}; total {total}")
    dist = expr_dist(expr, reroll_dice)
    # with reroll_dice the whole roll is not offered again: the ruling takes one kind of
    # re-roll at a time (DICE-4), even when no die showed the faces
    allowed = first_faces > 0 and not (reroll or reroll_dice or expr.has_artillery
                                       or expr.is_scatter)
    fields: dict = {"total": total, "expr": str(expr)}
    if rolled.scatter is not None:
        fields["bearing_deg"] = rolled.scatter.bearing_deg
    return rec.outcome(str(total), dist.prob(total),
                       f"{expr}{' re-rolling ' + _faces_words(reroll_dice) if reroll_dice else ''}"
                       f" gives {_result_words(total)}",
                       because=because,
                       reroll_faces=first_faces if allowed else None, **fields)


@action("dice.rolloff", "Roll-off: each player rolls a D6, the higher wins, ties roll again",
        rules=("DICE-5",),
        dice=("player 1's d6, then player 2's d6; again after each tie",))
def rolloff(rec: Record) -> Outcome:
    """DICE-5 roll-off, keeping every round."""
    rounds: list[list[int]] = []
    while True:
        n = len(rounds) + 1
        p1 = int(rec.take("d6", 1, f"player 1's roll-off, round {n}")[0].value)
        p2 = int(rec.take("d6", 1, f"player 2's roll-off, round {n}")[0].value)
        rounds.append([p1, p2])
        if p1 == p2:
            rec.step("DICE-5", f"round {n}: {p1} - {p2}, a tie: both roll again")
            continue
        winner = 1 if p1 > p2 else 2
        rec.step("DICE-5", f"round {n}: {p1} - {p2}, player {winner} wins")
        return rec.outcome(f"player {winner}", Fraction(1, 2), f"player {winner} wins",
                           because=("DICE-5", f"{p1}-{p2} in round {n}"), winner=winner,
                           rounds=rounds, headline=f"PLAYER {winner} WINS")


@action("dice.allocate", "Randomly pick one of N subjects (models, units) with a D6",
        rules=("DICE-6",),
        params=(Param("subjects", int_type(1, 1296), "how many subjects, numbered 1..N"),),
        dice=("N ≤ 6: one d6, re-rolled while it names no subject",
              "N > 6: a d6 for the block of six (re-rolled while no block), then a d6 within "
              "it; both again if the pair names no subject (more digits above 36)"))
def allocate(rec: Record, subjects: int) -> Outcome:
    """DICE-6 random allocation; the RULES.md convention for N > 6 keeps subjects equally
    likely: the dice are base-6 digits, the first re-rolled while it names no block, and the
    whole set again when the number is above N."""
    if subjects == 1:
        rec.step("DICE-6", "one subject: no roll needed")
        return rec.outcome("1", Fraction(1), "subject 1", subject=1, headline="SUBJECT 1",
                           because=("DICE-6", "only one subject"))
    index = random_pick(rec, subjects, "random allocation")
    rec.step("DICE-6", f"subject {index} of {subjects}")
    return rec.outcome(str(index), Fraction(1, subjects), f"subject {index}", subject=index,
                       headline=f"SUBJECT {index}",
                       because=("DICE-6", f"{index} of {subjects}, each equally likely"))


def random_pick(rec: Record, count: int, what: str, divide_evenly: bool = False) -> int:
    """DICE-6: pick 1..count (count ≥ 2), each exactly equally likely.

    With `divide_evenly` and a count that divides six (2, 3, 6), one d6 is split into equal
    ranges (WM-MEL-1: 1-3 / 4-6). Otherwise the dice are base-6 digits, most significant
    first: the first is re-rolled while it names no block (a single die: no subject), and
    all of them are rolled again when they name a number above `count`."""
    if divide_evenly and 6 % count == 0:
        face = int(rec.take("d6", 1, what)[0].value)
        return (face - 1) * count // 6 + 1
    digits = 1
    while 6 ** digits < count:
        digits += 1
    block = 6 ** (digits - 1)
    blocks = round_up_div(count, block)
    while True:
        index = (_face_until(rec, blocks, what + (", block" if digits > 1 else "")) - 1) * block
        for level in range(digits - 2, -1, -1):
            face = int(rec.take("d6", 1, f"{what}, within the block")[0].value)
            index += (face - 1) * 6 ** level
        index += 1
        if index <= count:
            return index
        rec.step("DICE-6", f"those dice name {index}, above {count}: roll again")


def _face_until(rec: Record, highest: int, what: str) -> int:
    """DICE-6: one d6, re-rolled until it shows 1..highest."""
    while True:
        face = int(rec.take("d6", 1, what)[0].value)
        if face <= highest:
            return face
        rec.step("DICE-6", f"{face} names no {'block' if what.endswith('block') else 'subject'}"
                           f" (1-{highest}): re-roll")


@action("dice.test", "Characteristic test: pass on a D6 equal to or below the value",
        rules=("DICE-7", "DICE-4"),
        params=(Param("values", int_list_type(0, 10), "the characteristic of each model; "
                      "mixed values test on the highest"),
                Param("reroll", FLAG, "re-roll the test once; the re-roll stands (DICE-4)",
                      False)),
        dice=("one d6", "with reroll=1: one d6 again"),
        reroll_param="reroll")
def test(rec: Record, values: tuple[int, ...], reroll: bool) -> Outcome:
    """DICE-7 characteristic test on the highest value."""
    characteristic = max(values)
    if len(set(values)) > 1:
        rec.step("DICE-7", f"mixed values {', '.join(map(str, values))}: test on the highest, "
                           f"{characteristic}")
    face = int(rec.take("d6", 1, f"test against {characteristic}")[0].value)
    if reroll:
        again = int(rec.take("d6", 1, f"re-roll of the test against {characteristic}")[0].value)
        rec.step("DICE-4", f"re-rolled the {face}: {again}; the re-roll stands")
        face = again
    passed = face <= characteristic
    rec.step("DICE-7", f"rolled {face} {'≤' if passed else '>'} {characteristic}: "
                       f"{'passed' if passed else 'failed'}")
    p_pass = pass_odds(characteristic)
    return rec.outcome("passed" if passed else "failed", p_pass if passed else 1 - p_pass,
                       f"{'passing' if passed else 'failing'} a test on {characteristic}",
                       because=("DICE-7", f"{face} {'≤' if passed else '>'} {characteristic}"),
                       reroll_faces=None if reroll else 1, characteristic=characteristic,
                       passed=passed, roll=face)


def pass_odds(characteristic: int) -> Fraction:
    """DICE-7: P(D6 ≤ characteristic)."""
    return D6.prob(lambda f: f <= characteristic)
