"""The `station` command line.

Each capability registers its sub-commands from a module of its own in
`station/cli/commands/` (a `register(cli)` function), so the rules, the reader, the laser
and the service each own their commands. Commands with a space in their name
(`calibrate tray`, `simulate laser`) become nested sub-commands.

Exit status: 0 when the command did its job, 1 when a device reported an error,
2 on bad input (a `UsageError` raised by the command, or argparse's own errors).
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Callable

from station.cli import commands

Handler = Callable[[argparse.Namespace], int]

GROUP_HELP = {
    "calibrate": "measure the tray or a laser tape, and save a calibration profile",
    "journal": "what the station has rolled and measured: list, show, export, stats",
    "simulate": "start a simulated device (no hardware needed)",
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="station",
        description="Dice and measurement station for tabletop wargames.")
    registry = CommandRegistry(parser)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        importlib.import_module(f"{commands.__name__}.{info.name}").register(registry)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
