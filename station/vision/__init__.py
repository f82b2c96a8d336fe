"""Pure functions on numpy images: a tray frame in, the dice on it out."""

from station.vision.reader import read_tray, warm_up
from station.vision.types import DetectedDie

__all__ = ["DetectedDie", "read_tray", "warm_up"]
