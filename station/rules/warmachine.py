"""Warmachine/Hordes Mk II (RULES.md §3): attack rolls, ranged modifiers, targeting into
melee, AOE, deviation, throws, slams, trample and damage rolls."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import product

from station.rules import geometry as geo
from station.rules.dice import random_pick
from station.rules.odds import D6, Dist, half_up
from station.rules.outcome import Outcome, Record, RuleRefused
from station.rules.registry import (FLAG, INCHES, Param, action, choice_type, int_list_type,
                                    int_type)

STAT = int_type(0, 30)
BASE = choice_type("small", "medium", "large")


# --- attack rolls (WM-RNG-2, WM-RNG-3) -------------------------------------------------

def judge_attack(faces: list[int], bonus: int, target: int) -> tuple[bool, int, str, str]:
    """WM-RNG-2/3: (hit, total, rule, reason) for natural `faces` + `bonus` vs `target`."""
    total = sum(faces) + bonus
    if all(f == 1 for f in faces):
        return False, total, "WM-RNG-3", "all 1s"
    if len(faces) > 1 and all(f == 6 for f in faces):
        return True, total, "WM-RNG-3", "all 6s"
    hit = total >= target
    return hit, total, "WM-RNG-2", f"{total} {'≥' if hit else '<'} DEF {target}"


@lru_cache(maxsize=4096)
def hit_odds(dice: int, bonus: int, target: int) -> Fraction:
    """Exact P(hit) of an attack roll, automatic results included (WM-RNG-2/3)."""
    hits = sum(judge_attack(list(faces), bonus, target)[0]
               for faces in product(range(1, 7), repeat=dice))
    return Fraction(hits, 6 ** dice)


def attack_roll(rec: Record, dice: int, bonus: int, target: int, what: str
                ) -> tuple[bool, int, tuple[str, str]]:
    """Roll and judge an attack; returns (hit, total, (rule, reason))."""
    faces = [int(f.value) for f in rec.take("d6", dice, what)]
    hit, total, rule, reason = judge_attack(faces, bonus, target)
    automatic = "automatic " if rule == "WM-RNG-3" else ""
    # "dice 1+3, +5": the bonus (RAT or MAT and modifiers) apart, or 1+3+5 reads as three dice
    rec.step(rule, f"{what}: dice {'+'.join(map(str, faces))}, {bonus:+d} = {total}, {reason}: "
                   f"{automatic}{'hit' if hit else 'miss'}")
    return hit, total, (rule, reason)


def sum_dist(dice: int, plus: int) -> Dist:
    """The distribution of `dice`d6 + `plus`."""
    return D6.repeat(dice).map(lambda v: v + plus)


# --- modifiers (WM-RNG-4) -----------------------------------------------------------------

MODIFIER_PARAMS = (
    Param("boosted", FLAG, "boosted attack roll: +1 die (WM-RNG-2)", False),
    Param("aim", FLAG, "aiming: +2, the model forfeited its movement; not for magic "
          "(WM-RNG-4)", False),
    Param("back_strike", FLAG, "back strike: +2 (WM-RNG-4)", False),
    Param("target_in_melee", FLAG, "target in melee: -4 (WM-RNG-4, WM-MEL-1)", False),
    Param("concealment", FLAG, "concealment or a cloud effect: +2 DEF (WM-RNG-4)", False),
    Param("cover", FLAG, "cover: +4 DEF, does not stack with concealment (WM-RNG-4)", False),
    Param("elevated_target", FLAG, "target at least 1\" higher: +2 DEF (WM-RNG-4)", False),
    Param("knocked_down", FLAG, "knocked-down target: base DEF reduced to 5 (WM-RNG-4)",
          False),
    Param("stationary", FLAG, "stationary target: base DEF reduced to 5 (WM-RNG-4)", False),
    Param("magic", FLAG, "a magic attack: aiming does not apply (WM-RNG-4)", False),
)


def roll_bonus(rec: Record, rat: int, aim: bool, magic: bool, back_strike: bool,
               target_in_melee: bool) -> int:
    """WM-RNG-4: what is added to the 2d6 of the attack roll."""
    bonus, parts = rat, [f"RAT {rat}"]
    if aim and magic:
        rec.step("WM-RNG-4", "aiming does not apply to magic attacks")
    elif aim:
        bonus += 2
        parts.append("aim +2")
    if back_strike:
        bonus += 2
        parts.append("back strike +2")
    if target_in_melee:
        bonus -= 4
        parts.append("target in melee -4")
    if len(parts) > 1:
        rec.step("WM-RNG-4", f"attack roll bonus: {', '.join(parts)} → {bonus:+d}")
    return bonus


def effective_def(rec: Record, defence: int, concealment: bool, cover: bool,
                  elevated_target: bool, knocked_down: bool, stationary: bool,
                  spray: bool = False) -> int:
    """WM-RNG-4: the target's DEF against this attack."""
    value, parts = defence, []
    if (knocked_down or stationary) and defence > 5:  # reduced to 5, never raised
        value = 5
        parts.append(f"{'knocked down' if knocked_down else 'stationary'}: base DEF 5")
    if (cover or concealment) and spray:
        rec.step("WM-RNG-4", "concealment and cover give nothing against spray attacks")
    elif cover:
        value += 4
        parts.append("cover +4" + (" (concealment does not stack)" if concealment else ""))
    elif concealment:
        value += 2
        parts.append("concealment +2")
    if elevated_target:
        value += 2
        parts.append("elevated +2")
    if parts:
        rec.step("WM-RNG-4", f"DEF {defence}: {', '.join(parts)} → {value}")
    return value


def in_range(rec: Record, rng: float | None, distance: float | None) -> bool:
    """WM-RNG-1: in range when the nearest edge of the target's base is within RNG."""
    if rng is None or distance is None:
        return True
    inside = distance <= rng
    rec.step("WM-RNG-1", f"{distance:g}\" base to base {'≤' if inside else '>'} RNG {rng:g}\""
                         f": {'in range' if inside else 'out of range'}")
    return inside


def _pair(names: tuple[str, str]):
    def check(values: dict) -> None:
        given = [values[n] is not None for n in names]
        if any(given) and not all(given):
            raise RuleRefused(f"WM-RNG-1: give both {names[0]}= and {names[1]}= (the weapon's "
                              "RNG and the measured base-to-base distance), or neither")
    return check


def choose_other(rec: Record, count: int) -> int:
    """WM-MEL-1: pick one of `count` other models at random (0-based): a d6 divided evenly
    for 2, 3 or 6 models, otherwise DICE-6 (re-rolled while it names no model)."""
    if count == 1:
        rec.step("WM-MEL-1", "one other model in the combat: it becomes the target")
        return 0
    index = random_pick(rec, count, f"random new target among {count} models",
                        divide_evenly=True)
    rec.step("WM-MEL-1", f"the attack is re-rolled against model {index}")
    return index - 1


# --- ranged attacks ---------------------------------------------------------------------

@action("wm.ranged", "Ranged or magic attack roll with its modifiers and automatic results",
        rules=("WM-RNG-1", "WM-RNG-2", "WM-RNG-3", "WM-RNG-4", "WM-RNG-5", "WM-MEL-1",
               "DICE-4"),
        params=(Param("rat", STAT, "the attacker's RAT"),
                Param("def", STAT, "the target's DEF", arg="defence"),
                *MODIFIER_PARAMS,
                Param("spray", FLAG, "a spray attack: no concealment/cover; a miss into melee "
                      "simply misses (WM-RNG-4, WM-MEL-1)", False),
                Param("rng", INCHES, "the weapon's RNG (with distance=)", None),
                Param("distance", INCHES, "measured base-to-base distance (with rng=)", None),
                Param("others", int_list_type(1, 30), "target in melee: the DEF of each other "
                      "valid model in that combat against this attack (its own cover, "
                      "concealment... included; the roll keeps this attack's bonuses), e.g. "
                      "13,12 (WM-MEL-1)", ()),
                Param("rof", int_type(1, 20), "the weapon's ROF (WM-RNG-5)", None),
                Param("attack_no", int_type(1, 50), "which attack of this weapon in this "
                      "activation (WM-RNG-5)", 1),
                Param("reroll", FLAG, "re-roll the attack roll once; it stands (DICE-4)",
                      False)),
        dice=("the attack roll: 2 d6 (3 boosted), unless out of range",
              "with reroll=1: the attack roll again",
              "a miss on a target in melee with others=: a d6 for the new target (when "
              "several), then its attack roll"),
        check=_pair(("rng", "distance")), reroll_param="reroll")
def ranged(rec: Record, rat: int, defence: int, boosted: bool, aim: bool, back_strike: bool,
           target_in_melee: bool, concealment: bool, cover: bool, elevated_target: bool,
           knocked_down: bool, stationary: bool, magic: bool, spray: bool, rng: float | None,
           distance: float | None, others: tuple[int, ...], rof: int | None, attack_no: int,
           reroll: bool) -> Outcome:
    """WM-RNG-1..5 ranged attack, WM-MEL-1 re-roll against another model in the combat."""
    if rof is not None:
        if attack_no > rof:
            raise RuleRefused(f"WM-RNG-5: a weapon with ROF {rof} makes at most {rof} "
                              f"attack{'s' if rof > 1 else ''} per activation; this would be "
                              f"attack {attack_no}")
        rec.step("WM-RNG-5", f"attack {attack_no} of ROF {rof}")
    target = effective_def(rec, defence, concealment, cover, elevated_target, knocked_down,
                           stationary, spray)
    bonus = roll_bonus(rec, rat, aim, magic, back_strike, target_in_melee)
    if not in_range(rec, rng, distance):
        rec.step("WM-RNG-1", "out of range: the attack misses automatically"
                 + (" and threatens no other model (WM-MEL-1)" if target_in_melee else ""))
        return rec.outcome("miss", Fraction(1), "a miss (out of range: certain)",
                           because=("WM-RNG-1", f"{distance:g}\" > RNG {rng:g}\""),
                           total=None, effective_def=target, struck=None,
                           headline="MISS (out of range)")
    dice = 3 if boosted else 2
    what = "boosted ranged attack roll" if boosted else "ranged attack roll"
    hit, total, because = attack_roll(rec, dice, bonus, target, what)
    first = len(rec.dice)
    if reroll:
        rec.step("DICE-4", f"the attack roll ({total}) is re-rolled; the re-roll stands")
        hit, total, because = attack_roll(rec, dice, bonus, target, "re-roll of the attack roll")
    else:               # before a miss in melee rolls against another model
        rec.offer_reroll("the attack roll")
    p_hit = hit_odds(dice, bonus, target)
    common = dict(total=total, effective_def=target, because=because)
    allowed = None if reroll else first
    if hit:
        return rec.outcome("hit", p_hit, "a hit on the target", reroll_faces=allowed,
                           struck="target", **common)
    if not target_in_melee:
        return rec.outcome("miss", 1 - p_hit, "a miss", reroll_faces=allowed, struck=None,
                           **common)
    if spray:
        rec.step("WM-MEL-1", "a spray attack that misses a target in melee simply misses")
        common["because"] = ("WM-MEL-1", "spray attacks simply miss")
        return rec.outcome("miss", 1 - p_hit, "a miss", reroll_faces=allowed, struck=None,
                           **common)
    if not others:
        rec.step("WM-MEL-1", "missed a target in melee: re-roll against another model in the "
                             "combat (give others=DEF,... to resolve it)")
        return rec.outcome("miss", 1 - p_hit, "a miss on the target", reroll_faces=allowed,
                           struck=None, **common)
    index = choose_other(rec, len(others))
    other_hit, other_total, because = attack_roll(rec, dice, bonus, others[index],
                                                  f"attack roll against model {index + 1}")
    common["because"] = ("WM-MEL-1", f"re-rolled against model {index + 1}: {because[1]}")
    p_others = [hit_odds(dice, bonus, d) for d in others]
    if other_hit:
        return rec.outcome("hit", (1 - p_hit) * p_others[index] / len(others),
                           f"a miss on the target, then a hit on model {index + 1}",
                           reroll_faces=allowed, struck=f"other {index + 1}",
                           other_total=other_total, headline=f"HIT MODEL {index + 1}",
                           **common)
    rec.step("WM-MEL-1", "the re-rolled attack misses too: it misses")
    p_miss = (1 - p_hit) * (1 - sum(p_others) / len(others))
    return rec.outcome("miss", p_miss, "a miss on the target and on the other model",
                       reroll_faces=allowed, struck=None, other_total=other_total, **common)


# --- deviation (WM-DEV-1) and AOE (WM-AOE-1..3) -----------------------------------------------

def deviate(rec: Record, from_in: float, die: str, origin: str) -> tuple[int, int, float, Fraction]:
    """WM-DEV-1: a d6 for the direction, then the distance die (d3: a d6 halved up), capped at
    half of `from_in`. Returns (direction, rolled, capped, P(direction and capped))."""
    direction = int(rec.take("d6", 1, "deviation direction")[0].value)
    face = int(rec.take("d6", 1, f"deviation distance ({die})")[0].value)
    rolled = half_up(face) if die == "d3" else face
    cap = from_in / 2
    capped = geo.capped_deviation(rolled, from_in)
    read = f"d3 from d6 {face} → {rolled}\"" if die == "d3" else f"{rolled}\""
    note = f", capped at half of {from_in:g}\" = {capped:g}\"" if capped < rolled else ""
    rec.step("WM-DEV-1", f"deviates from {origin}: direction {direction} "
                         f"({geo.bearing_text(geo.deviation_bearing(direction))}° from the line of attack), "
                         f"{read}{note}")
    distance_die = D6.map(half_up) if die == "d3" else D6
    p = Fraction(1, 6) * distance_die.prob(lambda v: min(v, cap) == capped)
    return direction, rolled, capped, p


@action("wm.deviate", "Deviation: a d6 direction and a distance die, capped (no attack roll)",
        rules=("WM-DEV-1",),
        params=(Param("from_in", INCHES, "distance from the origin to the intended point; the "
                      "deviation is capped at half of it"),
                Param("die", choice_type("d3", "d6"), "d3 for throws, d6 for AOE", "d6")),
        dice=("the direction d6", "the distance d6 (read as a d3 for throws)"))
def deviation(rec: Record, from_in: float, die: str) -> Outcome:
    """WM-DEV-1 on its own (a spell, a scenario, a missed attack resolved by hand)."""
    direction, rolled, capped, p = deviate(rec, from_in, die, "the intended point")
    return rec.outcome(f"direction {direction}", p, f"direction {direction}, {capped:g}\"",
                       because=("WM-DEV-1", "capped at half the distance" if capped < rolled
                                else ""),
                       deviation_direction=direction, deviation_rolled_in=rolled,
                       deviation_in=capped,
                       offset_in=list(geo.deviation_offset(direction, capped)),
                       headline=f"DEVIATE {capped:g}\" DIR {direction}")


@action("wm.aoe", "AOE attack: direct hit, or deviation (and out-of-range deviation)",
        rules=("WM-AOE-1", "WM-AOE-2", "WM-AOE-3", "WM-RNG-1", "WM-RNG-2", "WM-RNG-3",
               "WM-RNG-4", "WM-DEV-1", "WM-MEL-1", "DICE-3", "DICE-4"),
        params=(Param("rat", STAT, "the attacker's RAT"),
                Param("def", STAT, "the target's DEF", arg="defence"),
                Param("pow", STAT, "the weapon's POW", arg="power"),
                Param("aoe", choice_type("3", "4", "5"), "the AOE template diameter, inches"),
                Param("rng", INCHES, "the weapon's RNG"),
                Param("distance", INCHES, "measured base-to-base distance to the target"),
                *MODIFIER_PARAMS,
                Param("reroll", FLAG, "re-roll the attack roll once; it stands (DICE-4)",
                      False)),
        dice=("the attack roll: 2 d6 (3 boosted), unless the target is out of range",
              "with reroll=1: the attack roll again",
              "on a miss: the deviation direction d6, then the deviation distance d6"),
        reroll_param="reroll")
def aoe(rec: Record, rat: int, defence: int, power: int, aoe: str, rng: float,
        distance: float, boosted: bool, aim: bool, back_strike: bool, target_in_melee: bool,
        concealment: bool, cover: bool, elevated_target: bool, knocked_down: bool,
        stationary: bool, magic: bool, reroll: bool) -> Outcome:
    """WM-AOE-1 direct hit and blast, WM-AOE-2 deviation, WM-AOE-3 point of origin."""
    blast = half_up(power)
    common = dict(template_in=int(aoe), direct_pow=power, blast_pow=blast)
    target = effective_def(rec, defence, concealment, cover, elevated_target, knocked_down,
                           stationary)
    bonus = roll_bonus(rec, rat, aim, magic, back_strike, target_in_melee)
    allowed = None
    if not in_range(rec, rng, distance):
        rec.step("WM-AOE-2", f"declared out of range: automatic miss; deviates from the point "
                             f"on the line to the target at RNG {rng:g}\"")
        p_result, from_in, origin = Fraction(1), rng, "the point at RNG"
        reason = "declared out of range"
    else:
        dice = 3 if boosted else 2
        hit, total, because = attack_roll(rec, dice, bonus, target, "AOE attack roll")
        first = len(rec.dice)
        if reroll:
            rec.step("DICE-4", f"the attack roll ({total}) is re-rolled; the re-roll stands")
            hit, total, because = attack_roll(rec, dice, bonus, target,
                                              "re-roll of the AOE attack")
        else:           # before a miss rolls the deviation
            rec.offer_reroll("the attack roll")
        allowed = None if reroll else first
        p_hit = hit_odds(dice, bonus, target)
        common.update(total=total, effective_def=target)
        if hit:
            rec.step("WM-AOE-1", f"direct hit: 2d6 + POW {power}; every other model under the "
                                 f"{aoe}\" template: blast 2d6 + ½POW = 2d6 + {blast} (DICE-3)")
            return rec.outcome("direct_hit", p_hit, "a direct hit", reroll_faces=allowed,
                               because=because,
                               deviation_direction=None, deviation_in=None, **common)
        if target_in_melee:
            rec.step("WM-MEL-1", "an AOE attack that misses a target in melee deviates instead")
        rec.step("WM-AOE-2", "a miss: the AOE deviates from the centre of the intended target")
        p_result, from_in, origin = 1 - p_hit, distance, "the target's centre"
        reason = f"missed ({because[1]})"
    direction, rolled, capped, p_dev = deviate(rec, from_in, "d6", origin)
    rec.step("WM-AOE-3", f"blast damage 2d6 + {blast} to every model under the {aoe}\" "
                         "template, originating at the point of impact")
    return rec.outcome("deviated", p_result * p_dev,
                       f"a miss deviating {capped:g}\" in direction {direction}",
                       reroll_faces=allowed, deviation_direction=direction,
                       because=("WM-AOE-2", reason),
                       deviation_rolled_in=rolled, deviation_in=capped,
                       deviation_offset_in=list(geo.deviation_offset(direction, capped)),
                       headline=f"DEVIATED {capped:g}\" DIR {direction}", **common)


# --- throws (WM-THR-1..5) ---------------------------------------------------------------------

def _check_throw(values: dict) -> None:
    if geo.WM_BASE_RANK[values["target_base"]] > geo.WM_BASE_RANK[values["base"]]:
        raise RuleRefused("WM-THR-1: a model cannot throw a model with a larger base")
    if values["at_distance"] is not None:
        if not values["two_hands"]:
            raise RuleRefused("WM-THR-5: only a double-hand throw can be thrown at another "
                              "model (two_hands=1)")
        if values["mat"] is None or values["at_def"] is None:
            raise RuleRefused("WM-THR-5: throwing at another model needs mat= (the attacker's "
                              "MAT) and at_def= (that model's DEF)")


@action("wm.throw", "Throw or double-hand throw: the STR contest, distance and deviation",
        rules=("WM-THR-1", "WM-THR-2", "WM-THR-3", "WM-THR-4", "WM-THR-5", "WM-DEV-1"),
        params=(Param("str", STAT, "the attacker's current STR", arg="strength"),
                Param("target_str", STAT, "the target's current STR"),
                Param("two_hands", FLAG, "double-hand throw: the attacker rolls 2d6 "
                      "(WM-THR-5)", False),
                Param("base", BASE, "the attacker's base", "medium"),
                Param("target_base", BASE, "the target's base", "medium"),
                Param("at_distance", INCHES, "double-hand throw at another model: its "
                      "distance from the thrown model (WM-THR-5)", None),
                Param("mat", STAT, "the attacker's MAT (throwing at another model)", None),
                Param("at_def", STAT, "the DEF of the model thrown at", None)),
        dice=("the attacker's contest: 1 d6 (2 for a double-hand throw)",
              "the target's contest: 1 d6",
              "thrown at a model within throw distance: the attack roll, 2 d6",
              "thrown (unless that attack hit): the deviation direction d6, then the d3 "
              "distance (one d6, halved up)"),
        check=_check_throw)
def throw(rec: Record, strength: int, target_str: int, two_hands: bool, base: str,
          target_base: str, at_distance: float | None, mat: int | None,
          at_def: int | None) -> Outcome:
    """WM-THR-1 throw contest and distance; WM-THR-5 double-hand throw; WM-DEV-1."""
    rule = "WM-THR-5" if two_hands else "WM-THR-1"
    attacker_dice = 2 if two_hands else 1
    a_faces = [int(f.value) for f in rec.take("d6", attacker_dice, "attacker's throw contest")]
    t_face = int(rec.take("d6", 1, "target's throw contest")[0].value)
    a_total, t_total = sum(a_faces) + strength, t_face + target_str
    p_free = sum_dist(attacker_dice, strength).combine(
        sum_dist(1, target_str), lambda a, t: t > a).prob(True)
    common = dict(attacker_total=a_total, target_total=t_total, damage_pow=strength,
                  collateral_pow=strength)
    contest = (f"attacker {'+'.join(map(str, a_faces))}+STR {strength} = {a_total}, target "
               f"{t_face}+STR {target_str} = {t_total}")
    if t_total > a_total:
        rec.step(rule, f"{contest}: the target breaks free, no damage")
        return rec.outcome("broke_free", p_free, "the target breaking free",
                           because=(rule, f"target {t_total} > attacker {a_total}"),
                           throw_distance_in=None, deviation_direction=None,
                           deviation_in=None, headline="BROKE FREE", **common)
    larger = geo.WM_BASE_RANK[base] > geo.WM_BASE_RANK[target_base]
    throw_in = strength / 2 + (1 if larger else 0)
    rec.step(rule, f"{contest}: thrown {strength}/2" + (" + 1\" (larger base)" if larger
                                                          else "") + f" = {throw_in:g}\"")
    p_thrown = 1 - p_free
    fields = dict(throw_distance_in=throw_in, because=(rule, f"{a_total} vs {t_total}"),
                  **common)
    if at_distance is not None and at_distance <= throw_in:
        assert mat is not None and at_def is not None
        rec.step("WM-THR-5", f"thrown at a model {at_distance:g}\" away, within the throw "
                             "distance: melee attack roll against it")
        hit, total, _ = attack_roll(rec, 2, mat, at_def,
                                    "attack roll against the model thrown at")
        p_hit = hit_odds(2, mat, at_def)
        if hit:
            rec.step("WM-THR-5", "hit: the thrown model moves into base contact with it, "
                                 "no deviation")
            _damage_steps(rec)
            return rec.outcome("thrown", p_thrown * p_hit, "thrown into the other model",
                               deviation_direction=None, deviation_in=0, attack_total=total,
                               headline=f"THROWN {throw_in:g}\" into the model", **fields)
        aimed_in = at_distance              # deviates from that model's centre
        direction, rolled, capped, p_dev = deviate(rec, at_distance, "d3",
                                                   "the centre of the model thrown at")
        p = p_thrown * (1 - p_hit) * p_dev
        fields["attack_total"] = total
    else:
        aimed_in = throw_in
        origin = ("the point at throw distance on the line to the model"
                  if at_distance is not None else "the intended point")
        direction, rolled, capped, p_dev = deviate(rec, throw_in, "d3", origin)
        p = p_thrown * p_dev
    intended, landing = geo.throw_points((0.0, 0.0), 0.0, aimed_in, direction, capped)
    rec.step("WM-THR-2", "moves in a straight line to the landing point, over smaller bases; "
                         "stops on contact with an obstacle or an equal or larger base")
    _damage_steps(rec)
    return rec.outcome("thrown", p, f"thrown, deviating {capped:g}\" in direction "
                                    f"{direction}",
                       deviation_direction=direction, deviation_rolled_in=rolled,
                       deviation_in=capped, landing_offset_in=list(landing),
                       headline=f"THROWN {throw_in:g}\", deviates {capped:g}\" dir {direction}",
                       **fields)


def _damage_steps(rec: Record) -> None:
    rec.step("WM-THR-3", "knocked down; damage 2d6 + STR, +1 die on contact with an obstacle "
                         "or an equal or larger base; boostable (wm.damage kind=throw)")
    rec.step("WM-THR-4", "models with equal or smaller bases it contacts: knocked down, "
                         "collateral 2d6 + STR, not boostable (wm.damage kind=collateral)")


# --- damage rolls -------------------------------------------------------------------------------

DAMAGE_KINDS = {   # kind: (rule, boostable, may take the extra die for contact)
    "direct": ("WM-AOE-1", True, True), "blast": ("WM-AOE-1", True, False),
    "throw": ("WM-THR-3", True, True), "collateral": ("WM-THR-4", False, False),
    "slam": ("WM-SLAM-1", True, True), "trample": ("WM-TRM-1", True, False),
}


@action("wm.damage", "Damage roll: 2d6 + POW (blast ½POW, collateral not boostable)",
        rules=("WM-AOE-1", "WM-THR-3", "WM-THR-4", "WM-SLAM-1", "WM-TRM-1", "DICE-3"),
        params=(Param("pow", STAT, "POW, or the attacker's STR for throws, slams, trample",
                      arg="power"),
                Param("kind", choice_type(*DAMAGE_KINDS), "what the damage comes from: "
                      "direct (a direct hit or any 2d6 + POW), blast, throw, collateral, "
                      "slam, trample", "direct"),
                Param("extra_die", FLAG, "+1 die: contacted an obstacle or an equal or larger "
                      "base (WM-THR-3, WM-SLAM-1)", False),
                Param("boosted", FLAG, "boosted damage roll: +1 die", False),
                Param("arm", STAT, "the model's ARM: damage = total - ARM", None)),
        dice=("the damage roll: 2 d6, +1 for extra_die, +1 boosted",))
def damage(rec: Record, power: int, kind: str, extra_die: bool, boosted: bool,
           arm: int | None) -> Outcome:
    """2d6 + POW; WM-AOE-1 blast ½POW; WM-THR-3 +1 die on contact; WM-THR-4 collateral is
    not boostable; WM-SLAM-1 +1 die against solid terrain."""
    rule, boostable, contact_die = DAMAGE_KINDS[kind]
    if boosted and not boostable:
        raise RuleRefused("WM-THR-4: collateral damage cannot be boosted")
    if extra_die and not contact_die:
        raise RuleRefused(f"{rule}: {kind} damage takes no extra die; it is for a thrown or "
                          "slammed model that contacted an obstacle or an equal or larger base "
                          "(WM-THR-3, WM-SLAM-1)")
    return damage_roll(rec, rule, kind, power, extra_die, boosted, arm)


def damage_roll(rec: Record, rule: str, kind: str, power: int, extra_die: bool, boosted: bool,
                arm: int | None, p_before: Fraction = Fraction(1), before: str = "",
                **fields) -> Outcome:
    """Roll a damage roll and finish the outcome; `p_before` is the probability of what led
    to it (the slam distance), so the odds cover the whole result."""
    if kind == "blast":
        rec.step("DICE-3", f"blast damage uses ½POW rounded up: {power} → {half_up(power)}")
        power = half_up(power)
    dice = 2 + extra_die + boosted
    faces = [int(f.value) for f in rec.take("d6", dice, f"{kind} damage roll")]
    total = sum(faces) + power
    extras = " + extra die" * extra_die + " + boost die" * boosted
    text = f"{kind} damage 2d6{extras} + {power}: {'+'.join(map(str, faces))}+{power} = {total}"
    points = None if arm is None else max(0, total - arm)
    if arm is not None:
        text += f"; ARM {arm}: {points} damage"
    rec.step(rule, text)
    p = p_before * sum_dist(dice, power).prob(total)
    return rec.outcome(str(total), p, f"{before}damage roll {total}", damage_total=total,
                       because=(rule, f"2d6{extras} + {power}"),
                       damage=points, headline=f"DAMAGE {total}" + (
                           f" → {points}" if points is not None else ""), **fields)


@action("wm.slam", "Slam: d6\" back, stopped by solid terrain (+1 damage die), then damage",
        rules=("WM-SLAM-1",),
        params=(Param("str", STAT, "the attacker's current STR", arg="strength"),
                Param("wall_in", INCHES, "distance to solid terrain behind the model, if any",
                      None),
                Param("boosted", FLAG, "boosted damage roll", False),
                Param("arm", STAT, "the model's ARM", None)),
        dice=("the slam distance d6", "the damage roll: 2 d6 (+1 after hitting terrain, "
              "+1 boosted)"))
def slam(rec: Record, strength: int, wall_in: float | None, boosted: bool,
         arm: int | None) -> Outcome:
    """WM-SLAM-1, the seed's example: slammed d6", stops at a wall, 3d6 + STR."""
    rolled = int(rec.take("d6", 1, "slam distance")[0].value)
    walled = wall_in is not None and wall_in <= rolled   # ending against it is contact
    moved = wall_in if walled else rolled
    rec.step("WM-SLAM-1", f"slammed {rolled}\" back" + (
        f", stops against solid terrain after {wall_in:g}\": +1 damage die" if walled else ""))
    p_walled = D6.prob(lambda f: wall_in is not None and wall_in <= f)
    p_moved = p_walled if walled else D6.prob(rolled)
    return damage_roll(rec, "WM-SLAM-1", "slam", strength, walled, boosted, arm,
                       p_before=p_moved,
                       before=f"moved {moved:g}\"{' into the wall' if walled else ''}, ",
                       slam_rolled_in=rolled, moved_in=moved, hit_wall=walled)


# More models than any trample can contact: a 120 mm base's path of SPD 30 + 3 = 33" has room
# for fewer than 230 small (30 mm) bases, packed as tightly as circles pack. The cap keeps an
# absurd list from making odds too long to print.
TRAMPLE_MOST = 250


@action("wm.trample", "Trample: SPD+3\" straight line, attack rolls against small bases, damage",
        rules=("WM-TRM-1", "WM-RNG-3"),
        params=(Param("spd", STAT, "the trampler's current SPD"),
                Param("mat", STAT, "the trampler's MAT"),
                Param("str", STAT, "the trampler's current STR", arg="strength"),
                Param("defs", int_list_type(1, 30, TRAMPLE_MOST), "the DEF of each "
                      "small-based model contacted, in order", ()),
                Param("light", FLAG, "a light warbeast (cannot trample)", False),
                Param("boosted_attack", FLAG, "boost every attack roll", False),
                Param("boosted_damage", FLAG, "boost every damage roll", False)),
        dice=("per contacted model, in order: the attack roll (2 d6, 3 boosted), then on a "
              "hit its damage roll (2 d6, 3 boosted)",))
def trample(rec: Record, spd: int, mat: int, strength: int, defs: tuple[int, ...],
            light: bool, boosted_attack: bool, boosted_damage: bool) -> Outcome:
    """WM-TRM-1 trample; the path itself is geometry.straight_path (small bases passed)."""
    if light:
        raise RuleRefused("WM-TRM-1: light warbeasts cannot trample")
    rec.step("WM-TRM-1", f"straight line up to SPD {spd} + 3 = {spd + 3}\", through small "
                         "bases, stopping at a medium or large base, an obstacle or an "
                         "obstruction")
    dice = 3 if boosted_attack else 2
    damage_dice = 3 if boosted_damage else 2
    hits, damages, p = [], [], Fraction(1)
    for i, target in enumerate(defs, 1):
        hit, _, _ = attack_roll(rec, dice, mat, target, f"trample attack on model {i}")
        p_hit = hit_odds(dice, mat, target)
        p *= p_hit if hit else 1 - p_hit
        hits.append(hit)
        if hit:
            faces = [int(f.value) for f in rec.take("d6", damage_dice,
                                                    f"trample damage on model {i}")]
            total = sum(faces) + strength
            damages.append(total)
            rec.step("WM-TRM-1", f"model {i}: damage {'+'.join(map(str, faces))}+STR "
                                 f"{strength} = {total}")
        else:
            damages.append(None)
    rec.step("WM-TRM-1", "then free strikes against the trampler (models it contacted make "
                         "none)")
    pattern = ", ".join(f"{i}:{'hit' if h else 'miss'}" for i, h in enumerate(hits, 1))
    count = sum(hits)
    return rec.outcome(f"{count} hit{'s' if count != 1 else ''}", p,
                       f"this pattern of hits and misses ({pattern or 'no models'})",
                       because=("WM-TRM-1", "attack roll against each small base"),
                       max_distance_in=spd + 3, hits=hits, damage_totals=damages,
                       headline=f"TRAMPLE: {count} of {len(defs)} hit")

