"""A fake MicroPython `machine` module: UART and Pin, enough for the tape firmware.

A UART's far end is a simulated laser module (see sim_laser), attached by the harness; a
Pin's level is set by the test (a button) or read by it (an LED). Every object created is
listed in `created`, so the harness can find what the firmware built.
"""

created: list = []


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1

    def __init__(self, id, mode=IN, pull=None, value=None) -> None:
        self.id = id
        self.mode = mode
        self.pull = pull
        self.level = 1 if pull == Pin.PULL_UP else 0
        if value is not None:
            self.level = value
        self.changes = 0            # how often the firmware switched an output
        created.append(self)

    def value(self, level=None):
        if level is None:
            return self.level
        level = 1 if level else 0
        if level != self.level:
            self.changes += 1
        self.level = level
        return None


class UART:
    def __init__(self, id, baudrate=115200, bits=8, parity=None, stop=1, tx=None, rx=None,
                 timeout=0) -> None:
        self.id = id
        self.baudrate = baudrate
        self.framing = (bits, parity, stop)
        self.tx, self.rx = tx, rx
        self.device = None          # the simulated module on the other end of the wires
        self.written = bytearray()
        created.append(self)

    def write(self, data: bytes) -> int:
        self.written += data
        if self.device is not None:
            self.device.receive(bytes(data))
        return len(data)

    def any(self) -> int:
        return self.device.available() if self.device is not None else 0

    def read(self, nbytes=None):
        if self.device is None:
            return None
        data = self.device.take(nbytes)
        return data or None
