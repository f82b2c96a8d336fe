"""The Pico itself: builds the tape from config.py and the real hardware, then runs it."""

import select
import sys
import time

import machine

from .app import App
from .drivers import DRIVERS
from .protocol import format_line, printable


class UsbLink:
    """The USB serial port to the station: MicroPython's stdin and stdout, never blocking."""

    def __init__(self):
        self._in = getattr(sys.stdin, "buffer", sys.stdin)
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)

    def read(self):
        data = b""
        while len(data) < 64 and self._poll.poll(0):
            byte = self._in.read(1)
            if not byte:
                break
            data += byte.encode() if isinstance(byte, str) else byte
        return data

    def write(self, line):
        sys.stdout.write(line)


WHOLE_NUMBERS = ("UART_ID", "UART_TX_PIN", "UART_RX_PIN", "BUTTON_PIN", "DEBOUNCE_MS",
                 "LONG_PRESS_MS", "MEASURE_TIMEOUT_MS", "LASER_TIMEOUT_MS", "PROBE_EVERY_MS")


def build(link=None, clock=time):
    """The tape as wired in config.py; a PC passes its own link and clock (firmware/host).
    A mistake in config.py raises here (imported here, not at the top, so that a typo in it
    is caught too and said over USB by `run`)."""
    from . import config
    for name in WHOLE_NUMBERS + (("BAUD",) if config.BAUD else ()):
        if not isinstance(getattr(config, name), int):
            raise ValueError("config.%s is %r; give a whole number without quotes"
                             % (name, getattr(config, name)))
    driver_class = DRIVERS.get(config.MODULE)
    if driver_class is None:
        raise ValueError("config.MODULE is %r; use one of %s" % (config.MODULE, sorted(DRIVERS)))
    baud = config.BAUD or driver_class.default_baud
    uart = machine.UART(config.UART_ID, baudrate=baud, bits=8, parity=None, stop=1,
                        tx=machine.Pin(config.UART_TX_PIN), rx=machine.Pin(config.UART_RX_PIN),
                        timeout=0)
    button = machine.Pin(config.BUTTON_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
    led = machine.Pin(config.LED_PIN, machine.Pin.OUT)
    settings = {
        "module": driver_class.name,
        "baud": baud,
        "debounce_ms": config.DEBOUNCE_MS,
        "long_ms": config.LONG_PRESS_MS,
        "timeout_ms": config.MEASURE_TIMEOUT_MS,
        "laser_timeout_ms": config.LASER_TIMEOUT_MS,
        "probe_ms": config.PROBE_EVERY_MS,
    }
    return App(clock, link or UsbLink(), driver_class(uart, clock), button, led, settings)


def config_error_line(error, seq=0):
    """What the tape says, over and over, when config.py cannot work: our own checks' words,
    or Python's (a name without quotes, a syntax error) with the error's type."""
    text = str(error) if isinstance(error, ValueError) else "config.py: %s %s" % (
        type(error).__name__, error)
    return format_line(seq, ("ERR", "config", "-", printable(text, 70, " ")))


def run():
    try:
        app = build()
    except Exception as error:          # any mistake in config.py: tell whoever listens
        seq = 0
        while True:
            sys.stdout.write(config_error_line(error, seq))
            seq = (seq + 1) % 65536
            time.sleep_ms(2000)
    while True:
        try:
            app.poll()
        except Exception as error:      # a bug must not leave the tape dead in the user's hand
            app.report_fault(error)
            time.sleep_ms(250)          # a fault that repeats must not flood the station
        time.sleep_ms(1)
