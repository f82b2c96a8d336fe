"""`station simulate laser`: a simulated laser device on a pseudo-terminal, until Ctrl-C."""

from __future__ import annotations

import argparse
import sys
import threading

from station.cli import CommandRegistry, UsageError
from station.cli.commands.measure import SECONDS
from station.cli.inputs import number, output_folder
from station.fakes.laser import load_all, start_simulated
from station.fakes.laser.ptylink import SimulatedLaser

HELP_KEYS = """type a line and Enter:
  d MM     the device now reads MM millimetres
  p        press the device's measure button (a pushed reading)
  e [CODE] the next measurement fails with this device error code
  c        the next frame has a bad checksum      g   garbage before the next frame
  s        split frames in pieces (toggle)        w S  answer S seconds late
  u        unplug                                 r    replug
  q        quit"""


# What the device reads: a NaN or infinity would leave it unable to answer at all. 200 m is
# the reach of the longest laser modules.
DISTANCE_MM = number("mm", 0, 200_000)


def register(registry: CommandRegistry) -> None:
    parser = registry.command(
        "simulate laser", "run a simulated laser tape on a pseudo-terminal", run,
        description="Start a simulated laser device that speaks its real wire protocol on "
                    "a pseudo-terminal and print the port to open. Runs until Ctrl-C; "
                    "lines typed on stdin change its distance and inject faults.")
    parser.add_argument("--device", required=True, choices=sorted(load_all()))
    parser.add_argument("--distance", type=DISTANCE_MM, default=1000.0, metavar="MM",
                        help="what the device reads, in mm (default 1000)")
    parser.add_argument("--link-dir", metavar="DIR",
                        help="folder for the port symlink (default: a new temporary one)")
    parser.add_argument("--press-every", type=SECONDS, metavar="S",
                        help="press the device's measure button every S seconds")


def run(args: argparse.Namespace) -> int:
    link_dir = output_folder(args.link_dir, "--link-dir") if args.link_dir else None
    try:
        sim = start_simulated(args.device, args.distance, link_dir=link_dir)
    except OSError as error:          # the folder cannot be made or written
        where = args.link_dir or "a temporary folder"
        raise UsageError(f"cannot start the simulated {args.device} in {where}: "
                         f"{error.strerror or error}; give another --link-dir") from None
    with sim:
        print(f"simulated {args.device} ({sim.device.baudrate} baud) on {sim.port}", flush=True)
        print(f"try: station measure --device {args.device} --port {sim.port}", flush=True)
        if sys.stdin.isatty():
            print(HELP_KEYS, flush=True)
        stop = threading.Event()
        if args.press_every is not None:
            threading.Thread(target=_press_every, args=(sim, args.press_every, stop),
                             daemon=True).start()
        try:
            for line in sys.stdin:
                if not control(sim, line.split()):
                    return 0
            stop.wait()                       # stdin closed: run until Ctrl-C
        except KeyboardInterrupt:
            pass
        finally:
            stop.set()
    return 0


def _press_every(sim: SimulatedLaser, seconds: float, stop: threading.Event) -> None:
    while not stop.wait(seconds):
        sim.press()


def control(sim: SimulatedLaser, words: list[str]) -> bool:
    """Apply one typed control line; False to quit."""
    if not words:
        return True
    key, rest = words[0], words[1:]
    faults = sim.device.faults
    try:
        if key == "q":
            return False
        if key == "d":
            sim.set_distance(DISTANCE_MM(rest[0]))
        elif key == "p":
            sim.press()
        elif key == "e":
            faults.error_code = rest[0] if rest else sim.device.default_error
            faults.errors_left = 1
        elif key == "c":
            faults.bad_checksum += 1
        elif key == "g":
            faults.garbage += 1
        elif key == "s":
            faults.split = not faults.split
        elif key == "w":
            faults.delay_s = float(rest[0])
        elif key == "u":
            sim.unplug()
        elif key == "r":
            sim.replug()
        else:
            print(HELP_KEYS, flush=True)
            return True
    except (IndexError, ValueError, argparse.ArgumentTypeError):
        print(f"cannot read {' '.join(words)!r}\n{HELP_KEYS}", flush=True)
        return True
    print("ok", flush=True)
    return True
