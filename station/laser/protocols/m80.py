""""0x80" laser modules (DFRobot-style 80 m TTL boards), 9600 8N1 (LASER_PROTOCOLS.md s. 4).

Frames `80 06 <cmd> <data> <cs>`, cs the two's complement of the sum of the bytes before it.
A result carries seven ASCII characters `ddd.ddd` metres, or `ERR...` with a code. The
protocol sheet gives results as `83`; DFRobot-style boards answer a single measurement
(`80 06 02`) with `82` and stream continuous results as `83`, so both are results here (the
laser tape's firmware reads both too).
"""

from __future__ import annotations

import re

from station.laser.codec import DeviceError, Event, Notice, Reading, register
from station.laser.framing import INVALID, FramedCodec

HEAD = 0x80
SINGLE_RESULT, RESULT, LASER = 0x82, 0x83, 0x85
LENGTHS = {SINGLE_RESULT: 11, RESULT: 11, LASER: 5}
METRES = re.compile(rb"\d{3}\.\d{3}")
ERROR = re.compile(rb"ERR[-\d ]{4}")


def checksum(body: bytes) -> int:
    return -sum(body) & 0xFF


def frame(body: bytes) -> bytes:
    return body + bytes([checksum(body)])


COMMANDS = {
    "measure": frame(b"\x80\x06\x02"),
    "continuous": frame(b"\x80\x06\x03"),
    "laser_on": frame(b"\x80\x06\x05\x01"),
    "laser_off": frame(b"\x80\x06\x05\x00"),
}


@register
class M80Codec(FramedCodec):
    name = "m80"
    baudrate = 9600
    commands = tuple(COMMANDS)
    push_setup = ("continuous",)
    start_bytes = bytes([HEAD])

    def encode(self, command: str) -> bytes:
        if command not in COMMANDS:
            raise self._unknown(command)
        return COMMANDS[command]

    def _frame_length(self, buf: bytearray, pos: int) -> int | None:
        if len(buf) - pos < 3:
            return None
        return LENGTHS.get(buf[pos + 2], 0) if buf[pos + 1] == 0x06 else 0

    def _decode(self, frame: bytes) -> Event | None | object:
        if checksum(frame[:-1]) != frame[-1]:
            return INVALID
        if frame[2] == LASER:
            return Notice("ack", f"laser {'on' if frame[3] else 'off'}")
        text = frame[3:10]
        if METRES.fullmatch(text):
            return Reading(round(float(text) * 1000, 3))
        if ERROR.fullmatch(text):
            code = text[3:].strip(b"- ").decode() or "?"
            return DeviceError(code, f"0x80 module error {text.decode()}")
        return INVALID
