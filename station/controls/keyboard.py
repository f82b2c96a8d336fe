"""Keyboard equivalents of the buttons, for a laptop or a terminal on the Pi.

r ROLL, R (shift) long-press ROLL (manual entry), m MEASURE, n NEXT ACTION, e RE-ROLL, q quit.
On a terminal the keys act at once (cbreak mode, restored on exit); from a pipe each line is
read as keys. End of input (stdin from /dev/null under systemd) just stops the keyboard.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable
from typing import TextIO

KEYS: dict[str, tuple[str, bool]] = {
    "r": ("roll", False), "R": ("roll", True), "m": ("measure", False),
    "n": ("next", False), "e": ("reroll", False),
}


class Keyboard:
    """Reads keys on a daemon thread; calls `press(button, hold)` or `quit()`."""

    def __init__(self, press: Callable[[str, bool], None], quit: Callable[[], None],
                 stream: TextIO | None = None) -> None:
        self.press, self.quit = press, quit
        self.stream = stream or sys.stdin
        self._restore: Callable[[], None] | None = None
        self._thread = threading.Thread(target=self._run, name="keyboard", daemon=True)

    def start(self) -> None:
        self._cbreak()
        self._thread.start()

    def stop(self) -> None:
        if self._restore:
            self._restore()
            self._restore = None

    def _cbreak(self) -> None:
        with contextlib.suppress(Exception):
            if not self.stream.isatty():
                return
            import termios
            import tty
            fd = self.stream.fileno()
            saved = termios.tcgetattr(fd)
            tty.setcbreak(fd)
            self._restore = lambda: termios.tcsetattr(fd, termios.TCSADRAIN, saved)

    def _run(self) -> None:
        while True:
            try:
                ch = self.stream.read(1)
            except (OSError, ValueError):
                return
            if not ch:                     # end of input: no keyboard, the buttons still work
                return
            if ch in ("q", "\x04"):
                self.quit()
                return
            if ch in KEYS:
                button, hold = KEYS[ch]
                self.press(button, hold)
