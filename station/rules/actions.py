"""The rulings the station offers, for the CLI and the service.

    list_actions()                  every Action (name, summary, rules, params, dice order)
    parse_params(name, ["rat=5"])   validated parameters with defaults (ParamError says why)
    resolve(name, params, source)   run the ruling; returns an Outcome
    reroll(outcome, source)         DICE-4: re-roll the result when outcome.rerollable
    reroll_now(name, params, ...)   DICE-4: re-roll a roll before the ruling's next dice

Errors a caller shows as bad input: ParamError, ExprError, RuleRefused, FaceError,
DiceExhausted (all but the last are ValueErrors).
"""

from __future__ import annotations

from station.rules import dice, t9a, warmachine, wfb  # noqa: F401  (they register rulings)
from station.rules.faces import DiceSource, Face
from station.rules.outcome import Outcome, RuleRefused
from station.rules.registry import ACTIONS, Action, ParamError, get, parse_params, resolve
from station.rules.sources import ReplaySource

__all__ = ["Action", "ParamError", "RuleRefused", "get", "list_actions", "parse_params",
           "reroll", "reroll_now", "resolve"]


def list_actions() -> list[Action]:
    return [ACTIONS[name] for name in sorted(ACTIONS)]


def reroll(outcome: Outcome, source: DiceSource) -> Outcome:
    """DICE-4: resolve `outcome`'s action again with its re-roll option: the first roll is
    replayed from `outcome.dice`, the re-roll comes from `source`, and it stands."""
    act = get(outcome.action)
    if not outcome.rerollable or act.reroll_param is None:
        raise RuleRefused("DICE-4: this result cannot be re-rolled (already re-rolled, or an "
                          "artillery/scatter die, or a ruling without re-rolls)")
    assert outcome.reroll_faces is not None
    return reroll_now(outcome.action, outcome.params, outcome.dice[:outcome.reroll_faces], source)


def reroll_now(name: str, params: dict, first: list[Face], source: DiceSource) -> Outcome:
    """DICE-4, chosen while the ruling waited for its next dice (`RerollNow`): resolve it again
    with its re-roll option, the roll `first` replayed, the re-roll from `source`."""
    act = get(name)
    if act.reroll_param is None:
        raise RuleRefused(f"DICE-4: {name} has no re-roll")
    return resolve(name, {**params, act.reroll_param: True}, ReplaySource(first, source))
