"""`station measure`: one laser measurement, or every reading with --watch (MEAS-1, MEAS-2)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from contextlib import closing
from pathlib import Path

from station.cli import CommandRegistry, UsageError
from station.cli.inputs import number
from station.laser.calibration import (
    Calibration, CalibrationError, calibration_for, default_profile_path)
from station.laser.codec import DeviceError
from station.laser.device import MEASURE_TIMEOUT_S, LaserDevice
from station.laser.measurement import ROUND_BASES_MM, Measurement, base_radius
from station.laser.protocols import load_all
from station.laser.transport import LinkTimeout, PortNotFound


# Bounds of what a user may type: beyond them a number only fails later, deep in a sleep or
# the serial driver (an hour's wait; 12 Mbaud, the fastest USB serial adapters; a base's
# radius in mm).
SECONDS = number("seconds", 0, 3600, above_low=True)
BAUD = number("baud", 1, 12_000_000, integer=True)
RADIUS_MM = number("mm", 0, 500)


def register(registry: CommandRegistry) -> None:
    parser = registry.command(
        "measure", "take a distance from a laser tape", run,
        description="Take one distance from a serial laser tape (or, with --watch, print "
                    "every reading it sends) and give it in inches, calibrated, with the "
                    "raw reading beside it (MEAS-1, MEAS-2).")
    add_link_arguments(parser)
    parser.add_argument("--watch", action="store_true",
                        help="print every reading the device sends until Ctrl-C (devices "
                             "that do not push are asked every --every seconds)")
    parser.add_argument("--every", type=SECONDS, default=1.0, metavar="S",
                        help="with --watch, seconds between requests to a device that does "
                             "not push readings (default 1)")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--timeout", type=SECONDS, default=MEASURE_TIMEOUT_S, metavar="S",
                        help=f"seconds to wait for the device (default {MEASURE_TIMEOUT_S:g})")
    base = parser.add_mutually_exclusive_group()
    base.add_argument("--base", type=int, choices=ROUND_BASES_MM, metavar="MM",
                      help="the target's round base diameter in mm (25, 32, 40 or 50): "
                           "adds base-to-base inches")
    base.add_argument("--base-radius", type=RADIUS_MM, metavar="MM",
                      help="the target's base radius in mm: adds base-to-base inches")


FRAMING = re.compile(r"([5-8])([NEO])(1|1\.5|2)")


def add_link_arguments(parser: argparse.ArgumentParser, port_required: bool = True) -> None:
    parser.add_argument("--device", required=True, choices=sorted(load_all()),
                        help="the device's protocol")
    parser.add_argument("--port", required=port_required, metavar="PATH|VID:PID",
                        help="serial port path (/dev/ttyUSB0, /dev/rfcomm0) or USB VID:PID")
    parser.add_argument("--baud", type=BAUD, metavar="N",
                        help="baud rate, if not the device's usual one")
    parser.add_argument("--framing", default="8N1", metavar="8N1",
                        help="data bits, parity (N, E, O) and stop bits (default 8N1)")
    parser.add_argument("--profile", type=Path, default=None, metavar="FILE",
                        help=f"calibration profile (default {default_profile_path()})")


def open_device(args: argparse.Namespace, calibration: Calibration | None = None,
                base_radius_mm: float | None = None, watch: bool = False) -> LaserDevice:
    framing = FRAMING.fullmatch(args.framing.upper())
    if framing is None:
        raise UsageError(f"--framing {args.framing!r}: write data bits, parity and stop bits, "
                         "such as 8N1 or 7E2")
    device = LaserDevice(args.device, args.port, args.baud, calibration=calibration,
                         base_radius_mm=base_radius_mm, watch=watch,
                         bytesize=int(framing[1]), parity=framing[2],
                         stopbits=float(framing[3]))
    try:
        return device.open()
    except PortNotFound as error:
        raise UsageError(str(error)) from None


def profile_path(args: argparse.Namespace) -> Path:
    return args.profile or default_profile_path()


def run(args: argparse.Namespace) -> int:
    radius = args.base_radius if args.base is None else base_radius(args.base)
    try:
        calibration = calibration_for(args.device, args.profile)
    except CalibrationError as error:
        raise UsageError(str(error)) from None
    with closing(open_device(args, calibration, radius, watch=args.watch)) as device:
        if args.watch:
            return watch(device, args)
        try:
            result = device.measure(timeout=args.timeout)
        except LinkTimeout as error:
            emit(DeviceError("timeout", str(error)), args.json)
            return 1
        emit(result, args.json)
        return 1 if isinstance(result, DeviceError) else 0


def watch(device: LaserDevice, args: argparse.Namespace) -> int:
    how = "as the device sends them" if device.pushes else f"asking every {args.every:g} s"
    print(f"watching the {device.name} on {args.port} ({how}); Ctrl-C to stop",
          file=sys.stderr, flush=True)
    try:
        while True:
            if device.pushes:
                result = device.next_pushed(timeout=0.5)
            else:
                try:
                    result = device.measure(timeout=args.timeout)
                except LinkTimeout as error:
                    result = DeviceError("timeout", str(error))
            if result is not None:
                emit(result, args.json)
            if not device.pushes:
                time.sleep(args.every)
    except KeyboardInterrupt:
        return 0


def emit(result: Measurement | DeviceError, as_json: bool) -> None:
    if isinstance(result, DeviceError):
        if as_json:
            line = json.dumps({"error": result.message, "code": result.code})
        else:
            line = f"device error {result.code}: {result.message} (not a distance)"
    else:
        line = json.dumps(result.to_json()) if as_json else result.text()
    print(line, flush=True)
