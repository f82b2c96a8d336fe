"""Build the station from its configuration and run it: `station run`.

Everything is built before anything runs, so a bad setting stops the station with a
message naming the key (`ConfigError`) before any hardware is touched twice. With
`simulate`, every device is the fake that runs the real code paths: the synthetic tray
camera, a simulated laser on a pseudo-terminal read through the real transport and codec,
gpiozero MockFactory pins driven by the keyboard and by `--script`.
"""

from __future__ import annotations

import logging
import queue
import signal
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from station.config import SIMULATED_JOURNAL, Config, ConfigError, check_port
from station.controls import Controls, ControlsError, Intent
from station.display.sinks import (Display, LumaSink, PngSink, PygameSink, SinkUnavailable,
                                   TerminalSink)
from station.journal import Journal, JournalError, KeyMismatch, Refused
from station.journal.seal import load_key
from station.service.session import Session

log = logging.getLogger(__name__)

SCRIPT_STEPS = ("roll", "hold", "measure", "next", "reroll")
MAX_WAIT_SECONDS = 86400.0       # a script's wait:SECONDS; time.sleep overflows far beyond


@dataclass
class Options:
    simulate: bool = False
    script: list[str] | None = None
    screens: Path | None = None
    journal: Path | None = None
    seed: int | None = None
    web_port: int | None = None       # serve the screen on this port too (any mode)
    keyboard: bool = True
    roll_timeout: float | None = None
    notes: dict[str, str] = field(default_factory=dict)


def parse_script(text: str) -> list[str]:
    """"roll,measure,wait:2" -> steps; a bad step is a ConfigError naming it."""
    steps = [s.strip() for s in text.split(",") if s.strip()]
    for step in steps:
        name, _, arg = step.partition(":")
        if name == "wait":
            try:
                # nan or inf killed the script thread, and the station never quit
                if not 0 <= float(arg) <= MAX_WAIT_SECONDS:
                    raise ValueError
            except ValueError:
                raise ConfigError("--script", f"{step!r} needs seconds, 0-{MAX_WAIT_SECONDS:g}",
                                  "Write e.g. wait:2") from None
        elif name not in SCRIPT_STEPS or arg:
            raise ConfigError("--script", f"{step!r} is not a step",
                              f"Use {', '.join(SCRIPT_STEPS)} or wait:SECONDS, comma-separated")
    return steps


class Station:
    """The session with its devices; `run()` serves until quit, then closes everything."""

    def __init__(self, config: Config, options: Options) -> None:
        self.config, self.options = config, options
        self._stack = ExitStack()
        try:
            self._build()
        except BaseException:
            self._stack.close()
            raise

    def _build(self) -> None:
        config, options = self.config, self.options
        hardware: dict[str, str] = dict(options.notes)
        from station.rules import actions as rules
        from station.service.measured import tape_param, with_distance
        for index, choice in enumerate(config.actions):
            try:
                tape = tape_param(choice)
                # any distance stands for the tape's: the other parameters are checked now
                rules.parse_params(choice.ruling, (with_distance(choice, tape, 1.0) if tape
                                                   else choice).params)
            except ValueError as error:
                raise ConfigError(f"actions[{index}].ruling", str(error),
                                  "`station actions` lists each ruling's parameters") from None
            if tape and config.laser["device"] == "none" and not options.simulate:
                raise ConfigError(f"actions[{index}].ruling",
                                  f"{tape.name}=tape needs a laser tape, and laser.device is none",
                                  "Set [laser] device and port, or give the distance as a number")
        journal_path = options.journal or (Path(SIMULATED_JOURNAL).expanduser() if options.simulate
                                           else config.journal)
        key = None
        if config.journal_key_file is not None:
            try:
                key = load_key(config.journal_key_file, private=True)
            except ValueError as error:
                raise ConfigError("journal.key_file", str(error),
                                  "Keep a random secret there that only the station's user can "
                                  "read: umask 077; python3 -c 'import secrets; "
                                  "print(secrets.token_hex(32))' > FILE") from None
        try:
            self.journal = Journal(journal_path, key=key)
        except KeyMismatch as error:
            raise ConfigError("journal.key_file", error.problem,
                              error.fix(config.journal_key_file)) from error
        except Refused as error:
            raise ConfigError("journal.path", error.problem, error.fix()) from error
        except JournalError as error:
            raise ConfigError("journal.path", str(error),
                              "Give a writable file, or --journal PATH") from error
        self._stack.callback(self.journal.close)

        self.display = Display(self._sinks(hardware))
        self._stack.callback(self.display.close)

        import numpy as np
        from station.camera import CameraError, open_camera
        camera_settings = dict(config.camera)
        if options.simulate:                  # 800x600 films render fast enough to watch
            camera_settings.update(source="synthetic", resolution=[800, 600])
        try:
            self.camera = open_camera(camera_settings,
                                      simulate_rng=np.random.default_rng(options.seed))
        except CameraError as error:
            raise ConfigError("camera", str(error), "(--simulate runs the station without one)") from error
        self._stack.callback(self.camera.close)

        from station.service.devices import open_laser, settle_watcher, tray_reader
        self.laser = open_laser(config.laser, simulate=options.simulate, hardware=hardware,
                                seed=options.seed)
        if self.laser is not None:
            self._stack.callback(self.laser.close)
        # the synthetic tray is not the tray the profile was made for
        read = tray_reader("" if options.simulate else config.camera["calibration"],
                           "" if options.simulate else config.camera["faces"],
                           tuple(camera_settings["resolution"]))

        self.controls = self._controls(hardware)
        self._stack.callback(self.controls.close)

        settle = float(config.camera["settle_seconds"])
        self.session = Session(
            actions=config.actions, camera=self.camera, read=read,
            new_watcher=lambda: settle_watcher(settle), journal=self.journal,
            show=self.display.show, laser=self.laser, status=self.controls.status,
            fps=float(config.camera["fps"]), still_frames=int(config.camera["still_frames"]),
            roll_timeout=options.roll_timeout,
            hardware=hardware, show_live=self.display.show_live)
        self.controls.intents = self.session.intents
        if self.laser is not None:            # the tape's own button measures too
            self.laser.on_pushed(lambda: self.session.intents.put(Intent.PUSHED))
        # last: a bad setting found after it would exit while the networks load in that
        # thread, and their C++ runtime aborts the process ("terminate called", exit 134)
        read.warm_up_in_background()

    def _sinks(self, hardware: dict[str, str]) -> list[Any]:
        settings, options = self.config.display, self.options
        size = tuple(settings["size"])
        names = ["terminal"] if options.simulate else list(settings["sinks"])
        if options.web_port is not None:
            check_port("--web", options.web_port)       # bind() raises OverflowError
            if "web" not in names:
                names.append("web")
        sinks: list[Any] = []
        if options.screens:
            sinks.append(self._png(options.screens, size, "--screens"))
        for name in names:
            try:
                if name == "terminal":
                    sinks.append(TerminalSink())
                elif name == "png":
                    sinks.append(self._png(Path(settings["png_dir"]).expanduser(), size,
                                           "display.png_dir"))
                elif name == "hdmi":
                    sinks.append(PygameSink())
                elif name == "lcd":
                    sinks.append(LumaSink(settings["lcd_driver"], settings["lcd_interface"],
                                          settings["lcd_port"], settings["lcd_address"],
                                          tuple(settings["lcd_size"])))
                elif name == "web":
                    from station.display.web import WebSink
                    port = settings["web_port"] if options.web_port is None else options.web_port
                    sinks.append(WebSink(settings["web_host"], port, self.journal.path, size))
            except SinkUnavailable as error:
                hardware[f"display {name}"] = str(error)
                log.error("display %s: %s", name, error)
        if not sinks:
            problems = "; ".join(hardware.values())
            raise ConfigError("display.sinks", f"no display works ({problems})",
                              "Fix the screen, or add \"terminal\" or \"png\" to display.sinks")
        return sinks

    @staticmethod
    def _png(folder: Path, size: tuple[int, int], key: str) -> PngSink:
        # the folder was named by the user: a setting to fix, not a screen that may be missing
        try:
            return PngSink(folder, size)
        except SinkUnavailable as error:
            raise ConfigError(key, str(error),
                              "Give a folder (made if missing), not a file") from None

    def _controls(self, hardware: dict[str, str]) -> Controls:
        from gpiozero.exc import BadPinFactory
        from gpiozero.pins.mock import MockFactory
        settings = self.config.controls
        factory = MockFactory() if self.options.simulate else None
        try:
            try:
                return Controls(settings, queue.Queue(), pin_factory=factory)
            except BadPinFactory:
                hardware["buttons"] = "no GPIO on this machine: keyboard only"
                # the mock pins refuse what a Pi would (GPIO99; BOARD1, a 3V3 pin): say so too
                return Controls(settings, queue.Queue(), pin_factory=MockFactory())
        except ControlsError as error:
            raise ConfigError(str(error).split(":")[0], str(error).split(": ", 1)[1],
                              "See the wiring in docs/service.md") from None

    # --- running -----------------------------------------------------------------------

    def run(self) -> int:
        session = self.session
        with self._stack:
            previous = signal.signal(signal.SIGTERM, lambda *_: session.intents.put(Intent.QUIT))
            keyboard = None
            if self.options.keyboard and self.config.controls["keyboard"] and not self.options.script:
                from station.controls.keyboard import Keyboard
                keyboard = Keyboard(lambda name, hold: self.controls.press(name, hold=hold),
                                    lambda: session.intents.put(Intent.QUIT))
                keyboard.start()
                self._stack.callback(keyboard.stop)
            if self.options.script is not None:
                threading.Thread(target=self._play, args=(self.options.script,), daemon=True,
                                 name="script").start()
            try:
                session.run()
            except KeyboardInterrupt:
                pass
            finally:
                signal.signal(signal.SIGTERM, previous)
        return 0

    def _play(self, steps: list[str]) -> None:
        """--script: press each button in turn once the session is ready for it; quit after
        the last step has been shown. A `reroll` step is pressed where RE-ROLL is offered:
        at a result, or where a ruling asks for its next dice and offers to re-roll the roll
        before them first (DICE-4). There the simulated players, who would roll those dice,
        press RE-ROLL instead when it is the script's next step."""
        session = self.session
        pressed, pressed_at = -1, None        # the step pressed last, and the screen then

        def offered() -> bool:                # RE-ROLL before the ruling's next dice
            screen = session.screen
            return (screen is not None and screen is not pressed_at
                    and screen.state == "waiting" and screen.reroll_offered)

        roll = getattr(self.camera, "expect", None)
        if roll is not None and "reroll" in steps:
            def expect(kind: str, count: int, purpose: str) -> None:
                if not (offered() and steps[pressed + 1:pressed + 2] == ["reroll"]):
                    roll(kind, count, purpose)
            self.camera.expect = expect
        for index, step in enumerate(steps):
            name, _, arg = step.partition(":")
            if name == "reroll":
                while not (session.ready.is_set() or offered()):
                    time.sleep(0.005)
            else:
                session.ready.wait()
            if name == "wait":
                time.sleep(float(arg))
                continue
            before, pressed, pressed_at = session.consumed, index, session.screen
            self.controls.press("roll" if name == "hold" else name, hold=name == "hold")
            while session.consumed <= before:
                time.sleep(0.005)
        session.ready.wait()
        session.intents.put(Intent.QUIT)
