"""The `station` command line.

Each capability registers its sub-commands from a module of its own in
`station/cli/commands/` (a `register(cli)` function), so the rules, the reader, the laser
and the service each own their commands. Commands with a space in their name
(`calibrate tray`, `simulate laser`) become nested sub-commands. A new command's first word
goes into `OWNERS` too, so that running it builds only its own module's parsers.

Exit status: 0 when the command did its job, 1 when a device reported an error,
2 on bad input (a `UsageError` raised by the command, or argparse's own errors).
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Callable, Sequence

from station.cli import commands

Handler = Callable[[argparse.Namespace], int]

GROUP_HELP = {
    "calibrate": "measure the tray or a laser tape, and save a calibration profile",
    "journal": "what the station has rolled and measured: list, show, export, stats, verify, "
               "backup, start-keying",
    "simulate": "start a simulated device (no hardware needed)",
}


# The modules of station/cli/commands/ that register each command (its first word), so that
# `station resolve ...` imports and builds only the parsers of its own module: building all
# of them took most of a ruling's time in-process. Any other first word (`--help`, a typo, a
# command missing here) builds them all, so help and error messages are the same either way;
# tests/test_cli.py checks this table against what the modules register.
OWNERS = {
    "actions": ("rules",), "resolve": ("rules",), "roll": ("rules",),
    "calibrate": ("calibrate_faces", "calibrate_laser", "calibrate_tray"),
    "journal": ("journal",), "measure": ("measure",), "read": ("read",), "run": ("run",),
    "simulate": ("simulate",),
}


class UsageError(Exception):
    """Bad input from the user: the message says what was wrong and what to do."""


class CommandRegistry:
    """Hands out argparse sub-parsers by command path ("read", "calibrate tray")."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self._children: dict[tuple[str, ...], argparse._SubParsersAction] = {
            (): parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
        }

    def command(self, path: str, help: str, handler: Handler, description: str | None = None
                ) -> argparse.ArgumentParser:
        """Add the command at `path`; returns its parser for the command's own arguments."""
        *groups, name = path.split()
        parent = self._group(tuple(groups))
        sub = parent.add_parser(name, help=help, description=description or help)
        sub.set_defaults(handler=handler)
        return sub

    def _group(self, path: tuple[str, ...]) -> argparse._SubParsersAction:
        if path not in self._children:
            parent = self._group(path[:-1])
            help = GROUP_HELP.get(" ".join(path), f"{path[-1]} sub-commands")
            group = parent.add_parser(path[-1], help=help, description=help)
            self._children[path] = group.add_subparsers(
                dest="_".join(path) + "_command", metavar="COMMAND", required=True)
        return self._children[path]


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for `argv`: only the commands of the module(s) owning its first word when
    OWNERS knows it, every command otherwise (and without argv)."""
    parser = argparse.ArgumentParser(
        prog="station",
        description="Dice and measurement station for tabletop wargames.")
    registry = CommandRegistry(parser)
    names = OWNERS.get(argv[0]) if argv else None
    if names is None:
        names = sorted(info.name for info in pkgutil.iter_modules(commands.__path__))
    for name in names:
        importlib.import_module(f"{commands.__name__}.{name}").register(registry)
    return parser


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    args = build_parser(argv).parse_args(argv)
    try:
        return args.handler(args)
    except UsageError as error:
        print(f"station: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Output piped into `head` and the like: stop quietly, as other Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
