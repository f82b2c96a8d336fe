"""Simulated Bosch GLM 50 C / 100 C (LASER_PROTOCOLS.md section 1)."""

from __future__ import annotations

import struct

from station.fakes.laser.device import SimulatedDevice, simulator, take_frames
from station.laser.protocols.glm import (
    MODE_ANGLE, MODE_DISTANCE, MODE_ERROR, PUSH_HEADER, KEEP_ALIVE, UNIT_MM, crc8, with_crc)

MEASURE, LASER_ON, LASER_OFF, BACKLIGHT, AUTO_SYNC = 0x40, 0x41, 0x42, 0x47, 0x55
CHECKSUM_ERROR, UNKNOWN_COMMAND = 3, 4
EDGE_REAR = 2


@simulator
class SimulatedGlm(SimulatedDevice):
    name = "glm"
    baudrate = 9600
    default_error = "10"                     # not ready

    def __init__(self, distance_mm: float = 1000.0) -> None:
        super().__init__(distance_mm)
        self.auto_sync = False
        self.keep_alive_every = 0            # ticks between keep-alives; 0: none
        self._ticks = 0
        self._id = 0

    def link_lost(self) -> None:
        super().link_lost()
        self.auto_sync = False               # a new Bluetooth connection starts without it

    def _commands(self, inbox: bytearray) -> list[bytes]:
        replies = []
        for frame in take_frames(inbox, b"\xc0", lambda b: 4 + b[2] if len(b) >= 3 else None):
            if crc8(frame[:-1]) != frame[-1]:
                replies.append(with_crc(bytes([CHECKSUM_ERROR, 0])))
            elif frame[1] == MEASURE:
                replies.append(self.measurement())
            elif frame[1] in (LASER_ON, LASER_OFF, BACKLIGHT, AUTO_SYNC):
                self.auto_sync = self.auto_sync or frame[1] == AUTO_SYNC
                replies.append(with_crc(b"\x00\x00"))
            else:
                replies.append(with_crc(bytes([UNKNOWN_COMMAND, 0])))
        return replies

    def _pressed(self) -> list[bytes]:
        if not self.auto_sync:
            return []                        # without auto-sync the GLM keeps it to itself
        code = self.faults.take_error()
        if code is not None:
            return [self._push(MODE_ERROR, 0.0)]
        self.measurements += 1
        return [self.pushed_frame(self.distance_mm)]

    def non_distance_frames(self, value: float) -> list[bytes]:
        return [KEEP_ALIVE, self.push_angle(value)]

    def push_angle(self, degrees: float) -> bytes:
        return self._push(MODE_ANGLE, degrees)

    def pushed_frame(self, mm: float) -> bytes:
        return self._push(MODE_DISTANCE, mm / 1000)

    def _push(self, mode: int, value: float) -> bytes:
        self._id = (self._id + 1) & 0xFFFF
        payload = (bytes([mode << 2 | EDGE_REAR, 0]) + struct.pack("<H", self._id)
                   + struct.pack("<f", value) + bytes(8))
        return with_crc(PUSH_HEADER + payload)

    def tick(self) -> list[bytes]:
        self._ticks += 1
        if self.keep_alive_every and self._ticks % self.keep_alive_every == 0:
            return [KEEP_ALIVE]
        return []

    def reading_frame(self, mm: float) -> bytes:
        return with_crc(b"\x00\x04" + struct.pack("<I", round(mm / UNIT_MM)))

    def error_frame(self, code: str) -> bytes:
        return with_crc(bytes([int(code), 0]))
