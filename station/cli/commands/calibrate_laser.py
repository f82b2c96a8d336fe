"""`station calibrate laser`: readings at known distances give the offset (and a scale where
the fit shows one), stored with the device's reference edge in the profile (MEAS-2)."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import closing

from station.cli import CommandRegistry, UsageError
from station.cli.commands.measure import add_link_arguments, open_device, profile_path
from station.cli.inputs import cannot_write, number, output_file
from station.laser.calibration import (
    Calibration, CalibrationError, calibrate, load_profile, save_calibration)
from station.laser.codec import DeviceError
from station.laser.device import LaserDevice
from station.laser.transport import LinkTimeout


# A known distance: above 0, within the 200 m of the longest-reaching laser modules.
KNOWN_MM = number("mm", 0, 200_000, above_low=True)
RAW_MM = number("mm", -200_000, 200_000)    # what the device read, offset and all


def register(registry: CommandRegistry) -> None:
    parser = registry.command(
        "calibrate laser", "calibrate a laser tape against known distances", run,
        description="Aim the laser at targets at known distances from its reference edge; "
                    "the offset (and a scale, when the fit shows one) goes into the "
                    "calibration profile. Use --point KNOWN:RAW instead of a device to enter "
                    "readings you took by hand.")
    add_link_arguments(parser, port_required=False)
    parser.add_argument("--at", type=KNOWN_MM, action="append", default=[], metavar="MM",
                        help="a known distance in mm to measure (repeat; 3 or more spread "
                             "over the table also fit a scale)")
    parser.add_argument("--point", type=_point, action="append", default=[],
                        metavar="KNOWN:RAW",
                        help="a reading taken by hand: known mm and the device's raw mm")
    parser.add_argument("--samples", type=int, default=3, metavar="N",
                        help="readings averaged at each distance (default 3)")
    parser.add_argument("--reference-edge", default="rear", metavar="EDGE",
                        help="the edge the device measures from, as set on it (default rear)")
    parser.add_argument("--json", action="store_true", help="print the calibration as JSON")


def run(args: argparse.Namespace) -> int:
    points = list(args.point)
    if args.samples < 1:
        raise UsageError("--samples must be 1 or more")
    if not points and not args.at:
        raise UsageError("give the known distances to measure (--at MM, repeated) or the "
                         "readings you took (--point KNOWN:RAW, repeated)")
    if args.at and not args.port:
        raise UsageError("--at measures with the device: give its --port too")
    # The profile is checked before the readings are taken, not found unwritable after.
    path = output_file(str(profile_path(args)), "--profile")
    try:
        load_profile(path)
    except CalibrationError as error:
        raise UsageError(f"{error}; or give another --profile") from None
    edge_code = None
    if args.at:
        with closing(open_device(args)) as device:
            for known in args.at:
                raw, edge_code = _measure_at(device, known, args.samples, points)
                points.append((known, raw))
    try:
        calibration = calibrate(args.device, points, args.reference_edge, edge_code)
    except CalibrationError as error:
        raise UsageError(str(error)) from None
    try:
        save_calibration(path, calibration)
    except (OSError, CalibrationError) as error:
        why = cannot_write(path, "--profile", error) if isinstance(error, OSError) else str(error)
        raise UsageError(f"{why}. {_again(points)}") from None
    if args.json:
        print(json.dumps({"profile": str(path), **calibration.__dict__}))
    else:
        print(_summary(calibration, path))
    return 0


def _point(text: str) -> tuple[float, float]:
    """An argparse type: KNOWN:RAW, finite millimetres (a NaN would be saved, and every
    later measurement read "nan in")."""
    known, _, raw = text.partition(":")
    try:
        return KNOWN_MM(known), RAW_MM(raw)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: write KNOWN:RAW in mm, finite numbers (KNOWN above 0), "
            "e.g. 500:503.5") from None


def _again(points: list[tuple[float, float]]) -> str:
    """How to enter the readings taken so far again, without the device."""
    if not points:
        return "No readings were taken"
    return ("The readings, to enter again: "
            + " ".join(f"--point {known:g}:{raw:g}" for known, raw in points))


def _ask(prompt: str, points: list[tuple[float, float]]) -> None:
    """Wait for Enter; stdin closed (a script, a pipe) is bad input, not a traceback."""
    try:
        input(prompt)
    except EOFError:
        raise UsageError("--at waits for Enter at each distance, but stdin is closed: run it "
                         "at a terminal, or give readings taken by hand with --point "
                         f"KNOWN:RAW. {_again(points)}") from None


def _measure_at(device: LaserDevice, known: float, samples: int,
                points: list[tuple[float, float]]) -> tuple[float, str | None]:
    """Average `samples` good readings with the target `known` mm away (`points`: those
    taken before, for an error message)."""
    _ask(f"Put the target {known:g} mm from the device's reference edge, aim, press Enter: ",
         points)
    raws: list[float] = []
    edge = None
    while len(raws) < samples:
        try:
            result = device.measure()
        except LinkTimeout as error:
            _ask(f"  {error}. Press Enter to try again: ", points)
            continue
        if isinstance(result, DeviceError):
            _ask(f"  device error {result.code}: {result.message}. Aim again, press Enter: ",
                 points)
            continue
        raws.append(result.raw_mm)
        edge = edge or result.reference_edge
        print(f"  reading {len(raws)}: {result.raw_mm:.1f} mm", file=sys.stderr)
    return sum(raws) / len(raws), edge


def _summary(calibration: Calibration, path) -> str:
    scale = ("no scale needed" if calibration.scale == 1.0
             else f"scale {calibration.scale:.5f}")
    lines = [f"{calibration.device}: offset {calibration.offset_mm:+.2f} mm, {scale}, "
             f"from the {calibration.reference_edge} edge; residual "
             f"{calibration.residual_mm:.2f} mm (MEAS-2)"]
    for known, raw in calibration.points:
        corrected = calibration.corrected(raw)
        lines.append(f"  {known:8.1f} mm: raw {raw:8.1f}, corrected {corrected:8.1f} "
                     f"({corrected - known:+.2f})")
    lines.append(f"saved in {path}")
    return "\n".join(lines)
