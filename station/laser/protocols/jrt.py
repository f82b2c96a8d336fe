"""JRT binary laser modules (BB2X, BA9D...), UART 19200 8N1 by default (LASER_PROTOCOLS.md s. 3).

Frame `AA <addr> <reg hi> <reg lo> <count hi> <count lo> <count 16-bit words> <cs>`, cs the
sum of every byte after the first, modulo 256; error frames start `EE`. The result register
0x0022 holds the distance (uint32 big-endian mm) and the signal quality (uint16, lower is
stronger).
"""

from __future__ import annotations

from station.laser.codec import DeviceError, Event, Notice, Reading, register
from station.laser.framing import INVALID, FramedCodec

OK, ERR = 0xAA, 0xEE
RESULT_REGISTER = 0x0022
STATUS = {5: "out of range", 6: "invalid result", 7: "background light too strong",
          8: "signal too weak", 9: "signal too strong"}
MAX_WORDS = 8            # no register block the station reads is longer
MAX_RANGE_MM = 200_000


def frame(head: int, register_: int, payload: bytes, addr: int = 0) -> bytes:
    body = bytes([addr, register_ >> 8, register_ & 0xFF, 0, len(payload) // 2]) + payload
    return bytes([head]) + body + bytes([sum(body) & 0xFF])


COMMANDS = {
    "measure": frame(OK, 0x0020, b"\x00\x00"),
    "laser_on": frame(OK, 0x01BE, b"\x00\x01"),
    "laser_off": frame(OK, 0x01BE, b"\x00\x00"),
}


@register
class JrtCodec(FramedCodec):
    name = "jrt"
    baudrate = 19200
    commands = tuple(COMMANDS)
    start_bytes = bytes([OK, ERR])
    inner_headers = (b"\xaa\x00\x00\x22", b"\xee\x00\x00\x00", b"\xaa\x00\x01\xbe")

    def encode(self, command: str) -> bytes:
        if command not in COMMANDS:
            raise self._unknown(command)
        return COMMANDS[command]

    def _frame_length(self, buf: bytearray, pos: int) -> int | None:
        if len(buf) - pos < 6:
            return None
        words = buf[pos + 4] << 8 | buf[pos + 5]
        return 7 + 2 * words if 0 < words <= MAX_WORDS else 0

    def _decode(self, frame: bytes) -> Event | None | object:
        if sum(frame[1:-1]) & 0xFF != frame[-1]:
            return INVALID
        register_ = frame[2] << 8 | frame[3]
        if frame[0] == ERR:
            code = frame[6] << 8 | frame[7]
            return DeviceError(str(code), f"JRT: {STATUS.get(code, 'status code')} ({code})")
        if register_ != RESULT_REGISTER:
            return Notice("ack", f"JRT register 0x{register_:04X}")
        if len(frame) != 13:
            return INVALID
        mm = int.from_bytes(frame[6:10], "big")
        if mm > MAX_RANGE_MM:
            return INVALID
        return Reading(float(mm), quality=float(frame[10] << 8 | frame[11]))
