import pytest

from station.cli import CommandRegistry, UsageError, build_parser, main


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
