"""The codec interface every laser protocol implements, and the registry of codecs by name.

A codec is sans-I/O (like h11): `feed(bytes)` returns the events decoded so far and keeps
any partial frame for the next call; `encode(command)` turns a command into bytes. No serial
port in sight, so codecs are tested with bytes alone.

Some protocols need the host to answer a frame on its own (the Leica DISTO wants `cfm` LF
after its SEND key): the codec queues those bytes and the transport sends whatever
`outgoing()` returns after each `feed`.

Protocol modules live in `station.laser.protocols`, one per device family; each registers
its codec with `@register`, and `station.laser.protocols.codec_class(name)` finds them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True)
class Reading:
    """A distance the device measured: millimetres from its reference edge (MEAS-2).

    `pushed` is True when the device sent it on its own (GLM auto-sync, DISTO SEND key)
    rather than as the answer to the host's request. `reference_edge` is the edge the device
    says it measured from, when its frame tells (the GLM's auto-sync frames do).
    """

    raw_mm: float
    quality: float | None = None   # device's own signal figure, when it gives one
    pushed: bool = False
    reference_edge: str | None = None


@dataclass(frozen=True)
class DeviceError:
    """The device said it could not measure; never a distance.

    `pushed` is True, as for a `Reading`, when the device sent it on its own (its own
    button's measurement failed): then it never answers a request the station waits for.
    """

    code: str
    message: str
    pushed: bool = False


@dataclass(frozen=True)
class Notice:
    """Anything else worth logging: an acknowledgement, an angle reading, a button event."""

    kind: str
    detail: str = ""


Event = Reading | DeviceError | Notice


class UnknownCommand(ValueError):
    """`encode` was asked for a command this device does not have."""


class Codec:
    """Base class: subclasses set `name`, `baudrate`, and implement feed/encode.

    `commands` lists what `encode` accepts; the common vocabulary is `measure`, `laser_on`,
    `laser_off`, plus device-specific ones (`auto_sync`, `track`, `continuous`...).
    """

    name: ClassVar[str]
    baudrate: ClassVar[int]
    commands: ClassVar[tuple[str, ...]] = ("measure",)
    # Commands that make the device push readings by itself (sent again after every
    # reconnect); None if it cannot, and `--watch` then asks for a reading in a loop.
    push_setup: ClassVar[tuple[str, ...] | None] = None
    # Whether, once push_setup is sent, a press of the device's own button (and nothing
    # else) sends a reading: the station then takes such readings as measurements.
    button_pushes: ClassVar[bool] = False

    def feed(self, data: bytes) -> list[Event]:
        raise NotImplementedError

    def encode(self, command: str) -> bytes:
        raise NotImplementedError

    def outgoing(self) -> bytes:
        """Bytes the protocol itself must send now (an acknowledgement); empty by default."""
        return b""

    def reset(self) -> None:
        """Forget partial frames and pending requests (the link was lost and reopened).

        The default re-runs `__init__`, which suits every codec whose state is set there.
        """
        type(self).__init__(self)

    def _unknown(self, command: str) -> UnknownCommand:
        return UnknownCommand(
            f"the {self.name} device has no command {command!r}; "
            f"it knows: {', '.join(self.commands)}")


CODECS: dict[str, type[Codec]] = {}


def register(cls: type[Codec]) -> type[Codec]:
    """Class decorator: make a codec available by its device name (`--device NAME`)."""
    CODECS[cls.name] = cls
    return cls
