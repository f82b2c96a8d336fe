"""Simulated "0x80" laser module (LASER_PROTOCOLS.md section 4)."""

from __future__ import annotations

from station.fakes.laser.device import SimulatedDevice, simulator, take_frames
from station.laser.protocols.m80 import checksum, frame

SINGLE, CONTINUOUS, LASER = 0x02, 0x03, 0x05


@simulator
class SimulatedM80(SimulatedDevice):
    name = "m80"
    baudrate = 9600
    default_error = "15"

    def __init__(self, distance_mm: float = 1000.0) -> None:
        super().__init__(distance_mm)
        self.continuous = False

    def _commands(self, inbox: bytearray) -> list[bytes]:
        replies = []
        length = lambda b: (5 if b[2] == LASER else 4) if len(b) >= 3 else None  # noqa: E731
        for request in take_frames(inbox, b"\x80", length):
            if checksum(request[:-1]) != request[-1]:
                continue
            if request[2] in (SINGLE, CONTINUOUS):
                self.continuous = request[2] == CONTINUOUS
                replies.append(self.measurement())
            elif request[2] == LASER:
                replies.append(frame(bytes([0x80, 0x06, 0x85, request[3]])))
        return replies

    def tick(self) -> list[bytes]:
        return [self.measurement()] if self.continuous else []

    def reading_frame(self, mm: float) -> bytes:
        return frame(b"\x80\x06\x83" + b"%07.3f" % (round(mm) / 1000))

    def non_distance_frames(self, value: float) -> list[bytes]:
        return [frame(b"\x80\x06\x85\x01")]                 # laser on, acknowledged

    def error_frame(self, code: str) -> bytes:
        return frame(b"\x80\x06\x83" + b"ERR--%s" % code.encode()[:2].rjust(2, b"0"))
