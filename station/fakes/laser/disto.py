"""Simulated Leica DISTO with Bluetooth serial (LASER_PROTOCOLS.md section 2)."""

from __future__ import annotations

from station.fakes.laser.device import SimulatedDevice, simulator

ACK = b"?\r\n"


@simulator
class SimulatedDisto(SimulatedDevice):
    name = "disto"
    baudrate = 9600
    default_error = "255"                    # received signal too weak

    def __init__(self, distance_mm: float = 1000.0) -> None:
        super().__init__(distance_mm)
        self.tracking = False
        self.unconfirmed = 0                 # SEND-key readings the host has not confirmed

    def _commands(self, inbox: bytearray) -> list[bytes]:
        replies = []
        while (end := inbox.find(b"\n")) >= 0:
            line = bytes(inbox[:end]).strip()
            del inbox[:end + 1]
            if line == b"cfm":
                self.unconfirmed = max(0, self.unconfirmed - 1)
            elif line == b"g":
                replies.append(self.measurement())
            elif line in (b"h", b"o", b"p", b"c"):
                self.tracking = line == b"h"
                replies.append(ACK)
            elif line:
                replies.append(b"@E203\r\n")    # the DISTO's "wrong command"
        return replies

    def _pressed(self) -> list[bytes]:
        self.unconfirmed += 1
        return [self.measurement()]

    def tick(self) -> list[bytes]:
        return [self.measurement()] if self.tracking else []

    def reading_frame(self, mm: float) -> bytes:
        tenths = round(mm * 10)
        if tenths % 10 == 0:
            return b"31..00%+09d\r\n" % (tenths // 10)
        return b"31..06%+09d\r\n" % tenths

    def non_distance_frames(self, value: float) -> list[bytes]:
        return [ACK, self.angle_frame(value)]

    def angle_frame(self, degrees: float) -> bytes:
        return b"22..00%+09d\r\n" % round(degrees * 100)

    def error_frame(self, code: str) -> bytes:
        return b"@E%s\r\n" % code.encode()

    def corrupt(self, frame: bytes) -> bytes:
        """No checksum on a DISTO: break the word's format instead."""
        return frame.replace(b"+", b"#").replace(b"-", b"#")
