"""The trigger button's debouncer and long press, and the status LED's patterns."""

from firmware.host.fake_machine import Pin
from firmware.laser_tape import led as patterns
from firmware.laser_tape.button import LONG, SHORT, Button
from firmware.laser_tape.led import Led


def feed(button, clock, samples):
    """samples: (pressed, ms) pairs, one sample per millisecond; returns the events and
    when they came, in ms from the first sample."""
    start = clock.now_ms()
    events = []
    for pressed, ms in samples:
        for _ in range(ms):
            event = button.update(pressed, clock.ticks_ms())
            if event:
                events.append((event, clock.now_ms() - start))
            clock.advance(1)
    return events


def test_a_clean_short_press(clock):
    button = Button(clock, debounce_ms=30, long_ms=800)
    assert feed(button, clock, [(False, 10), (True, 200), (False, 100)]) == [(SHORT, 240)]


def test_contact_bounce_makes_one_press(clock):
    button = Button(clock, debounce_ms=30, long_ms=800)
    bouncy = [(True, 2), (False, 1), (True, 3), (False, 2), (True, 150),
              (False, 1), (True, 2), (False, 3), (True, 1), (False, 100)]
    assert [event for event, _ in feed(button, clock, bouncy)] == [SHORT]


def test_glitches_shorter_than_the_debounce_are_ignored(clock):
    button = Button(clock, debounce_ms=30, long_ms=800)
    assert feed(button, clock, [(False, 50), (True, 20), (False, 50)] * 5) == []


def test_long_press_fires_while_held_and_the_release_is_silent(clock):
    button = Button(clock, debounce_ms=30, long_ms=800)
    events = feed(button, clock, [(True, 2000), (False, 100)])
    assert events == [(LONG, 800)]


def test_a_press_just_short_of_long_is_short(clock):
    button = Button(clock, debounce_ms=30, long_ms=800)
    events = feed(button, clock, [(True, 799), (False, 100)])
    assert [event for event, _ in events] == [SHORT]


def led_trace(led, pin, clock, ms):
    trace = []
    for _ in range(ms):
        led.update(clock.ticks_ms())
        trace.append(pin.value())
        clock.advance(1)
    return trace


def test_heartbeat_while_idle(clock):
    pin = Pin("LED", Pin.OUT)
    trace = led_trace(Led(pin, clock), pin, clock, 4000)
    assert sum(trace) == 2 * patterns.IDLE[0] and trace[0] == 1 and trace[100] == 0


def test_a_flash_shows_once_then_the_steady_pattern_returns(clock):
    pin = Pin("LED", Pin.OUT)
    led = Led(pin, clock)
    led.steady(patterns.AIMING, clock.ticks_ms())
    led.flash(patterns.FAILED, clock.ticks_ms())
    trace = led_trace(led, pin, clock, 1000)
    assert trace[:80] == [1] * 80 and trace[80:160] == [0] * 80
    assert trace[sum(patterns.FAILED):] == [1] * (1000 - sum(patterns.FAILED))
