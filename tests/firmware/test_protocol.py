"""The tape protocol's pieces (firmware/PROTOCOL.md): CRC, line format, host command parser."""

import binascii

import pytest
from hypothesis import given, strategies as st

from firmware.laser_tape.protocol import (BadCommand, LineReader, crc16, format_line,
                                          parse_command)


def test_crc_is_ccitt_false():
    assert crc16(b"123456789") == 0x29B1         # the catalogue's check value


@given(st.binary(max_size=100))
def test_crc_matches_an_independent_implementation(data):
    assert crc16(data) == binascii.crc_hqx(data, 0xFFFF)


def test_line_format():
    line = format_line(7, ("MM", "1141", "24", "btn"))
    body = b"7 MM 1141 24 btn"
    assert line == "7 MM 1141 24 btn *%04X\n" % binascii.crc_hqx(body, 0xFFFF)


def command(text):
    return parse_command(text.encode())


def with_crc(body):
    return "%s *%04X" % (body, crc16(body.encode()))


def test_commands_as_a_person_types_them():
    parsed = command("  measure ")
    assert (parsed.seq, parsed.verb, parsed.args, parsed.origin()) == (None, "MEASURE", [], "-")
    parsed = command("12 laser on")
    assert (parsed.seq, parsed.verb, parsed.args, parsed.origin()) == (12, "LASER", ["on"], "12")
    assert command("") is None and command(" \t ") is None


def test_commands_with_a_crc():
    parsed = command(with_crc("3 PING"))
    assert (parsed.seq, parsed.verb) == (3, "PING")
    with pytest.raises(BadCommand) as bad:
        command("3 PING *0000")
    assert bad.value.origin == "3" and "CRC mismatch" in bad.value.reason
    with pytest.raises(BadCommand, match="4 hex digits"):
        command("3 PING *12G4")


@pytest.mark.parametrize("raw,origin,reason", [
    (b"70000 PING", "-", "over 65535"),
    (b"5", "5", "no command"),
    (b"5 *", "5", "4 hex digits"),
    (b"PI\xffNG", "-", "not printable ASCII (0xFF)"),
    (b"PING\x00", "-", "0x00"),
])
def test_malformed_commands(raw, origin, reason):
    with pytest.raises(BadCommand) as bad:
        parse_command(raw)
    assert bad.value.origin == origin and reason in bad.value.reason


@given(st.binary(max_size=120))
def test_parser_raises_nothing_but_bad_command(raw):
    try:
        parse_command(raw)
    except BadCommand:
        pass


def test_line_reader_splits_on_cr_or_lf_across_chunks():
    reader = LineReader(limit=10)
    assert reader.feed(b"PI") == []
    assert reader.feed(b"NG\r\nVER") == [b"PING"]
    assert reader.feed(b"SION\n\n") == [b"VERSION"]


def test_line_reader_reports_an_overlong_line_once_and_recovers():
    reader = LineReader(limit=10)
    assert reader.feed(b"x" * 25) == []
    assert reader.feed(b"yy\nPING\n") == [None, b"PING"]
