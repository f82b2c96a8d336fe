"""How fast the rules answer (issue 2's targets).

Prints, for one representative call of every ruling, the time `station resolve` spends on
its own work (argument parsing, the ruling, exact odds, printing the JSON), measured in the
running interpreter after the one-time imports (printed separately as start-up); and the time of the
exact odds of a 40-dice roll with re-rolls (each die re-rolled on a 1, and the whole roll
re-rolled below its mean). Targets: well under 100 ms per ruling, under 50 ms for the odds.

    PYTHONPATH=. python benchmarks/rules_speed.py [--repeat N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import time

from station.cli import build_parser, main
from station.rules.expr import parse
from station.rules.odds import expr_dist

CASES = [
    ["dice.roll", "expr=2D6+5", "--dice", "3", "4"],
    ["dice.roll", "expr=40D6", "reroll_dice=1", "--seed", "1"],
    ["dice.rolloff", "--dice", "3", "3", "5", "2"],
    ["dice.allocate", "subjects=8", "--dice", "5", "2", "1"],
    ["dice.test", "values=3,4", "--dice", "4"],
    ["wfb.scatter", "distance=2D6", "--dice", "arrow@30", "3", "4"],
    ["wfb.scatter", "distance=A", "--dice", "arrow@30", "misfire"],
    ["template.covers", "template=small", "offset=2,0", "base_mm=25"],
    ["wm.ranged", "rat=5", "def=13", "boosted=1", "aim=1", "cover=1", "--dice", "6", "6", "6"],
    ["wm.ranged", "rat=5", "def=13", "target_in_melee=1", "others=12,14,15", "--dice", "3",
     "3", "4", "6", "6"],
    ["wm.aoe", "rat=5", "def=14", "pow=12", "aoe=4", "rng=10", "distance=8", "--dice", "1",
     "2", "5", "6"],
    ["wm.deviate", "from_in=5.5", "die=d3", "--dice", "3", "6"],
    ["wm.throw", "str=11", "target_str=8", "--dice", "4", "2", "3", "6"],
    ["wm.damage", "pow=11", "kind=throw", "extra_die=1", "--dice", "1", "2", "3"],
    ["wm.slam", "str=12", "wall_in=4", "--dice", "6", "2", "3", "4"],
    ["wm.trample", "spd=5", "mat=6", "str=12", "defs=12,13,11", "--seed", "2"],
    ["t9a.cover", "shooter=standard", "intervening=standard", "target=large"],
    ["t9a.initiative", "attacks=Knights:4:charged,Goblins:2,Giant:3:grind"],
    ["t9a.sequence", "which=round"],
    ["t9a.engaged", "gap=0"],
]


def time_call(fn, repeat: int) -> tuple[float, float, float]:
    """(median, 95th percentile, max) milliseconds over `repeat` calls, the first included.
    The maximum mostly shows the other processes sharing this machine's two cores."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))], times[-1]


def resolve_case(argv: list[str]) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        status = main(["resolve", *argv, "--json"])
    assert status == 0, argv


def forty_dice_odds() -> None:
    per_die = expr_dist(parse("40D6"), frozenset({1}))   # DICE-4: re-roll each 1 once
    per_die.reroll_if(lambda total: total < 163)         # DICE-4: the whole roll, once
    per_die.prob(160)


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=100)
    repeat = parser.parse_args().repeat
    start = time.perf_counter()
    # What `station resolve` imports before its first ruling: start-up, once per process.
    build_parser(["resolve"])
    print(f"start-up (once per process): importing the resolve command and the rulings "
          f"{(time.perf_counter() - start) * 1000:.1f} ms")
    print(f"station resolve, own work per ruling, ms over {repeat} runs "
          "(target: well under 100 ms)")
    print("   median      p95      max  ruling")
    for argv in CASES:
        median, p95, most = time_call(lambda a=argv: resolve_case(a), repeat)
        shown = " ".join(a for a in argv if not a.startswith("--"))[:60]
        print(f"  {median:7.2f}  {p95:7.2f}  {most:7.2f}  {shown}")
    median, p95, most = time_call(forty_dice_odds, repeat)
    print(f"exact odds of 40D6, 1s re-rolled and the whole roll re-rolled below 163 "
          f"(target: under 50 ms): median {median:.2f} ms, p95 {p95:.2f} ms, max {most:.2f} ms")


if __name__ == "__main__":
    main_()
