import argparse
import contextlib
import importlib
import io
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from station.cli import OWNERS, CommandRegistry, UsageError, build_parser, commands, main

ROOT = Path(__file__).resolve().parents[1]


def test_help_lists_commands(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    assert "usage: station" in capsys.readouterr().out


def test_nested_commands_and_usage_errors(capsys):
    import argparse

    parser = argparse.ArgumentParser(prog="station")
    registry = CommandRegistry(parser)

    def fail(args):
        raise UsageError(f"no such tray: {args.name}")

    registry.command("calibrate tray", "calibrate a tray", fail).add_argument("name")
    args = parser.parse_args(["calibrate", "tray", "x"])
    with pytest.raises(UsageError, match="no such tray: x"):
        args.handler(args)
    assert build_parser().prog == "station"


def test_owners_names_the_modules_that_register_each_command():
    registered: dict[str, list[str]] = {}
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        registry = CommandRegistry(argparse.ArgumentParser(prog="station"))
        importlib.import_module(f"{commands.__name__}.{info.name}").register(registry)
        for word in registry._children[()].choices:   # the top-level sub-parsers
            registered.setdefault(word, []).append(info.name)
    assert {word: tuple(names) for word, names in registered.items()} == OWNERS


def _help(argv: list[str], parser: argparse.ArgumentParser) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        parser.parse_args([*argv, "--help"])
    return out.getvalue()


def _command_paths(parser: argparse.ArgumentParser, path=()):
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        for name, sub in action.choices.items():
            yield [*path, name]
            yield from _command_paths(sub, (*path, name))


def test_a_command_built_alone_has_the_same_help_as_in_the_whole_parser():
    paths = list(_command_paths(build_parser()))
    assert ["calibrate", "tray"] in paths and ["resolve"] in paths
    for path in paths:
        assert _help(path, build_parser(path)) == _help(path, build_parser()), path


def test_resolve_and_the_whole_parser_do_not_load_cv2():
    # cv2, numpy and the reader take about 0.2 s to import: only the commands that read
    # photos load them, when they run (a ruling at the table should start at once).
    code = ("import sys\n"
            "from station.cli import build_parser, main\n"
            "assert main(['resolve', 'wm.ranged', 'rat=5', 'def=13', '--dice', '6', '6']) == 0\n"
            "build_parser()\n"
            "print(sorted(m for m in ('cv2', 'numpy', 'station.vision.reader')"
            " if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stdout.splitlines()[-1] == "[]"
