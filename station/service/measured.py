"""Ruling parameters the laser tape gives: `distance=tape` in an action's ruling.

An action such as `wm.ranged rat=5 def=13 rng=10 distance=tape` takes its distance from the
tape: MEASURE (or the tape's own button), then ROLL. `tape` means the spot falls on the
target's base edge; `tape:40` that it falls on a model with a 40 mm base, whose radius comes
off (MEAS-2). The distance stays the action's until the next MEASURE or NEXT, so several
attacks at one target need one measurement.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from station.config import ActionChoice
from station.laser.measurement import Measurement
from station.rules import actions as rules
from station.rules.geometry import laser_base_to_base_in
from station.rules.registry import INCHES

TAPE = "tape"
MAX_BASE_MM = 300.0          # the largest bases (gargantuans, war engines) are about 160 mm
# A tape is good to 1.5-3 mm and its spot is aimed by hand at a base's edge: a measured
# distance this near a limit of the ruling (RNG) is for the players to check with a rule.
CLOSE_CALL_IN = 0.1


@dataclass(frozen=True)
class TapeParam:
    name: str                    # the ruling's parameter, e.g. "distance"
    base_mm: float | None        # the target's base diameter when the spot falls on the model


@dataclass(frozen=True)
class Measured:
    """A distance the tape gave the chosen action."""

    param: str
    inches: float                # base to base, as the ruling takes it
    entry_id: int                # the measurement's journal entry

    def to_json(self) -> dict:
        return {"param": self.param, "inches": self.inches, "entry": self.entry_id}


def tape_param(choice: ActionChoice) -> TapeParam | None:
    """The parameter of `choice` given as `tape` or `tape:BASE_MM`, if any; ValueError when
    it is not one the tape can give (not a distance, two of them, a bad base)."""
    taped = {name: value for name, value in choice.params.items()
             if value.lower().partition(":")[0] == TAPE}
    if not taped:
        return None
    if len(taped) > 1:
        raise ValueError(f"{' and '.join(taped)} are both {TAPE}: the tape gives one distance "
                         "per action; give the others as numbers")
    (name, value), = taped.items()
    param = rules.get(choice.ruling).param(name)
    if param is None or param.type is not INCHES:
        raise ValueError(f"{name}={value}: only a distance in inches can come from the laser "
                         "tape (`station actions` shows each parameter's type)")
    if param.no_tape:
        raise ValueError(f"{name}={value}: {param.no_tape}")
    base = value.partition(":")[2]
    if not base:
        return TapeParam(name, None)
    try:
        base_mm = float(base.removesuffix("mm"))
    except ValueError:
        base_mm = -1.0
    if not 0 < base_mm <= MAX_BASE_MM:
        raise ValueError(f"{name}={value}: the target's base diameter must be 1-{MAX_BASE_MM:g} "
                         f"mm, e.g. {name}={TAPE}:40 (or {name}={TAPE} when the spot falls on "
                         "the base's edge)")
    return TapeParam(name, base_mm)


def base_to_base(tape: TapeParam, reading: Measurement) -> float:
    """MEAS-2: the reading as the ruling's base-to-base inches (to 0.01 in, finer than any
    tape), the target's base radius taken off when the spot falls on the model."""
    radius = tape.base_mm / 2 if tape.base_mm is not None else 0.0
    return round(laser_base_to_base_in(reading.mm, target_radius_mm=radius), 2)


def close_call(ruling: str, params: dict[str, Any], measured: Measured) -> str | None:
    """The measured distance against the ruling's other distances (a weapon's RNG): a few
    words when it lies within CLOSE_CALL_IN of one, where the tape cannot decide."""
    for param in rules.get(ruling).params:
        limit = params.get(param.name)
        if (param.type is INCHES and param.name != measured.param and limit is not None
                and abs(limit - measured.inches) <= CLOSE_CALL_IN):
            return (f"{measured.inches:g} in is within {CLOSE_CALL_IN:g} in of "
                    f"{param.name.upper()} {limit:g}")
    return None


def with_distance(choice: ActionChoice, tape: TapeParam, inches: float) -> ActionChoice:
    """`choice` with the measured distance in place of `tape` (its command as resolved)."""
    return dataclasses.replace(choice, params={**choice.params, tape.name: f"{inches:g}"})
