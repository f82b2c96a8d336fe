"""Screens made from an outcome's JSON: the live result, and the same redrawn from the journal."""

from __future__ import annotations

import re
from typing import Any

from station.display.screen import Screen, TrayView

TONE_WORDS = {"good": {"hit", "direct_hit", "thrown", "passed", "true"},
              "bad": {"miss", "misfire", "broke_free", "failed", "false"}}


def outcome_words(data: dict[str, Any]) -> str:
    """The big words of an outcome (its JSON): the headline without its rule, in capitals."""
    words = str(data.get("headline") or data["outcome"]).split(" — ")[0]
    return words.replace("_", " ").upper()


# a step that gives a bearing ("direction 5 (240° from the line of attack), 3\"") says where
# something lands, as much as a sum says whether it hit (a deviation was left off the screen)
MEASURED = re.compile(r"\d°")


def deciding_steps(steps: list[dict[str, Any]], headline: str = "",
                   room: int = 3) -> tuple[list[str], int | None]:
    """The steps a player checks the result by, in the order they happened, and which of
    them decided the result (None when the headline names none): the screen has room for
    two or three. After a re-roll (DICE-4) the steps of the roll that no longer counts are
    left out; steps that compute something (a sum against a target, a die turned into
    inches) come before those that only describe what follows. The step the headline names
    ("MISS — WM-RNG-2 16 < DEF 19") is always among them (a ranged attack with cover, aim
    and a range showed those three and left out the attack roll), and an initiative step at
    which nobody strikes is not (three "Agility 10: nobody")."""
    rerolled = [i for i, step in enumerate(steps) if step["rule"] == "DICE-4"]
    steps = steps[rerolled[-1]:] if rerolled else steps
    steps = [step for step in steps if step.get("attacks") != []]
    rule, _, reason = headline.partition(" — ")[2].partition(" ")
    decided = [i for i, step in enumerate(steps)
               if rule and step["rule"] == rule and reason in step["text"]][-1:]
    computed = [i for i, step in enumerate(steps)
                if any(c in step["text"] for c in "=<>→≥≤") or MEASURED.search(step["text"])]
    order = [*computed, *(i for i in range(len(steps)) if i not in computed)]
    chosen = sorted(decided + [i for i in order if i not in decided][:room - len(decided)])
    return [steps[i]["text"] for i in chosen], chosen.index(decided[0]) if decided else None


def measurement_details(action: str, data: dict[str, Any]) -> list[str]:
    """The detail lines of a measurement (its JSON): live, and redrawn by `journal show`."""
    state = "calibrated" if data.get("calibrated") else "uncalibrated"
    details = [f"{data.get('mm', 0):.0f} mm from the reference edge ({state})",
               f"raw reading {data.get('raw_mm', 0):.1f} mm ({data.get('device', '?')})"]
    if data.get("param"):                     # a ruling's distance (`distance=tape`)
        radius = data.get("base_radius_mm")
        base = (f" (the target's {2 * radius:g} mm base: its radius taken off)" if radius
                else " (base edge to base edge)")
        details.insert(0, f"{data['param']}={data['base_to_base_inches']:g} for {action}{base}")
    return details


def outcome_screen(data: dict[str, Any], rolls: list[TrayView], entry_id: int | None, *,
                   position: tuple[int, int], reroll_offered: bool = False,
                   seal: str = "") -> Screen:
    """The screen of a resolved outcome, from its JSON and the rolls it was read from (none
    when the dice were typed in): live, and redrawn by `journal show`. `seal`: the start of
    the journal entry's seal."""
    words = str(data["outcome"]).lower()
    tone = next((t for t, ws in TONE_WORDS.items() if words in ws), "neutral")
    typed = bool(data.get("typed"))
    details, key = deciding_steps(data.get("steps", []), str(data.get("headline", "")), 3 - typed)
    if typed:       # an opponent should see these dice were not read by the camera
        details = ["dice typed in with the buttons, not read by the camera", *details]
        key = None if key is None else key + 1
    prompt = ("RE-ROLL if a rule grants one (DICE-4), or ROLL again" if reroll_offered
              else "ROLL again, NEXT action, MEASURE")
    doubtful = sum(mark.doubtful for roll in rolls for mark in roll.marks)
    if doubtful:   # read less than CHECK_BELOW sure: the player looks before acting on it
        prompt = f"CHECK the {'die' if doubtful == 1 else 'dice'} marked ? - {prompt}"
    if data.get("close_call"):      # a measured distance too near a limit for the tape
        prompt = f"CHECK by hand: {data['close_call']} (MEAS-2) - {prompt}"
    return Screen(state="resolved", action=data.get("action_name", data["action"]),
                  command=data.get("command", data["action"]), position=position,
                  headline=outcome_words(data), tone=tone, details=details, key_detail=key,
                  rules=list(data.get("rules", [])),
                  # a ruling without dice is certain: "chance 100 %" says nothing
                  odds=data.get("odds") if data.get("dice") else None,
                  odds_of=data.get("odds_of", ""), prompt=prompt,
                  frame=rolls[-1].frame if rolls else None, marks=rolls[-1].marks if rolls else [],
                  rolls=rolls, reroll_offered=reroll_offered, entry_id=entry_id, seal=seal,
                  level="warn" if data.get("close_call") else "info")
