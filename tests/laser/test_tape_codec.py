"""The station's codec for the laser tape (firmware/PROTOCOL.md), and the round trip: bytes
the real firmware writes are read by the codec, and the codec's commands by the firmware."""

import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from firmware.host.harness import HostedTape
from station.laser.codec import DeviceError, Notice, Reading, UnknownCommand
from station.laser.protocols import codec_class
from station.laser.protocols.tape import TapeCodec, crc16

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


def line(body: str) -> bytes:
    return b"%s *%04X\n" % (body.encode(), crc16(body.encode()))


def test_registered_as_tape():
    assert codec_class("tape") is TapeCodec


def test_crc_check_value():
    assert crc16(b"123456789") == 0x29B1


def test_commands_carry_a_sequence_number_and_a_crc():
    codec = TapeCodec(first_seq=0)
    assert codec.encode("measure") == b"0 MEASURE *19B3\n"
    assert codec.encode("laser_on") == line("1 LASER ON")
    assert codec.encode("laser_off") == line("2 LASER OFF")
    with pytest.raises(UnknownCommand, match="tape device has no command 'fly'"):
        codec.encode("fly")


@pytest.mark.parametrize("doc,lines", [("PROTOCOL.md", 15), ("README.md", 2)])
def test_every_line_in_the_documents_has_a_right_crc_and_decodes(doc, lines):
    text = (FIRMWARE / doc).read_text()
    found = re.findall(r"^(?:([<>]) )?(\d+ [A-Z].*) \*([0-9A-F]{4})$", text, flags=re.M)
    assert len(found) >= lines
    for direction, body, crc in found:
        assert crc16(body.encode()) == int(crc, 16), body
        if direction != ">":
            events = TapeCodec().feed(line(body))
            assert not any(isinstance(e, Notice) and e.kind == "garbled" for e in events), body


@pytest.mark.parametrize("body,event", [
    ("1 MM 1141 24 -", Reading(1141.0, quality=24.0)),
    ("1 MM 619 - btn", Reading(619.0, quality=None, pushed=True)),
    ("1 ERR jrt:8 - signal too weak", DeviceError("jrt:8", "laser tape: signal too weak")),
    ("1 ERR timeout btn laser module did not answer measure",
     DeviceError("timeout", "laser tape: laser module did not answer measure", pushed=True)),
    ("1 ERR internal - firmware fault: ValueError x",      # not btn: it ends our request too
     DeviceError("internal", "laser tape: firmware fault: ValueError x")),
    ("1 BAD - LASER needs ON or OFF",
     DeviceError("bad-command", "the laser tape refused a command: LASER needs ON or OFF")),
    ("1 OK 4 VERSION 1.0.0 jrt", Notice("ok", "VERSION 1.0.0 jrt")),
    ("1 BTN long", Notice("button", "long")),
    ("1 LASER on btn", Notice("laser", "on btn")),
    ("1 MODULE lost", Notice("module", "lost")),
    ("0 HELLO laser-tape 1.0.0 m80", Notice("hello", "laser-tape 1.0.0 m80")),
])
def test_each_kind_of_line(body, event):
    assert TapeCodec().feed(line(body)) == [event]


@pytest.mark.parametrize("raw", [
    b"1 MM 1141 24 0 *36E7\n",              # one bit off in the CRC
    b"1 MM 1141 24 0 *36e6\n",              # lower-case hex is not the format
    b"1 MM 1141 24 0\n",                    # no CRC at all
    b"1 MM 1141 24 1 *36E6\n",              # the body changed
    line("1 MM 11.41 24 0"),                # a right CRC over a malformed reading
    line("1 MM 1141 0"),
    line("1 XYZZY 3"),
    b"\xff\xfe garbage \x00\n",
])
def test_bad_lines_are_garbled_notices_never_distances(raw):
    events = TapeCodec().feed(raw)
    assert [type(e) for e in events] == [Notice] and events[0].kind == "garbled"


def test_a_late_answer_to_an_abandoned_request_is_not_a_reading():
    codec = TapeCodec(first_seq=0)
    codec.encode("measure")                             # 0: the station gave up on it
    codec.encode("measure")                             # 1
    events = codec.feed(line("5 MM 900 24 0") + line("6 ERR jrt:8 0 signal too weak")
                        + line("7 MM 1200 24 1") + line("8 MM 1300 24 btn"))
    assert [e.kind for e in events[:2]] == ["stale", "stale"]
    assert events[2:] == [Reading(1200.0, quality=24.0), Reading(1300.0, quality=24.0, pushed=True)]


def test_lines_held_from_an_earlier_connection_are_not_this_ones():
    """MicroPython's USB serial keeps what the tape wrote while nobody listened and hands
    it over when the port is opened: the last run's answer to its command 0, a trigger
    press since. Neither is this connection's."""
    numbers = {TapeCodec().encode("measure").split()[0] for _ in range(20)}
    assert len(numbers) > 10                            # each connection numbers afresh
    codec = TapeCodec()
    ping = codec.encode("ping")                         # sent at connect (push_setup)
    assert codec.push_setup == ("ping",)
    measure = codec.encode("measure")
    old = "0" if measure.split()[0] != b"0" else "1"   # the last run's first command
    held = line(f"40 MM 2222 24 {old}") + line("41 BTN short") + line("42 MM 3333 24 btn")
    answers = (line(f"43 OK {ping.split()[0].decode()} PING")
               + line("44 MM 1500 24 btn")
               + line(f"45 MM 1200 24 {measure.split()[0].decode()}"))
    events = codec.feed(held + answers)
    readings = [e for e in events if isinstance(e, Reading)]
    assert readings == [Reading(1500.0, quality=24.0, pushed=True), Reading(1200.0, quality=24.0)]
    assert [e.kind for e in events if isinstance(e, Notice) and e.kind == "stale"] == ["stale"] * 2


def test_the_triggers_error_is_pushed_not_the_answer_to_the_station():
    """The trigger's measurement failed while the station's MEASURE was on its way: that
    ERR (origin btn) is the tape's own news; the station's answer is the line for 0."""
    codec = TapeCodec(first_seq=0)
    codec.encode("measure")                             # 0
    events = codec.feed(line("3 ERR jrt:8 btn signal too weak") + line("4 MM 1200 24 0"))
    assert events == [DeviceError("jrt:8", "laser tape: signal too weak", pushed=True),
                      Reading(1200.0, quality=24.0)]


def test_split_anywhere_and_cr_lf():
    data = line("0 HELLO laser-tape 1.0.0 jrt").replace(b"\n", b"\r\n") + line("1 MM 500 3 -")
    for cut in range(1, len(data)):
        codec = TapeCodec()
        events = codec.feed(data[:cut]) + codec.feed(data[cut:])
        assert [e for e in events if isinstance(e, Reading)] == [Reading(500.0, quality=3.0)]
        assert len(events) == 2


def test_lost_lines_are_noticed_and_a_restart_is_not():
    codec = TapeCodec()
    events = codec.feed(line("4 BTN short") + line("7 MM 10 2 btn")
                        + line("0 HELLO laser-tape 1.0.0 jrt") + line("1 MODULE ok"))
    events += TapeCodec().feed(line("65535 BTN long") + line("0 BTN short"))   # wraps
    lost = [e for e in events if isinstance(e, Notice) and e.kind == "lost"]
    assert lost == [Notice("lost", "tape: 2 line(s) lost before line 7")]


def test_a_long_run_without_line_end_is_dropped():
    codec = TapeCodec()
    assert codec.feed(b"x" * 300)[0].kind == "garbled"
    assert codec.feed(line("1 MM 800 5 -")) == [Reading(800.0, quality=5.0)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=30), max_size=10))
def test_random_bytes_never_raise_and_never_read(chunks):
    codec = TapeCodec()
    for chunk in chunks:
        for event in codec.feed(chunk):
            assert not isinstance(event, Reading)


@pytest.mark.parametrize("module", ["jrt", "m80"])
def test_round_trip_through_the_real_firmware(module):
    """Commands from the codec are taken by the firmware; every line it writes is read."""
    codec = TapeCodec()
    tape = HostedTape(module)
    tape.module.device.distance_mm = 1523
    events = []

    def read(ms):
        tape.run(ms)
        data = tape.output()
        for cut in range(0, len(data), 7):          # as a serial port hands them over
            events.extend(codec.feed(data[cut:cut + 7]))

    read(0)
    tape.send(codec.encode("measure"))
    read(450)
    tape.module.fail_next(9)
    tape.press(40)
    read(450)
    tape.hold(0, 900)
    tape.hold(1, 60)
    for command in ("laser_off", "ping", "version", "config"):
        tape.send(codec.encode(command))
        read(50)
    tape.module.silent = True
    tape.send(codec.encode("measure"))
    read(5000)
    tape.module.silent = False
    read(2000)
    quality = 24.0 if module == "jrt" else None
    code = "jrt:9" if module == "jrt" else "m80:09"
    summary = [(type(e).__name__, getattr(e, "kind", getattr(e, "code", None))) for e in events]
    assert summary == [
        ("Notice", "hello"),
        ("Reading", None),
        ("Notice", "button"), ("DeviceError", code),
        ("Notice", "button"), ("Notice", "laser"),
        ("Notice", "laser"), ("Notice", "ok"), ("Notice", "ok"), ("Notice", "ok"),
        ("DeviceError", "timeout"), ("Notice", "module"), ("Notice", "module"),
    ]
    assert events[1] == Reading(1523.0, quality=quality)
    assert events[7:9] == [Notice("ok", "PING"), Notice("ok", "VERSION 1.0.0 %s" % module)]
    assert [e.detail for e in events if getattr(e, "kind", "") == "module"] == ["lost", "ok"]


def test_noise_before_a_line_costs_only_the_noise():
    codec = TapeCodec()
    codec.feed(line("0 HELLO laser-tape 1.0.0 jrt"))
    events = codec.feed(b"\x13\x99\x37 3" + line("1 MM 1141 24 -"))
    assert events[0].kind == "garbled" and events[1] == Reading(1141.0, quality=24.0)
    events = codec.feed(b"2 MM 7" + line("4 MM 1142 24 -"))        # line 2 cut short
    assert Reading(1142.0, quality=24.0) in events


def test_the_tails_of_a_damaged_line_do_not_pass():
    """Found by the fuzz test: a line whose CRC was damaged has a tail ("8 MM 53564 24 -")
    whose own CRC happens to be the damaged one. Its sequence number gives it away."""
    codec = TapeCodec()
    codec.feed(line("3537 BTN short"))
    damaged = b"3538 MM 53564 24 - *1E93\n"
    assert crc16(b"8 MM 53564 24 -") == 0x1E93 != crc16(b"3538 MM 53564 24 -")
    assert [e.kind for e in codec.feed(damaged)] == ["garbled"]


def test_noise_before_the_first_line_loses_that_line():
    events = TapeCodec().feed(b"\x13\x99" + line("1 MM 1141 24 0"))
    assert [e.kind for e in events] == ["garbled"]
