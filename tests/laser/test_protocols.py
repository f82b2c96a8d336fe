"""Every frame quoted in LASER_PROTOCOLS.md decodes to its stated value, and every command
encodes to the stated bytes; partial frames, garbage and device errors (MEAS-2: a reading
is a distance from the device's reference edge, anything else is never a distance)."""

import pytest

from station.laser.codec import DeviceError, Notice, Reading
from station.laser.protocols import codec_class, load_all


def hx(text: str) -> bytes:
    return bytes.fromhex(text)


def readings(events):
    return [e for e in events if isinstance(e, Reading)]


def glm_measuring():
    codec = codec_class("glm")()
    assert codec.encode("measure") == hx("C0 40 00 EE")
    return codec


# (device, bytes from the device, raw mm, set-up) for every example in the protocol notes
DOC_FRAMES = [
    ("glm", hx("00 04 13 0E 00 00 32"), 180.15, "measure"),
    ("glm", hx("C0 55 10 06 00 7A 00 94 F6 46 3E 00 00 00 00 00 00 00 00 4E"), 194.3, None),
    ("disto", b"31..00+00000788\r\n", 788.0, "measure"),
    ("jrt", hx("AA 00 00 22 00 03 00 00 04 75 00 18 B6"), 1141.0, None),
    ("m80", hx("80 06 83 30 30 30 2E 36 31 39 99"), 619.0, None),
    ("dollar", b"$0006210000268942&", 2689.0, None),
]

DOC_COMMANDS = [
    ("glm", "measure", "C0 40 00 EE"), ("glm", "laser_on", "C0 41 00 96"),
    ("glm", "laser_off", "C0 42 00 1E"), ("glm", "backlight_on", "C0 47 00 20"),
    ("glm", "auto_sync", "C0 55 02 01 00 1A"),
    ("disto", "measure", b"g\r\n".hex()), ("disto", "track", b"h\r\n".hex()),
    ("disto", "laser_on", b"o\r\n".hex()), ("disto", "laser_off", b"p\r\n".hex()),
    ("disto", "clear", b"c\r\n".hex()),
    ("jrt", "measure", "AA 00 00 20 00 01 00 00 21"),
    ("jrt", "laser_on", "AA 00 01 BE 00 01 00 01 C1"),
    ("m80", "measure", "80 06 02 78"), ("m80", "continuous", "80 06 03 77"),
    ("m80", "laser_on", "80 06 05 01 74"),
    ("dollar", "measure", b"$00022123&".hex()), ("dollar", "laser_on", b"$0003260130&".hex()),
]


def prepared(device, setup):
    codec = codec_class(device)()
    if setup:
        codec.encode(setup)
    return codec


def test_all_protocols_are_found():
    assert {"glm", "disto", "jrt", "m80", "dollar"} <= set(load_all())


@pytest.mark.parametrize("device,command,expected", DOC_COMMANDS)
def test_commands_encode_as_documented(device, command, expected):
    assert codec_class(device)().encode(command) == hx(expected)


@pytest.mark.parametrize("device,data,mm,setup", DOC_FRAMES)
def test_documented_frames_decode_to_their_value(device, data, mm, setup):
    events = prepared(device, setup).feed(data)
    assert [e.raw_mm for e in readings(events)] == [mm]


@pytest.mark.parametrize("device,data,mm,setup", DOC_FRAMES)
def test_frames_split_at_every_point(device, data, mm, setup):
    for cut in range(1, len(data)):
        codec = prepared(device, setup)
        assert readings(codec.feed(data[:cut])) == []
        assert [e.raw_mm for e in readings(codec.feed(data[cut:]))] == [mm]
    codec = prepared(device, setup)
    got = [e for byte in data for e in readings(codec.feed(bytes([byte])))]
    assert [e.raw_mm for e in got] == [mm]


@pytest.mark.parametrize("device,data,mm,setup", DOC_FRAMES)
def test_resynchronises_after_garbage_and_a_bad_checksum(device, data, mm, setup):
    codec = prepared(device, setup)
    if device == "disto":      # no checksum: only a broken format can be told apart
        corrupted = data.replace(b"+", b"x")
    else:
        corrupted = data[:-3] + bytes([data[-3] ^ 0x01]) + data[-2:]
    assert readings(codec.feed(b"\x13\xff" + corrupted + b"\x00")) == []
    if setup:
        codec.encode(setup)
    assert [e.raw_mm for e in readings(codec.feed(b"xx\xaa\x80$" + data))] == [mm]


@pytest.mark.parametrize("device,data,mm,setup", DOC_FRAMES)
def test_frame_cut_short_then_the_next_one(device, data, mm, setup):
    for kept in range(1, len(data)):
        codec = prepared(device, setup)
        codec.feed(data[:kept])
        if setup:
            codec.encode(setup)
        got = [e.raw_mm for e in readings(codec.feed(data))]
        assert got in ([mm], [mm, mm]) and set(got) == {mm}, kept


def test_glm_quality_angle_keepalive_and_errors():
    codec = codec_class("glm")()
    assert codec.feed(hx("C0 11 00 3A")) == []
    angle = bytearray(hx("C0 55 10 06 00 7A 00 94 F6 46 3E 00 00 00 00 00 00 00 00"))
    angle[3] = 8 << 2                                     # mode 8: inclination
    from station.laser.protocols.glm import with_crc
    events = codec.feed(with_crc(bytes(angle)))
    assert len(events) == 1 and isinstance(events[0], Notice) and events[0].kind == "angle"
    codec = glm_measuring()
    assert codec.feed(hx("0A 00") + bytes([with_crc(hx("0A 00"))[-1]])) == [
        DeviceError("10", "GLM: not ready")]
    # A reply nobody asked for is not taken as a distance.
    assert readings(codec.feed(hx("00 04 13 0E 00 00 32"))) == []


def test_glm_auto_sync_error_is_a_pushed_error():
    """An auto-sync frame in mode 63: the device's own measurement failed. It is an error
    the device pushed, never the answer to a request the station is waiting for."""
    from station.laser.protocols.glm import with_crc
    codec = glm_measuring()
    frame = bytearray(hx("C0 55 10 06 00 7A 00 94 F6 46 3E 00 00 00 00 00 00 00 00"))
    frame[3] = 63 << 2 | 2
    assert codec.feed(with_crc(bytes(frame))) == [
        DeviceError("63", "GLM: the device reported a measuring error", pushed=True)]
    reply = with_crc(hx("0A 00"))
    assert codec.feed(reply) == [DeviceError("10", "GLM: not ready", pushed=False)]


def test_glm_pushed_reading_reports_its_reference_edge():
    codec = codec_class("glm")()
    [reading] = codec.feed(hx("C0 55 10 06 00 7A 00 94 F6 46 3E 00 00 00 00 00 00 00 00 4E"))
    assert reading.pushed and reading.reference_edge == "2"


def test_disto_units_errors_angle_and_send_key():
    codec = codec_class("disto")()
    codec.encode("measure")
    assert codec.feed(b"?\r\n") == [Notice("ack", "DISTO")]
    assert readings(codec.feed(b"31..06+00007885\r\n"))[0].raw_mm == 788.5
    assert codec.outgoing() == b""                       # answered a request: no cfm
    codec.encode("measure")
    assert codec.feed(b"@E203\r\n") == [DeviceError("203", "DISTO error @E203", pushed=False)]
    # the SEND key's measurement failed, or a tracking one: no request waits for these
    assert codec.feed(b"@E255\r\n") == [DeviceError("255", "DISTO error @E255", pushed=True)]
    codec.encode("track")
    assert codec.feed(b"@E204\r\n") == [DeviceError("204", "DISTO error @E204", pushed=True)]
    codec.encode("stop")
    [angle] = codec.feed(b"22..00+00001250\r\n")
    assert angle.kind == "angle" and "12.50" in angle.detail
    [sent] = codec.feed(b"31..01+00002000\r\n")          # SEND key: 2 ft in 0.001 ft
    assert sent.pushed and sent.raw_mm == pytest.approx(609.6)
    assert codec.outgoing() == b"cfm\n"
    assert codec.outgoing() == b""
    assert readings(codec.feed(b"31..00x00000788\r\n31..00+0000078\r\n")) == []
    # GSI words as real lines carry them: a trailing blank, several words, GSI-16
    line = b"11....+00000012 31..00+00001500 22..00+00000150 \r\n*31..08+0000000000123456 \r\n"
    assert [r.raw_mm for r in readings(codec.feed(line))] == [1500.0, 1234.56]


@pytest.mark.parametrize("code", [5, 6, 7, 8, 9])
def test_jrt_error_frames(code):
    from station.laser.protocols.jrt import ERR, frame
    [error] = codec_class("jrt")().feed(frame(ERR, 0, bytes([0, code])))
    assert isinstance(error, DeviceError) and error.code == str(code)


def test_m80_error_and_laser_ack():
    from station.laser.protocols.m80 import frame
    [error] = codec_class("m80")().feed(frame(b"\x80\x06\x83ERR--15"))
    assert error == DeviceError("15", "0x80 module error ERR--15")
    assert codec_class("m80")().feed(frame(b"\x80\x06\x85\x01")) == [Notice("ack", "laser on")]


def test_m80_single_measurement_reply_82_is_a_result():
    """Boards answer `80 06 02` with `82` (continuous results are `83`): both are read."""
    from station.laser.protocols.m80 import frame
    codec = codec_class("m80")()
    assert codec.feed(frame(b"\x80\x06\x82012.345") + frame(b"\x80\x06\x82ERR--16")) == [
        Reading(12345.0), DeviceError("16", "0x80 module error ERR--16")]
    assert codec.feed(frame(b"\x80\x06\x84012.345")) == []      # no such result code


@pytest.mark.parametrize("mm,kind", [(15, "too close"), (16, "no echo"),
                                     (17, "reflection too strong"),
                                     (18, "too much ambient light")])
def test_dollar_error_distances_are_errors(mm, kind):
    from station.laser.protocols.dollar import frame
    [error] = codec_class("dollar")().feed(frame(b"000621%08d" % mm))
    assert error == DeviceError(str(mm), f"$ board: {kind}")


def test_unknown_command_says_what_exists():
    with pytest.raises(ValueError, match="knows: measure"):
        codec_class("jrt")().encode("self_destruct")
    with pytest.raises(KeyError, match="known: .*glm"):
        codec_class("nope")
