"""The Pi deployment files: the unit runs a command the station has, the script parses."""

import configparser
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from station.cli import build_parser

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_unit_starts_station_run_with_the_config_and_does_not_loop_on_a_bad_one():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(DEPLOY / "station.service")
    service = unit["Service"]
    command = shlex.split(service["ExecStart"])
    assert command[0] == "/opt/station/venv/bin/station"
    args = build_parser().parse_args(command[1:])
    assert args.command == "run" and args.config == "/etc/station/station.toml"
    assert not args.simulate
    assert service["RestartPreventExitStatus"] == "2"       # the CLI's exit status for bad input
    assert "gpio" in service["SupplementaryGroups"].split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_install_script_parses():
    subprocess.run(["bash", "-n", str(DEPLOY / "install-pi.sh")], check=True)
