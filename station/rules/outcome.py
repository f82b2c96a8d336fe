"""What a ruling returns (`Outcome`) and the recorder rulings use to build it (`Record`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from station.rules.expr import Expr
from station.rules.faces import DiceSource, DieKind, Face, RerollNow


class RuleRefused(ValueError):
    """The rules do not allow what was asked (re-rolling the artillery die, DICE-4); the
    message cites the rule."""


@dataclass(frozen=True)
class Step:
    """One thing the ruling did, with the RULES.md ID that justified it.

    `data` holds machine-readable details that go into the step's JSON beside the rule and
    the text (the initiative steps of T9A-MEL-3 carry `agility` and `attacks`).
    """

    rule: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "text": self.text, **self.data}


@dataclass
class Outcome:
    """The result of a ruling.

    outcome: the result in one word or number ("hit", "thrown", "7", "misfire").
    dice: the natural faces in the order they were consumed (DICE-2).
    fields: the action's own results (`total`, `effective_def`, `deviation_in`, ...).
    odds: the exact probability of what `odds_of` describes (the result reached).
    reroll_faces: when the rules allow re-rolling the result (DICE-4), how many of the first
        faces form the roll that would be re-rolled; None when no re-roll is allowed.
    reroll_passed: the roll that could have been re-rolled before the ruling's next dice
        were rolled, and was not (so the result cannot be re-rolled any more).
    """

    action: str
    outcome: str
    dice: list[Face]
    steps: list[Step]
    odds: Fraction
    odds_of: str
    fields: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    reroll_faces: int | None = None
    extra_rules: tuple[str, ...] = ()
    because: tuple[str, str] | None = None  # (rule ID, short reason) that decided the result
    reroll_passed: str | None = None

    @property
    def rules(self) -> list[str]:
        """The rule IDs applied, in the order they first came up."""
        seen: dict[str, None] = {}
        for rule in [*(s.rule for s in self.steps), *self.extra_rules]:
            seen.setdefault(rule, None)
        return list(seen)

    @property
    def rerollable(self) -> bool:
        return self.reroll_faces is not None

    @property
    def headline(self) -> str:
        """One line for the screen: the result and the rule that decided it
        ("HIT — WM-RNG-3 all 6s")."""
        words = self.fields.get("headline") or self.outcome.replace("_", " ").upper()
        if self.because:
            return f"{words} — {self.because[0]} {self.because[1]}".rstrip()
        return f"{words} — {self.rules[0]}" if self.rules else words

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "action": self.action,
            "outcome": self.outcome,
            "dice": [f.value for f in self.dice],
            "faces": [face_json(f) for f in self.dice],
            "rules": self.rules,
            "steps": [s.to_json() for s in self.steps],
            "odds": float(self.odds),
            "odds_fraction": f"{self.odds.numerator}/{self.odds.denominator}",
            "odds_of": self.odds_of,
            "rerollable": self.rerollable,
            "params": {k: jsonable(v) for k, v in self.params.items()},
        }
        if self.reroll_passed:
            out["reroll_passed"] = self.reroll_passed
        out.update({k: v for k, v in self.fields.items() if k not in out and k != "headline"})
        out["headline"] = self.headline
        return out


def jsonable(value: Any) -> Any:
    """Parameter values as JSON: expressions as text, sets as sorted lists."""
    if isinstance(value, Expr):
        return str(value)
    if isinstance(value, (frozenset, set)):
        return sorted(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "to_json"):
        return value.to_json()
    return value


def die_words(kind: DieKind, count: int) -> str:
    """ "d6", "artillery die", "scatter dice": how a request names its dice."""
    if kind == "d6":
        return "d6"
    return f"{kind} {'die' if count == 1 else 'dice'}"


def face_json(face: Face) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": face.kind, "value": face.value}
    if face.bearing_deg is not None:
        out["bearing_deg"] = face.bearing_deg
    return out


class Record:
    """Wraps a DiceSource for one ruling: keeps every face in consumption order and the steps."""

    def __init__(self, source: DiceSource, action: str) -> None:
        self.source, self.action = source, action
        self.dice: list[Face] = []
        self.steps: list[Step] = []
        self._offered: int | None = None       # faces a re-roll would replay (offer_reroll)
        self._offer: str = ""                  # ... and what that roll was
        self._passed: str | None = None        # an offered re-roll not taken before more dice

    def offer_reroll(self, what: str) -> None:
        """DICE-4: the roll just made (`what`) may be re-rolled, and the players must choose
        before the ruling's next dice: a source that can ask them (the camera's) is told, and
        may then answer the next request with `RerollNow` instead of dice."""
        self._offered, self._offer = len(self.dice), what
        offer = getattr(self.source, "offer_reroll", None)
        if offer is not None:
            offer(what)

    def take(self, kind: DieKind, count: int, what: str) -> list[Face]:
        """Ask for one physical roll of `count` dice; the player sees "2 d6: attack roll"."""
        if count <= 0:
            return []
        purpose = f"{count} {die_words(kind, count)}: {what}"
        try:
            faces = list(self.source.take(kind, count, purpose))
        except RerollNow as now:
            if self._offered is None:
                raise ValueError(f"the dice source re-rolled before {purpose}, and the ruling "
                                 "offered no re-roll") from None
            now.faces = self.dice[:self._offered]
            raise
        if self._offered is not None:          # these dice are rolled: the chance is gone
            self._offered, self._passed = None, self._offer
        if len(faces) != count or any(f.kind != kind for f in faces):
            got = ", ".join(f"{f.kind} {f.value}" for f in faces) or "nothing"
            raise ValueError(f"the dice source answered {got} when asked for {count} {kind} "
                             f"for {purpose}")
        self.dice.extend(faces)
        return faces

    def step(self, rule: str, text: str, **data: Any) -> None:
        self.steps.append(Step(rule, text, data))

    def outcome(self, outcome: str, odds: Fraction, odds_of: str, *,
                because: tuple[str, str] | None = None, reroll_faces: int | None = None,
                extra_rules: tuple[str, ...] = (), **fields: Any) -> Outcome:
        return Outcome(self.action, outcome, list(self.dice), list(self.steps), odds, odds_of,
                       fields, reroll_faces=None if self._passed else reroll_faces,
                       extra_rules=extra_rules, because=because, reroll_passed=self._passed)
