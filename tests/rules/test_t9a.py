"""The 9th Age: T9A-COV-1 cover by height, T9A-MEL-1..4, T9A-ENG-1."""

import pytest

from station.rules.t9a import cover

S, L, G = "standard", "large", "gigantic"


@pytest.mark.parametrize("shooter, intervening, target", [
    (S, S, L), (L, S, L), (S, L, G), (L, L, G), (G, L, G),
])
def test_t9a_cov1_seed_figure_12_soft_cover(run, shooter, intervening, target):
    out = run("t9a.cover", f"shooter={shooter}", f"intervening={intervening}",
              f"target={target}")
    assert out.fields["cover"] == "soft" and out.fields["to_hit_modifier"] == -1
    assert out.rules == ["T9A-COV-1"]


@pytest.mark.parametrize("shooter, intervening, target", [(S, S, G), (L, S, G), (G, S, G)])
def test_t9a_cov1_seed_figure_12_no_cover(run, shooter, intervening, target):
    out = run("t9a.cover", f"shooter={shooter}", f"intervening={intervening}",
              f"target={target}")
    assert out.fields["cover"] == "none" and out.fields["to_hit_modifier"] == 0


@pytest.mark.parametrize("shooter, intervening, target", [
    (S, S, S), (L, L, L), (G, G, G), (S, L, L), (L, G, S), (S, G, G),
])
def test_t9a_cov1_as_tall_as_both_blocks(shooter, intervening, target):
    assert cover(shooter, intervening, target) == "blocked"


def test_t9a_cov1_every_combination_has_an_answer():
    heights = (S, L, G)
    results = {cover(a, b, c) for a in heights for b in heights for c in heights}
    assert results == {"soft", "none", "blocked"}
    # a standard model never gives cover when a gigantic model shoots or is shot
    assert all(cover(a, S, c) != "soft" for a in heights for c in heights if G in (a, c))


def test_t9a_mel3_initiative_steps_10_to_0(run):
    out = run("t9a.initiative", "attacks=Elves:12,Knights:4:charged,Goblins:2,Giant:3:grind,"
              "Zombies:-1,Spears:2")
    assert [s.data["agility"] for s in out.steps] == list(range(10, -1, -1))
    by_step = {s.data["agility"]: s.data["attacks"] for s in out.steps}
    assert by_step[10] == ["Elves"]            # above 10 strikes at 10
    assert by_step[5] == ["Knights"]           # T9A-MEL-4: charged +1 in the first round
    assert by_step[2] == ["Goblins", "Spears"]  # simultaneous
    assert by_step[0] == ["Giant", "Zombies"]  # grind counts as 0, below 0 strikes at 0
    assert by_step[9] == []
    assert {"T9A-MEL-3", "T9A-MEL-4", "T9A-MEL-2"} <= set(out.rules)
    assert out.fields["first"] == ["Elves"] and out.dice == []


def test_t9a_mel4_momentum_only_in_the_first_round(run):
    out = run("t9a.initiative", "attacks=Knights:4:charged", "round=2")
    assert {s.data["agility"]: s.data["attacks"] for s in out.steps}[4] == ["Knights"]
    assert "T9A-MEL-4" not in out.rules


def test_t9a_initiative_bad_attacks_say_what_is_allowed(run):
    from station.rules.registry import ParamError
    with pytest.raises(ParamError, match="NAME:AGI"):
        run("t9a.initiative", "attacks=Knights")
    with pytest.raises(ParamError, match="NAME:AGI"):
        run("t9a.initiative", "attacks=Knights:4:flying")


@pytest.mark.parametrize("which, rule, count", [("phase", "T9A-MEL-1", 5),
                                                ("round", "T9A-MEL-2", 16)])
def test_t9a_mel1_mel2_sequences_as_data(run, which, rule, count):
    out = run("t9a.sequence", f"which={which}")
    assert len(out.steps) == count and {s.rule for s in out.steps} == {rule}
    assert [s.data["number"] for s in out.steps] == list(range(1, count + 1))


def test_t9a_mel2_round_step_5_is_the_initiative_order(run):
    out = run("t9a.sequence", "which=round")
    assert "initiative" in out.steps[4].text.lower()


def test_t9a_eng1_engaged_in_base_contact(run):
    assert run("t9a.engaged", "gap=0").fields == {"engaged": True, "can_move": False}
    assert run("t9a.engaged", "gap=0.5").fields["engaged"] is False
