"""Simulated JRT binary laser module (LASER_PROTOCOLS.md section 3)."""

from __future__ import annotations

from station.fakes.laser.device import SimulatedDevice, simulator, take_frames
from station.laser.protocols.jrt import ERR, OK, RESULT_REGISTER, frame

MEASURE_REGISTER, LASER_REGISTER = 0x0020, 0x01BE
QUALITY = 24


@simulator
class SimulatedJrt(SimulatedDevice):
    name = "jrt"
    baudrate = 19200
    default_error = "8"                      # signal too weak

    def _commands(self, inbox: bytearray) -> list[bytes]:
        replies = []
        length = lambda b: 7 + 2 * (b[4] << 8 | b[5]) if len(b) >= 6 else None  # noqa: E731
        for request in take_frames(inbox, bytes([OK]), length):
            if sum(request[1:-1]) & 0xFF != request[-1]:
                continue                     # the module ignores a damaged command
            register_ = request[2] << 8 | request[3]
            if register_ == MEASURE_REGISTER:
                replies.append(self.measurement())
            elif register_ == LASER_REGISTER:
                replies.append(request)      # a register write is echoed
        return replies

    def reading_frame(self, mm: float) -> bytes:
        return frame(OK, RESULT_REGISTER, round(mm).to_bytes(4, "big") + QUALITY.to_bytes(2, "big"))

    def non_distance_frames(self, value: float) -> list[bytes]:
        return [frame(OK, LASER_REGISTER, b"\x00\x01")]     # the laser-on echo

    def error_frame(self, code: str) -> bytes:
        return frame(ERR, 0, int(code).to_bytes(2, "big"))
