"""The station's buttons, status LED and buzzer, through gpiozero.

Buttons ROLL, MEASURE, NEXT ACTION and RE-ROLL become `Intent`s on a queue that the session
reads. ROLL acts on release, so that holding it (`hold_seconds`) can mean something else:
manual entry of the faces. On a laptop or in simulation the pins are gpiozero `MockFactory`
pins, and `press()` drives them (the keyboard and `--script` use it), so the same gpiozero
code paths run as on a Pi.
"""

from __future__ import annotations

import enum
import logging
import queue
import threading
import time
from typing import Any

log = logging.getLogger(__name__)


class Intent(enum.Enum):
    ROLL = "roll"
    MANUAL = "manual"          # long press on ROLL
    MEASURE = "measure"
    NEXT = "next"
    REROLL = "reroll"
    QUIT = "quit"
    PUSHED = "pushed"          # the laser tape sent a reading by itself (its own button)


HOLD_GRACE_SECONDS = 5.0      # simulated hold: the longest wait for gpiozero to see it

BUTTONS = {"roll": Intent.ROLL, "measure": Intent.MEASURE, "next": Intent.NEXT,
           "reroll": Intent.REROLL}


class ControlsError(Exception):
    """A pin cannot be used: the message names the setting and the fix."""


class Controls:
    """Buttons to intents; status LED and buzzer from the session's state."""

    def __init__(self, settings: dict[str, Any], intents: "queue.Queue[Intent]", *,
                 pin_factory: Any = None) -> None:
        from gpiozero import LED, Button, Buzzer
        from gpiozero.exc import GPIOZeroError

        self.intents = intents
        self.factory = pin_factory
        self.settings = settings
        bounce = settings["bounce_ms"] / 1000 or None
        self.buttons: dict[str, Any] = {}
        self._held: set[str] = set()
        self._hold_seen = threading.Event()
        self._bounce = settings["bounce_ms"] / 1000
        self._last: dict[str, float] = {}
        self._press_lock = threading.Lock()
        try:
            for name in BUTTONS:
                key = f"controls.{name}"
                button = self._make(key, lambda pin: Button(
                    pin, bounce_time=bounce, hold_time=settings["hold_seconds"],
                    pin_factory=pin_factory), settings[name])
                self.buttons[name] = button
            roll = self.buttons["roll"]
            roll.when_held = lambda: self._on_held("roll")
            roll.when_released = lambda: self._on_released("roll")
            for name in ("measure", "next", "reroll"):
                self.buttons[name].when_pressed = (lambda n: lambda: self._on_pressed(n))(name)
            self.led = self._make("controls.led", lambda pin: LED(pin, pin_factory=pin_factory),
                                  settings["led"])
            self.buzzer = None
            if settings["buzzer"] != -1:
                self.buzzer = self._make("controls.buzzer",
                                         lambda pin: Buzzer(pin, pin_factory=pin_factory),
                                         settings["buzzer"])
        except GPIOZeroError:
            self.close()
            raise

    def _make(self, key: str, build, pin: Any) -> Any:
        from gpiozero.exc import BadPinFactory, GPIOZeroError
        try:
            return build(pin)
        except BadPinFactory:                 # no GPIO on this machine, not a bad pin
            raise
        except GPIOZeroError as error:
            raise ControlsError(f"{key}: pin {pin!r} cannot be used ({error}). Give a free GPIO "
                                "pin (BCM number) wired as docs/service.md shows") from error

    def _debounced(self, name: str) -> bool:
        """True for a real press; False for contact chatter within bounce_ms of the last one.
        (Pin drivers differ in how they debounce, and mock pins do not: do it here too.)"""
        now = time.monotonic()
        if now - self._last.get(name, -1e9) < self._bounce:
            return False
        self._last[name] = now
        return True

    def _on_pressed(self, name: str) -> None:
        if self._debounced(name):
            self.intents.put(BUTTONS[name])

    def _on_held(self, name: str) -> None:
        self._held.add(name)
        self.intents.put(Intent.MANUAL)
        self._hold_seen.set()

    def _on_released(self, name: str) -> None:
        if name in self._held:
            self._held.discard(name)
            return
        if self._debounced(name):
            self.intents.put(BUTTONS[name])

    # --- simulated presses (keyboard, --script) ---------------------------------------

    @property
    def simulated(self) -> bool:
        from gpiozero.pins.mock import MockFactory
        return isinstance(self.factory, MockFactory)

    def press(self, name: str, *, hold: bool = False) -> None:
        """Press button `name` ("roll", ...): drives the mock pin low, then high again after a
        short press or, with `hold`, after the hold time. Without mock pins (a real Pi with a
        keyboard attached) the intent goes straight to the queue."""
        if not self.simulated:
            self.intents.put(Intent.MANUAL if hold else BUTTONS[name])
            return
        pin = self.buttons[name].pin
        with self._press_lock:
            self._hold_seen.clear()
            pin.drive_low()
            if hold:
                # gpiozero reports a hold from its own thread, late on a busy machine: keep
                # the button down until it has (a fixed time let a late hold become a ROLL).
                self._hold_seen.wait(self.settings["hold_seconds"] + HOLD_GRACE_SECONDS)
            else:
                time.sleep(2 * self.settings["bounce_ms"] / 1000 + 0.02)
            pin.drive_high()
            time.sleep(self.settings["bounce_ms"] / 1000 + 0.01)

    # --- outputs --------------------------------------------------------------------------

    def status(self, state: str) -> None:
        """LED: steady when ready, slow blink while busy, fast blink on an error."""
        try:
            if state == "error":
                self.led.blink(on_time=0.1, off_time=0.1)
                if self.buzzer:
                    self.buzzer.beep(on_time=0.08, off_time=0.08, n=3)
            elif state in ("idle", "resolved", "measured"):
                self.led.on()
                if self.buzzer and state != "idle":
                    self.buzzer.beep(on_time=0.05, off_time=0.05, n=1)
            else:
                self.led.blink(on_time=0.3, off_time=0.3)
        except Exception as error:      # an LED is never worth stopping the station for
            log.warning("status LED: %s", error)

    def close(self) -> None:
        for device in [*self.buttons.values(), getattr(self, "led", None), getattr(self, "buzzer", None)]:
            if device is not None:
                device.close()
