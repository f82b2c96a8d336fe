"""The scanning loop shared by the codecs whose frames start with known bytes.

A protocol subclass says where a frame can start, how long the frame at a position is, and
what it means; this base keeps the partial frame across reads and resynchronises: a frame
that fails its checksum or its format costs one byte, and the scan resumes at the next
possible start, so a good frame right after garbage is still found.

Frames cut short (bytes lost on the link, then the next frame) are the dangerous case for
the 8-bit checksums these devices use: the head of one frame plus the head of the next
passes the checksum once in 256 tries. So a candidate that holds the start of another
frame (`inner_headers`), or ends with the first bytes of one (`tail_prefix_min` or more of
them), is refused as cut short. A reading is lost in that rare case rather than a wrong
distance shown.
"""

from __future__ import annotations

import re
from functools import cache
from typing import ClassVar

from station.laser.codec import Codec, Event

INVALID = object()   # _decode's answer for a frame that fails its checksum or format
MAX_BUFFER = 4096    # a device that only sends garbage must not grow the buffer forever


class FramedCodec(Codec):
    start_bytes: ClassVar[bytes]                 # every byte a frame can begin with
    inner_headers: ClassVar[tuple[bytes, ...]] = ()
    tail_prefix_min: ClassVar[int] = 0           # 0: no check of the frame's last bytes

    def __init__(self) -> None:
        self._buffer = bytearray()

    # --- for subclasses -------------------------------------------------------------------
    def _frame_length(self, buf: bytearray, pos: int) -> int | None:
        """Length of the frame starting at `pos`; None if more bytes are needed to tell;
        0 if no frame can start here."""
        raise NotImplementedError

    def _decode(self, frame: bytes) -> Event | None | object:
        """The event a complete candidate frame carries, None for a valid frame that carries
        nothing (a keep-alive), or INVALID."""
        raise NotImplementedError

    def _accepted(self, frame: bytes) -> None:
        """Called once per valid frame taken from the stream (for protocol state)."""

    # --- the loop ----------------------------------------------------------------------------
    def feed(self, data: bytes) -> list[Event]:
        buf = self._buffer
        buf += data
        events: list[Event] = []
        pos = self._next_start(buf, 0)
        while pos >= 0:
            step = self._try(buf, pos, events)
            if step is None:                       # a frame is still arriving at pos
                later = self._complete_frame_after(buf, pos)
                if later < 0:
                    break
                pos = later                        # pos was a false start: skip to it
                continue
            pos = self._next_start(buf, pos + step)
        if pos < 0:
            buf.clear()
        else:
            del buf[:pos]
            if len(buf) > MAX_BUFFER:
                del buf[:len(buf) - MAX_BUFFER]
        return events

    def _try(self, buf: bytearray, pos: int, events: list[Event]) -> int | None:
        """Bytes to move past at pos (a frame, or 1 for a false start); None: need more."""
        length = self._frame_length(buf, pos)
        if length is None or pos + length > len(buf):
            return None
        if length == 0:
            return 1
        frame = bytes(buf[pos:pos + length])
        if self._cut_short(frame):
            return 1
        event = self._decode(frame)
        if event is INVALID:
            return 1
        self._accepted(frame)
        if event is not None:
            events.append(event)
        return length

    def _complete_frame_after(self, buf: bytearray, pos: int) -> int:
        """Start of a complete valid frame after `pos`, or -1 (pos may be a real frame)."""
        probe = self._next_start(buf, pos + 1)
        while probe >= 0:
            length = self._frame_length(buf, probe)
            if length and probe + length <= len(buf):
                frame = bytes(buf[probe:probe + length])
                if not self._cut_short(frame) and self._decode_quietly(frame):
                    return probe
            probe = self._next_start(buf, probe + 1)
        return -1

    def _decode_quietly(self, frame: bytes) -> bool:
        return self._decode(frame) is not INVALID

    def _next_start(self, buf: bytearray, pos: int) -> int:
        match = self._start_pattern().search(buf, pos)
        return match.start() if match else -1

    def _start_pattern(self) -> re.Pattern[bytes]:
        """A regex matching any byte a frame can start with here (override for state)."""
        return any_of(self.start_bytes)

    def _cut_short(self, frame: bytes) -> bool:
        for header in self.inner_headers:
            if frame.find(header, 1) >= 0:
                return True
            if self.tail_prefix_min:
                for n in range(self.tail_prefix_min, len(header)):
                    if frame.endswith(header[:n]):
                        return True
        return False


@cache
def any_of(start_bytes: bytes) -> re.Pattern[bytes]:
    return re.compile(b"[" + b"".join(re.escape(bytes([b])) for b in start_bytes) + b"]")
