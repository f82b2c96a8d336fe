"""The codec interface every laser protocol implements, and the registry of codecs by name.

A codec is sans-I/O (like h11): `feed(bytes)` returns the events decoded so far and keeps
any partial frame for the next call; `encode(command)` turns a command into bytes. No serial
port in sight, so codecs are tested with bytes alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True)
class Reading:
    """A distance the device measured: millimetres from its reference edge (MEAS-2)."""

    raw_mm: float
    quality: float | None = None   # device's own signal figure, when it gives one


@dataclass(frozen=True)
class DeviceError:
    """The device said it could not measure; never a distance."""

    code: str
    message: str


@dataclass(frozen=True)
class Notice:
    """Anything else worth logging: an acknowledgement, an angle reading, a button event."""

    kind: str
    detail: str = ""


Event = Reading | DeviceError | Notice


class Codec:
    """Base class: subclasses set `name`, `baudrate`, and implement feed/encode."""

    name: ClassVar[str]
    baudrate: ClassVar[int]
    commands: ClassVar[tuple[str, ...]] = ("measure",)

    def feed(self, data: bytes) -> list[Event]:
        raise NotImplementedError

    def encode(self, command: str) -> bytes:
        raise NotImplementedError


CODECS: dict[str, type[Codec]] = {}


def register(cls: type[Codec]) -> type[Codec]:
    """Class decorator: make a codec available by its device name (`--device NAME`)."""
    CODECS[cls.name] = cls
    return cls
