"""Buttons, LED and keyboard on gpiozero MockFactory pins: the same code paths as on a Pi."""

import io
import queue
import time
from types import SimpleNamespace

import pytest
from gpiozero.pins.mock import MockFactory

from station.config import DEFAULTS, ConfigError
from station.controls import Controls, ControlsError, Intent
from station.controls.keyboard import Keyboard
from station.service.app import Station

SETTINGS = {**DEFAULTS["controls"], "bounce_ms": 10, "hold_seconds": 0.15, "buzzer": 25}


@pytest.fixture
def controls():
    intents: queue.Queue = queue.Queue()
    made = Controls(SETTINGS, intents, pin_factory=MockFactory())
    yield made
    made.close()


def drain(q: queue.Queue, wait: float = 0.05) -> list[Intent]:
    time.sleep(wait)
    out = []
    while not q.empty():
        out.append(q.get_nowait())
    return out


def test_each_button_gives_its_intent(controls):
    for name, intent in [("roll", Intent.ROLL), ("measure", Intent.MEASURE),
                         ("next", Intent.NEXT), ("reroll", Intent.REROLL)]:
        controls.press(name)
        assert drain(controls.intents) == [intent], name


def test_long_press_on_roll_is_manual_entry_not_a_roll(controls):
    controls.press("roll", hold=True)
    assert drain(controls.intents) == [Intent.MANUAL]


def test_a_simulated_hold_waits_for_gpiozero_to_see_it(controls):
    # On a busy machine gpiozero's hold thread runs late; a press released on a fixed
    # timer then read as a ROLL before the MANUAL.
    roll = controls.buttons["roll"]
    roll.when_held = lambda: (time.sleep(0.3), controls._on_held("roll"))
    controls.press("roll", hold=True)
    assert drain(controls.intents) == [Intent.MANUAL]


def test_contact_bounce_is_one_press():
    # A bounce time long enough that the chatter below stays inside it on a loaded machine.
    controls = Controls({**SETTINGS, "bounce_ms": 250}, queue.Queue(), pin_factory=MockFactory())
    try:
        pin = controls.buttons["measure"].pin
        for _ in range(5):                    # chatter within the bounce time
            pin.drive_low()
            pin.drive_high()
        assert drain(controls.intents, 0.1) == [Intent.MEASURE]
    finally:
        controls.close()


def test_led_shows_ready_busy_error(controls):
    led = controls.led
    controls.status("idle")
    assert led.is_lit
    controls.status("reading")
    time.sleep(0.05)
    assert led._blink_thread is not None
    controls.status("error")
    assert led._blink_thread is not None
    controls.status("resolved")
    assert led.is_lit and led._blink_thread is None


def test_a_pin_that_cannot_be_used_names_the_setting():
    with pytest.raises(ControlsError, match=r"controls.next: pin 'GPIO99'.*free GPIO"):
        Controls({**SETTINGS, "next": "GPIO99"}, queue.Queue(), pin_factory=MockFactory())


def test_a_machine_without_gpio_runs_on_the_keyboard(monkeypatch):
    # no pin factory gpiozero can load (a laptop; a Pi venv without lgpio): not a bad pin
    from gpiozero import Device
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "none-on-this-machine")
    monkeypatch.setattr(Device, "pin_factory", None)
    station = SimpleNamespace(config=SimpleNamespace(controls=SETTINGS),
                              options=SimpleNamespace(simulate=False))
    hardware: dict[str, str] = {}
    controls = Station._controls(station, hardware)
    assert hardware == {"buttons": "no GPIO on this machine: keyboard only"}
    controls.close()



@pytest.mark.parametrize("pin", ["GPIO99", "BOARD1"])
def test_a_pin_the_keyboard_fallback_refuses_is_a_config_error(monkeypatch, pin):
    # it escaped as a ControlsError traceback, then "terminate called" and exit 134
    from gpiozero import Device
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "none-on-this-machine")
    monkeypatch.setattr(Device, "pin_factory", None)
    station = SimpleNamespace(config=SimpleNamespace(controls={**SETTINGS, "roll": pin}),
                              options=SimpleNamespace(simulate=False))
    with pytest.raises(ConfigError, match=rf"controls.roll: pin '{pin}' cannot be used"):
        Station._controls(station, {})


def test_keyboard_presses_buttons_and_quits():
    pressed, quit = [], []
    keys = Keyboard(lambda name, hold: pressed.append((name, hold)), lambda: quit.append(1),
                    stream=io.StringIO("rRmnex q"))
    keys.start()
    keys._thread.join(1)
    assert pressed == [("roll", False), ("roll", True), ("measure", False), ("next", False),
                       ("reroll", False)]
    assert quit == [1]


def test_keyboard_end_of_input_just_stops():
    keys = Keyboard(lambda *a: None, lambda: pytest.fail("EOF must not quit"), stream=io.StringIO(""))
    keys.start()
    keys._thread.join(1)
    assert not keys._thread.is_alive()
