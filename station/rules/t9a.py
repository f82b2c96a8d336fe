"""The 9th Age 2.0 (RULES.md §4): soft cover by model height, the melee phase and round
sequences, initiative order with momentum, and engagement."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from station.rules.outcome import Outcome, Record
from station.rules.registry import INCHES, Param, ParamType, action, choice_type, int_type

HEIGHTS = ("standard", "large", "gigantic")
HEIGHT = choice_type(*HEIGHTS)
CERTAIN = "certain (no dice)"


def cover(shooter: str, intervening: str, target: str) -> str:
    """T9A-COV-1: "blocked", "soft" or "none" for an intervening model between them."""
    hs, hi, ht = (HEIGHTS.index(h) for h in (shooter, intervening, target))
    if hi >= hs and hi >= ht:
        return "blocked"
    if intervening == "standard" and "gigantic" in (shooter, target):
        return "none"
    return "soft"


@action("t9a.cover", "Soft cover from an intervening model, by height (no dice)",
        rules=("T9A-COV-1",),
        params=(Param("shooter", HEIGHT, "the shooter's height"),
                Param("intervening", HEIGHT, "the intervening model's height"),
                Param("target", HEIGHT, "the target's height")))
def cover_ruling(rec: Record, shooter: str, intervening: str, target: str) -> Outcome:
    """T9A-COV-1 with the seed's figure 12 as the test cases."""
    result = cover(shooter, intervening, target)
    modifier = {"soft": -1, "none": 0, "blocked": None}[result]
    text = {
        "blocked": f"a {intervening} model is at least as tall as both: it blocks line of "
                   "sight (hard cover if the target stays partly seen)",
        "none": "a standard model gives no cover when the shooter or the target is gigantic",
        "soft": f"a {intervening} model is lower than the "
                + ("shooter" if HEIGHTS.index(intervening) < HEIGHTS.index(shooter) else
                   "target") + ": soft cover, -1 to hit",
    }[result]
    rec.step("T9A-COV-1", f"{shooter} → {intervening} → {target}: {text}")
    headline = {"soft": "SOFT COVER -1 to hit", "none": "NO COVER",
                "blocked": "LINE OF SIGHT BLOCKED"}[result]
    return rec.outcome(result, Fraction(1), CERTAIN, cover=result, to_hit_modifier=modifier,
                       because=("T9A-COV-1", f"{shooter}/{intervening}/{target}"),
                       headline=headline)


@dataclass(frozen=True)
class Attacks:
    """Who strikes (a unit, a model or one part of a multi-part model) and at what Agility."""

    name: str
    agility: int
    charged: bool = False
    grind: bool = False

    def to_json(self) -> dict:
        return {"name": self.name, "agility": self.agility, "charged": self.charged,
                "grind": self.grind}


def _attacks(text: str) -> tuple[Attacks, ...]:
    out = []
    for entry in text.split(","):
        name, *rest = [p.strip() for p in entry.split(":")]
        if not name or not rest:
            raise ValueError(f"{entry!r}")
        agility = int(rest[0])
        flags = {f.lower() for f in rest[1:]}
        if not flags <= {"charged", "grind"}:
            raise ValueError(f"{entry!r}")
        out.append(Attacks(name, agility, "charged" in flags, "grind" in flags))
    return tuple(out)


ATTACKS = ParamType("attacks", "NAME:AGI[:charged][:grind], comma-separated, e.g. "
                               "Knights:4:charged,Goblins:2", _attacks)


def step_agility(attacks: Attacks, first_round: bool) -> tuple[int, list[str]]:
    """T9A-MEL-3/4: the initiative step these attacks strike at, and why."""
    why = []
    agility = attacks.agility
    if attacks.grind:
        why.append("grind/stomp: Agility 0")
        agility = 0
    elif attacks.charged and first_round:
        agility += 1
        why.append(f"charged, {attacks.agility}+1 by T9A-MEL-4")
    if agility > 10:
        why.append(f"{agility} strikes at 10")
    elif agility < 0:
        why.append(f"{agility} strikes at 0")
    return max(0, min(10, agility)), why


@action("t9a.initiative", "Initiative order: attacks strike by Agility from 10 down to 0",
        rules=("T9A-MEL-3", "T9A-MEL-4", "T9A-MEL-2"),
        params=(Param("attacks", ATTACKS, "who strikes at what Agility (modifiers such as "
                      "the great weapon penalty already applied)"),
                Param("round", int_type(1, 99), "the round of this combat (momentum: first "
                      "round only)", 1)),
        notes="steps are the initiative steps 10..0, each with agility and attacks.")
def initiative(rec: Record, attacks: tuple[Attacks, ...], round: int) -> Outcome:
    """T9A-MEL-3 initiative order, fixed once before the first attack; T9A-MEL-4 momentum."""
    placed: dict[int, list[tuple[Attacks, list[str]]]] = {a: [] for a in range(10, -1, -1)}
    for entry in attacks:
        agility, why = step_agility(entry, round == 1)
        placed[agility].append((entry, why))
    first = None
    for agility, entries in placed.items():
        names = [e.name for e, _ in entries]
        shown = "; ".join(e.name + (f" ({', '.join(why)})" if why else "")
                          for e, why in entries) or "nobody"
        rec.step("T9A-MEL-3", f"Agility {agility}: {shown}"
                 + (" (simultaneous)" if len(names) > 1 else ""),
                 agility=agility, attacks=names)
        if names and first is None:
            first = (agility, names)
    momentum = any(a.charged for a in attacks) and round == 1
    assert first is not None
    return rec.outcome("order fixed", Fraction(1), CERTAIN,
                       extra_rules=("T9A-MEL-4",) * momentum + ("T9A-MEL-2",),
                       because=("T9A-MEL-3", "Agility 10 down to 0"),
                       first_step=first[0], first=first[1],
                       headline=f"FIRST: {', '.join(first[1])} at Agility {first[0]}")


PHASE_SEQUENCE = (
    "Start of the melee phase: apply No Longer Engaged",
    "Choose a combat that has not fought this phase",
    "Fight a round of combat",
    "Repeat 2 and 3 with a combat not yet fought",
    "The phase ends when every combat engaged at the start has fought",
)
ROUND_SEQUENCE = (
    "Start of the round", "Choose weapons", "Make Way", "Declare and accept duels",
    "Determine the initiative order", "Attacks, from the first initiative step",
    "Combat score; break tests for the losers", "Panic tests within 6\"",
    "Hold or pursue", "Flee distance", "Pursuit distance", "Move fleeing units",
    "Move pursuers", "Post-combat pivots and reforms", "Combat reform",
    "End of the round: go to the next combat",
)


@action("t9a.sequence", "The melee phase or round sequence, for the screen (procedural, no "
        "dice)", rules=("T9A-MEL-1", "T9A-MEL-2"),
        params=(Param("which", choice_type("phase", "round"), "the phase (T9A-MEL-1) or one "
                      "round (T9A-MEL-2)", "round"),),
        notes="Procedural rules: the station shows the sequence; it does not compute it.")
def sequence(rec: Record, which: str) -> Outcome:
    """T9A-MEL-1 / T9A-MEL-2 as data for the screen: procedural, nothing to compute."""
    rule, steps = ("T9A-MEL-1", PHASE_SEQUENCE) if which == "phase" else ("T9A-MEL-2",
                                                                          ROUND_SEQUENCE)
    for number, text in enumerate(steps, 1):
        rec.step(rule, f"{number}. {text}", number=number)
    return rec.outcome(f"{which} sequence", Fraction(1), CERTAIN,
                       because=(rule, "procedural: shown, not computed"),
                       headline=f"MELEE {which.upper()}: {len(steps)} steps")


@action("t9a.engaged", "Are two units engaged? (base contact, no dice)",
        rules=("T9A-ENG-1", "MEAS-1"),
        params=(Param("gap", INCHES, "the base-to-base distance between the closest models"
                      " of the two units (MEAS-1)",
                      no_tape="base contact is a gap of 0, which no laser spot can measure: "
                              "look, then give gap=0 or the gap"),))
def engaged(rec: Record, gap: float) -> Outcome:
    """T9A-ENG-1: engaged when any model is in base contact (a gap of 0, MEAS-1)."""
    touching = gap <= 1e-6
    rec.step("T9A-ENG-1", f"closest bases {gap:g}\" apart: " + (
        "in base contact, engaged; they cannot move unless a rule says so" if touching
        else "not in base contact, not engaged"))
    return rec.outcome("engaged" if touching else "not engaged", Fraction(1), CERTAIN,
                       because=("T9A-ENG-1", "base contact" if touching else "no base contact"),
                       engaged=touching, can_move=not touching)
