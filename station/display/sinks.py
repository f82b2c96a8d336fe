"""Where screens go: HDMI/DSI (pygame), a small SPI/I2C screen (luma), PNG files, the terminal.

Every sink has `show(screen)` and `close()`. pygame and luma are optional imports: a sink
whose library or device is missing raises `SinkUnavailable` when it is made, with the fix.
A sink that fails while running is taken out by the `Display`, which puts the problem on the
screens that still work (the station keeps serving).
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
from pathlib import Path
from typing import Protocol, TextIO

import numpy as np
from PIL import Image

from station.display.render import render, render_compact, zoom_box
from station.display.screen import Screen

log = logging.getLogger(__name__)


class SinkUnavailable(Exception):
    """A display cannot be used: the message says why and what to install or check."""


class Sink(Protocol):
    name: str
    live: bool              # keeps up with the camera while the dice roll (not files, logs)

    def show(self, screen: Screen) -> None: ...

    def close(self) -> None: ...


class PngSink:
    """Writes every screen as a numbered PNG (`0003-resolved.png`): docs, demos, tests."""

    name = "png"
    live = False

    def __init__(self, folder: str | Path, size: tuple[int, int] = (800, 480)) -> None:
        self.folder = Path(folder)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:          # a file of that name, no permission
            raise SinkUnavailable(f"cannot make the folder {folder} "
                                  f"({error.strerror or error})") from None
        self.size = size
        self.count = 0
        self.last: Image.Image | None = None

    def show(self, screen: Screen) -> None:
        self.count += 1
        self.last = render(screen, self.size)
        self.last.save(self.folder / f"{self.count:04d}-{screen.state}.png")

    def close(self) -> None:
        pass


class TerminalSink:
    """The screen as text. On a terminal: redrawn in place, in colour, with the tray drawn in
    half-block characters and each die's value on it; elsewhere one plain block per screen."""

    name = "terminal"
    COLOURS = {"good": "\x1b[1;32m", "bad": "\x1b[1;31m", "neutral": "\x1b[1;37m"}

    def __init__(self, stream: TextIO | None = None, *, fancy: bool | None = None,
                 in_place: bool = True) -> None:
        """in_place: redraw over the previous screen (the service), or print once, below
        what is on the terminal (`station journal show`)."""
        self.stream = stream or sys.stdout
        self.fancy = self.stream.isatty() if fancy is None else fancy
        self.in_place = in_place
        self.live = self.fancy

    def show(self, screen: Screen) -> None:
        text = self._fancy(screen) if self.fancy else self._plain(screen)
        self.stream.write(text)
        self.stream.flush()

    def close(self) -> None:
        if self.fancy:
            self.stream.write("\x1b[0m\n")

    def _plain(self, screen: Screen) -> str:
        lines = screen.text_lines()
        return "-- " + lines[0] + "\n" + "".join(f"   {line}\n" for line in lines[1:])

    def _fancy(self, screen: Screen) -> str:
        columns = min(shutil.get_terminal_size((100, 30)).columns, 110)
        bold, dim, reset = "\x1b[1m", "\x1b[2m", "\x1b[0m"
        out = []
        head = f" {screen.action} "
        state = f" {screen.state_label} "
        out.append(f"{bold}\x1b[44m{head}{reset}{dim} {screen.command}  "
                   f"{screen.position[0]}/{screen.position[1]}{reset}  \x1b[30;43m{state}{reset}\n\n")
        if screen.frame is not None:
            out.append(_half_blocks(screen, min(48, columns - 4)))
            out.append("\n")
        if screen.headline:
            out.append(f"   {self.COLOURS.get(screen.tone, bold)}{screen.headline}{reset}\n")
        for line in screen.details:
            out.append(f"   {line}\n")
        facts = "   ".join(x for x in (screen.odds_text(), " ".join(screen.rules)) if x)
        if facts:
            out.append(f"   \x1b[33m{facts}{reset}\n")
        for line in screen.dice_lines():      # the half blocks are too coarse to check a die by
            out.append(f"   {line}\n")
        for name, problem in screen.hardware.items():
            out.append(f"   \x1b[31m{name}: {problem}{reset}\n")
        if screen.entry_id is not None:     # the seal players note (journal verify --head)
            out.append(f"   {dim}{screen.journal_line()}{reset}\n")
        colour = {"info": "\x1b[36m", "warn": "\x1b[33m", "error": "\x1b[1;31m"}[screen.level]
        if screen.prompt:
            out.append(f"\n   {colour}{screen.prompt}{reset}\n")
        if not self.in_place:
            return "".join(out)
        keys = "keys: r ROLL (R: manual entry)  m MEASURE  n NEXT  e RE-ROLL  q quit"
        out.append(f"\n{dim}   {keys}{reset}\n")
        # redraw in place without a flash: home, overwrite each line, clear what is left
        return "\x1b[H" + "".join(out).replace("\n", "\x1b[K\n") + "\x1b[J"


def _half_blocks(screen: Screen, columns: int) -> str:
    """The tray frame in ▀ characters (two pixels a cell, 24-bit colour) with die values."""
    frame = screen.frame
    assert frame is not None
    left, top, right, bottom = zoom_box(frame.shape[1], frame.shape[0], screen.marks, 4 / 3)
    h, w = bottom - top, right - left
    rows = max(2, round(columns * h / w / 2))
    small = np.asarray(Image.fromarray(np.ascontiguousarray(frame[top:bottom, left:right, ::-1]))
                       .resize((columns, rows * 2), Image.Resampling.BOX))
    labels: dict[tuple[int, int], tuple[str, bool]] = {}
    for mark in screen.marks:
        col = int((mark.center[0] - left) / w * columns)
        row = int((mark.center[1] - top) / h * rows)
        if not (0 <= col < columns and 0 <= row < rows):
            continue
        text = mark.label if not mark.problem else "?"
        for i, ch in enumerate(text[:5]):
            if col + i < columns:
                labels[(row, col + i)] = (ch, bool(mark.problem))
    lines = []
    for row in range(rows):
        cells = ["   "]
        for col in range(columns):
            if (row, col) in labels:
                ch, bad = labels[(row, col)]
                cells.append(f"\x1b[1;{'97;41' if bad else '30;103'}m{ch}\x1b[0m")
                continue
            top, bottom = small[2 * row, col], small[2 * row + 1, col]
            cells.append(f"\x1b[38;2;{top[0]};{top[1]};{top[2]}m\x1b[48;2;{bottom[0]};{bottom[1]};"
                         f"{bottom[2]}m▀")
        lines.append("".join(cells) + "\x1b[0m")
    return "\n".join(lines) + "\n"


MEMORY_DRIVERS = ("offscreen", "dummy")   # SDL video drivers that draw on no screen


class PygameSink:
    """Full screen on HDMI/DSI through pygame (SDL picks KMS/DRM on a Pi without a desktop)."""

    name = "hdmi"
    live = True

    def __init__(self, size: tuple[int, int] | None = None) -> None:
        try:
            os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
            import pygame
        except ImportError as error:
            raise SinkUnavailable("the hdmi display needs pygame: pip install 'station[hdmi]' "
                                  "(or apt install python3-pygame), or drop hdmi from display.sinks"
                                  ) from error
        self._pygame = pygame
        try:
            pygame.display.init()
            pygame.mouse.set_visible(False)
            flags = pygame.FULLSCREEN if size is None else 0
            self._surface = pygame.display.set_mode(size or (0, 0), flags)
        except pygame.error as error:
            raise SinkUnavailable(f"no screen for pygame ({error}): check the HDMI/DSI cable, or "
                                  "drop hdmi from display.sinks") from error
        # With no screen it can open, SDL falls back to a driver that draws in memory: the
        # station would run showing nothing, and say nothing. Asked for (SDL_VIDEODRIVER),
        # such a driver is the user's choice.
        driver = pygame.display.get_driver()
        if driver in MEMORY_DRIVERS and not os.environ.get("SDL_VIDEODRIVER"):
            pygame.display.quit()
            raise SinkUnavailable(
                f"no screen for pygame (SDL found none and fell back to its {driver} driver): "
                "check the HDMI/DSI cable, that the station's user is in the video group, and "
                "that no desktop holds the screen (or start the station from the desktop), or "
                "drop hdmi from display.sinks")
        self.size = self._surface.get_size()

    def show(self, screen: Screen) -> None:
        image = render(screen, self.size)
        pygame = self._pygame
        # frombuffer, not frombytes: Bookworm's apt pygame (2.1.2) predates frombytes (2.1.3)
        self._surface.blit(pygame.image.frombuffer(image.tobytes(), image.size, "RGB"), (0, 0))
        pygame.display.flip()
        pygame.event.pump()

    def close(self) -> None:
        self._pygame.display.quit()


class LumaSink:
    """A small SPI/I2C screen through luma.oled / luma.lcd, in the compact layout."""

    name = "lcd"
    live = False            # the compact layout has no tray picture

    def __init__(self, driver: str, interface: str, port: int, address: int,
                 size: tuple[int, int]) -> None:
        try:
            from luma.core.interface import serial as luma_serial
        except ImportError as error:
            raise SinkUnavailable("the lcd display needs luma: pip install 'station[lcd]', or drop "
                                  "lcd from display.sinks") from error
        if driver == "dummy":                 # luma's in-memory device: keeps the last image
            from luma.core.device import dummy
            self._device = dummy(width=size[0], height=size[1], mode="1")
            return
        device_class = None
        for module in ("luma.oled.device", "luma.lcd.device"):
            try:
                device_class = getattr(__import__(module, fromlist=[driver]), driver, None)
            except ImportError:
                continue
            if device_class:
                break
        if device_class is None:
            raise SinkUnavailable(f"display.lcd_driver {driver!r} is not a luma.oled or luma.lcd "
                                  "device: use e.g. ssd1306, sh1106, st7735 or ili9341")
        if port < 0:                          # a Pi's I2C bus 1; SPI0 with CE0 (docs/service.md)
            port = 1 if interface == "i2c" else 0
        try:
            bus = (luma_serial.i2c(port=port, address=address) if interface == "i2c"
                   else luma_serial.spi(port=port, device=0))
            self._device = device_class(bus, width=size[0], height=size[1])
        except ImportError as error:          # luma's SPI wants spidev and RPi.GPIO's API
            raise SinkUnavailable(f"the {driver} screen on {interface} needs {error.name}: sudo "
                                  "apt install python3-spidev python3-rpi-lgpio") from error
        except Exception as error:   # luma raises DeviceNotFoundError, OSError, ...
            raise SinkUnavailable(f"no {driver} screen on {interface} port {port} ({error}): "
                                  f"check the wiring and that {interface.upper()} is enabled "
                                  "(raspi-config)") from error

    def show(self, screen: Screen) -> None:
        image = render_compact(screen, self._device.size)
        self._device.display(image.convert(self._device.mode))

    def close(self) -> None:
        self._device.cleanup()


class Display:
    """Sends each screen to every working sink; a sink that fails is dropped and named."""

    def __init__(self, sinks: list[Sink]) -> None:
        self.sinks = list(sinks)
        self.problems: dict[str, str] = {}
        self.last: Screen | None = None

    def show(self, screen: Screen) -> None:
        screen.hardware = {**screen.hardware, **self.problems}
        self.last = screen
        for sink in list(self.sinks):
            try:
                sink.show(screen)
            except Exception as error:           # a screen unplugged mid-show
                log.error("display %s failed: %s", sink.name, error)
                self.sinks.remove(sink)
                self.problems[f"display {sink.name}"] = f"stopped ({error})"
                if self.sinks:
                    self.show(screen)
                return

    def show_live(self, screen: Screen) -> None:
        """A live camera frame: only to the sinks that show it, and a failure is left to the
        next real screen to report."""
        screen.hardware = {**screen.hardware, **self.problems}
        for sink in self.sinks:
            if getattr(sink, "live", False):
                try:
                    sink.show(screen)
                except Exception as error:
                    log.warning("live view on %s: %s", sink.name, error)

    def close(self) -> None:
        for sink in self.sinks:
            try:
                sink.close()
            except Exception as error:
                log.warning("closing display %s: %s", sink.name, error)
