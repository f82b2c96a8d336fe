"""The JRT and "0x80" module drivers against the byte examples of LASER_PROTOCOLS.md."""

import pytest

from firmware.host.fake_machine import UART
from firmware.host.sim_laser import ModuleOnWires
from firmware.laser_tape.drivers import (ACK, FAILED, LASER_OFF, LASER_ON, MEASURE, READING,
                                         JrtDriver, M80Driver)

hx = bytes.fromhex


class Wire:
    """A UART whose far end the test writes by hand."""

    def __init__(self):
        self.rx = b""
        self.sent = b""

    def write(self, data):
        self.sent += data

    def any(self):
        return len(self.rx)

    def read(self, n=None):
        data, self.rx = self.rx, b""
        return data or None


@pytest.mark.parametrize("driver,request_,frame", [
    (JrtDriver, MEASURE, "AA 00 00 20 00 01 00 00 21"),
    (JrtDriver, LASER_ON, "AA 00 01 BE 00 01 00 01 C1"),
    (JrtDriver, LASER_OFF, "AA 00 01 BE 00 01 00 00 C0"),
    (M80Driver, MEASURE, "80 06 02 78"),
    (M80Driver, LASER_ON, "80 06 05 01 74"),
    (M80Driver, LASER_OFF, "80 06 05 00 75"),
])
def test_request_frames(driver, request_, frame, clock):
    assert driver(Wire(), clock).frame(request_) == hx(frame)


@pytest.mark.parametrize("driver,answer,event", [
    (JrtDriver, "AA 00 00 22 00 03 00 00 04 75 00 18 B6", (READING, 1141, 24)),
    (JrtDriver, "EE 00 00 00 00 01 00 08 09", (FAILED, "jrt:8", "signal too weak")),
    (JrtDriver, "EE 00 00 00 00 01 00 2A 2B", (FAILED, "jrt:42", "module error")),
    (M80Driver, "80 06 83 30 30 30 2E 36 31 39 99", (READING, 619, None)),
    (M80Driver, "80 06 82 30 30 30 2E 36 31 39 9A", (READING, 619, None)),
    (M80Driver, "80 06 83" + b"ERR--15".hex() + "4E", (FAILED, "m80:15", "module error")),
    # noise an 8-bit checksum lets through: never a 16.7 km reading, never a broken line
    (JrtDriver, "AA 00 00 22 00 03 00 FF FF FF 00 18 3A",
     (FAILED, "jrt:range", "module sent a distance beyond its range")),
    (M80Driver, "80 06 83 45 52 52 20 31 00 35 88", (FAILED, "m80:15", "module error")),
    (M80Driver, "80 06 83 45 52 52 FF FE 2D 31 B3", (FAILED, "m80:1", "module error")),
])
def test_measurement_answers(driver, answer, event, clock):
    wire = Wire()
    tape = driver(wire, clock)
    tape.send(MEASURE, clock.ticks_ms(), 1000)
    data = hx(answer)
    if driver is JrtDriver:
        assert sum(data[1:-1]) & 0xFF == data[-1]       # the examples' own checksums hold
    else:
        assert sum(data) & 0xFF == 0
    wire.rx = b"\x55\x00" + data[:5]        # garbage first, then a frame in two pieces
    assert tape.poll(clock.ticks_ms()) is None and tape.busy()
    wire.rx = data[5:]
    assert tape.poll(clock.ticks_ms()) == event and not tape.busy()


@pytest.mark.parametrize("driver", [JrtDriver, M80Driver])
def test_a_frame_with_a_bad_checksum_is_skipped(driver, clock):
    uart = UART(0)
    module = uart.device = ModuleOnWires.of(driver.name, clock)
    module.silent = True                        # the test sends the answers itself
    tape = driver(uart, clock)
    tape.send(MEASURE, clock.ticks_ms(), 1000)
    good = module.device.reading_frame(2500)
    module.put(module.device.corrupt(good) + good)
    assert tape.poll(clock.ticks_ms())[:2] == (READING, 2500)


@pytest.mark.parametrize("driver", [JrtDriver, M80Driver])
def test_laser_requests_are_confirmed(driver, clock):
    uart = UART(0)
    module = uart.device = ModuleOnWires.of(driver.name, clock)
    tape = driver(uart, clock)
    for request in (LASER_ON, LASER_OFF):
        tape.send(request, clock.ticks_ms(), 500)
        assert tape.poll(clock.ticks_ms()) is None
        clock.advance(module.LASER_DELAY_MS)
        assert tape.poll(clock.ticks_ms()) == (ACK, request)
    assert module.requests == [LASER_ON, LASER_OFF]


@pytest.mark.parametrize("driver", [JrtDriver, M80Driver])
def test_silence_and_garbage_time_out(driver, clock):
    wire = Wire()
    tape = driver(wire, clock)
    tape.send(MEASURE, clock.ticks_ms(), 1000)
    clock.advance(999)
    assert tape.poll(clock.ticks_ms()) is None
    clock.advance(1)
    assert tape.poll(clock.ticks_ms()) == (FAILED, "timeout", "laser module did not answer measure")
    tape.send(MEASURE, clock.ticks_ms(), 1000)
    wire.rx = b"\x12\x34\x80\x06"
    tape.poll(clock.ticks_ms())
    clock.advance(1000)
    assert tape.poll(clock.ticks_ms())[:2] == (FAILED, "garbled")


@pytest.mark.parametrize("driver", [JrtDriver, M80Driver])
def test_a_late_answer_is_not_taken_for_the_next_one(driver, clock):
    uart = UART(0)
    module = uart.device = ModuleOnWires.of(driver.name, clock, distance_mm=1000, delay_ms=1500)
    tape = driver(uart, clock)
    tape.send(MEASURE, clock.ticks_ms(), 1000)
    clock.advance(1000)
    assert tape.poll(clock.ticks_ms())[1] == "timeout"
    clock.advance(600)                      # the first answer (1000 mm) arrives late
    module.device.distance_mm, module.delay_ms = 2000, 100
    tape.send(MEASURE, clock.ticks_ms(), 1000)
    clock.advance(100)
    assert tape.poll(clock.ticks_ms())[:2] == (READING, 2000)


def test_a_reading_does_not_answer_a_laser_request(clock):
    wire = Wire()
    tape = JrtDriver(wire, clock)
    tape.send(LASER_ON, clock.ticks_ms(), 500)
    wire.rx = hx("AA 00 00 22 00 03 00 00 04 75 00 18 B6 AA 00 01 BE 00 01 00 01 C1")
    assert tape.poll(clock.ticks_ms()) == (ACK, LASER_ON)
