"""End to end: `station run --simulate` with ROLL pressed on a mock pin, the dice rendered by
the synthetic tray, read by the real reader, resolved, journalled and drawn to PNG; and the
journal surviving a SIGKILL in the middle of writing outcomes."""

import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from station import config
from station.cli import main
from station.journal import Journal
from station.service.app import Options, Station, parse_script

ROOT = Path(__file__).resolve().parents[2]


def small_config(tmp_path, actions="[[actions]]\nname = 'Roll 2D6'\nruling = 'dice.roll expr=2D6'\n"):
    path = tmp_path / "station.toml"
    path.write_text("[camera]\nresolution = [640, 480]\nsettle_seconds = 0.2\nfps = 20\n"
                    "[controls]\nbounce_ms = 5\nhold_seconds = 0.3\n" + actions)
    return path


def test_roll_on_a_mock_pin_is_read_resolved_journalled_and_drawn(tmp_path):
    screens, journal_path = tmp_path / "screens", tmp_path / "journal.sqlite"
    station = Station(config.load(small_config(tmp_path)),
                      Options(simulate=True, script=["roll"], screens=screens,
                              journal=journal_path, seed=5, roll_timeout=30))
    truth = []
    expect = station.camera.expect
    station.camera.expect = lambda *a: (expect(*a), truth.append(station.camera.rendered.truth))
    assert station.run() == 0

    rolled = truth[-1]          # a tray the reader refused is rolled again: the last one counts
    with Journal(journal_path) as journal:
        [outcome] = list(journal.entries(kind="outcome"))
        [reading] = journal.readings_of(outcome.id)
    assert sorted(outcome.data["dice"]) == sorted(t.value for t in rolled)   # read right
    assert outcome.data["total"] == sum(t.value for t in rolled)
    assert reading.frame[:2] == b"\xff\xd8"
    pngs = sorted(p.name for p in screens.iterdir())
    assert pngs[0].endswith("idle.png") and pngs[-1].endswith("resolved.png")
    assert any(p.endswith("settling.png") for p in pngs)
    final = np.asarray(Image.open(screens / pngs[-1]).convert("RGB"))
    assert final.shape == (480, 800, 3)
    tray_half = final[70:420, :400]
    assert tray_half.std() > 15                       # the tray picture is on the screen
    redrawn = tmp_path / "redrawn.png"
    assert main(["journal", "show", str(outcome.id), "--png", str(redrawn),
                 "--journal", str(journal_path)]) == 0
    assert np.abs(np.asarray(Image.open(redrawn).convert("RGB"), int) - final).mean() < 20


def test_the_web_display_serves_the_running_station(tmp_path):
    """`station run --web PORT` in any mode: a browser sees the screens the station shows,
    while it runs; the port is given back when it stops."""
    import threading
    import urllib.error
    import urllib.request
    from station.display.web import WebSink
    station = Station(config.load(small_config(tmp_path)),
                      Options(simulate=True, script=["wait:3"], journal=tmp_path / "j.sqlite",
                              web_port=0, roll_timeout=30))
    [web] = [s for s in station.display.sinks if isinstance(s, WebSink)]
    url, seen = f"http://127.0.0.1:{web.port}", {}

    def browse():                          # station.run wants the main thread (signals)
        for _ in range(100):
            with urllib.request.urlopen(url + "/screen/version", timeout=10) as reply:
                seen["version"] = int(reply.read())
            if seen["version"] >= 1:       # the idle screen was shown
                break
            time.sleep(0.05)
        with urllib.request.urlopen(url + "/", timeout=10) as reply:
            seen["page"] = reply.read()

    browser = threading.Thread(target=browse)
    browser.start()
    assert station.run() == 0
    browser.join(timeout=30)
    assert seen["version"] >= 1 and b'<img id="screen"' in seen["page"]
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "/", timeout=5)


def test_bad_config_stops_with_the_key_and_the_fix(tmp_path, capsys):
    bad = small_config(tmp_path, "[[actions]]\nname = 'Spear'\nruling = 'wm.ranged rat=5'\n")
    assert main(["run", "--simulate", "--config", str(bad), "--script", "roll"]) == 2
    err = capsys.readouterr().err
    assert "actions[0].ruling" in err and "def" in err
    path = tmp_path / "camera.toml"
    path.write_text("[camera]\nsource = 'opencv'\ndevice = '/nonexistent/video.mp4'\n"
                    "[display]\nsinks = ['terminal']\n")
    assert main(["run", "--config", str(path), "--script", "roll",
                 "--journal", str(tmp_path / "j.sqlite")]) == 2
    assert "camera.device '/nonexistent/video.mp4'" in capsys.readouterr().err
    path.write_text("[camera]\nsource = 'synthetic'\ncalibration = '/nonexistent/tray.json'\n"
                    "[display]\nsinks = ['terminal']\n")
    assert main(["run", "--config", str(path), "--script", "roll",
                 "--journal", str(tmp_path / "j.sqlite")]) == 2
    assert "camera.calibration: cannot load /nonexistent/tray.json" in capsys.readouterr().err


def test_a_file_where_the_screens_folder_should_be_stops_with_exit_2(tmp_path, capsys):
    # both were a FileExistsError traceback and exit 1 (systemd then restarts every 3 s)
    taken = tmp_path / "taken.png"
    taken.write_bytes(b"")
    path = tmp_path / "png.toml"
    path.write_text(f"[display]\nsinks = ['png']\npng_dir = '{taken}'\n")
    assert main(["run", "--config", str(path), "--script", "roll",
                 "--journal", str(tmp_path / "j.sqlite")]) == 2
    assert f"display.png_dir: cannot make the folder {taken}" in capsys.readouterr().err
    assert main(["run", "--simulate", "--config", str(small_config(tmp_path)), "--script", "roll",
                 "--screens", str(taken), "--journal", str(tmp_path / "j.sqlite")]) == 2
    assert f"--screens: cannot make the folder {taken}" in capsys.readouterr().err


def test_the_reader_warms_up_only_once_everything_is_built(tmp_path, monkeypatch):
    # a ConfigError raised while the warm-up thread loaded the networks ended the process
    # with "terminate called" and exit 134 (systemd restarts on it), not 2
    from station.service.devices import TrayReader
    warmed = []
    monkeypatch.setattr(TrayReader, "warm_up_in_background", lambda self: warmed.append(self))
    path = small_config(tmp_path)
    path.write_text(path.read_text().replace("bounce_ms = 5", "bounce_ms = 5\nroll = 'GPIO99'"))
    with pytest.raises(config.ConfigError, match="controls.roll"):
        Station(config.load(path), Options(simulate=True, journal=tmp_path / "j.sqlite"))
    assert warmed == []
    station = Station(config.load(small_config(tmp_path)),
                      Options(simulate=True, journal=tmp_path / "j.sqlite"))
    station._stack.close()
    assert warmed == [station.session.read]


@pytest.mark.parametrize("port", ["99999", "-1"])
def test_a_web_port_out_of_range_stops_with_exit_2(tmp_path, capsys, port):
    # bind() raised OverflowError: a traceback and exit 1
    assert main(["run", "--simulate", "--config", str(small_config(tmp_path)), "--script", "roll",
                 "--web", port, "--journal", str(tmp_path / "j.sqlite")]) == 2
    assert f"--web: {port} is not a TCP port" in capsys.readouterr().err


@pytest.mark.parametrize("wait", ["nan", "inf", "-1", "1e20", "two"])
def test_a_script_wait_that_is_not_seconds_is_refused(wait):
    # wait:nan and wait:inf killed the script thread (ValueError, OverflowError in sleep):
    # the station then ran on and never quit
    assert parse_script("roll,wait:2.5") == ["roll", "wait:2.5"]
    with pytest.raises(config.ConfigError, match=f"--script: 'wait:{wait}' needs seconds, 0-86400"):
        parse_script(f"roll,wait:{wait}")


def test_a_bad_script_stops_with_exit_2(tmp_path, capsys):
    assert main(["run", "--simulate", "--config", str(small_config(tmp_path)),
                 "--script", "roll,wait:inf", "--journal", str(tmp_path / "j.sqlite")]) == 2
    assert "--script: 'wait:inf' needs seconds" in capsys.readouterr().err

def test_sigkill_while_writing_outcomes_loses_nothing_that_was_shown(tmp_path):
    journal_path = tmp_path / "journal.sqlite"
    cmd = [sys.executable, "-m", "station", "run", "--simulate", "--config",
           str(small_config(tmp_path)), "--journal", str(journal_path), "--seed", "2",
           "--script", ",".join(["roll"] * 40)]
    # TMPDIR: a killed station cannot remove its simulated tape's link folder; keep it here
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env=env, cwd=tmp_path)
    shown: list[int] = []
    screen = []
    # A guard against a hung station, not a speed test: alone the three outcomes come in
    # about 25 s, on a 2-core machine also running the rest of the suite and two benchmarks
    # they once took over 60 s. It stays under pytest-timeout's 180 s.
    deadline = time.monotonic() + 150
    for line in process.stdout:
        screen.append(line)
        if line.startswith("-- "):
            screen = [line]
        found = re.match(r"\s*journal #(\d+)", line)
        if found and any("RESULT" in s for s in screen[:1]):
            shown.append(int(found[1]))
        if len(shown) >= 3 and "READING" in line:     # it is writing the next roll now
            time.sleep(random.uniform(0, 0.05))
            break
        if time.monotonic() > deadline:
            break
    process.send_signal(signal.SIGKILL)
    process.wait(10)
    assert len(shown) >= 3, "the station showed too few outcomes before the deadline"
    db = sqlite3.connect(journal_path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    kept = {row[0] for row in db.execute("SELECT id FROM entries WHERE kind='outcome'")}
    assert set(shown) <= kept
    with Journal(journal_path) as journal:                  # opens cleanly, and keeps going
        journal.add_measurement("after", "1.0 in", {"mm": 25.4})
        assert journal.verify().intact                      # an entry cut short left no seal


def test_laser_unplugged_while_running_is_reported_and_the_dice_still_work(tmp_path):
    path = small_config(tmp_path)
    path.write_text(path.read_text() + "[laser]\ntimeout_seconds = 0.5\n")
    station = Station(config.load(path), Options(simulate=True, journal=tmp_path / "j.sqlite",
                                                 seed=3, roll_timeout=30))
    shown = []
    station.display.sinks.append(type("Keep", (), {"name": "keep", "show": shown.append,
                                                   "close": lambda self=None: None}))
    from station.controls import Intent
    session = station.session
    session.idle()
    try:
        session.handle(Intent.MEASURE)
        assert shown[-1].state == "measured"
        station.laser.simulated.unplug()
        session.handle(Intent.MEASURE)
        assert shown[-1].level == "error" and "Laser" in shown[-1].prompt and not shown[-1].headline
        session.handle(Intent.ROLL)                       # the dice still work
        assert shown[-1].state == "resolved"
        assert "laser" in shown[-1].hardware              # and the screen still says so
        station.laser.simulated.replug()
        connected = station.laser.tape.transport.connected
        assert connected.wait(10), "the transport did not reconnect"
        session.handle(Intent.MEASURE)
        assert shown[-1].state == "measured" and "laser" not in shown[-1].hardware
    finally:
        station._stack.close()


def test_the_tapes_own_button_measures_and_journals(tmp_path):
    # GLM auto-sync (sent at connect): a press on the tape pushes a reading, which the
    # station shows and journals as it does one asked for with MEASURE
    from station.controls import Intent
    journal_path = tmp_path / "j.sqlite"
    station = Station(config.load(small_config(tmp_path)),
                      Options(simulate=True, journal=journal_path, seed=3, roll_timeout=30))
    shown = []
    station.display.sinks.append(type("Keep", (), {"name": "keep", "show": shown.append,
                                                   "close": lambda self=None: None}))
    session, tape = station.session, station.laser.simulated
    try:
        session.idle()
        deadline = time.monotonic() + 10
        while not tape.device.auto_sync:
            assert time.monotonic() < deadline, "auto-sync was not turned on at connect"
            time.sleep(0.01)
        tape.set_distance(762.0)
        tape.press()
        assert session.intents.get(timeout=10) is Intent.PUSHED
        session.handle(Intent.PUSHED)
        assert shown[-1].state == "measured" and shown[-1].headline == "30.0 in"
        assert "MEAS-1" in shown[-1].rules
        session.handle(Intent.PUSHED)          # nothing more was pushed: nothing changes
        assert shown[-1].state == "measured" and len(shown) == 2
    finally:
        station._stack.close()
    with Journal(journal_path) as journal:
        [entry] = list(journal.entries(kind="measurement"))
    assert entry.headline == "30.0 in"


def test_a_laser_not_there_at_start_is_waited_for_and_named_on_the_screen():
    # A USB tape not plugged in when the Pi boots must not stop the station (systemd would
    # not restart it): the dice work, the screen names the tape, and it is used once there.
    from station.fakes.laser import start_simulated
    from station.service.devices import TapeGauge
    from station.service.session import Session
    tape = start_simulated("glm", distance_mm=300.0)
    tape.unplug()
    gauge = TapeGauge("glm", tape.port, 0, 2.0, None)
    try:
        assert gauge.down.startswith(f"the glm is not connected (cannot open {tape.port}")
        session = Session.__new__(Session)               # only its hardware lines
        session.hardware, session.laser, session.read = {"camera": "unplugged"}, gauge, None
        session.journal = None
        assert set(session.hardware_down()) == {"camera", "laser"}
        tape.replug()
        assert gauge.tape.transport.connected.wait(10), "the tape was not opened when it came"
        assert gauge.down is None and set(session.hardware_down()) == {"camera"}
        assert gauge.measure().raw_mm == pytest.approx(300.0, abs=1)
    finally:
        gauge.close()
        tape.close()


def test_long_press_on_roll_types_the_faces_in_with_the_buttons(tmp_path):
    journal_path = tmp_path / "journal.sqlite"
    station = Station(config.load(small_config(tmp_path)),
                      Options(simulate=True, script=["hold", "roll", "roll", "next", "next"],
                              journal=journal_path, seed=1, roll_timeout=30))
    assert station.run() == 0
    with Journal(journal_path) as journal:
        [outcome] = list(journal.entries(kind="outcome"))
        [reading] = journal.readings_of(outcome.id)
    assert outcome.data["dice"] == [3, 1] and outcome.data["total"] == 4
    assert reading.data["manual"] and reading.frame is None


def test_a_scripted_reroll_takes_the_offer_before_the_deviation_dice(tmp_path):
    """`--script roll,reroll` on an AOE that misses: the station asks for the deviation and
    offers to re-roll the attack roll first (DICE-4); the script's RE-ROLL takes the offer, as
    the button does, instead of coming at the result, too late."""
    journal_path = tmp_path / "journal.sqlite"
    bomb = ("[[actions]]\nname = 'Fire bomb'\n"        # DEF 30: only 6+6 hits (WM-RNG-3)
            "ruling = 'wm.aoe rat=5 def=30 pow=12 aoe=3 rng=10 distance=8'\n")
    station = Station(config.load(small_config(tmp_path, bomb)),
                      Options(simulate=True, script=["roll", "reroll"], journal=journal_path,
                              seed=3, roll_timeout=30))
    assert station.run() == 0
    with Journal(journal_path) as journal:
        [outcome] = list(journal.entries(kind="outcome"))
        readings = journal.readings_of(outcome.id)
    assert [s["rule"] for s in outcome.data["steps"]][:4] == ["WM-RNG-1", "WM-RNG-2", "DICE-4",
                                                              "WM-RNG-2"]
    assert outcome.data["outcome"] == "deviated" and len(outcome.data["dice"]) == 6
    # the simulated players rolled no deviation dice before they re-rolled the attack roll
    assert [r.data["purpose"] for r in readings] == [
        "2 d6: AOE attack roll", "2 d6: re-roll of the AOE attack",
        "1 d6: deviation direction", "1 d6: deviation distance (d6)"]


def test_the_simulated_tape_is_aimed_as_the_seed_says():
    """--seed repeats the simulated distances too (the docs' pictures are made so)."""
    from station.config import DEFAULTS
    from station.service.devices import open_laser

    def two(seed):
        gauge = open_laser(DEFAULTS["laser"], simulate=True, hardware={}, seed=seed)
        try:
            return [gauge.measure().raw_mm for _ in range(2)]
        finally:
            gauge.close()
    first = two(5)
    assert first == two(5) and first != two(6) and first[0] != first[1]
