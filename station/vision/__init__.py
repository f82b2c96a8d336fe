"""Pure functions on numpy images: a tray frame in, the dice on it out."""

import importlib

__all__ = ["DetectedDie", "read_tray", "warm_up"]

# The module each public name comes from, imported on first use: the reader loads cv2 and
# its networks (about 0.2 s), which a caller wanting only a light module of this package
# (the command line's parsers, `station.vision.constants`) should not pay.
_HOMES = {"DetectedDie": "station.vision.types", "read_tray": "station.vision.reader",
          "warm_up": "station.vision.reader"}


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
