"""Leica DISTO with Bluetooth serial (D3a BT, D8, D330i), 9600 8N1 (LASER_PROTOCOLS.md s. 2).

ASCII lines ending CR LF. `?` acknowledges, `@E<nnn>` is an error, data lines are words
`WI..UU+dddddddd` separated by spaces (GSI-16: `*` and 16 digits): word 31 a distance, word 22 an inclination in 0.01
degrees. There is no checksum, so a word must match its format exactly to count. A distance
the host did not ask for came from the SEND key: the device then wants `cfm` LF back.
"""

from __future__ import annotations

import re

from station.laser.codec import Codec, DeviceError, Event, Notice, Reading, register

COMMANDS = {"measure": b"g", "track": b"h", "laser_on": b"o", "laser_off": b"p",
            "stop": b"p", "clear": b"c"}
SEND_REPLY = b"cfm\n"
# index, 4 information characters (the 4th: the unit), sign, value; `*` starts GSI-16
WORD = re.compile(rb"\*?(\d\d)([.\d]{4})([+-])(\d{8}|\d{16})")
WORD_AT_END = re.compile(WORD.pattern + rb"\Z")
ERROR = re.compile(rb"@E(\d{3})")
MM_PER_UNIT = {b"0": 1.0, b"6": 0.1, b"8": 0.01, b"1": 0.3048, b"7": 0.03048}
MAX_LINE = 256           # longer than any real line: garbage, drop it


@register
class DistoCodec(Codec):
    name = "disto"
    baudrate = 9600
    commands = tuple(COMMANDS)
    push_setup = ()
    button_pushes = True

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._requested = False      # a single measurement asked for, not yet answered
        self._tracking = False
        self._outgoing = bytearray()

    def encode(self, command: str) -> bytes:
        if command not in COMMANDS:
            raise self._unknown(command)
        if command == "measure":
            self._requested = True
        self._tracking = command == "track"
        return COMMANDS[command] + b"\r\n"

    def outgoing(self) -> bytes:
        data, self._outgoing = bytes(self._outgoing), bytearray()
        return data

    def feed(self, data: bytes) -> list[Event]:
        self._buffer += data
        events: list[Event] = []
        *lines, rest = self._buffer.split(b"\r\n")
        self._buffer = bytearray(rest[-MAX_LINE:])
        for line in lines:
            event = self._line(bytes(line))
            if event is not None:
                events.append(event)
        return events

    def _line(self, line: bytes) -> Event | None:
        if line == b"?":
            return Notice("ack", "DISTO")
        if match := ERROR.fullmatch(line):
            pushed = not self._requested     # the SEND key's or a tracking measurement
            self._requested = False
            return DeviceError(match[1].decode(), f"DISTO error @E{match[1].decode()}",
                               pushed=pushed)
        parsed = _words(line)
        if not parsed:
            return Notice("garbled", f"DISTO line ignored: {line[:40]!r}") if line else None
        distance = next((m for m in parsed if m[1] == b"31"), None)
        if distance is None:
            angle = next((m for m in parsed if m[1] == b"22"), None)
            if angle is None:
                return Notice("data", line.decode())
            return Notice("angle", f"{_signed(angle) / 100:.2f} degrees "
                                   "(an inclination, not a distance)")
        unit = distance[2][3:]
        if unit not in MM_PER_UNIT:
            return Notice("garbled", f"DISTO distance in an unknown unit: {distance[0]!r}")
        pushed = not self._requested and not self._tracking
        if pushed:
            self._outgoing += SEND_REPLY
        self._requested = False
        mm = _signed(distance) * MM_PER_UNIT[unit]
        return Reading(round(mm, 3), pushed=pushed or self._tracking)


def _words(line: bytes) -> list[re.Match[bytes]]:
    """The well-formed words at the end of the line: garbage before them (the tail of a
    line cut short, line noise) is dropped, and a word is only taken whole."""
    words: list[re.Match[bytes]] = []
    for word in reversed(line.strip(b" ").split(b" ")):   # GSI lines end with a blank
        match = WORD.fullmatch(word) or WORD_AT_END.search(word)
        if match is None:
            break
        words.append(match)
        if match.start():
            break
    return words


def _signed(word: re.Match[bytes]) -> int:
    value = int(word[4])
    return -value if word[3] == b"-" else value
