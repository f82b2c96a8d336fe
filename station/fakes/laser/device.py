"""The simulated-device framework: a device is bytes in, bytes out, plus what it pushes.

A `SimulatedDevice` subclass speaks one protocol byte-exact and knows nothing about ports:
`receive(bytes)` buffers what the host sent and returns the frames the device answers with;
`press()` is the device's own measure button (GLM auto-sync, DISTO SEND) and returns the
frames it pushes; `tick()` is called a few times a second for what a device sends on its own
(keep-alives, continuous mode). `faults` injects the trouble real links have: device error
codes, corrupted checksums, garbage, split and slow frames. `station.fakes.laser.ptylink`
puts a device on a pseudo-terminal.

A module in this package registers its device with `@simulator`; the package is scanned,
so a new device (the station's own `tape`) plugs in by just existing here. A subclass sets
`name`, `baudrate` and `default_error` and implements `_commands` (host commands to
replies), `reading_frame(mm)` and `error_frame(code)`; it may override `_pressed`, `tick`,
`corrupt`, `non_distance_frames` and `link_lost`. The fuzz test in tests/laser runs
against every registered device.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import ClassVar


@dataclass
class Faults:
    """Trouble to inject; each one-shot fault applies to the next frame(s) and clears."""

    error_code: str | None = None      # next measurement answers with this device error
    errors_left: int = 0               # ... for this many measurements (0 = while set)
    bad_checksum: int = 0              # corrupt the check of the next N frames
    garbage: int = 0                   # random bytes before the next N frames
    split: bool = False                # send frames in random pieces with short pauses
    delay_s: float = 0.0               # answer requests this late (a slow measurement)
    rng: random.Random = field(default_factory=lambda: random.Random(0))

    def take_error(self) -> str | None:
        code = self.error_code
        if code is not None and self.errors_left:
            self.errors_left -= 1
            if not self.errors_left:
                self.error_code = None
        return code


class SimulatedDevice:
    """One simulated device; subclasses implement `_commands` and the frame builders."""

    name: ClassVar[str]
    baudrate: ClassVar[int]
    default_error: ClassVar[str]       # the code `--fault error` injects when none is given

    def __init__(self, distance_mm: float = 1000.0) -> None:
        self.distance_mm = distance_mm
        self.faults = Faults()
        self._inbox = bytearray()
        self.measurements = 0          # measurements the device has taken and sent

    # --- what the host and the player do ----------------------------------------------------
    def receive(self, data: bytes) -> list[bytes]:
        """Bytes from the host in; the frames the device answers with out."""
        self._inbox += data
        return [self._damaged(frame) for frame in self._commands(self._inbox)]

    def press(self) -> list[bytes]:
        """The device's own measure button; pushed frames out (none if it would not send)."""
        return [self._damaged(frame) for frame in self._pressed()]

    def tick(self) -> list[bytes]:
        """Called a few times a second: frames the device sends on its own."""
        return []

    def link_lost(self) -> None:
        """The link was cut: a half-received command is gone."""
        self._inbox.clear()

    def measurement(self) -> bytes:
        """The frame for one measurement now: the distance, or the injected error."""
        code = self.faults.take_error()
        if code is not None:
            return self.error_frame(code)
        self.measurements += 1
        return self.reading_frame(self.distance_mm)

    # --- for subclasses ----------------------------------------------------------------------
    def _commands(self, inbox: bytearray) -> list[bytes]:
        """Take every complete command off the front of `inbox`; return the replies."""
        raise NotImplementedError

    def _pressed(self) -> list[bytes]:
        return [self.measurement()]

    def reading_frame(self, mm: float) -> bytes:
        """The frame that answers a measure request with `mm`."""
        raise NotImplementedError

    def error_frame(self, code: str) -> bytes:
        raise NotImplementedError

    def non_distance_frames(self, value: float) -> list[bytes]:
        """Valid frames that carry no distance (keep-alives, acknowledgements, an angle of
        `value` degrees): a codec must never turn them into a reading."""
        return []

    def corrupt(self, frame: bytes) -> bytes:
        """The frame with a wrong check (the last byte is the checksum by default)."""
        return frame[:-1] + bytes([frame[-1] ^ 0x5A])

    # --- faults ------------------------------------------------------------------------------
    def _damaged(self, frame: bytes) -> bytes:
        if self.faults.bad_checksum:
            self.faults.bad_checksum -= 1
            frame = self.corrupt(frame)
        if self.faults.garbage:
            self.faults.garbage -= 1
            rng = self.faults.rng
            frame = bytes(rng.randrange(256) for _ in range(rng.randint(1, 12))) + frame
        return frame


SIMULATORS: dict[str, type[SimulatedDevice]] = {}


def simulator(cls: type[SimulatedDevice]) -> type[SimulatedDevice]:
    """Class decorator: make a simulated device available by its name (`--device NAME`)."""
    SIMULATORS[cls.name] = cls
    return cls


def take_frames(inbox: bytearray, start: bytes, length_of) -> list[bytes]:
    """Cut complete frames that begin with `start` off the front of `inbox`.

    `length_of(inbox)` gives the frame length at the front (None: wait for more bytes).
    Bytes before a start byte are dropped, as a device's parser would.
    """
    frames = []
    while True:
        begin = inbox.find(start)
        if begin < 0:
            inbox.clear()
            return frames
        del inbox[:begin]
        length = length_of(inbox)
        if length is None or length > len(inbox):
            return frames
        frames.append(bytes(inbox[:length]))
        del inbox[:length]
