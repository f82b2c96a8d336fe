"""A laser module on the far end of the tape's UART.

The module itself is one of the station's simulated devices (station.fakes.laser: JRT or
"0x80", byte-exact with shared/LASER_PROTOCOLS.md, with their injectable device errors and
garbage). This adds what wires and time add: answers arrive `delay_ms` after the request
(the module measures), and a `silent` module (hung, or its wire came loose) answers nothing.
"""

from __future__ import annotations

from station.fakes.laser import simulator_class
from station.fakes.laser.device import SimulatedDevice

# The request frames, written out from the spec: they name what the firmware asked for.
REQUESTS = {
    bytes.fromhex("AA 00 00 20 00 01 00 00 21"): "measure",
    bytes.fromhex("AA 00 01 BE 00 01 00 01 C1"): "laser_on",
    bytes.fromhex("AA 00 01 BE 00 01 00 00 C0"): "laser_off",
    bytes.fromhex("80 06 02 78"): "measure",
    bytes.fromhex("80 06 05 01 74"): "laser_on",
    bytes.fromhex("80 06 05 00 75"): "laser_off",
}


class ModuleOnWires:
    LASER_DELAY_MS = 20

    def __init__(self, device: SimulatedDevice, clock, delay_ms: int = 400) -> None:
        self.device = device
        self.clock = clock
        self.delay_ms = delay_ms
        self.silent = False
        self.requests: list[str] = []       # what the firmware asked, by name
        self._outbox: list[tuple[int, bytes]] = []

    @classmethod
    def of(cls, name: str, clock, distance_mm: float = 1141, delay_ms: int = 400):
        return cls(simulator_class(name)(distance_mm), clock, delay_ms)

    @property
    def name(self) -> str:
        return self.device.name

    def fail_next(self, code: int) -> None:
        """The next measurement answers with this device status code."""
        self.device.faults.error_code = str(code)
        self.device.faults.errors_left = 1

    def put(self, data: bytes, after_ms: int = 0) -> None:
        """Bytes the module sends after `after_ms`, whatever it was asked."""
        self._outbox.append((self.clock.now_ms() + after_ms, data))

    # --- the UART side ------------------------------------------------------------------------
    def receive(self, data: bytes) -> None:
        request = REQUESTS.get(bytes(data), "unknown %s" % bytes(data).hex())
        self.requests.append(request)
        if self.silent:
            return
        delay = self.delay_ms if request == "measure" else self.LASER_DELAY_MS
        for reply in self.device.receive(data):
            self.put(reply, delay)

    def available(self) -> int:
        return sum(len(data) for at, data in self._outbox if at <= self.clock.now_ms())

    def take(self, nbytes: int | None = None) -> bytes:
        now = self.clock.now_ms()
        data = b"".join(chunk for at, chunk in self._outbox if at <= now)
        self._outbox = [(at, chunk) for at, chunk in self._outbox if at > now]
        if nbytes is not None and len(data) > nbytes:
            self._outbox.insert(0, (now, data[nbytes:]))
            data = data[:nbytes]
        return data
