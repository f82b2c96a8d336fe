"""The station's own laser tape, simulated by running its real firmware.

The firmware (firmware/laser_tape, MicroPython for the Pico) runs here on CPython against a
fake `machine` module, a real-time clock and a simulated JRT module on its UART
(firmware/host). So `station simulate laser --device tape` and the simulated station talk to
the same code a Pico runs. The firmware is polled in real time while a host command waits
for its answer (up to 0.1 s; the module measures in 40 ms), and on every tick for anything
later (a timeout, a probe); `press()` holds the tape's trigger like a thumb would. Unplugging the USB cable powers the
Pico down: after `replug()` the tape starts afresh and says HELLO.

Needs a checkout of the project (the firmware folder lives beside `station/`).
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from station.fakes.laser.device import SimulatedDevice, simulator
from station.laser.protocols.tape import TapeCodec

CHECKOUT = Path(__file__).resolve().parents[3]
SHORT_PRESS_S = 0.08            # past the debounce, far from a long press
POLL_S = 0.001
MODULE = "jrt"                  # the module inside (the firmware tests cover both kinds)
MEASURING_MS = 40               # the module's time to measure: a quick one, for quick tests
ANSWER_WAIT_S = 0.1             # how long a host command waits for the tape's answer


@simulator
class SimulatedTape(SimulatedDevice):
    name = "tape"
    baudrate = TapeCodec.baudrate
    default_error = "jrt:8"     # the module inside says "signal too weak"

    def __init__(self, distance_mm: float = 1000.0) -> None:
        self._lock = threading.RLock()
        self._distance_mm = distance_mm
        self.firmware = None
        self._boot()
        super().__init__(distance_mm)

    @property
    def distance_mm(self) -> float:
        return self._distance_mm

    @distance_mm.setter
    def distance_mm(self, mm: float) -> None:
        self._distance_mm = mm
        self.firmware.module.device.distance_mm = mm

    def link_lost(self) -> None:
        super().link_lost()
        self._boot()

    def tick(self) -> list[bytes]:
        return [self._damaged(line) for line in self._pump()]

    def reading_frame(self, mm: float) -> bytes:
        """The line the tape's firmware writes for a reading of `mm` (its own formatter)."""
        return self._said("MM", str(round(mm)), "24", "-")

    def error_frame(self, code: str) -> bytes:
        return self._said("ERR", code, "-", "simulated module error")

    def corrupt(self, frame: bytes) -> bytes:
        """The line with one CRC digit changed."""
        at = frame.rfind(b"*") + 1
        digit = b"1" if frame[at:at + 1] != b"1" else b"2"
        return frame[:at] + digit + frame[at + 1:]

    # --- inside -------------------------------------------------------------------------------
    def _boot(self) -> None:
        if str(CHECKOUT) not in sys.path:
            sys.path.append(str(CHECKOUT))    # the firmware folder is not an installed package
        from firmware.host.fake_time import RealClock
        from firmware.host.harness import HostedTape

        with self._lock:
            self.firmware = HostedTape(MODULE, clock=RealClock())
            self.firmware.module.device.distance_mm = self._distance_mm
            self.firmware.module.delay_ms = MEASURING_MS

    def _said(self, *fields: str) -> bytes:
        with self._lock:
            pending = self.firmware.output()
            self.firmware.app.say(*fields)
            line = self.firmware.output()
            self.firmware.link.from_tape[:0] = pending
            return line

    def _commands(self, inbox: bytearray) -> list[bytes]:
        """Hand the host's bytes to the firmware and wait a little for its answer, so that
        a quick answer goes out at once (a slow one goes out with the next tick)."""
        with self._lock:
            self._arm_error()
            self.firmware.send(bytes(inbox))
            inbox.clear()
            deadline = time.monotonic() + ANSWER_WAIT_S
            while True:
                self.firmware.app.poll()
                if self.firmware.link.from_tape.endswith(b"\n") or time.monotonic() > deadline:
                    return self._pump()
                time.sleep(POLL_S)

    def _pressed(self) -> list[bytes]:
        """A short press of the trigger, in real time, as a thumb does it."""
        with self._lock:
            self.firmware.button.level = 0
            self._wait(SHORT_PRESS_S)
            self.firmware.button.level = 1
            self._wait(SHORT_PRESS_S)
            return self._pump()

    def _wait(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.firmware.app.poll()
            time.sleep(POLL_S)

    def _arm_error(self) -> None:
        """An injected device error goes to the module inside: its next measurement fails."""
        code = self.faults.take_error()
        if code is not None:
            self.firmware.module.fail_next(_status(code) or _status(self.default_error))

    def _pump(self) -> list[bytes]:
        """Poll the firmware once; its complete lines out."""
        with self._lock:
            self._arm_error()
            self.firmware.app.poll()
            return self.firmware.output().splitlines(keepends=True)


def _status(code: str) -> int | None:
    """The module's status number in an error code as the tape reports it ("jrt:8", "8")."""
    digits = code.rpartition(":")[2]
    return int(digits) if digits.isdigit() else None
