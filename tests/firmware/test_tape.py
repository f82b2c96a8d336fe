"""The whole firmware (pico.build and the main loop) against a simulated laser module:
measurements from the host and the trigger, module errors, long press, malformed host
commands, and a module that stops answering."""

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from firmware.host.fake_machine import UART
from firmware.host.harness import HostedTape
from firmware.laser_tape import led as patterns
from firmware.laser_tape.protocol import crc16


def fields(lines):
    """The lines without sequence number and CRC, checking both on the way."""
    out = []
    for line in lines:
        body, crc = line.rsplit(" *", 1)
        assert int(crc, 16) == crc16(body.encode()), line
        out.append(body.split(" ", 1)[1])
    return out


def test_greets_with_version_and_module(clock):
    tape = HostedTape("m80", clock=clock)
    assert tape.lines() == ["0 HELLO laser-tape 1.0.0 m80 *%04X"
                            % crc16(b"0 HELLO laser-tape 1.0.0 m80")]


def test_wiring_follows_config(clock):
    jrt = HostedTape("jrt", clock=clock)
    assert (jrt.uart.id, jrt.uart.baudrate, jrt.uart.framing) == (0, 19200, (8, None, 1))
    assert (jrt.uart.tx.id, jrt.uart.rx.id, jrt.button.id, jrt.led.id) == (0, 1, 15, "LED")
    assert jrt.button.pull == jrt.button.PULL_UP and jrt.led.mode == jrt.led.OUT
    assert HostedTape("m80", clock=clock).uart.baudrate == 9600
    assert HostedTape("jrt", clock=clock, BAUD=115200).uart.baudrate == 115200


def test_an_unknown_module_in_config_is_named(clock):
    from firmware.laser_tape.pico import config_error_line

    with pytest.raises(ValueError, match="config.MODULE is 'jrx'; use one of") as error:
        HostedTape("jrx", clock=clock)
    assert fields([config_error_line(error.value).rstrip("\n")]) == [
        "ERR config - config.MODULE is 'jrx'; use one of ['jrt', 'm80']"]


def test_host_measurement(tape):
    tape.module.device.distance_mm = 2345
    tape.send("17 MEASURE\n")
    tape.run(399)
    assert tape.lines() == []
    assert tape.led.changes > 3                 # blinking while the module measures
    tape.run(5)
    quality = "24" if tape.module.name == "jrt" else "-"
    assert fields(tape.lines()) == ["MM 2345 %s 17" % quality]


def test_trigger_measurement(tape):
    tape.module.device.distance_mm = 762
    tape.press(120)
    tape.run(500)
    assert fields(tape.lines())[:2] == ["BTN short", "MM 762 %s btn" % tape.quality()]
    assert tape.module.requests == ["measure"]


def test_a_bouncing_trigger_measures_once(tape):
    for level, ms in [(0, 2), (1, 1), (0, 3), (1, 2), (0, 150), (1, 1), (0, 2), (1, 600)]:
        tape.hold(level, ms)
    assert [f for f in fields(tape.lines()) if f.startswith(("BTN", "MM"))] == \
        ["BTN short", "MM 1141 %s btn" % tape.quality()]
    assert tape.module.requests == ["measure"]


def test_long_press_toggles_the_laser_pointer(tape):
    tape.hold(0, 850)
    assert fields(tape.lines()) == ["BTN long", "LASER on btn"]
    assert tape.module.requests == ["laser_on"] and tape.app.laser_on
    tape.hold(0, 1000)                          # still held: nothing more
    tape.hold(1, 100)
    assert tape.lines() == [] and tape.led.level == 1       # solid while aiming
    tape.press(900)
    assert fields(tape.lines()) == ["BTN long", "LASER off btn"]
    assert tape.module.requests == ["laser_on", "laser_off"] and not tape.app.laser_on


def test_measuring_after_aiming_turns_the_pointer_state_off(tape):
    tape.send("LASER ON\n")
    tape.run(50)
    tape.send("MEASURE\n")
    tape.run(450)
    assert fields(tape.lines()) == ["LASER on -", "MM 1141 %s -" % tape.quality()]
    assert not tape.app.laser_on


@pytest.mark.parametrize("code,text", [(8, "signal too weak"), (5, "out of range")])
def test_module_errors_are_reported_with_their_code(tape, code, text):
    tape.module.fail_next(code)
    tape.send("4 MEASURE\n")
    tape.run(410)
    if tape.module.name == "jrt":
        assert fields(tape.lines()) == ["ERR jrt:%d 4 %s" % (code, text)]
    else:
        assert fields(tape.lines()) == ["ERR m80:%02d 4 module error" % code]
    assert not tape.app.lost                    # an error is an answer: the module is there
    tape.send("5 MEASURE\n")
    tape.run(410)
    assert fields(tape.lines()) == ["MM 1141 %s 5" % tape.quality()]


def test_a_measurement_asked_for_during_another_joins_it(tape):
    tape.press(40)
    tape.send("1 MEASURE\n2 MEASURE\n")
    tape.run(410)
    reading = "MM 1141 %s " % tape.quality()
    assert fields(tape.lines()) == ["BTN short", reading + "btn", reading + "1", reading + "2"]
    assert tape.module.requests == ["measure"]


def test_the_laser_cannot_switch_during_a_measurement(tape):
    tape.send("1 MEASURE\n2 LASER ON\n")
    tape.run(410)
    assert fields(tape.lines()) == ["ERR busy 2 the module is still busy with measure",
                                    "MM 1141 %s 1" % tape.quality()]


def test_a_module_that_stops_answering_is_reported_and_recovers(tape):
    tape.module.silent = True
    tape.send("1 MEASURE\n")
    tape.run(2999)
    assert tape.lines() == []
    tape.run(2)
    assert fields(tape.lines()) == ["ERR timeout 1 laser module did not answer measure",
                                    "MODULE lost"]
    tape.run(10_000)        # quiet probes: 2 s pause, 0.8 s for an answer, and again
    assert tape.lines() == []
    assert tape.module.requests == ["measure"] + ["laser_off"] * 3
    tape.send("2 MEASURE\n")                    # the user tries anyway: an answer, not silence
    tape.run(3001)
    assert fields(tape.lines()) == ["ERR timeout 2 laser module did not answer measure"]
    tape.module.silent = False                  # plugged back in
    tape.run(2100)
    assert fields(tape.lines()) == ["MODULE ok"]
    tape.send("3 MEASURE\n")
    tape.run(410)
    assert fields(tape.lines()) == ["MM 1141 %s 3" % tape.quality()]


def test_the_led_double_blinks_while_the_module_is_lost(tape):
    tape.module.silent = True
    tape.send("MEASURE\n")
    tape.run(3100)
    trace = []
    for _ in range(2000):
        tape.run(1)
        trace.append(tape.led.level)
    assert sum(trace) == 2 * 2 * patterns.LOST[0]


def test_a_late_answer_after_a_timeout_is_not_reported_as_the_next_reading(tape):
    tape.module.delay_ms = 3500
    tape.send("1 MEASURE\n")
    tape.run(3100)
    tape.module.device.distance_mm, tape.module.delay_ms = 999, 300
    tape.run(2000)                              # a probe is answered: the module is back
    assert fields(tape.lines()) == ["ERR timeout 1 laser module did not answer measure",
                                    "MODULE lost", "MODULE ok"]
    tape.send("2 MEASURE\n")
    tape.run(310)
    assert fields(tape.lines()) == ["MM 999 %s 2" % tape.quality()]


def test_garbage_from_the_module_is_skipped(tape):
    tape.module.device.faults.garbage = 1
    tape.module.put(b"\x00\xaa\x80\x13\x37")
    tape.send("MEASURE\n")
    tape.run(410)
    assert fields(tape.lines()) == ["MM 1141 %s -" % tape.quality()]


@pytest.mark.parametrize("sent,answer", [
    ("PING", "OK - PING"),
    ("9 ping", "OK 9 PING"),
    ("VERSION", "OK - VERSION 1.0.0 {module}"),
    ("HELP", "OK - HELP MEASURE, LASER ON|OFF, PING, VERSION, CONFIG [key=value...], HELP"),
    ("3 CONFIG long_ms=500", "OK 3 CONFIG baud={baud} debounce_ms=30 laser_timeout_ms=800 "
                             "long_ms=500 module={module} probe_ms=2000 timeout_ms=3000"),
    ("3 FROB", "BAD 3 unknown command FROB; try HELP"),
    ("3 FR*B", "BAD 3 CRC must be 4 hex digits after '*'"),
    ("LASER", "BAD - LASER needs ON or OFF"),
    ("LASER UP", "BAD - LASER needs ON or OFF"),
    ("PING 2", "BAD - PING takes no arguments"),
    ("MEASURE now", "BAD - MEASURE takes no arguments"),
    ("CONFIG long_ms=5", "BAD - long_ms must be a whole number from 200 to 5000"),
    ("CONFIG long_ms=fast", "BAD - long_ms must be a whole number from 200 to 5000"),
    ("CONFIG =3", "BAD - CONFIG can set debounce_ms long_ms timeout_ms, not -"),
    ("CONFIG module=m80", "BAD - CONFIG can set debounce_ms long_ms timeout_ms, not module"),
    ("12 PING *FFFF", "BAD 12 CRC mismatch: line says FFFF, body gives 5CBD"),
    ("99999 PING", "BAD - sequence number 99999 is over 65535"),
    ("x" * 81, "BAD - line longer than 80 bytes"),
    ("caf\xe9", "BAD - line has a byte that is not printable ASCII (0xC3)"),
])
def test_host_commands_and_malformed_ones(tape, sent, answer):
    tape.send(sent + "\r\n")
    tape.run(5)
    module = tape.module.name
    baud = 19200 if module == "jrt" else 9600
    assert fields(tape.lines()) == [answer.format(module=module, baud=baud)]


def test_config_changes_the_long_press(tape):
    tape.send("CONFIG long_ms=300 debounce_ms=10\n")
    tape.press(350)
    assert fields(tape.lines())[1:] == ["BTN long", "LASER on btn"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.binary(max_size=40), max_size=6))
def test_any_bytes_from_the_host_get_lines_with_valid_crcs_and_no_crash(tape, chunks):
    for chunk in chunks:
        tape.send(chunk)
        tape.run(2)
    tape.send(b"\n7 PING\n")
    tape.run(2)
    assert fields(tape.lines())[-1] == "OK 7 PING"


def test_config_mistakes_are_said_in_a_line_the_station_reads(clock):
    from firmware.laser_tape.pico import config_error_line
    from station.laser.codec import DeviceError
    from station.laser.protocols.tape import TapeCodec

    with pytest.raises(ValueError, match="config.BAUD is '9600'; give a whole number") as error:
        HostedTape("m80", clock=clock, BAUD="9600")        # machine.UART would raise TypeError
    lines = [config_error_line(error.value),
             config_error_line(NameError("name 'm80' isn't defined"), 1)]   # MODULE = m80
    assert fields([line.rstrip("\n") for line in lines])[1] == (
        "ERR config - config.py: NameError name 'm80' isn't defined")
    events = TapeCodec().feed("".join(lines).encode())
    assert [type(e) for e in events] == [DeviceError, DeviceError]    # numbered on, not lost


@pytest.mark.parametrize("error", [ValueError(), UnicodeError(), KeyError("x" * 80),
                                   OSError("  two   spaces ")])
def test_any_firmware_fault_gives_a_line_the_station_reads(tape, error):
    from station.laser.codec import DeviceError
    from station.laser.protocols.tape import TapeCodec

    tape.send("MEASURE\n")
    tape.run(2)
    assert tape.app._led._steady == patterns.MEASURING
    tape.app.report_fault(error)
    [line] = tape.lines()
    [event] = TapeCodec().feed(line.encode() + b"\n")
    assert isinstance(event, DeviceError) and event.code == "internal"
    assert tape.app._led._steady == patterns.IDLE        # no longer blinks "measuring"


def test_a_firmware_fault_is_reported_and_the_tape_carries_on(tape):
    tape.app.report_fault(ZeroDivisionError("division by zero"))
    assert fields(tape.lines()) == ["ERR internal - firmware fault: ZeroDivisionError "
                                    "division by zero"]
    tape.send("PING\n")
    tape.run(2)
    assert fields(tape.lines()) == ["OK - PING"]


def test_sequence_numbers_count_every_line(clock):
    tape = HostedTape("jrt", clock=clock)
    tape.send("PING\n" * 5)
    tape.run(5)
    assert [int(line.split()[0]) for line in tape.lines()] == [0, 1, 2, 3, 4, 5]


def test_no_uart_no_crash(clock):
    tape = HostedTape("jrt", clock=clock)
    tape.uart.device = None                     # nothing wired to GP0/GP1
    assert isinstance(tape.uart, UART)
    tape.send("MEASURE\n")
    tape.run(3001)
    assert fields(tape.lines())[1:] == ["ERR timeout - laser module did not answer measure",
                                        "MODULE lost"]


def test_the_usb_link_reads_stdin_without_blocking(monkeypatch):
    """pico.UsbLink on CPython: stdin is a pipe, as unbuffered as the Pico's USB serial."""
    import io
    import os

    from firmware.laser_tape import pico

    read_end, write_end = os.pipe()

    class Stdin:
        buffer = io.FileIO(read_end, "rb")

        def fileno(self):
            return read_end

    stdout = io.StringIO()
    monkeypatch.setattr(pico.sys, "stdin", Stdin())
    monkeypatch.setattr(pico.sys, "stdout", stdout)
    link = pico.UsbLink()
    assert link.read() == b""                   # nothing there: returns at once
    os.write(write_end, b"PING\n" + b"x" * 100)
    assert link.read() == b"PING\n" + b"x" * 59 # at most 64 bytes a round
    assert len(link.read()) == 41
    link.write("0 OK - PING *F9AD\n")
    assert stdout.getvalue() == "0 OK - PING *F9AD\n"
    os.close(write_end)
    Stdin.buffer.close()
