"""The action registry: every ruling with its parameters and the dice it consumes.

A ruling module declares its rulings with `@action(...)`; `station.rules.actions` imports
them all and is what the CLI and the service use. A ruling is called as
`run(record, **params)` with validated parameters and asks for dice only through
`record.take(...)`, one request per physical roll.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from station.rules import expr as ex
from station.rules.outcome import Outcome, Record, jsonable


class ParamError(ValueError):
    """A bad or missing parameter: the message names it and says what is allowed."""


REQUIRED = object()


@dataclass(frozen=True)
class ParamType:
    """How a parameter's text becomes a value: `parse` raises ValueError with a reason."""

    name: str          # shown in `station actions`: int, flag, expr, ...
    allowed: str       # what is allowed, in words
    parse: Callable[[str], Any]


def int_type(lo: int, hi: int) -> ParamType:
    def parse(text: str) -> int:
        value = int(text)
        if not lo <= value <= hi:
            raise ValueError(f"{value} is out of range")
        return value
    return ParamType("int", f"a whole number {lo}..{hi}", parse)


def _flag(text: str) -> bool:
    words = {"1": True, "0": False, "yes": True, "no": False, "true": True, "false": False}
    if text.lower() not in words:
        raise ValueError("not a flag")
    return words[text.lower()]


def _inches(text: str) -> float:
    value = float(text.rstrip('"').removesuffix("in"))
    if not 0 <= value < 1000:
        raise ValueError("out of range")
    return value


def choice_type(*options: str) -> ParamType:
    def parse(text: str) -> str:
        if text.lower() not in options:
            raise ValueError("not one of the choices")
        return text.lower()
    return ParamType("choice", " or ".join(options), parse)


def int_list_type(lo: int, hi: int, most: int | None = None) -> ParamType:
    """Whole numbers lo..hi, comma-separated; at most `most` of them when given."""
    def parse(text: str) -> tuple[int, ...]:
        values = tuple(int(v) for v in text.split(",") if v.strip())
        if not values or any(not lo <= v <= hi for v in values):
            raise ValueError("empty or out of range")
        if most is not None and len(values) > most:
            raise ValueError("too many")
        return values
    return ParamType("int-list", f"whole numbers {lo}..{hi}, comma-separated (4,5)"
                     + (f", at most {most} of them" if most is not None else ""), parse)


FLAG = ParamType("flag", "1 or 0 (yes/no)", _flag)
INCHES = ParamType("inches", "a distance in inches, e.g. 7.5", _inches)
EXPR = ParamType("expr", "a dice expression such as 2D6, D6+2, A or S", ex.parse)
FACES = ParamType("faces", "d6 faces 1..6, comma-separated (1 or 1,2)",
                  lambda text: frozenset(int_list_type(1, 6).parse(text)))


@dataclass(frozen=True)
class Param:
    name: str
    type: ParamType
    help: str
    default: Any = REQUIRED
    arg: str = ""  # the ruling's keyword when the name is a Python keyword ("def")
    no_tape: str = ""  # why a laser tape cannot give this distance (MEAS-2), if it cannot

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def parse(self, text: str) -> Any:
        try:
            return self.type.parse(text.strip())
        except ex.ExprError as error:
            raise ParamError(f"{self.name}: {error}") from None
        except (ValueError, TypeError):
            shown = text if len(text) <= 40 else f"{text[:40]}... ({len(text)} characters)"
            raise ParamError(f"{self.name}={shown!r}: expected {self.type.allowed}") from None

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type.name, "allowed": self.type.allowed,
                "required": self.required, "default": None if self.required else
                jsonable(self.default), "help": self.help, "no_tape": self.no_tape or None}


@dataclass(frozen=True)
class Action:
    """One ruling. `dice` lists, in order, the rolls it asks for (some only when needed)."""

    name: str
    summary: str
    rules: tuple[str, ...]
    params: tuple[Param, ...]
    dice: tuple[str, ...]
    run: Callable[..., Outcome]
    check: Callable[[dict[str, Any]], None] | None = None
    notes: str = ""
    reroll_param: str | None = None  # the parameter that asks for the DICE-4 re-roll

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "summary": self.summary, "rules": list(self.rules),
                "params": [p.describe() for p in self.params], "dice": list(self.dice),
                "notes": self.notes}


ACTIONS: dict[str, Action] = {}


def action(name: str, summary: str, *, rules: Iterable[str], params: Iterable[Param] = (),
           dice: Iterable[str] = (), check: Callable[[dict[str, Any]], None] | None = None,
           notes: str = "", reroll_param: str | None = None
           ) -> Callable[[Callable[..., Outcome]], Callable[..., Outcome]]:
    """Register the decorated ruling under `name`."""
    def register(run: Callable[..., Outcome]) -> Callable[..., Outcome]:
        if name in ACTIONS:
            raise RuntimeError(f"action {name} registered twice")
        ACTIONS[name] = Action(name, summary, tuple(rules), tuple(params), tuple(dice), run,
                               check, notes, reroll_param)
        return run
    return register


def get(name: str) -> Action:
    if name not in ACTIONS:
        raise ParamError(f"unknown action {name!r}; known actions: {', '.join(sorted(ACTIONS))}"
                         " (see `station actions`)")
    return ACTIONS[name]


def parse_params(name: str, items: Iterable[str] | Mapping[str, str]) -> dict[str, Any]:
    """`["rat=5", "def=12"]` (or a mapping of texts) → validated values with defaults."""
    act = get(name)
    pairs: list[tuple[str, str]] = []
    if isinstance(items, Mapping):
        pairs = [(k, str(v)) for k, v in items.items()]
    else:
        for item in items:
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise ParamError(f"{item!r}: parameters are name=value, e.g. "
                                 f"{act.params[0].name + '=…' if act.params else 'none'}")
            pairs.append((key.strip(), value))
    values: dict[str, Any] = {}
    for key, text in pairs:
        param = act.param(key)
        if param is None:
            known = ", ".join(p.name for p in act.params) or "none"
            raise ParamError(f"{name} has no parameter {key!r}; its parameters: {known}")
        if key in values:
            raise ParamError(f"{key} given twice")
        values[key] = param.parse(text)
    for param in act.params:
        if param.name not in values:
            if param.required:
                raise ParamError(f"{name} needs {param.name}=… ({param.type.allowed}: "
                                 f"{param.help})")
            values[param.name] = param.default
    if act.check:
        act.check(values)
    return values


def resolve(name: str, params: Mapping[str, Any], source: Any) -> Outcome:
    """Run ruling `name` with validated `params` (from parse_params) against a DiceSource."""
    act = get(name)
    record = Record(source, name)
    outcome = act.run(record, **{(act.param(k).arg or k): v for k, v in params.items()})
    outcome.params = dict(params)
    return outcome
