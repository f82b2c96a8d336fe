""""$...&" laser tape boards, 115200 8N1 (LASER_PROTOCOLS.md section 5).

ASCII `$` + digits + a 2-digit checksum + `&`; the checksum is the sum of the two-digit
pairs between `$` and it, modulo 100. A result is `$000621` + 8 digits of mm; the
"distances" 15 to 18 mm are error codes.
"""

from __future__ import annotations

from station.laser.codec import DeviceError, Event, Notice, Reading, register
from station.laser.framing import INVALID, FramedCodec

RESULT_PREFIX = b"000621"
ERRORS = {15: "too close", 16: "no echo", 17: "reflection too strong",
          18: "too much ambient light"}
MAX_FRAME = 40


def checksum(digits: bytes) -> int:
    return sum(int(digits[i:i + 2]) for i in range(0, len(digits), 2)) % 100


def frame(digits: bytes) -> bytes:
    return b"$" + digits + b"%02d" % checksum(digits) + b"&"


COMMANDS = {
    "measure": frame(b"000221"),
    "laser_on": frame(b"00032601"),
    "laser_off": frame(b"00032600"),
}


@register
class DollarCodec(FramedCodec):
    name = "dollar"
    baudrate = 115200
    commands = tuple(COMMANDS)
    start_bytes = b"$"

    def encode(self, command: str) -> bytes:
        if command not in COMMANDS:
            raise self._unknown(command)
        return COMMANDS[command]

    def _frame_length(self, buf: bytearray, pos: int) -> int | None:
        end = buf.find(b"&", pos + 1, pos + MAX_FRAME)
        if end < 0:
            digits_so_far = bytes(buf[pos + 1:pos + MAX_FRAME])
            if not digits_so_far.isdigit() and digits_so_far:
                return 0
            return None if len(buf) - pos < MAX_FRAME else 0
        return end + 1 - pos

    def _decode(self, frame: bytes) -> Event | None | object:
        body = frame[1:-1]
        if not body.isdigit() or len(body) % 2 or len(body) < 4:
            return INVALID
        if checksum(body[:-2]) != int(body[-2:]):
            return INVALID
        if not body.startswith(RESULT_PREFIX):
            return Notice("ack", f"$ board: {frame.decode()}")
        if len(body) != len(RESULT_PREFIX) + 10:
            return INVALID
        mm = int(body[6:14])
        if mm in ERRORS:
            return DeviceError(str(mm), f"$ board: {ERRORS[mm]}")
        return Reading(float(mm))
