"""The transport against simulated devices on real pseudo-terminals: requests, pushed
readings, device errors, faults, missing ports, and 100 unplug/replug cycles."""

import threading
import time

import pytest

from station.fakes.laser import start_simulated
from station.laser.codec import DeviceError, Reading
from station.laser.protocols import codec_class
from station.laser.transport import LinkSettings, LinkTimeout, PortNotFound, Transport

def wait_until(condition, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


FAST = dict(backoff_initial_s=0.005, backoff_max_s=0.05, read_timeout_s=0.02)
DEVICES = ["glm", "disto", "jrt", "m80", "dollar"]


def link(sim, **options):
    codec = codec_class(sim.device.name)()
    return Transport(codec, LinkSettings(sim.port, codec.baudrate, **FAST), **options)


@pytest.fixture
def sim(request):
    device = start_simulated(request.param, distance_mm=254.0)
    yield device
    device.close()


@pytest.mark.parametrize("sim", DEVICES, indirect=True)
def test_measure_with_split_garbled_and_slow_replies(sim):
    with link(sim) as transport:
        assert transport.request("measure", timeout=2).raw_mm == 254.0
        sim.set_distance(1500.0)
        sim.device.faults.split = True
        sim.device.faults.garbage = 1
        sim.device.faults.delay_s = 0.05
        assert transport.request("measure", timeout=2).raw_mm == 1500.0


@pytest.mark.parametrize("sim", DEVICES, indirect=True)
def test_device_error_is_an_error_not_a_distance(sim):
    sim.device.faults.error_code = sim.device.default_error
    sim.device.faults.errors_left = 1
    with link(sim) as transport:
        answer = transport.request("measure", timeout=2)
        assert isinstance(answer, DeviceError) and answer.code == sim.device.default_error
        assert transport.request("measure", timeout=2).raw_mm == 254.0


@pytest.mark.parametrize("sim", ["glm", "jrt", "m80", "dollar"], indirect=True)
def test_a_bad_checksum_is_never_a_reading(sim):
    sim.device.faults.bad_checksum = 1
    with link(sim) as transport:
        with pytest.raises(LinkTimeout):
            transport.request("measure", timeout=0.3)
        assert transport.request("measure", timeout=2).raw_mm == 254.0


@pytest.mark.parametrize("sim", ["glm"], indirect=True)
def test_glm_auto_sync_pushes_and_keep_alives(sim):
    sim.device.keep_alive_every = 1
    with link(sim, on_connect=("auto_sync",)) as transport:
        wait_until(lambda: sim.device.auto_sync)
        sim.set_distance(812.5)
        sim.press()
        pushed = transport.next_pushed(timeout=2)
        assert isinstance(pushed, Reading) and pushed.pushed and pushed.raw_mm == 812.5


@pytest.mark.parametrize("sim", ["glm"], indirect=True)
def test_a_pushed_error_is_not_the_answer_to_a_waiting_request(sim):
    """The GLM's own button measurement fails (auto-sync error frame) while the station
    waits for its reply: the request gets its reading, the error goes to the pushed stream."""
    with link(sim, on_connect=("auto_sync",)) as transport:
        wait_until(lambda: sim.device.auto_sync)
        sim.device.faults.delay_s = 0.3                  # the reply comes late

        def press_failing():
            wait_until(lambda: sim.device.measurements == 1)   # the request was measured
            sim.device.faults.error_code, sim.device.faults.errors_left = "10", 1
            sim.press()                                  # pushed now, before the reply

        presser = threading.Thread(target=press_failing)
        presser.start()
        try:
            assert transport.request("measure", timeout=2) == Reading(254.0)
        finally:
            presser.join()
        assert transport.next_pushed(timeout=2) == DeviceError(
            "63", "GLM: the device reported a measuring error", pushed=True)


@pytest.mark.parametrize("sim", ["disto"], indirect=True)
def test_disto_send_key_is_confirmed(sim):
    with link(sim) as transport:
        sim.set_distance(1234.5)
        sim.press()
        assert transport.next_pushed(timeout=2).raw_mm == 1234.5
        wait_until(lambda: sim.device.unconfirmed == 0)


def test_missing_port_lists_what_it_sees(tmp_path):
    codec = codec_class("jrt")()
    with pytest.raises(PortNotFound, match="Serial ports this machine sees"):
        Transport(codec, LinkSettings(str(tmp_path / "nothing"), 19200)).open()
    with pytest.raises(PortNotFound, match="no USB serial device with VID:PID 10c4:ea60"):
        Transport(codec, LinkSettings("10c4:ea60", 19200)).open()


@pytest.mark.parametrize("sim", ["jrt"], indirect=True)
def test_a_port_in_use_is_not_shared(sim):
    # two readers of one port (the service and `station calibrate laser`) would each get
    # half the bytes: the second is refused, and told why
    with link(sim) as transport:
        with pytest.raises(PortNotFound, match="in use by another program.*systemctl stop"):
            link(sim).open()
        assert transport.request("measure", timeout=2).raw_mm == 254.0


@pytest.mark.parametrize("sim", ["glm", "disto"], indirect=True)
def test_unplug_replug_100_times_loses_and_duplicates_nothing(sim):
    """Each cycle: a whole reading is pushed and read by the host, half of the next frame
    follows, then the cable is pulled. Every whole reading arrives exactly once, the half
    frame never turns into one, and the link is back within 5 s each time."""
    received = []

    def collect(event):
        if isinstance(event, Reading):
            received.append(event.raw_mm)

    on_connect = ("auto_sync",) if sim.device.name == "glm" else ()
    transport = link(sim, on_event=collect, on_connect=on_connect).open()
    worst = 0.0
    try:
        for cycle in range(100):
            if sim.device.name == "glm":    # the transport turns auto-sync on at each connect
                wait_until(lambda: sim.device.auto_sync)
            sim.set_distance(1000.0 + cycle)
            sim.press()
            half = (sim.device.pushed_frame(5.0) if sim.device.name == "glm"
                    else sim.device.reading_frame(5.0))
            sim.send(half[:len(half) // 2])
            wait_until(lambda: transport.bytes_received == sim.bytes_sent)  # host read all
            sim.unplug()
            started = time.monotonic()
            sim.replug()
            wait_until(lambda: transport.reconnects == cycle + 1
                       and transport.connected.is_set())
            worst = max(worst, time.monotonic() - started)
    finally:
        transport.close()
    assert received == [1000.0 + cycle for cycle in range(100)]
    assert worst < 5.0


@pytest.mark.parametrize("sim", ["jrt"], indirect=True)
def test_a_silent_link_is_reopened(sim):
    """A Bluetooth link that went to sleep can stay 'open' and say nothing: after
    unanswered requests in a row the transport reopens the port."""
    with link(sim) as transport:
        sim.device.faults.delay_s = 0.2
        for _ in range(2):
            with pytest.raises(LinkTimeout):
                transport.request("measure", timeout=0.05)
        wait_until(lambda: transport.reconnects == 1 and transport.connected.is_set())
        sim.device.faults.delay_s = 0
        assert transport.request("measure", timeout=2).raw_mm == 254.0


@pytest.mark.parametrize("sim", ["jrt"], indirect=True)
def test_a_failing_codec_or_callback_does_not_stop_the_listener(sim):
    class Flaky(codec_class("jrt")):
        failures = 1

        def feed(self, data):
            if Flaky.failures:
                Flaky.failures -= 1
                raise RuntimeError("codec bug")
            return super().feed(data)

    def callback(event):
        raise RuntimeError("callback bug")

    transport = Transport(Flaky(), LinkSettings(sim.port, 19200, **FAST), on_event=callback)
    with transport:
        with pytest.raises(LinkTimeout):
            transport.request("measure", timeout=0.3)
        assert transport.request("measure", timeout=2).raw_mm == 254.0


@pytest.mark.parametrize("sim", ["jrt", "m80", "dollar"], indirect=True)
def test_requests_across_100_unplugs_get_their_own_answer(sim):
    """Each cycle: a request answered, half a frame left on the line, the cable pulled and
    put back. The next answer is the new distance, never a mix with the half frame."""
    with link(sim) as transport:
        for cycle in range(100):
            wait_until(lambda: transport.connected.is_set())
            sim.set_distance(1000.0 + cycle)
            assert transport.request("measure", timeout=2).raw_mm == 1000.0 + cycle
            half = sim.device.reading_frame(5.0)
            sim.send(half[:len(half) // 2])
            wait_until(lambda: transport.bytes_received == sim.bytes_sent)
            sim.unplug()
            sim.replug()
            wait_until(lambda: transport.reconnects == cycle + 1)


@pytest.mark.parametrize("sim", ["m80"], indirect=True)
def test_m80_continuous_mode_streams_readings(sim):
    with link(sim, on_connect=("continuous",)) as transport:
        first = transport.next_pushed(timeout=2)
        sim.set_distance(700.0)
        later = [transport.next_pushed(timeout=2) for _ in range(3)]
    assert first.raw_mm == 254.0 and later[-1].raw_mm == 700.0


@pytest.mark.parametrize("sim", ["jrt"], indirect=True)
def test_a_write_racing_the_listeners_close_is_a_lost_link(sim, monkeypatch):
    """The cable pulled and put back, and a request at once: the listener closes the old
    port while the request's write is under way inside pyserial, past its is-open check
    (pyserial then raised TypeError on the closed fd). The write counts as a lost link:
    the request waits for the reconnect and gets its answer; nothing escapes."""
    import serial.serialposix as posix

    with link(sim) as transport:
        assert transport.request("measure", timeout=2).raw_mm == 254.0
        old_port, requester, raced = transport._serial, threading.current_thread(), []
        real_to_bytes = posix.to_bytes

        def unplug_mid_write(data):     # pyserial's write calls this after checking is_open
            if threading.current_thread() is requester and not raced:
                raced.append(True)
                sim.unplug()
                deadline = time.monotonic() + 0.5
                while old_port.fd is not None and time.monotonic() < deadline:
                    time.sleep(0.001)   # the listener may close the port now (it did)
                sim.replug()
            return real_to_bytes(data)

        monkeypatch.setattr(posix, "to_bytes", unplug_mid_write)
        sim.set_distance(1500.0)
        assert transport.request("measure", timeout=3).raw_mm == 1500.0
        assert raced and transport.reconnects == 1
