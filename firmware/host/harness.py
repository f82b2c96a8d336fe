"""`HostedTape`: the real firmware (laser_tape.pico.build and everything it wires up),
run on CPython against the fake machine, a fake clock and a simulated laser module.

Tests drive it step by step with a ManualClock; the station's simulated tape runs it in real
time behind a pseudo-terminal (station/fakes/laser/tape.py).
"""

from __future__ import annotations

import sys
import threading

from firmware.host import fake_machine
from firmware.host.fake_time import ManualClock
from firmware.host.sim_laser import ModuleOnWires

# The firmware imports `machine` by name, as on the Pico; CPython has none, so ours stands in.
sys.modules.setdefault("machine", fake_machine)

from firmware.laser_tape import config, pico  # noqa: E402  (needs `machine` first)

_BUILDING = threading.Lock()    # config and fake_machine.created are shared while building


class HostLink:
    """The USB serial port as the firmware sees it; the test or the pty pump is the host."""

    def __init__(self) -> None:
        self.to_tape = bytearray()
        self.from_tape = bytearray()

    def read(self) -> bytes:
        data, self.to_tape = bytes(self.to_tape[:64]), self.to_tape[64:]
        return data

    def write(self, line: str) -> None:
        self.from_tape += line.encode()


class HostedTape:
    def __init__(self, module: str = "jrt", clock=None, **settings) -> None:
        """`settings` override config.py names (MODULE is `module`), e.g. LONG_PRESS_MS=500."""
        self.clock = clock or ManualClock()
        self.link = HostLink()
        overrides = dict(settings, MODULE=module)
        with _BUILDING:
            saved = {name: getattr(config, name) for name in overrides}
            fake_machine.created.clear()
            try:
                for name, value in overrides.items():
                    setattr(config, name, value)
                self.app = pico.build(link=self.link, clock=self.clock)
            finally:
                for name, value in saved.items():
                    setattr(config, name, value)
            built = list(fake_machine.created)
        self.uart = next(obj for obj in built if isinstance(obj, fake_machine.UART))
        pins = {obj.id: obj for obj in built if isinstance(obj, fake_machine.Pin)}
        self.button = pins[config.BUTTON_PIN]
        self.led = pins[config.LED_PIN]
        self.module = ModuleOnWires.of(module, self.clock)
        self.uart.device = self.module

    # --- the host side ----------------------------------------------------------------------
    def send(self, data: bytes | str) -> None:
        self.link.to_tape += data.encode() if isinstance(data, str) else data

    def output(self) -> bytes:
        data, self.link.from_tape = bytes(self.link.from_tape), bytearray()
        return data

    def lines(self) -> list[str]:
        return self.output().decode().splitlines()

    def quality(self) -> str:
        """How an `MM` line shows this module's signal quality (JRT: the simulated 24)."""
        return "24" if self.module.name == "jrt" else "-"

    # --- time and the button (ManualClock only) -----------------------------------------------
    def run(self, ms: int) -> None:
        """Let `ms` milliseconds pass, the firmware polling every millisecond as on the Pico."""
        for _ in range(ms):
            self.app.poll()
            self.clock.advance(1)

    def hold(self, level: int, ms: int) -> None:
        self.button.level = level
        self.run(ms)

    def press(self, ms: int) -> None:
        """Hold the trigger (pin low) for `ms`, then let go and wait past the debounce."""
        self.hold(0, ms)
        self.hold(1, 100)
