"""Bosch GLM 50 C / 100 C over Bluetooth serial (LASER_PROTOCOLS.md section 1).

Requests `C0 <cmd> <len> <payload> <crc8>`; replies `<status> <len> <payload> <crc8>`;
auto-sync pushes `C0 55 10 <16 bytes> <crc8>` for each measurement taken with the device's
own button; keep-alives `C0 11 00 3A`. A reply carries no command id, so the codec only
takes a reply while a request is waiting for one.
"""

from __future__ import annotations

import re
import struct

from station.laser.codec import DeviceError, Event, Notice, Reading, register
from station.laser.framing import INVALID, FramedCodec, any_of

STATUS = {0: "ok", 1: "timeout", 3: "checksum error", 4: "unknown command",
          5: "access level", 8: "hardware error", 10: "not ready"}
PUSH_HEADER = bytes([0xC0, 0x55, 0x10])
KEEP_ALIVE = bytes([0xC0, 0x11, 0x00, 0x3A])
MODE_DISTANCE, MODE_ANGLE, MODE_ERROR = 1, 8, 63
UNIT_MM = 0.05                 # the measure reply counts 0.05 mm steps
MAX_RANGE_MM = 150_000         # the GLM 100 C reads to 100 m; anything far beyond is noise

COMMANDS = {
    "measure": bytes([0xC0, 0x40, 0x00]),
    "laser_on": bytes([0xC0, 0x41, 0x00]),
    "laser_off": bytes([0xC0, 0x42, 0x00]),
    "backlight_on": bytes([0xC0, 0x47, 0x00]),
    "auto_sync": bytes([0xC0, 0x55, 0x02, 0x01, 0x00]),
}


def _crc_table() -> bytes:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0xA6) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
        table.append(crc)
    return bytes(table)


CRC_TABLE = _crc_table()


def crc8(data: bytes) -> int:
    """CRC-8, polynomial 0xA6, initial 0xAA, MSB first, no reflection, no final XOR."""
    crc = 0xAA
    for byte in data:
        crc = CRC_TABLE[crc ^ byte]
    return crc


def with_crc(body: bytes) -> bytes:
    return body + bytes([crc8(body)])


@register
class GlmCodec(FramedCodec):
    name = "glm"
    baudrate = 9600          # ignored by Bluetooth rfcomm, kept for USB-serial bridges
    commands = tuple(COMMANDS)
    push_setup = ("auto_sync",)
    button_pushes = True
    inner_headers = (PUSH_HEADER, KEEP_ALIVE)
    tail_prefix_min = 2

    def __init__(self) -> None:
        super().__init__()
        self._awaiting: str | None = None    # the request whose reply is due

    def encode(self, command: str) -> bytes:
        if command not in COMMANDS:
            raise self._unknown(command)
        # The device answers one request at a time: an unfinished reply to an earlier
        # request can never complete now, so drop it (pushed frames start with C0: kept).
        if self._awaiting is not None:
            start = self._buffer.find(0xC0)
            del self._buffer[:start if start >= 0 else len(self._buffer)]
        self._awaiting = command
        return with_crc(COMMANDS[command])

    def _start_pattern(self) -> re.Pattern[bytes]:
        return any_of(b"\xc0" if self._awaiting is None else b"\xc0" + bytes(STATUS))

    def _frame_length(self, buf: bytearray, pos: int) -> int | None:
        if len(buf) - pos < 2:
            return None
        if buf[pos] == 0xC0:
            if len(buf) - pos < 3:
                return None
            if buf[pos + 1] == 0x55 and buf[pos + 2] == 0x10:
                return 20
            if buf[pos + 1] == 0x11 and buf[pos + 2] == 0x00:
                return 4
            return 0
        if self._awaiting is None or buf[pos] not in STATUS:
            return 0
        length = buf[pos + 1]
        if buf[pos] == 0 and length == (4 if self._awaiting == "measure" else 0):
            return 3 + length
        return 3 if buf[pos] != 0 and length == 0 else 0

    def _decode(self, frame: bytes) -> Event | None | object:
        if crc8(frame[:-1]) != frame[-1]:
            return INVALID
        if frame == KEEP_ALIVE:
            return None
        if frame[0] == 0xC0:
            return _pushed(frame[3:19])
        if frame[0] != 0:
            return DeviceError(str(frame[0]), f"GLM: {STATUS[frame[0]]}")
        if len(frame) == 3:
            return Notice("ack", f"GLM: {self._awaiting}")
        units = struct.unpack_from("<I", frame, 2)[0]
        if units * UNIT_MM > MAX_RANGE_MM:
            return INVALID
        return Reading(round(units * UNIT_MM, 2))

    def _accepted(self, frame: bytes) -> None:
        if frame[0] != 0xC0:
            self._awaiting = None


def _pushed(payload: bytes) -> Event | object:
    mode = payload[0] >> 2
    value = struct.unpack_from("<f", payload, 4)[0]
    if mode == MODE_ERROR:
        return DeviceError(str(MODE_ERROR), "GLM: the device reported a measuring error",
                           pushed=True)
    if mode == MODE_ANGLE:
        return Notice("angle", f"{value:.1f} degrees (an inclination, not a distance)")
    if mode != MODE_DISTANCE:
        return Notice("mode", f"GLM measuring mode {mode}: not a single distance")
    if not 0 <= value * 1000 <= MAX_RANGE_MM:        # also refuses NaN
        return INVALID
    return Reading(round(value * 1000, 2), pushed=True, reference_edge=str(payload[0] & 0b11))
