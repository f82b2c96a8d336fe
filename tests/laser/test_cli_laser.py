"""`station measure`, `station calibrate laser` and `station simulate laser` against
simulated devices on real pseudo-terminals (MEAS-1, MEAS-2)."""

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from station.cli import main
from station.fakes.laser import start_simulated

ROOT = Path(__file__).resolve().parents[2]
DEVICES = ["glm", "disto", "jrt", "m80", "dollar"]


@pytest.fixture
def profile(tmp_path):
    return str(tmp_path / "laser.json")


def measure(capsys, *argv):
    status = main(["measure", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("device", DEVICES)
def test_one_measurement_as_json(capsys, profile, device):
    with start_simulated(device, distance_mm=508.0) as sim:
        status, out, _ = measure(capsys, "--device", device, "--port", sim.port, "--json",
                                 "--profile", profile, "--base", "32")
    data = json.loads(out)
    assert status == 0
    assert {"device", "raw_mm", "mm", "inches", "quality", "at"} <= set(data)
    assert data["raw_mm"] == 508.0 and data["inches"] == 20.0
    assert data["base_to_base_inches"] == pytest.approx((508 - 16) / 25.4, abs=1e-3)


@pytest.mark.parametrize("device", DEVICES)
def test_device_error_exits_1_with_its_code(capsys, profile, device):
    with start_simulated(device) as sim:
        sim.device.faults.error_code = sim.device.default_error
        status, out, _ = measure(capsys, "--device", device, "--port", sim.port, "--json",
                                 "--profile", profile)
    assert status == 1
    assert json.loads(out)["code"] == sim.device.default_error


def test_no_answer_is_a_timeout_error(capsys, profile):
    with start_simulated("jrt") as sim:
        sim.device.faults.delay_s = 1.0
        status, out, _ = measure(capsys, "--device", "jrt", "--port", sim.port, "--json",
                                 "--profile", profile, "--timeout", "0.2")
    assert status == 1 and json.loads(out)["code"] == "timeout"


def test_missing_port_lists_the_ports(capsys, profile, tmp_path):
    status, _, err = measure(capsys, "--device", "jrt", "--port", str(tmp_path / "ttyUSB9"),
                             "--profile", profile)
    assert status == 2 and "Serial ports this machine sees" in err and "--port" in err


def test_calibrate_by_hand_then_measure_is_corrected(capsys, profile):
    assert main(["calibrate", "laser", "--device", "m80", "--profile", profile,
                 "--point", "300:305", "--point", "900:905", "--reference-edge", "front"]) == 0
    assert "offset -5.00 mm" in capsys.readouterr().out
    with start_simulated("m80", distance_mm=605.0) as sim:
        status, out, _ = measure(capsys, "--device", "m80", "--port", sim.port,
                                 "--profile", profile, "--base-radius", "20")
    assert status == 0
    assert out.startswith(f"{(600 - 20) / 25.4:.2f} in base to base")
    assert "raw 605.0 mm, calibrated 600.0 mm" in out


def test_calibrate_with_the_device(capsys, profile, monkeypatch):
    with start_simulated("glm") as sim:
        known = iter([150.0, 600.0, 1200.0])
        monkeypatch.setattr("builtins.input",
                            lambda prompt: sim.set_distance(next(known) * 1.02 + 1.5))
        assert main(["calibrate", "laser", "--device", "glm", "--port", sim.port,
                     "--profile", profile, "--at", "150", "--at", "600", "--at", "1200",
                     "--samples", "2", "--json"]) == 0
    cal = json.loads(capsys.readouterr().out)
    assert cal["scale"] == pytest.approx(1 / 1.02, abs=1e-4)
    assert cal["offset_mm"] == pytest.approx(-1.5 / 1.02, abs=0.05)


def test_calibrate_needs_points(capsys, profile):
    assert main(["calibrate", "laser", "--device", "glm", "--profile", profile]) == 2
    assert "--at MM" in capsys.readouterr().err


class Station:
    """`python -m station ARGS` in a subprocess, its output lines read with a timeout."""

    def __init__(self, *argv, **options):
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        # Ctrl-C as at a terminal: a test run started in the background (pytest-xdist's
        # workers then too) passes SIGINT on ignored, and Python then never raises
        # KeyboardInterrupt: the station would not stop.
        self.proc = subprocess.Popen([sys.executable, "-m", "station", *argv], cwd=ROOT,
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, preexec_fn=_default_sigint, **options)
        self.out, self.err = queue.Queue(), queue.Queue()
        for stream, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=self._pump, args=(stream, lines), daemon=True).start()

    @staticmethod
    def _pump(stream, lines):
        for line in stream:
            lines.put(line)

    def line(self, lines=None, timeout=10):
        return (lines or self.out).get(timeout=timeout)

    def interrupt(self, timeout=10) -> int:
        """Ctrl-C; the exit status (the process is killed if it does not stop in time)."""
        self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("device", ["glm", "disto"])
def test_watch_prints_every_pushed_reading_until_ctrl_c(profile, device):
    with start_simulated(device) as sim:
        station = Station("measure", "--device", device, "--port", sim.port, "--watch",
                          "--json", "--profile", profile)
        lines = []
        try:
            assert "watching" in station.line(station.err)      # the port is open
            deadline = time.monotonic() + 10
            while device == "glm" and not sim.device.auto_sync:
                assert time.monotonic() < deadline
                time.sleep(0.01)
            for mm in (100.0, 200.0, 300.0):
                sim.set_distance(mm)
                sim.press()
                lines.append(json.loads(station.line()))
        finally:
            status = station.interrupt()
    assert [line["raw_mm"] for line in lines] == [100.0, 200.0, 300.0]
    assert status == 0


def test_simulate_laser_prints_its_port_and_takes_controls(capsys, profile):
    station = Station("simulate", "laser", "--device", "dollar", "--distance", "777",
                      stdin=subprocess.PIPE)
    proc = station.proc
    try:
        port = station.line().split(" on ")[1].strip()
        station.line()
        status, out, _ = measure(capsys, "--device", "dollar", "--port", port, "--json",
                                 "--profile", profile)
        assert status == 0 and json.loads(out)["raw_mm"] == 777.0
        proc.stdin.write("d 1234\n")
        proc.stdin.flush()
        assert station.line().strip() == "ok"
        status, out, _ = measure(capsys, "--device", "dollar", "--port", port, "--json",
                                 "--profile", profile)
        assert json.loads(out)["raw_mm"] == 1234.0
        proc.stdin.write("q\n")
        proc.stdin.flush()
        assert proc.wait(timeout=10) == 0
    finally:
        proc.kill()


def test_framing_and_baud_are_settings(capsys, profile):
    with start_simulated("jrt", distance_mm=321.0) as sim:
        status, out, _ = measure(capsys, "--device", "jrt", "--port", sim.port, "--json",
                                 "--profile", profile, "--baud", "115200", "--framing", "8e2")
    assert status == 0 and json.loads(out)["raw_mm"] == 321.0
    status, _, err = measure(capsys, "--device", "jrt", "--port", "x", "--framing", "9X1",
                             "--profile", profile)
    assert status == 2 and "8N1" in err


def test_port_by_usb_vid_pid(capsys, profile, monkeypatch):
    from types import SimpleNamespace

    from station.laser import transport

    with start_simulated("m80", distance_mm=456.0) as sim:
        adapter = SimpleNamespace(device=sim.port, vid=0x1A86, pid=0x7523,
                                  description="USB Serial (CH340)")
        monkeypatch.setattr(transport.list_ports, "comports", lambda: [adapter])
        status, out, _ = measure(capsys, "--device", "m80", "--port", "1a86:7523", "--json",
                                 "--profile", profile)
    assert status == 0 and json.loads(out)["raw_mm"] == 456.0
    status, _, err = measure(capsys, "--device", "m80", "--port", "10c4:ea60",
                             "--profile", profile)
    assert status == 2 and "1a86:7523" in err and "CH340" in err


def test_watch_asks_a_device_that_does_not_push(profile):
    with start_simulated("jrt", distance_mm=100.0) as sim:
        station = Station("measure", "--device", "jrt", "--port", sim.port, "--watch",
                          "--every", "0.05", "--json", "--profile", profile)
        try:
            assert "asking every 0.05 s" in station.line(station.err)
            assert json.loads(station.line())["raw_mm"] == 100.0
            sim.set_distance(250.0)
            seen = [json.loads(station.line())["raw_mm"] for _ in range(4)]
            sim.device.faults.error_code, sim.device.faults.errors_left = "8", 1
            lines = [json.loads(station.line()) for _ in range(4)]
        finally:
            status = station.interrupt()
    assert seen[-1] == 250.0 and set(seen) <= {100.0, 250.0}
    assert {"error": "JRT: signal too weak (8)", "code": "8"} in lines   # and it goes on
    assert lines[-1]["raw_mm"] == 250.0 and status == 0


@pytest.mark.parametrize("option, value", [
    ("--timeout", "inf"), ("--timeout", "nan"), ("--timeout", "0"), ("--timeout", "1e12"),
    ("--every", "nan"), ("--every", "inf"), ("--every", "-1"),
    ("--baud", "99999999999"), ("--baud", "0"), ("--baud", "9600.5"),
    ("--base-radius", "nan"), ("--base-radius", "inf"), ("--base-radius", "-3")])
def test_numbers_that_are_not_finite_or_out_of_range_are_refused_at_once(
        capsys, profile, option, value):
    # No device is opened: the port does not exist, and the number is refused before.
    with pytest.raises(SystemExit) as exit:
        main(["measure", "--device", "jrt", "--port", "/nonexistent/port", "--watch",
              "--profile", profile, f"{option}={value}"])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: '{value}'" in err and "give a" in err


@pytest.mark.parametrize("point", ["nan:nan", "500:inf", "-5:3", "500", "500:1:2"])
def test_calibrate_refuses_points_that_are_not_finite(capsys, profile, point):
    with pytest.raises(SystemExit) as exit:
        main(["calibrate", "laser", "--device", "glm", "--profile", profile, f"--point={point}"])
    assert exit.value.code == 2
    assert f"argument --point: '{point}': write KNOWN:RAW" in capsys.readouterr().err
    assert not os.path.exists(profile)


def never_asked(prompt):
    raise AssertionError("a reading was taken although the profile cannot be written")


@pytest.mark.parametrize("content, said", [
    ("{not json", "cannot read the laser calibration profile"),
    ('{"version": 1, "devices": []}', "cannot read the laser calibration profile"),
    (None, "is a folder")])
def test_calibrate_checks_the_profile_before_taking_readings(
        capsys, tmp_path, monkeypatch, content, said):
    path = tmp_path / "laser.json"
    if content is None:
        path.mkdir()
    else:
        path.write_text(content)
    monkeypatch.setattr("builtins.input", never_asked)
    with start_simulated("glm") as sim:
        assert main(["calibrate", "laser", "--device", "glm", "--port", sim.port,
                     "--profile", str(path), "--at", "500"]) == 2
    assert said in capsys.readouterr().err


def test_a_profile_that_cannot_be_written_names_the_readings_taken(
        capsys, profile, monkeypatch):
    os.mkdir(profile + ".tmp")            # where the profile is written first
    with start_simulated("glm", distance_mm=503.0) as sim:
        monkeypatch.setattr("builtins.input", lambda prompt: None)
        assert main(["calibrate", "laser", "--device", "glm", "--port", sim.port,
                     "--profile", profile, "--at", "500", "--samples", "1"]) == 2
    err = capsys.readouterr().err
    assert f"cannot write {profile}" in err and "--point 500:503" in err


def test_calibrate_at_with_stdin_closed_says_to_use_a_terminal(capsys, profile, monkeypatch):
    def closed(prompt):
        raise EOFError
    monkeypatch.setattr("builtins.input", closed)
    with start_simulated("glm") as sim:
        assert main(["calibrate", "laser", "--device", "glm", "--port", sim.port,
                     "--profile", profile, "--at", "500"]) == 2
    assert "stdin is closed" in capsys.readouterr().err and not os.path.exists(profile)


def test_calibrate_refuses_a_known_distance_that_is_not_finite(capsys, profile):
    with pytest.raises(SystemExit) as exit:
        main(["calibrate", "laser", "--device", "glm", "--port", "/nonexistent",
              "--profile", profile, "--at", "nan"])
    assert exit.value.code == 2 and "argument --at: 'nan'" in capsys.readouterr().err


@pytest.mark.parametrize("option, value", [
    ("--distance", "nan"), ("--distance", "inf"), ("--distance", "-1"),
    ("--press-every", "-1"), ("--press-every", "0"), ("--press-every", "nan")])
def test_simulate_refuses_numbers_it_cannot_run_with(capsys, option, value):
    with pytest.raises(SystemExit) as exit:
        main(["simulate", "laser", "--device", "jrt", f"{option}={value}"])
    assert exit.value.code == 2 and f"argument {option}: '{value}'" in capsys.readouterr().err


def test_simulate_says_when_its_link_dir_cannot_be_used(capsys, tmp_path, monkeypatch):
    a_file = tmp_path / "a-file"
    a_file.touch()
    for link_dir in (a_file, a_file / "sub"):
        assert main(["simulate", "laser", "--device", "jrt", "--link-dir", str(link_dir)]) == 2
        assert "a-file is a file, not a folder" in capsys.readouterr().err

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr("station.cli.commands.simulate.start_simulated", denied)
    assert main(["simulate", "laser", "--device", "jrt", "--link-dir", "/root/x"]) == 2
    assert "cannot start the simulated jrt in /root/x: Permission denied" \
        in capsys.readouterr().err


def test_a_typed_distance_that_is_not_finite_is_refused(capsys):
    from station.cli.commands.simulate import control
    with start_simulated("jrt", distance_mm=500.0) as sim:
        assert control(sim, ["d", "nan"]) is True
        assert "cannot read 'd nan'" in capsys.readouterr().out
        assert sim.device.distance_mm == 500.0
