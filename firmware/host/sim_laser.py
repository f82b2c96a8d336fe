"""Simulated laser modules on the far end of the tape's UART, byte for byte as in
shared/LASER_PROTOCOLS.md (JRT binary, section 3; "0x80", section 4), with faults on demand.

The request frames below are written out from the spec, not computed, so they also check the
firmware's own frame builders.
"""

from __future__ import annotations


class SimulatedModule:
    """Answers each request after `delay_ms`. Faults: `silent` (hung or unplugged), `errors`
    (status codes for the next measurements), `garbage` (bytes sent before the next answer)."""

    REQUESTS: dict[bytes, str] = {}
    LASER_DELAY_MS = 20

    def __init__(self, clock, distance_mm: int = 1141, quality: int = 24,
                 delay_ms: int = 400) -> None:
        self.clock = clock
        self.distance_mm = distance_mm
        self.quality = quality
        self.delay_ms = delay_ms
        self.silent = False
        self.errors: list[int] = []
        self.garbage = b""
        self.laser_on = False
        self.requests: list[str] = []
        self._inbox = b""
        self._outbox: list[tuple[int, bytes]] = []

    # --- the UART side --------------------------------------------------------------------
    def receive(self, data: bytes) -> None:
        self._inbox += data
        while self._inbox:
            for frame, request in self.REQUESTS.items():
                if self._inbox.startswith(frame):
                    self._inbox = self._inbox[len(frame):]
                    self.requests.append(request)
                    if not self.silent:
                        self._answer(request)
                    break
            else:
                if any(frame.startswith(self._inbox) for frame in self.REQUESTS):
                    return                          # the rest of a request is on its way
                self._inbox = self._inbox[1:]       # not a request: a real module ignores it

    def available(self) -> int:
        return len(self._ready(consume=False))

    def take(self, nbytes: int | None = None) -> bytes:
        data = self._ready(consume=True)
        if nbytes is not None and len(data) > nbytes:
            self._outbox.insert(0, (self.clock.now_ms(), data[nbytes:]))
            data = data[:nbytes]
        return data

    def _ready(self, consume: bool) -> bytes:
        now = self.clock.now_ms()
        ready = [data for at, data in self._outbox if at <= now]
        if consume:
            self._outbox = [(at, data) for at, data in self._outbox if at > now]
        return b"".join(ready)

    def _answer(self, request: str) -> None:
        if request == "measure":
            self.laser_on = False
            if self.errors:
                reply = self.error_frame(self.errors.pop(0))
            else:
                reply = self.result_frame(self.distance_mm, self.quality)
            delay = self.delay_ms
        else:
            self.laser_on = request == "laser_on"
            reply = self.laser_frame(self.laser_on)
            delay = self.LASER_DELAY_MS
        self._outbox.append((self.clock.now_ms() + delay, self.garbage + reply))
        self.garbage = b""

    # --- each family's answers ------------------------------------------------------------
    def result_frame(self, mm: int, quality: int) -> bytes:
        raise NotImplementedError

    def error_frame(self, code: int) -> bytes:
        raise NotImplementedError

    def laser_frame(self, on: bool) -> bytes:
        raise NotImplementedError


class SimulatedJrt(SimulatedModule):
    name_ = "jrt"
    REQUESTS = {
        bytes.fromhex("AA 00 00 20 00 01 00 00 21"): "measure",
        bytes.fromhex("AA 00 01 BE 00 01 00 01 C1"): "laser_on",
        bytes.fromhex("AA 00 01 BE 00 01 00 00 C0"): "laser_off",
    }

    @staticmethod
    def _frame(head: int, body: bytes) -> bytes:
        return bytes([head]) + body + bytes([sum(body) & 0xFF])

    def result_frame(self, mm: int, quality: int) -> bytes:
        body = bytes([0, 0x00, 0x22, 0, 3]) + mm.to_bytes(4, "big") + quality.to_bytes(2, "big")
        return self._frame(0xAA, body)

    def error_frame(self, code: int) -> bytes:
        return self._frame(0xEE, bytes([0, 0, 0, 0, 1]) + code.to_bytes(2, "big"))

    def laser_frame(self, on: bool) -> bytes:
        return self._frame(0xAA, bytes([0, 0x01, 0xBE, 0, 1, 0, 1 if on else 0]))


class SimulatedM80(SimulatedModule):
    name_ = "m80"
    REQUESTS = {
        bytes.fromhex("80 06 02 78"): "measure",
        bytes.fromhex("80 06 05 01 74"): "laser_on",
        bytes.fromhex("80 06 05 00 75"): "laser_off",
    }

    @staticmethod
    def _frame(body: bytes) -> bytes:
        return body + bytes([-sum(body) & 0xFF])

    def result_frame(self, mm: int, quality: int) -> bytes:
        return self._frame(b"\x80\x06\x83" + b"%07.3f" % (mm / 1000))

    def error_frame(self, code: int) -> bytes:
        return self._frame(b"\x80\x06\x83" + b"ERR--%02d" % code)

    def laser_frame(self, on: bool) -> bytes:
        return self._frame(b"\x80\x06\x85\x01")     # 01: the module did it


MODULES = {"jrt": SimulatedJrt, "m80": SimulatedM80}
