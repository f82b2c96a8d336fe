"""Warmachine/Hordes Mk II rulings: WM-RNG-*, WM-MEL-1, WM-AOE-*, WM-DEV-1, WM-THR-*,
WM-SLAM-1, WM-TRM-1."""

from fractions import Fraction

import pytest

from station.rules.actions import RuleRefused, parse_params, reroll, reroll_now, resolve
from station.rules.faces import Face, RerollNow
from station.rules.sources import ScriptedSource
from station.rules.warmachine import hit_odds, judge_attack


# --- WM-THR-1 / WM-DEV-1: the seed example -------------------------------------------------

def test_wm_thr1_seed_feral_warpwolf(run):
    """Feral Warpwolf STR 11 throws: 5.5"; a 6 on the d3 is 3", reduced to 2.75"."""
    out = run("wm.throw", "str=11", "target_str=8", dice="4 2 3 6")
    assert out.outcome == "thrown"
    assert out.fields["throw_distance_in"] == 5.5
    assert out.fields["deviation_direction"] == 3
    assert out.fields["deviation_rolled_in"] == 3
    assert out.fields["deviation_in"] == 2.75
    assert {"WM-THR-1", "WM-DEV-1"} <= set(out.rules)


def test_wm_thr1_contest_ties_throw_and_higher_target_breaks_free(run):
    tie = run("wm.throw", "str=10", "target_str=10", dice="3 3 1 1")
    assert tie.outcome == "thrown"
    free = run("wm.throw", "str=10", "target_str=10", dice="3 4")
    assert free.outcome == "broke_free" and len(free.dice) == 2
    assert free.fields["throw_distance_in"] is None


def test_wm_thr1_larger_base_adds_an_inch(run):
    out = run("wm.throw", "str=12", "target_str=5", "base=large", "target_base=small",
              dice="6 1 1 2")
    assert out.fields["throw_distance_in"] == 7.0
    assert out.fields["deviation_in"] == 1  # d3 from a 2 → 1", under the 3.5" cap


def test_wm_thr1_cannot_throw_a_larger_base(run):
    with pytest.raises(RuleRefused, match="WM-THR-1"):
        run("wm.throw", "str=12", "target_str=5", "base=small", "target_base=large")


def test_wm_thr5_double_hand_throw_rolls_2d6_for_the_attacker(run):
    out = run("wm.throw", "str=8", "target_str=10", "two_hands=1", dice="1 1 1 4 4")
    # 1+1+8 = 10 vs 1+10 = 11: breaks free after consuming three contest dice
    assert out.outcome == "broke_free" and [f.value for f in out.dice] == [1, 1, 1]
    thrown = run("wm.throw", "str=8", "target_str=10", "two_hands=1", dice="2 1 1 4 4")
    assert thrown.outcome == "thrown" and "WM-THR-5" in thrown.rules


def test_wm_thr5_throw_at_a_model_within_distance_hits_without_deviation(run):
    out = run("wm.throw", "str=12", "target_str=5", "two_hands=1", "at_distance=4", "mat=6",
              "at_def=12", dice="3 3 1 4 3")
    assert out.outcome == "thrown" and out.fields["deviation_in"] == 0
    assert out.fields["attack_total"] == 13
    missed = run("wm.throw", "str=12", "target_str=5", "two_hands=1", "at_distance=4",
                 "mat=6", "at_def=14", dice="3 3 1 4 3 2 6")
    # the miss deviates from the model's centre: d3 from 6 → 3", capped at 4/2 = 2"
    assert missed.fields["deviation_direction"] == 2 and missed.fields["deviation_in"] == 2
    # ... and lands from that centre, 3" away, not from the 6" throw distance: direction 1
    # runs along the throw, 1.5" (capped at 3/2) beyond the model
    ahead = run("wm.throw", "str=10", "target_str=5", "two_hands=1", "at_distance=3", "mat=5",
                "at_def=15", dice="3 3 1 1 2 1 6")
    assert ahead.fields["deviation_direction"] == 1 and ahead.fields["deviation_in"] == 1.5
    assert ahead.fields["landing_offset_in"] == pytest.approx([0, 4.5])


def test_wm_thr5_needs_two_hands_and_the_attack_stats(run):
    with pytest.raises(RuleRefused, match="WM-THR-5"):
        run("wm.throw", "str=12", "target_str=5", "at_distance=4", "mat=6", "at_def=12")
    with pytest.raises(RuleRefused, match="mat="):
        run("wm.throw", "str=12", "target_str=5", "two_hands=1", "at_distance=4")


@pytest.mark.parametrize("params", [
    ("str=11", "target_str=8"),
    ("str=6", "target_str=9", "base=large", "target_base=small"),
    ("str=9", "target_str=10", "two_hands=1"),
    ("str=12", "target_str=5", "two_hands=1", "at_distance=9", "mat=6", "at_def=12"),
])
def test_wm_throw_odds_match_enumeration(odds_check, params):
    assert odds_check("wm.throw", *params) > 2


def test_wm_thr5_throw_at_a_model_odds(run):
    # 2d6+12 against d6+5 is always thrown; then 2d6+6 ≥ 12 hits
    hit = run("wm.throw", "str=12", "target_str=5", "two_hands=1", "at_distance=4", "mat=6",
              "at_def=12", dice="3 3 1 4 3")
    assert hit.odds == hit_odds(2, 6, 12) == Fraction(26, 36)
    missed = run("wm.throw", "str=12", "target_str=5", "two_hands=1", "at_distance=4",
                 "mat=6", "at_def=12", dice="3 3 1 2 2 2 6")
    # the miss, direction 2, then a d3 capped at 2": faces 3-6 all give 2"
    assert missed.odds == Fraction(10, 36) * Fraction(1, 6) * Fraction(4, 6)


# --- WM-RNG-*: ranged attacks ------------------------------------------------------------------

def test_wm_rng2_hit_on_equal(run):
    out = run("wm.ranged", "rat=5", "def=12", dice="3 4")
    assert out.outcome == "hit" and out.fields["total"] == 12
    miss = run("wm.ranged", "rat=5", "def=13", dice="3 4")
    assert miss.outcome == "miss"


def test_wm_rng2_attack_step_keeps_the_dice_apart_from_the_bonus(run):
    """"3+4+5" would read as three dice on the screen; the player rolled two."""
    out = run("wm.ranged", "rat=5", "def=13", dice="3 4")
    texts = [step.text for step in out.steps if step.rule == "WM-RNG-2"]
    assert texts == ["ranged attack roll: dice 3+4, +5 = 12, 12 < DEF 13: miss"]


def test_wm_rng3_all_sixes_hit_and_all_ones_miss(run):
    out = run("wm.ranged", "rat=0", "def=20", dice="6 6")
    assert out.outcome == "hit" and out.headline == "HIT — WM-RNG-3 all 6s"
    ones = run("wm.ranged", "rat=12", "def=5", dice="1 1")
    assert ones.outcome == "miss" and ones.because == ("WM-RNG-3", "all 1s")
    boosted = run("wm.ranged", "rat=0", "def=20", "boosted=1", dice="6 6 5")
    assert boosted.outcome == "miss"  # not all dice show 6


def test_wm_rng3_single_die_of_six_is_not_automatic():
    assert judge_attack([6], 0, 20)[0] is False
    assert judge_attack([1], 20, 5)[0] is False  # all 1s still miss
    assert judge_attack([6, 6], 0, 20)[0] is True


def test_wm_rng2_boost_adds_a_die(run):
    out = run("wm.ranged", "rat=4", "def=14", "boosted=1", dice="3 3 4")
    assert out.fields["total"] == 14 and out.outcome == "hit"
    assert len(out.dice) == 3


def test_wm_rng1_out_of_range_misses_without_dice(run):
    out = run("wm.ranged", "rat=5", "def=12", "rng=10", "distance=10.5")
    assert out.outcome == "miss" and out.dice == [] and out.odds == 1
    inside = run("wm.ranged", "rat=5", "def=12", "rng=10", "distance=10", dice="6 1")
    assert "WM-RNG-1" in inside.rules and inside.outcome == "hit"
    with pytest.raises(RuleRefused, match="both"):
        run("wm.ranged", "rat=5", "def=12", "rng=10")


@pytest.mark.parametrize("flags, effective", [
    ((), 12), (("concealment=1",), 14), (("cover=1",), 16),
    (("cover=1", "concealment=1"), 16),                    # do not stack with each other
    (("cover=1", "elevated_target=1"), 18),                # stack with other DEF effects
    (("knocked_down=1",), 5), (("stationary=1", "cover=1"), 9),
    (("cover=1", "spray=1"), 12),                          # nothing against spray
])
def test_wm_rng4_def_modifiers(run, flags, effective):
    out = run("wm.ranged", "rat=5", "def=12", *flags, dice="3 3")
    assert out.fields["effective_def"] == effective


def test_wm_rng4_knocked_down_reduces_base_def_to_5_never_raises_it(run):
    """Seed 002: "ее базовый DEF уменьшается до 5": reduced to 5; a lower DEF stays."""
    out = run("wm.ranged", "rat=5", "def=3", "knocked_down=1", "cover=1", dice="3 3")
    assert out.fields["effective_def"] == 3 + 4
    assert run("wm.ranged", "rat=5", "def=4", "stationary=1",
               dice="3 3").fields["effective_def"] == 4


@pytest.mark.parametrize("flags, total", [
    (("aim=1",), 11), (("back_strike=1",), 11), (("target_in_melee=1",), 5),
    (("aim=1", "magic=1"), 9), (("aim=1", "back_strike=1", "target_in_melee=1"), 9),
])
def test_wm_rng4_roll_modifiers(run, flags, total):
    assert run("wm.ranged", "rat=5", "def=12", *flags, dice="2 2").fields["total"] == total


def test_wm_rng5_rof(run):
    assert run("wm.ranged", "rat=5", "def=12", "rof=2", "attack_no=2", dice="3 4").outcome
    with pytest.raises(RuleRefused, match="WM-RNG-5"):
        run("wm.ranged", "rat=5", "def=12", "rof=1", "attack_no=2")


def test_wm_rng_reroll_stands_and_is_offered_once(run):
    first = run("wm.ranged", "rat=5", "def=14", dice="2 2")
    assert first.rerollable
    again = reroll(first, ScriptedSource(["1", "1"]))
    assert again.outcome == "miss" and again.because == ("WM-RNG-3", "all 1s")
    assert [f.value for f in again.dice] == [2, 2, 1, 1] and not again.rerollable


def test_hit_odds_exact():
    # 2d6+5 ≥ 12: sums 7..12 → 21/36; all 1s (7) would be below anyway
    assert hit_odds(2, 5, 12) == Fraction(21, 36)
    # impossible by total, but all 6s hit: 1/36
    assert hit_odds(2, 0, 30) == Fraction(1, 36)
    # certain by total, but all 1s miss: 35/36
    assert hit_odds(2, 20, 5) == Fraction(35, 36)


# --- WM-MEL-1: targeting into melee ----------------------------------------------------------

def test_wm_mel1_miss_is_rerolled_against_a_random_other_model(run):
    # 3 others: 1-2 / 3-4 / 5-6; a 4 picks model 2 (DEF 14); 6+6 → automatic hit
    out = run("wm.ranged", "rat=5", "def=13", "target_in_melee=1", "others=12,14,15",
              dice="3 3 4 6 6")
    assert out.outcome == "hit" and out.fields["struck"] == "other 2"
    assert "WM-MEL-1" in out.rules


def test_wm_mel1_two_models_split_1_3_and_4_6(run):
    out = run("wm.ranged", "rat=5", "def=13", "target_in_melee=1", "others=5,5",
              dice="1 2 3 4 4")
    assert out.fields["struck"] == "other 1"
    out = run("wm.ranged", "rat=5", "def=13", "target_in_melee=1", "others=5,5",
              dice="1 2 4 4 4")
    assert out.fields["struck"] == "other 2"


def test_wm_mel1_four_models_reroll_fives_and_sixes(run):
    out = run("wm.ranged", "rat=5", "def=13", "target_in_melee=1", "others=5,5,5,5",
              dice="1 2 5 6 4 3 3")
    assert out.fields["struck"] == "other 4" and "DICE-6" in out.rules
    # the same modifiers on both rolls: RAT 5, target in melee -4
    assert out.odds == (1 - hit_odds(2, 1, 13)) * Fraction(1, 4) * hit_odds(2, 1, 5)


def test_wm_mel1_second_miss_misses_and_out_of_range_threatens_nobody(run):
    out = run("wm.ranged", "rat=5", "def=13", "target_in_melee=1", "others=20",
              dice="2 2 3 3")
    assert out.outcome == "miss" and out.fields["struck"] is None
    far = run("wm.ranged", "rat=5", "def=13", "target_in_melee=1", "others=5",
              "rng=8", "distance=9")
    assert far.outcome == "miss" and far.dice == []


def test_wm_mel1_spray_simply_misses(run):
    out = run("wm.ranged", "rat=5", "def=13", "target_in_melee=1", "spray=1", "others=5",
              dice="2 2")
    assert out.outcome == "miss" and len(out.dice) == 2


@pytest.mark.parametrize("params", [
    ("rat=5", "def=13"),
    ("rat=3", "def=12", "cover=1"),
    ("rat=5", "def=13", "target_in_melee=1", "others=12,14,15"),
    ("rat=5", "def=13", "target_in_melee=1", "others=10,14"),
    ("rat=6", "def=12", "target_in_melee=1", "others=11"),
])
def test_wm_ranged_odds_match_enumeration(odds_check, params):
    assert odds_check("wm.ranged", *params) >= 2


def test_wm_ranged_boosted_odds_match_enumeration(odds_check):
    odds_check("wm.ranged", "rat=4", "def=15", "boosted=1")


# --- WM-AOE-*, WM-DEV-1 ---------------------------------------------------------------------------

def test_wm_aoe1_direct_hit_and_half_pow_rounded_up(run):
    out = run("wm.aoe", "rat=5", "def=12", "pow=13", "aoe=3", "rng=10", "distance=8",
              dice="4 4")
    assert out.outcome == "direct_hit" and out.fields["blast_pow"] == 7  # DICE-3
    assert out.fields["deviation_direction"] is None


def test_wm_aoe2_miss_deviates_d6_capped_at_half_the_distance(run):
    out = run("wm.aoe", "rat=5", "def=14", "pow=12", "aoe=4", "rng=10", "distance=8",
              dice="1 2 5 6")
    assert out.outcome == "deviated"
    assert out.fields["deviation_direction"] == 5 and out.fields["deviation_in"] == 4
    assert {"WM-AOE-2", "WM-DEV-1", "WM-AOE-3"} <= set(out.rules)


def test_wm_aoe2_out_of_range_deviates_from_rng_point_capped_at_half_rng(run):
    out = run("wm.aoe", "rat=5", "def=12", "pow=12", "aoe=3", "rng=8", "distance=12",
              dice="1 6")
    assert out.outcome == "deviated" and len(out.dice) == 2
    assert out.fields["deviation_in"] == 4  # 6" capped at 8/2
    assert out.odds == Fraction(1, 6) * Fraction(3, 6)  # direction 1, and 4, 5 or 6 → 4"


def test_wm_mel1_aoe_into_melee_deviates(run):
    out = run("wm.aoe", "rat=5", "def=12", "pow=12", "aoe=3", "rng=10", "distance=5",
              "target_in_melee=1", dice="2 2 3 1")
    assert out.outcome == "deviated" and "WM-MEL-1" in out.rules


@pytest.mark.parametrize("params", [
    ("rat=5", "def=13", "pow=12", "aoe=3", "rng=10", "distance=8"),
    ("rat=5", "def=13", "pow=12", "aoe=3", "rng=10", "distance=3"),
    ("rat=5", "def=13", "pow=12", "aoe=5", "rng=8", "distance=12"),
])
def test_wm_aoe_odds_match_enumeration(odds_check, params):
    odds_check("wm.aoe", *params)


def test_wm_dev1_deviate_and_its_odds(run, odds_check):
    out = run("wm.deviate", "from_in=5", "die=d3", dice="4 6")
    assert out.fields["deviation_in"] == 2.5 and out.fields["deviation_rolled_in"] == 3
    assert out.fields["offset_in"] == pytest.approx([0, -2.5])  # 4: back toward the attacker
    odds_check("wm.deviate", "from_in=5", "die=d6")
    odds_check("wm.deviate", "from_in=3", "die=d3")


# --- damage, WM-SLAM-1, WM-TRM-1 -----------------------------------------------------------------

def test_wm_slam1_seed_wall_after_4_inches_adds_a_die(run):
    out = run("wm.slam", "str=12", "wall_in=4", dice="6 2 3 4")
    assert out.fields["moved_in"] == 4 and out.fields["hit_wall"] is True
    assert out.fields["damage_total"] == 2 + 3 + 4 + 12 and len(out.dice) == 4
    short = run("wm.slam", "str=12", "wall_in=4", dice="3 2 3")
    assert short.fields["hit_wall"] is False and short.fields["damage_total"] == 17
    against = run("wm.slam", "str=12", "wall_in=4", dice="4 2 3 4")   # ends touching it
    assert against.fields["hit_wall"] is True and against.fields["damage_total"] == 21


def test_wm_slam_odds_match_enumeration(odds_check):
    odds_check("wm.slam", "str=10", "wall_in=4")


def test_wm_damage_kinds(run):
    assert run("wm.damage", "pow=11", "kind=blast", dice="3 3").fields["damage_total"] == 12
    thrown = run("wm.damage", "pow=11", "kind=throw", "extra_die=1", "boosted=1", "arm=18",
                 dice="1 2 3 4")
    assert thrown.fields["damage_total"] == 21 and thrown.fields["damage"] == 3
    with pytest.raises(RuleRefused, match="WM-THR-4"):
        run("wm.damage", "pow=11", "kind=collateral", "boosted=1")
    for kind, rule in (("collateral", "WM-THR-4"), ("blast", "WM-AOE-1"), ("trample", "WM-TRM-1")):
        with pytest.raises(RuleRefused, match=f"{rule}: {kind} damage takes no extra die"):
            run("wm.damage", "pow=11", f"kind={kind}", "extra_die=1")


def test_wm_trm1_trample(run):
    out = run("wm.trample", "spd=5", "mat=6", "str=12", "defs=12,13",
              dice="6 6 3 3 1 1")
    assert out.fields["max_distance_in"] == 8
    assert out.fields["hits"] == [True, False] and out.fields["damage_totals"] == [18, None]
    with pytest.raises(RuleRefused, match="light warbeasts"):
        run("wm.trample", "spd=5", "mat=6", "str=12", "light=1")


def test_wm_trample_odds_match_enumeration(odds_check):
    odds_check("wm.trample", "spd=5", "mat=6", "str=12", "defs=12")


def test_wm_mel1_more_than_six_models_uses_the_dice6_blocks(run):
    others = "others=" + ",".join(["5"] * 8)
    # miss (2+2+1 < 13); block die 2, within 2 → model 8; its roll 3+3+1 ≥ 5 hits
    out = run("wm.ranged", "rat=5", "def=13", "target_in_melee=1", others,
              dice="2 2 2 2 3 3")
    assert out.fields["struck"] == "other 8"
    # block 2, within 3 names 9: both again; then 1, 4 → model 4
    out = run("wm.ranged", "rat=5", "def=13", "target_in_melee=1", others,
              dice="2 2 2 3 1 4 3 3")
    assert out.fields["struck"] == "other 4"


# --- DICE-4: a re-roll is chosen before the ruling's next dice ----------------------------------

class RerollsBeforeDeviation(ScriptedSource):
    """The players press RE-ROLL when the ruling asks for its second roll, once."""

    def __init__(self, tokens):
        super().__init__(tokens)
        self.offered, self.requests = [], 0

    def offer_reroll(self, what):
        self.offered.append(what)

    def take(self, kind, count, purpose):
        self.requests += 1
        if self.requests == 2:
            raise RerollNow()
        return super().take(kind, count, purpose)


AOE = ("wm.aoe", "rat=5", "def=14", "pow=12", "aoe=4", "rng=10", "distance=8")


def test_dice4_a_miss_that_deviated_can_no_longer_be_rerolled(run):
    deviated = run(*AOE, dice="2 2 3 4")
    assert deviated.outcome == "deviated" and not deviated.rerollable
    assert deviated.reroll_passed == "the attack roll"
    assert deviated.to_json()["reroll_passed"] == "the attack roll"
    hit = run(*AOE, dice="6 6")                       # nothing rolled after it: still open
    assert hit.rerollable and hit.reroll_passed is None
    melee = run("wm.ranged", "rat=5", "def=14", "target_in_melee=1", "others=12,13",
                dice="2 2 1 3 3")
    assert not melee.rerollable and melee.reroll_passed == "the attack roll"


def test_dice4_rerolling_before_the_deviation_replays_the_first_roll():
    source = RerollsBeforeDeviation(["2", "2", "6", "5"])
    params = parse_params("wm.aoe", list(AOE[1:]))
    with pytest.raises(RerollNow) as now:
        resolve("wm.aoe", params, source)
    assert source.offered == ["the attack roll"]
    assert now.value.faces == [Face("d6", 2), Face("d6", 2)]
    again = reroll_now("wm.aoe", params, now.value.faces, source)
    assert again.outcome == "direct_hit" and [f.value for f in again.dice] == [2, 2, 6, 5]
    assert "DICE-4" in again.rules and not again.rerollable


def test_dice4_a_source_cannot_reroll_what_was_not_offered():
    class Eager(ScriptedSource):
        def take(self, kind, count, purpose):
            raise RerollNow()
    with pytest.raises(ValueError, match="offered no re-roll"):
        resolve("wm.ranged", parse_params("wm.ranged", ["rat=5", "def=14"]), Eager([]))
