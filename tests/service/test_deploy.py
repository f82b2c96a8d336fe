"""The Pi deployment files: the unit runs a command the station has, the script parses, and
the steps that write its files (the journal key, the config), run on a temporary folder."""

import configparser
import os
import pwd
import re
import shlex
import shutil
import stat
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
    for script in ("install-pi.sh", "install-lib.sh"):
        subprocess.run(["bash", "-n", str(DEPLOY / script)], check=True)


def installer(tmp_path, step, *args):
    """One step of install-pi.sh (deploy/install-lib.sh) run on files in `tmp_path`."""
    return subprocess.run(["bash", "-c", 'set -euo pipefail; . "$0"; "$@"',
                           str(DEPLOY / "install-lib.sh"), step, *map(str, args)],
                          cwd=tmp_path, capture_output=True, text=True, check=True).stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_install_journal_key_is_private_kept_and_the_organiser_told_to_copy_it(tmp_path):
    from station.journal.seal import load_key
    key, user = tmp_path / "journal.key", pwd.getpwuid(os.getuid()).pw_name
    said = installer(tmp_path, "make_journal_key", key, user)
    assert stat.S_IMODE(key.stat().st_mode) == 0o400 and key.stat().st_uid == os.getuid()
    secret = key.read_text()
    assert re.fullmatch(r"[0-9a-f]{64}\n", secret)
    assert load_key(key, private=True) == secret.strip().encode()     # the station takes it
    assert str(key) in said and "station journal verify --key" in said
    said = installer(tmp_path, "make_journal_key", key, user)         # never a new key
    assert key.read_text() == secret and "kept the journal key" in said


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_install_config_names_the_key_and_an_existing_config_is_kept(tmp_path):
    from station import config
    example, toml = DEPLOY.parent / "station.example.toml", tmp_path / "station.toml"
    said = installer(tmp_path, "write_config", example, toml, "/etc/station/journal.key")
    written = config.load(toml)
    assert written.journal == Path("/var/lib/station/journal.sqlite")
    assert written.journal_key_file == Path("/etc/station/journal.key")
    assert "/etc/station/journal.key" in said
    installer(tmp_path, "write_config", example, tmp_path / "plain.toml")
    assert config.load(tmp_path / "plain.toml").journal_key_file is None
    toml.write_text("[journal]\npath = \"/srv/j.sqlite\"\n")
    said = installer(tmp_path, "write_config", example, toml, "/etc/station/journal.key")
    assert toml.read_text() == "[journal]\npath = \"/srv/j.sqlite\"\n"
    assert 'set key_file = "/etc/station/journal.key" under [journal]' in said
