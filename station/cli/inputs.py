"""Checks of what a user typed, shared by the commands: numbers (as argparse types, so a bad
one is refused before any work, with exit status 2) and the files and folders to write."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path

from station.cli import UsageError


def number(what: str, low: float, high: float = math.inf, *, above_low: bool = False,
           integer: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number from `low` (or above it, `above_low`) to `high`.
    `what` names the unit for the error ("seconds"). NaN and infinity are refused: they
    pass a `<= 0` check and only fail later, deep in a device or a sleep."""
    kind = "a whole number" if integer else "a number"
    allowed = (f"{kind} of {what} "
               f"{'above' if above_low else 'from'} {low:g}"
               + (f", at most {high:g}" if high < math.inf else ""))

    def parse(text: str) -> float:
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {kind}: give {allowed}") from None
        if not (math.isfinite(value) and low <= value <= high) or (above_low and value == low):
            raise argparse.ArgumentTypeError(f"{text!r}: give {allowed}")
        return value
    return parse


def output_file(text: str, option: str, suffixes: tuple[str, ...] = ()) -> Path:
    """The file `option` names, checked before any work is done: a name ending in one of
    `suffixes` (when given), not a folder, and in a folder that is or can be made.
    `write_output` writes it."""
    path = Path(text).expanduser()
    if path.is_dir():
        raise UsageError(f"{option} {text} is a folder: give a file name in it")
    if suffixes and path.suffix.lower() not in suffixes:
        names = " or ".join(filter(None, (", ".join(suffixes[:-1]), suffixes[-1])))
        raise UsageError(f"{option} {text}: give a file name ending in {names}")
    _check_folder(path.parent, option, text)
    return path


def output_folder(text: str, option: str) -> Path:
    """The folder `option` names: one that is or can be made (not a file)."""
    path = Path(text).expanduser()
    _check_folder(path, option, text)
    return path


def _check_folder(folder: Path, option: str, text: str) -> None:
    # The nearest part of the path that exists must be a folder: missing folders are made.
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise UsageError(f"{option} {text}: {existing} is a file, not a folder; give another path")


def write_output(path: Path, option: str, data: bytes) -> None:
    """Write a file checked by `output_file`, making its folder; a failure is a UsageError."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as error:
        raise UsageError(cannot_write(path, option, error)) from None


def cannot_write(path: Path | str, option: str, error: OSError) -> str:
    return f"cannot write {path}: {error.strerror or error}; give another {option}"
