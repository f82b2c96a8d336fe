"""Laser module drivers: JRT binary and "0x80" modules on a UART, without blocking.

Frames and codes as in shared/LASER_PROTOCOLS.md (sections 3 and 4). A driver has at most one
request in flight: `send()` writes it, `poll()` returns the answer as an event when it has
arrived, or a FAILED "timeout" ("garbled") event when the module stayed silent (sent only
garbage) for too long.
Stale bytes are thrown away before each request, so a late answer is never taken for the
answer to the next one.

Events are tuples: (READING, mm, quality or None), (FAILED, code, message), (ACK, request).
A READING or FAILED answers a measurement (FAILED also a laser request); an ACK only the
laser request it confirms.
"""

MEASURE = "measure"
LASER_ON = "laser_on"
LASER_OFF = "laser_off"

READING = "reading"
FAILED = "failed"
ACK = "ack"

MAX_BUFFER = 64
JRT_MAX_MM = 200000     # the longest JRT module measures 200 m (the station's jrt codec too)


class Driver:
    """What both module families share: one request at a time, framing, deadlines."""

    name = ""
    default_baud = 0

    def __init__(self, uart, clock):
        self._uart = uart
        self._clock = clock
        self._buf = b""
        self.pending = None
        self._deadline = 0
        self._heard = False

    def busy(self):
        return self.pending is not None

    def send(self, request, now, timeout_ms):
        self._discard_input()
        self.pending = request
        self._deadline = self._clock.ticks_add(now, timeout_ms)
        self._heard = False
        self._uart.write(self.frame(request))

    def cancel(self):
        self.pending = None

    def poll(self, now):
        """The answer to the pending request once it is complete, else None."""
        if self.pending is None:
            self._discard_input()
            return None
        if self._uart.any():
            data = self._uart.read()
            if data:
                self._heard = True
                self._buf = (self._buf + data)[-MAX_BUFFER:]
        while self._buf:
            event, self._buf = self.parse(self._buf)
            if event is None:
                break
            request = self.pending
            if event[0] == READING and request != MEASURE:
                continue
            if event[0] == ACK:
                if request == MEASURE or event[1] not in (None, request):
                    continue
                event = (ACK, request)
            self.pending = None
            return event
        if self._clock.ticks_diff(now, self._deadline) >= 0:
            request = self.pending
            self.pending = None
            if self._heard:
                return (FAILED, "garbled", "laser module answered %s with garbage" % request)
            return (FAILED, "timeout", "laser module did not answer %s" % request)
        return None

    def _discard_input(self):
        while self._uart.any():
            self._uart.read()
        self._buf = b""

    # Each module family: the request's bytes, and one step of parsing.
    def frame(self, request):
        raise NotImplementedError

    def parse(self, buf):
        """-> (event, rest). Skips garbage and frames with a bad checksum itself; returns
        (None, rest) when the rest is empty or an incomplete frame."""
        raise NotImplementedError


# JRT binary (section 3): AA addr reg_hi reg_lo count_hi count_lo payload(2*count) sum
JRT_STATUS = {
    5: "out of range",
    6: "invalid result",
    7: "background light too strong",
    8: "signal too weak",
    9: "signal too strong",
}


def jrt_frame(reg, value):
    body = bytes((0x00, reg >> 8, reg & 0xFF, 0x00, 0x01, value >> 8, value & 0xFF))
    return b"\xAA" + body + bytes((sum(body) & 0xFF,))


class JrtDriver(Driver):
    name = "jrt"
    default_baud = 19200
    FRAMES = {
        MEASURE: jrt_frame(0x0020, 0x0000),
        LASER_ON: jrt_frame(0x01BE, 0x0001),
        LASER_OFF: jrt_frame(0x01BE, 0x0000),
    }

    def frame(self, request):
        return self.FRAMES[request]

    def parse(self, buf):
        while buf:
            if buf[0] != 0xAA and buf[0] != 0xEE:
                buf = buf[1:]
                continue
            if len(buf) < 6:
                return None, buf
            count = (buf[4] << 8) | buf[5]
            if count > 4:
                buf = buf[1:]
                continue
            end = 6 + 2 * count
            if len(buf) < end + 1:
                return None, buf
            if sum(buf[1:end]) & 0xFF != buf[end]:
                buf = buf[1:]
                continue
            frame, rest = buf[:end + 1], buf[end + 1:]
            event = self._event(frame, count)
            if event is not None:
                return event, rest
            buf = rest
        return None, buf

    def _event(self, frame, count):
        reg = (frame[2] << 8) | frame[3]
        if frame[0] == 0xEE:
            status = (frame[4 + 2 * count] << 8) | frame[5 + 2 * count] if count else 0
            return (FAILED, "jrt:%d" % status, JRT_STATUS.get(status, "module error"))
        if reg == 0x0022 and count == 3:
            mm = (frame[6] << 24) | (frame[7] << 16) | (frame[8] << 8) | frame[9]
            if mm > JRT_MAX_MM:     # an 8-bit sum lets noise through now and then
                return (FAILED, "jrt:range", "module sent a distance beyond its range")
            return (READING, mm, (frame[10] << 8) | frame[11])
        if reg == 0x01BE and count == 1:
            return (ACK, LASER_ON if frame[7] else LASER_OFF)
        return None


# "0x80" modules (section 4): 80 06 cmd payload checksum, checksum = -(sum of the rest)
def m80_frame(*body):
    return bytes(body) + bytes(((-sum(body)) & 0xFF,))


M80_LENGTHS = {0x82: 11, 0x83: 11, 0x85: 5}


class M80Driver(Driver):
    name = "m80"
    default_baud = 9600
    FRAMES = {
        MEASURE: m80_frame(0x80, 0x06, 0x02),
        LASER_ON: m80_frame(0x80, 0x06, 0x05, 0x01),
        LASER_OFF: m80_frame(0x80, 0x06, 0x05, 0x00),
    }

    def frame(self, request):
        return self.FRAMES[request]

    def parse(self, buf):
        while buf:
            if buf[0] != 0x80:
                buf = buf[1:]
                continue
            if len(buf) < 3:
                return None, buf
            length = M80_LENGTHS.get(buf[2])
            if buf[1] != 0x06 or length is None:
                buf = buf[1:]
                continue
            if len(buf) < length:
                return None, buf
            if sum(buf[:length]) & 0xFF != 0:
                buf = buf[1:]
                continue
            event = self._event(buf[:length])
            buf = buf[length:]
            if event is not None:
                return event, buf
        return None, buf

    def _event(self, frame):
        if frame[2] == 0x85:
            # Sources disagree whether the data byte is success/failure or the new laser
            # state, so any valid answer confirms the laser request that is pending.
            return (ACK, None)
        text = frame[3:10]
        if text[:3] == b"ERR":
            # digits only: a space or a byte that is not text must not reach the line
            code = "".join(chr(b) for b in text[3:] if 48 <= b <= 57)
            return (FAILED, "m80:" + (code or "ERR"), "module error")
        if not _is_decimal(text):
            return (FAILED, "m80:data", "module sent an unreadable distance")
        return (READING, int(round(float(text.decode()) * 1000)), None)


def _is_decimal(text):
    """ddd.ddd: digits with one point."""
    points = 0
    for byte in text:
        if byte == 0x2E:
            points += 1
        elif byte < 0x30 or byte > 0x39:
            return False
    return points == 1 and len(text) > 1


DRIVERS = {"jrt": JrtDriver, "m80": M80Driver}
