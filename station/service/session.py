"""The session: the one stateful part of the station, a state machine driven by intents.

    idle ──ROLL──► waiting ─► settling ─► reading ─► resolved ──(ROLL, NEXT, RE-ROLL...)
      │              ▲            (one round per dice request of the ruling)
      ├─MEASURE─► measuring ─► measured
      └─ any hardware error ─► idle, with the problem on the screen

Data flows one way: read, resolve, journal, show. Every reading and outcome is written to
the journal (committed) before the screen shows it. A ruling runs against a `TraySource`
(the camera); a re-roll (DICE-4) runs the ruling again with its re-roll option, the first
roll replayed from the previous outcome and the re-roll taken from the tray.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from station.camera import CameraError
from station.config import ActionChoice
from station.controls import Intent
from station.display.screen import DieMark, Screen
from station.journal import Journal
from station.journal.seal import short
from station.rules import actions as rules
from station.rules.faces import DiceExhausted, RerollNow
from station.service.laser import LaserError
from station.service.measured import (Measured, base_to_base, close_call, tape_param,
                                      with_distance)
from station.service.memory import release_freed_memory
from station.service.screens import measurement_details, outcome_screen, outcome_words
from station.service.tray_source import Cancelled, TraySource, encode_jpeg

log = logging.getLogger(__name__)

LIVE_FPS = 5              # live tray frames a second on the screens that show them


@dataclass
class Resolved:
    """The last outcome, kept for RE-ROLL."""

    choice: ActionChoice
    params: dict[str, Any]
    outcome: Any
    entry_id: int
    rerolled: bool
    measured: Measured | None = None    # the tape's distance it took (a re-roll takes it too)


class Session:
    def __init__(self, *, actions: list[ActionChoice], camera: Any,
                 read: Callable[[np.ndarray], list[Any]], new_watcher: Callable[[], Any],
                 journal: Journal, show: Callable[[Screen], None],
                 laser: Any = None, status: Callable[[str], None] = lambda state: None,
                 fps: float = 10.0, still_frames: int = 1, roll_timeout: float | None = None,
                 hardware: dict[str, str] | None = None,
                 show_live: Callable[[Screen], None] | None = None) -> None:
        self.actions = actions
        self.tapes = [tape_param(a) for a in actions]      # the parameter the tape gives
        self.params = [rules.parse_params(a.ruling, (with_distance(a, t, 1.0) if t else a).params)
                       for a, t in zip(actions, self.tapes)]   # a tape's: parsed at ROLL
        self.measured: Measured | None = None   # the tape's distance for the chosen action
        self.rolling_details: list[str] = []    # said on the screens of the roll going on
        self.camera, self.read, self.new_watcher = camera, read, new_watcher
        self.journal, self.show, self.laser, self.status = journal, show, laser, status
        self.fps, self.still_frames, self.roll_timeout = fps, still_frames, roll_timeout
        self.show_live, self._live_at = show_live, 0.0
        self.intents: "queue.Queue[Intent]" = queue.Queue()
        self.index = 0
        self.state = "idle"
        self.screen: Screen | None = None
        self.last: Resolved | None = None
        self.last_frame: np.ndarray | None = None   # the tray the last outcome was read from
        self.hardware: dict[str, str] = dict(hardware or {})   # what is down, and why
        self.ready = threading.Event()       # set while the session waits for the next intent
        self.consumed = 0                    # intents taken so far (--script waits on it)
        self._after_roll: list[Intent] = []  # MEASURE pressed during a roll, for after it
        self.stopped = False

    # --- the loop ---------------------------------------------------------------------

    def run(self) -> None:
        """Serve intents until QUIT."""
        self.idle()
        while not self.stopped:
            self.handle(self._take(None))
            release_freed_memory()       # at rest between intents: hold only what is in use

    def _take(self, timeout: float | None) -> Intent:
        """The next intent (queue.Empty after `timeout`; 0: only one already waiting)."""
        if timeout == 0:
            intent = self.intents.get_nowait()
        else:
            self.ready.set()
            try:
                intent = self.intents.get(timeout=timeout)
            finally:
                self.ready.clear()
        self.consumed += 1
        return intent

    def handle(self, intent: Intent) -> None:
        try:
            if intent is Intent.QUIT:
                self.stopped = True
            elif intent is Intent.NEXT:
                self.index = (self.index + 1) % len(self.actions)
                self.last = self.measured = None
                self.idle()
            elif intent is Intent.ROLL:
                self.roll(manual=False)
            elif intent is Intent.MANUAL:
                self.roll(manual=True)
            elif intent is Intent.REROLL:
                self.reroll()
            elif intent is Intent.MEASURE:
                self.measure()
            elif intent is Intent.PUSHED:
                self.measure(pushed=True)
        except Exception as error:          # nothing stops the station: say it, go back to idle
            log.exception("while handling %s", intent.value)
            self.problem(f"{type(error).__name__}: {error}")
        while self._after_roll:             # pressed while the dice rolled: their turn now,
            self.handle(self._after_roll.pop(0))    # before a NEXT pressed after the roll

    def next_intent(self, timeout: float) -> Intent | None:
        """For the tray source: the next intent, waiting up to `timeout` seconds. MEASURE
        (or the tape's own button) pressed while the dice roll is kept for after the roll."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                intent = self._take(max(0.0, deadline - time.monotonic()) if timeout else 0)
            except queue.Empty:
                return None
            if intent in (Intent.MEASURE, Intent.PUSHED):
                self._after_roll.append(intent)
                continue
            if intent is Intent.QUIT:
                self.stopped = True
            return intent

    # --- actions ------------------------------------------------------------------------

    @property
    def choice(self) -> ActionChoice:
        return self.actions[self.index]

    def roll(self, *, manual: bool, again: Resolved | None = None) -> None:
        """Run the chosen ruling on the tray; `again`: re-roll that outcome (DICE-4)."""
        choice, params = self.choice, dict(self.params[self.index])
        measured, tape = (again.measured if again else None), self.tapes[self.index]
        if again is None and tape is not None:
            if self.measured is None:
                self.idle(f"MEASURE first: {choice.name} takes its {tape.name} from the "
                          "laser tape", level="warn")
                return
            measured = self.measured
            choice = with_distance(choice, tape, measured.inches)
            try:
                params = rules.parse_params(choice.ruling, choice.params)
            except ValueError as error:           # e.g. beyond 1000 in: not a table's distance
                self.idle(f"ROLL: {choice.name} cannot take the measured {measured.inches:g} in "
                          f"({error}). MEASURE again.", level="warn")
                return
        tray = TraySource(self, self.camera, self.read, self.new_watcher, fps=self.fps,
                          timeout=self.roll_timeout, manual=manual, previous=self.last_frame,
                          still_frames=self.still_frames)
        rerolled = again is not None
        # the waiting screens say which distance the dice are rolled at
        self.rolling_details = [] if measured is None else [
            f"{measured.param} {measured.inches:g} in, measured (journal #{measured.entry_id})"]
        try:
            if again is not None:
                choice, params = again.choice, again.params
                outcome = rules.reroll(again.outcome, tray)
            else:
                try:
                    outcome = rules.resolve(choice.ruling, params, tray)
                except RerollNow as now:     # RE-ROLL before the ruling's next dice (DICE-4)
                    rerolled = True
                    outcome = rules.reroll_now(choice.ruling, params, now.faces, tray)
        except Cancelled as why:
            self.idle(self._abandoned(choice, again, tray.readings, str(why), rerolled),
                      level="warn")
            return
        except CameraError as error:
            self.hardware["camera"] = str(error)
            self.problem(f"Camera: {error}")
            return
        except DiceExhausted as error:
            self.problem(str(error))
            return
        finally:
            self.rolling_details = []
        self.hardware.pop("camera", None)
        if tray.last_frame is not None:
            self.last_frame = tray.last_frame
        data = {**outcome.to_json(), "action_name": choice.name, "command": choice.command,
                "reroll_of": again.entry_id if again is not None else None,
                "typed": tray.typed}
        if measured is not None:
            data["measured"] = measured.to_json()
            if call := close_call(choice.ruling, params, measured):
                data["close_call"] = call
        entry_id = self.journal.add_outcome(choice.name, outcome_words(data), data,
                                            tray.readings)
        self.last = Resolved(choice, params, outcome, entry_id, rerolled, measured)
        self.set_state("resolved", outcome_screen(
            data, tray.rolls, entry_id,
            position=(self.index + 1, len(self.actions)),
            reroll_offered=self.reroll_allowed(), seal=short(self.journal.seal_of(entry_id))))

    def _abandoned(self, choice: ActionChoice, again: Resolved | None, readings: list[int],
                   why: str, rerolled: bool) -> str:
        """A ruling given up (NEXT, a timeout) after some of its dice were read: the players
        have seen them, so they are not undone. They are journalled as an abandoned outcome,
        and a re-roll whose dice were seen is used (DICE-4): else NEXT would give a second.
        `rerolled`: a re-roll was taken in it (after a result, or before its next dice)."""
        if not readings:
            return f"{why}."
        step = ("the re-roll was given up after its dice were read: it is used; the first "
                "result stands" if again is not None else
                "a roll was re-rolled before the ruling was given up: the re-roll is used")
        steps = [{"rule": "DICE-4", "text": step}] if rerolled else []
        data = {"action": choice.ruling, "outcome": "abandoned", "headline": "ABANDONED",
                "action_name": choice.name, "command": choice.command, "reason": why,
                "steps": steps, "rules": ["DICE-4"] if rerolled else [],
                "reroll_of": again.entry_id if again is not None else None}
        entry_id = self.journal.add_outcome(choice.name, "ABANDONED", data, readings)
        if again is not None:
            self.last = dataclasses.replace(again, rerolled=True)
            return (f"{why}: the re-roll's dice were read, so it is used (DICE-4); the first "
                    f"result stands (journal #{entry_id}).")
        self.last = None        # dice of a newer roll were seen: an older result is not re-rolled
        return f"{why}: the dice read so far are journalled (#{entry_id})."

    def reroll_allowed(self) -> bool:
        last = self.last
        return bool(last and not last.rerolled and last.outcome.rerollable
                    and rules.get(last.choice.ruling).reroll_param)

    def reroll(self) -> None:
        if not self.reroll_allowed():
            passed = self.last and self.last.outcome.reroll_passed
            why = ("nothing to re-roll yet" if self.last is None else
                   "no die is re-rolled more than once (DICE-4)" if self.last.rerolled else
                   f"too late for {passed}: the next dice are rolled (DICE-4)" if passed
                   else "the rules allow no re-roll of this result (DICE-4)")
            if self.state == "resolved" and self.screen is not None:   # the result stays up
                self.set_state("resolved", dataclasses.replace(
                    self.screen, prompt=f"RE-ROLL: {why}. ROLL again, NEXT action, MEASURE",
                    level="warn", reroll_offered=False))
            else:
                self.idle(f"RE-ROLL: {why}.", level="warn")
            return
        self.roll(manual=False, again=self.last)

    def measure(self, pushed: bool = False) -> None:
        """MEASURE: ask the tape for a distance; `pushed`: take the one it sent by itself
        (its own button was pressed)."""
        if self.laser is None:
            if not pushed:
                self.idle("MEASURE: no laser tape is configured (laser.device in the config).",
                          level="warn")
            return
        if not pushed:
            self.set_state("measuring", self.base_screen(
                "measuring", headline="…", prompt="Aim the laser tape and hold still"))
        try:
            reading = self.laser.latest_pushed() if pushed else self.laser.measure()
            if reading is None:               # already shown with an earlier press's intent
                return
        except LaserError as error:
            if self.tapes[self.index]:        # the players aimed at a new target: the old
                self.measured = None          # distance is not its distance
            if error.lost:                    # listed on every screen until it is back
                self.hardware["laser"] = str(error)
            else:                             # it answered, with an error: it is there
                self.hardware.pop("laser", None)
            self.problem(f"Laser: {error}")
            return
        self.hardware.pop("laser", None)
        choice, tape = self.choice, self.tapes[self.index]
        inches = base_to_base(tape, reading) if tape else reading.inches
        data = reading.to_json()
        if tape:                                  # what the action's ruling will take
            data.update(param=tape.name, base_to_base_inches=inches)
            if tape.base_mm is not None:
                data["base_radius_mm"] = tape.base_mm / 2
        # to 0.01 in where a ruling takes it: 10.04 in is out of RNG 10
        headline = f"{inches:.2f} in" if tape else f"{inches:.1f} in"
        entry_id = self.journal.add_measurement(choice.name, headline, data)
        prompt = reading.warning or "MEASURE again, ROLL for the dice"
        if tape:
            # a doubtful reading (the tape measuring from another edge) is not the target's
            self.measured = None if reading.warning else Measured(tape.name, inches, entry_id)
            prompt = (f"{reading.warning}: ROLL will not take it, MEASURE again"
                      if reading.warning else
                      f"ROLL: {choice.name} at {inches:g} in; MEASURE again to change it")
        self.set_state("measured", self.base_screen(
            "measured", headline=headline, details=measurement_details(choice.name, data),
            rules=["MEAS-1", "MEAS-2"], entry_id=entry_id,
            seal=short(self.journal.seal_of(entry_id)), prompt=prompt,
            level="warn" if reading.warning else "info"))

    # --- screens ---------------------------------------------------------------------

    def journal_reading(self, data: dict[str, Any], dice: list[dict[str, Any]],
                        frame: np.ndarray | None) -> int:
        jpeg = encode_jpeg(frame) if frame is not None else None
        headline = data.get("problem") or " ".join(   # "?": a die read with no value
            "?" if d.get("value") is None else str(d.get("value")) for d in dice)
        return self.journal.add_reading(self.choice.name, headline, data, dice, jpeg)

    def live(self, frame: np.ndarray) -> None:
        """While the dice roll and settle, the screens that can keep up show the tray live
        (at most LIVE_FPS; nothing of this goes to the journal or the PNG files)."""
        now = time.monotonic()
        if self.screen is None or self.show_live is None or now - self._live_at < 1 / LIVE_FPS:
            return
        self._live_at = now
        self.show_live(dataclasses.replace(self.screen, frame=frame, marks=[]))

    def prompt(self, state: str, headline: str, prompt: str, *, level: str = "info",
               frame: np.ndarray | None = None, marks: list[DieMark] | None = None,
               reroll_offered: bool = False) -> None:
        self.set_state(state, self.base_screen(state, headline=headline, prompt=prompt,
                                               level=level, frame=frame, marks=marks or [],
                                               reroll_offered=reroll_offered,
                                               details=self.rolling_details))

    def idle(self, message: str = "", level: str = "info") -> None:
        choice = self.choice
        action = rules.get(choice.ruling)
        details = [action.summary, choice.command]
        tape, measured = self.tapes[self.index], self.measured
        if message:
            prompt = message
        elif tape and measured is None:
            prompt = f"MEASURE first ({tape.name} comes from the laser tape), then press ROLL"
        elif tape and measured:
            prompt = (f"ROLL with {tape.name}={measured.inches:g} in (measured, "
                      f"#{measured.entry_id}), or MEASURE again")
        else:
            prompt = ("Press ROLL, then roll the dice (hold ROLL to type them in)"
                      if action.dice else "Press ROLL to show it (no dice to roll)")
        self.set_state("idle", self.base_screen("idle", details=details, rules=list(action.rules),
                                                prompt=prompt, level=level))

    def problem(self, message: str) -> None:
        """A hardware or unexpected error: back to idle, the message on the screen, LED red."""
        self.status("error")
        self.state = "idle"
        screen = self.base_screen("error", prompt=message, level="error")
        self.screen = screen
        self.show(screen)

    def base_screen(self, state: str, **fields: Any) -> Screen:
        choice = self.choice
        return Screen(state=state, action=choice.name, command=choice.command,
                      position=(self.index + 1, len(self.actions)),
                      hardware=self.hardware_down(), **fields)

    def hardware_down(self) -> dict[str, str]:
        """What is down, and why: what failed while in use, a laser not connected now, a tray
        calibration the camera no longer matches, a journal changed under the station."""
        down = dict(self.hardware)
        laser_down = getattr(self.laser, "down", None)
        if laser_down:
            down["laser"] = laser_down
        tray_problem = getattr(self.read, "problem", None)
        if tray_problem:
            down["tray"] = tray_problem
        if getattr(self.journal, "last_break", None):   # tampering, a file deleted: said on
            down["journal"] = self.journal.last_break      # every screen, to the table
        return down

    def set_state(self, state: str, screen: Screen) -> None:
        self.state = state
        screen.hardware = {**self.hardware_down(), **screen.hardware}
        self.screen = screen
        self.status(state)
        self.show(screen)
