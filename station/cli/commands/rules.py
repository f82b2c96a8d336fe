"""`station actions`, `station resolve` and `station roll`: the rules core on the command line.

Exit status 0 when the ruling resolved, 2 on bad input (unknown action, bad parameter or
face, too few faces, something the rules refuse).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from fractions import Fraction

from station.cli import UsageError
from station.rules.actions import list_actions, parse_params, resolve
from station.rules.faces import DiceExhausted
from station.rules.outcome import Outcome
from station.rules.registry import Action
from station.rules.sources import RandomSource, ScriptedSource, split_tokens

FACES_HELP = ("the faces in the order the ruling consumes them: integers (d6 faces, artillery "
              "2-10), misfire, hit, hit@DEG, arrow@DEG (scatter die with its bearing); "
              "separated by spaces or commas")


def register(registry) -> None:
    actions = registry.command("actions", "list every ruling, its parameters and the dice it "
                               "consumes", _actions)
    actions.add_argument("--json", action="store_true", help="print a JSON array")

    resolve_cmd = registry.command(
        "resolve", "run a ruling on typed or random dice", _resolve,
        description="Run a ruling. Parameters are name=value (see `station actions`); "
                    "without --dice the faces come from a random source.")
    resolve_cmd.add_argument("action", help="a ruling from `station actions`, e.g. wm.ranged")
    resolve_cmd.add_argument("params", nargs="*", metavar="name=value")
    _source_options(resolve_cmd)

    roll = registry.command("roll", "roll a dice expression (short for resolve dice.roll)",
                            _roll)
    roll.add_argument("expr", help="a dice expression: 2D6+5, D3, D6x5, A, S")
    roll.add_argument("params", nargs="*", metavar="name=value",
                      help="reroll=1 or reroll_dice=1 (DICE-4)")
    _source_options(roll)


def _source_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dice", nargs="+", metavar="FACE", help=FACES_HELP)
    parser.add_argument("--seed", type=int, help="seed for the random dice (reproducible)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _actions(args: argparse.Namespace) -> int:
    acts = list_actions()
    if args.json:
        print(json.dumps([a.describe() for a in acts], indent=2, ensure_ascii=False))
    else:
        print("\n\n".join(_describe(a) for a in acts))
    return 0


def _describe(act: Action) -> str:
    lines = [f"{act.name}  {act.summary}", f"  rules   {', '.join(act.rules)}"]
    for i, param in enumerate(act.params):
        default = "required" if param.required else f"default {_show(param.default)}"
        tape = f"; not from the laser tape: {param.no_tape}" if param.no_tape else ""
        lines.append(f"  {'params' if i == 0 else '':6}  {param.name}=<{param.type.name}> "
                     f"({default}): {param.help}{tape}")
    for i, roll in enumerate(act.dice, 1):
        lines.append(f"  {'dice' if i == 1 else '':6}  {i}. {roll}")
    if not act.dice:
        lines.append("  dice    none")
    if act.notes:
        lines.append(f"  note    {act.notes}")
    return "\n".join(lines)


def _show(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, (frozenset, tuple)):
        return ",".join(map(str, sorted(value))) or "none"
    return str(value)


def _resolve(args: argparse.Namespace) -> int:
    return _run(args.action, args.params, args)


def _roll(args: argparse.Namespace) -> int:
    return _run("dice.roll", [f"expr={args.expr}", *args.params], args)


def _run(name: str, items: list[str], args: argparse.Namespace) -> int:
    if args.dice is not None and args.seed is not None:
        raise UsageError("use --dice (typed faces) or --seed (random faces), not both")
    tokens = split_tokens(args.dice or [])
    misplaced = [t for t in tokens if "=" in t]
    if misplaced:
        raise UsageError(f"{misplaced[0]!r} is a parameter, not a face: put name=value "
                         "parameters before --dice")
    taped = next((item for item in items
                  if item.partition("=")[2].lower().partition(":")[0] == "tape"), None)
    if taped:                           # the service's `distance=tape`, typed here
        raise UsageError(f"{taped}: the tape gives a distance to the station's actions (MEASURE, "
                         "then ROLL); here give it in inches, e.g. from `station measure`")
    try:
        params = parse_params(name, items)
        seed = None
        if args.dice is not None:
            source = ScriptedSource(tokens)
        else:
            seed = args.seed if args.seed is not None else secrets.randbelow(2 ** 31)
            source = RandomSource(seed)
        outcome = resolve(name, params, source)
    except DiceExhausted as error:
        raise UsageError(f"too few faces in --dice: {error}") from None
    except ValueError as error:  # ParamError, ExprError, RuleRefused, FaceError
        raise UsageError(str(error)) from None
    if isinstance(source, ScriptedSource) and source.unused:
        print(f"station: note: {len(source.unused)} face(s) not used: "
              f"{' '.join(source.unused)}", file=sys.stderr)
    if args.json:
        out = outcome.to_json()
        if seed is not None:
            out["seed"] = seed
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print(render(outcome, seed))
    return 0


def percent(p: Fraction) -> str:
    """41.67%, 0.002572%: enough digits to tell small odds apart."""
    value = float(p) * 100
    return f"{value:.4g}%" if value >= 0.01 or value == 0 else f"{value:.3g}%"


def render(outcome: Outcome, seed: int | None = None) -> str:
    """The outcome as a player reads it at the table."""
    lines = [f"{outcome.action}: {outcome.headline}"]
    if outcome.dice:
        shown = []
        for face in outcome.dice:
            value = str(face.value).upper() if isinstance(face.value, str) else str(face.value)
            if face.bearing_deg is not None:
                value += f"@{face.bearing_deg:g}°"
            shown.append(value)
        lines.append(f"  dice   {' '.join(shown)}" + (f"   (random, --seed {seed})"
                                                       if seed is not None else ""))
    else:
        lines.append("  dice   none needed")
    fields = [_named(k, v) for k, v in outcome.fields.items()
              if v is not None and k != "headline"]
    if fields:
        lines.append(f"  result {' · '.join(fields)}")
    fraction = f"{outcome.odds.numerator}/{outcome.odds.denominator}"
    if len(fraction) > 40:
        fraction = "exact fraction in --json"
    lines.append(f"  odds   {percent(outcome.odds)} ({fraction}) for {outcome.odds_of}")
    lines.append("  steps")
    width = max((len(s.rule) for s in outcome.steps), default=0)
    lines += [f"    {s.rule:<{width}}  {s.text}" for s in outcome.steps]
    lines.append(f"  rules  {', '.join(outcome.rules)}")
    if outcome.rerollable:
        lines.append("  re-roll allowed (DICE-4): run again with reroll=1")
    elif outcome.reroll_passed:
        lines.append(f"  no re-roll now (DICE-4): {outcome.reroll_passed} could be re-rolled "
                     "only before the next dice; to take that re-roll, run again with reroll=1 "
                     "and its dice after the first roll's")
    return "\n".join(lines)


def _named(key: str, value) -> str:
    """`deviation_in 2.75` → `deviation 2.75"`, `bearing_deg 30` → `bearing 30°`."""
    unit = ""
    for suffix, mark in (("_in", '"'), ("_deg", "°")):
        if key.endswith(suffix):
            key, unit = key[: -len(suffix)], mark
    return f"{key.replace('_', ' ')} {_field(value)}{unit}"


def _field(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{round(value, 2):g}"
    if isinstance(value, list):
        return "[" + ", ".join(_field(v) for v in value) + "]"
    return str(value)
