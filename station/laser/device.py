"""A laser tape as the station uses it: protocol, port and calibration together.

    with LaserDevice("glm", "/dev/rfcomm0", calibration=cal) as tape:
        result = tape.measure()          # Measurement, or DeviceError (never a distance)

The service and `station measure` both go through this class.
"""

from __future__ import annotations

from station.laser.calibration import Calibration
from station.laser.codec import DeviceError, Event, Reading
from station.laser.measurement import Measurement, convert
from station.laser.protocols import codec_class
from station.laser.transport import LinkSettings, Transport

MEASURE_TIMEOUT_S = 5.0     # the slowest devices take 1.5 s; a Bluetooth wake-up adds more


class LaserDevice:
    def __init__(self, device: str, port: str, baudrate: int | None = None,
                 calibration: Calibration | None = None,
                 base_radius_mm: float | None = None, watch: bool = False,
                 **link_options: float | str) -> None:
        """`link_options` go to LinkSettings: framing (bytesize, parity, stopbits), back-off."""
        self.name = device
        self.codec = codec_class(device)()
        self.calibration = calibration
        self.base_radius_mm = base_radius_mm
        settings = LinkSettings(port, baudrate or self.codec.baudrate, **link_options)
        on_connect = (self.codec.push_setup or ()) if watch else ()
        self.transport = Transport(self.codec, settings, on_connect=on_connect)

    @property
    def pushes(self) -> bool:
        """Whether the device sends readings by itself (else `--watch` polls)."""
        return self.codec.push_setup is not None

    def open(self, wait: bool = False) -> LaserDevice:
        """wait: a port not there yet is waited for, not an error (`Transport.open`)."""
        self.transport.open(wait)
        return self

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> LaserDevice:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def measure(self, timeout: float = MEASURE_TIMEOUT_S) -> Measurement | DeviceError:
        """One measurement; LinkTimeout if the device does not answer."""
        return self._result(self.transport.request("measure", timeout=timeout))

    def next_pushed(self, timeout: float | None = None) -> Measurement | DeviceError | None:
        """The next reading the device pushed (button, auto-sync, continuous mode)."""
        event = self.transport.next_pushed(timeout)
        return None if event is None else self._result(event)

    def send(self, command: str) -> None:
        self.transport.send(command)

    def _result(self, event: Event) -> Measurement | DeviceError:
        if isinstance(event, Reading):
            return convert(self.name, event, self.calibration, self.base_radius_mm)
        return event
