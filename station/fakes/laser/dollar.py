"""Simulated "$...&" laser tape board (LASER_PROTOCOLS.md section 5)."""

from __future__ import annotations

from station.fakes.laser.device import SimulatedDevice, simulator, take_frames
from station.laser.protocols.dollar import RESULT_PREFIX, checksum, frame

MEASURE = b"000221"


@simulator
class SimulatedDollar(SimulatedDevice):
    name = "dollar"
    baudrate = 115200
    default_error = "16"                     # no echo

    def _commands(self, inbox: bytearray) -> list[bytes]:
        replies = []
        length = lambda b: (b.find(b"&") + 1) or None  # noqa: E731
        for request in take_frames(inbox, b"$", length):
            digits = request[1:-1]
            if not digits.isdigit() or checksum(digits[:-2]) != int(digits[-2:]):
                continue
            replies.append(self.measurement() if digits[:-2] == MEASURE else request)
        return replies

    def reading_frame(self, mm: float) -> bytes:
        return frame(RESULT_PREFIX + b"%08d" % round(mm))

    def non_distance_frames(self, value: float) -> list[bytes]:
        return [frame(b"00032601")]                            # laser on, echoed

    def error_frame(self, code: str) -> bytes:
        return self.reading_frame(int(code))

    def corrupt(self, frame_: bytes) -> bytes:
        """The checksum digits are ASCII: change one into another digit."""
        wrong = (int(frame_[-2:-1]) + 5) % 10
        return frame_[:-2] + b"%d" % wrong + frame_[-1:]
