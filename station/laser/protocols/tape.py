"""The station's own laser tape: firmware/laser_tape on a Raspberry Pi Pico, over USB serial.

Protocol in firmware/PROTOCOL.md: ASCII lines `SEQ KIND FIELD... *CRC` ending in LF (a CR
before it is ignored), CRC-16/CCITT-FALSE over the bytes before " *" (binascii.crc_hqx with
initial value 0xFFFF computes exactly that). A line with a wrong CRC or an unknown shape is
a "garbled" notice, never a distance; noise before a good line costs only the noise.
Sequence numbers that skip say lines were lost. Each answer names the command it answers:
an answer to an earlier command than the last one sent (the station gave up waiting) is a
"stale" notice, never the answer to the request now waiting. A reading or error for the
trigger (origin `btn`) is pushed, never that answer either.

The Pico keeps what it wrote while nobody listened (MicroPython's USB serial holds it) and
hands it over when the port is opened: answers to commands of an earlier connection and
trigger readings from before it. Command numbers start at a random value, so an old answer
is stale, not the answer to this connection's first command; and on connect the station
sends PING (`push_setup`): trigger readings before its answer are stale.
"""

from __future__ import annotations

import binascii
import random
import re

from station.laser.codec import Codec, DeviceError, Event, Notice, Reading, register

COMMANDS = {
    "measure": "MEASURE",
    "laser_on": "LASER ON",
    "laser_off": "LASER OFF",
    "ping": "PING",
    "version": "VERSION",
    "config": "CONFIG",
}
SEQ_LIMIT = 65536
MAX_SKIPPED_LINES = 4          # after noise, a line this many beyond the expected one counts
MAX_LINE = 256                  # the tape's longest line is far shorter: garbage past this
LINE = re.compile(rb"(\d{1,5}) ([A-Z]+)((?: [!-~]+)*) \*([0-9A-F]{4})\Z")
MM = re.compile(r"(\d{1,7}) (\d{1,5}|-) (\S+)")
ERR = re.compile(r"(\S+) (\S+) (.+)")
BAD = re.compile(r"(\S+) (.+)")


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF); crc16(b"123456789") == 0x29B1."""
    return binascii.crc_hqx(data, 0xFFFF)


@register
class TapeCodec(Codec):
    name = "tape"
    baudrate = 115200           # USB CDC: the Pico takes any rate
    commands = tuple(COMMANDS)
    # The trigger sends readings by itself; PING marks where the ones held from before the
    # station connected end.
    push_setup = ("ping",)
    button_pushes = True

    def __init__(self, first_seq: int | None = None) -> None:
        self._buffer = bytearray()
        self._host_seq = random.randrange(SEQ_LIMIT) if first_seq is None else first_seq
        self._latest: str | None = None     # our last command's number, as the tape says it
        self._syncing: str | None = None    # our PING's number until its answer comes
        self._expected: int | None = None   # the tape's next sequence number

    def encode(self, command: str) -> bytes:
        if command not in COMMANDS:
            raise self._unknown(command)
        self._latest = str(self._host_seq)
        if command == "ping":
            self._syncing = self._latest
        body = b"%d %s" % (self._host_seq, COMMANDS[command].encode())
        self._host_seq = (self._host_seq + 1) % SEQ_LIMIT
        return body + b" *%04X\n" % crc16(body)

    def feed(self, data: bytes) -> list[Event]:
        self._buffer += data
        *lines, rest = self._buffer.split(b"\n")
        events: list[Event] = []
        for line in lines:
            events += self._line(bytes(line).rstrip(b"\r"))
        if len(rest) > MAX_LINE:
            events.append(Notice("garbled", f"tape: {len(rest)} bytes without a line end"))
            rest = b""
        self._buffer = bytearray(rest)
        return events

    def _line(self, line: bytes) -> list[Event]:
        if not line.strip():
            return []
        match = _checked(line, self._expected)
        if match is None:
            return [Notice("garbled", f"tape line ignored: {line[:60]!r}")]
        skipped = match.start()
        events: list[Event] = []
        if skipped:
            events.append(Notice("garbled", f"tape: noise before a line: {line[:skipped]!r}"))
        seq, kind = int(match[1]), match[2].decode()
        fields = match[3].decode().strip()
        if kind == "HELLO":
            self._expected = None               # the tape restarted: numbering starts again
        if self._expected is not None and seq != self._expected:
            missed = (seq - self._expected) % SEQ_LIMIT
            events.append(Notice("lost", f"tape: {missed} line(s) lost before line {seq}"))
        self._expected = (seq + 1) % SEQ_LIMIT
        events.append(self._event(kind, fields, line))
        return events

    def _event(self, kind: str, fields: str, line: bytes) -> Event:
        if kind == "MM" and (m := MM.fullmatch(fields)):
            if self._stale(m[3]):
                return Notice("stale", f"tape: {m[1]} mm for an earlier request ({m[3]})")
            if m[3] == "btn" and self._syncing is not None:
                return Notice("stale", f"tape: {m[1]} mm from a trigger press before the "
                                       "station connected")
            quality = None if m[2] == "-" else float(m[2])
            return Reading(float(m[1]), quality=quality, pushed=m[3] == "btn")
        if kind == "ERR" and (m := ERR.fullmatch(fields)):
            if self._stale(m[2]):
                return Notice("stale", f"tape: error {m[1]} for an earlier request ({m[2]})")
            if m[2] == "btn" and self._syncing is not None:
                return Notice("stale", f"tape: trigger error {m[1]} from before the station "
                                       "connected")
            # Only the trigger's errors are pushed: one with origin "-" (a firmware fault,
            # a broken config.py) also ends the measurement the station is waiting for.
            return DeviceError(m[1], f"laser tape: {m[3]}", pushed=m[2] == "btn")
        if kind == "BAD" and (m := BAD.fullmatch(fields)):
            return DeviceError("bad-command", f"the laser tape refused a command: {m[2]}")
        if kind == "OK" and (m := BAD.fullmatch(fields)):
            if m[1] == self._syncing:           # all that was held from before has come
                self._syncing = None
            return Notice("ok", m[2])
        if kind in NOTICES and fields:
            return Notice(NOTICES[kind], fields)
        return Notice("garbled", f"tape line not understood: {line[:60]!r}")

    def _stale(self, origin: str) -> bool:
        """An answer to one of our commands other than the last: one the station gave up
        waiting for. Its reading is not the answer to the request now waiting."""
        return origin.isdigit() and origin != self._latest


def _checked(line: bytes, expected: int | None) -> re.Match[bytes] | None:
    """The line's parts if it has the tape's form and a right CRC.

    Noise before a line, or the head of a line cut short, is skipped: the tail that is a
    good line counts, if its sequence number is the one expected (or a few more, when lines
    were lost). Each tail tried is another 1-in-65536 chance for a wrong CRC to pass, and the
    sequence number is what keeps the tails of a damaged line from passing.
    """
    pos = 0
    while (match := LINE.search(line, pos)) is not None:
        start = match.start()
        if start == 0 or (expected is not None
                          and (int(match[1]) - expected) % SEQ_LIMIT < MAX_SKIPPED_LINES):
            if crc16(line[start:match.start(4) - 2]) == int(match[4], 16):
                return match
        pos = start + 1
    return None


NOTICES = {"HELLO": "hello", "BTN": "button", "LASER": "laser", "MODULE": "module"}
