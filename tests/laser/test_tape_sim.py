"""End to end: the station's transport and codec read the simulated tape, which runs the
real firmware, through a pseudo-terminal."""

import json
import os
import threading
import time

import pytest

from station.cli import main
from station.fakes.laser import start_simulated
from station.laser.codec import DeviceError, Notice, Reading
from station.laser.protocols import codec_class
from station.laser.transport import LinkSettings, Transport

FAST = dict(backoff_initial_s=0.005, backoff_max_s=0.05, read_timeout_s=0.02)


def wait_for(condition, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


@pytest.fixture
def sim():
    device = start_simulated("tape", distance_mm=254.0)
    yield device
    device.close()


def link(sim, events):
    codec = codec_class("tape")()
    return Transport(codec, LinkSettings(sim.port, codec.baudrate, **FAST), on_event=events.append)


def test_the_station_reads_the_tape_through_a_pty(sim):
    assert os.path.realpath(sim.port).startswith("/dev/pts/")
    events = []
    with link(sim, events) as transport:
        assert transport.request("measure", timeout=3) == Reading(254.0, quality=24.0)
        sim.set_distance(1219.0)
        sim.device.faults.split = True
        sim.device.faults.garbage = 1
        assert transport.request("measure", timeout=3).raw_mm == 1219.0
        sim.press()                                       # the trigger on the tape
        assert transport.next_pushed(timeout=3) == Reading(1219.0, quality=24.0, pushed=True)
        sim.device.faults.error_code = sim.device.default_error
        sim.device.faults.errors_left = 1
        assert transport.request("measure", timeout=3) == \
            DeviceError("jrt:8", "laser tape: signal too weak")
    assert Notice("button", "short") in events
    assert not [e for e in events if isinstance(e, Notice) and e.kind == "lost"]


def test_the_triggers_error_is_not_the_answer_to_the_station(sim):
    """The trigger is pressed and its measurement fails just as the station asks: the
    tape's ERR for the trigger reaches the station while its request waits. The request
    gets its own reading; the trigger's error goes to the pushed stream."""
    events = []
    with link(sim, events) as transport:
        sim.device.firmware.module.fail_next(8)          # the trigger's measurement fails
        presser = threading.Thread(target=sim.press)
        presser.start()
        try:
            wait_for(lambda: sim.device.firmware.button.level == 0)   # trigger held down
            assert transport.request("measure", timeout=3) == Reading(254.0, quality=24.0)
        finally:
            presser.join()
        assert transport.next_pushed(timeout=3) == \
            DeviceError("jrt:8", "laser tape: signal too weak", pushed=True)
    assert events.index(Notice("button", "short")) < events.index(Reading(254.0, quality=24.0))


def test_a_module_that_stops_answering_then_comes_back(sim):
    events = []
    with link(sim, events) as transport:
        sim.device.firmware.app.settings.update(timeout_ms=500, probe_ms=300)   # quicker
        sim.device.firmware.module.silent = True
        assert transport.request("measure", timeout=3) == \
            DeviceError("timeout", "laser tape: laser module did not answer measure")
        sim.device.firmware.module.silent = False
        wait_for(lambda: Notice("module", "ok") in events)
        assert transport.request("measure", timeout=3).raw_mm == 254.0
    assert events.index(Notice("module", "lost")) < events.index(Notice("module", "ok"))


def test_unplugging_restarts_the_tape(sim):
    events = []
    with link(sim, events) as transport:
        assert transport.request("measure", timeout=3).raw_mm == 254.0
        before = sim.device.firmware
        sim.unplug()
        wait_for(lambda: not transport.connected.is_set())
        sim.replug()
        wait_for(transport.connected.is_set)
        assert sim.device.firmware is not before          # the Pico lost power and rebooted
        assert transport.request("measure", timeout=3).raw_mm == 254.0


def test_station_measure_reads_the_simulated_tape(sim, capsys):
    assert main(["measure", "--device", "tape", "--port", sim.port, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert (printed["device"], printed["raw_mm"], printed["quality"]) == ("tape", 254.0, 24.0)
    assert printed["inches"] == pytest.approx(10.0)
    sim.device.faults.error_code = "jrt:7"
    sim.device.faults.errors_left = 1
    assert main(["measure", "--device", "tape", "--port", sim.port, "--json"]) == 1
    printed = json.loads(capsys.readouterr().out)
    assert printed["code"] == "jrt:7" and "background light" in printed["error"]
