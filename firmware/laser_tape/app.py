"""The tape's main loop: host commands, the trigger button, the laser module, the LED.

`App.poll()` does one round without blocking; the Pico calls it every millisecond or so.
Every request to the module has an origin, written in the answer line: the host's sequence
number (or "-"), "btn" for the trigger button, or None for the tape's own probes while the
module is silent. A measurement asked for while one is under way joins it: the reading is
sent once for each asker.
"""

from . import VERSION
from . import led as patterns
from .button import Button, SHORT
from .drivers import MEASURE, LASER_ON, LASER_OFF, READING, FAILED, ACK
from .led import Led
from .protocol import (BadCommand, LineReader, MAX_COMMAND, SEQ_LIMIT, format_line,
                       parse_command, printable)

# CONFIG keys the host may change until the next restart, with their allowed ranges.
TUNABLE = {
    "debounce_ms": (5, 500),
    "long_ms": (200, 5000),
    "timeout_ms": (300, 10000),
}
SILENT = ("timeout", "garbled")     # failures that mean the module is not answering


class App:
    def __init__(self, clock, link, driver, button_pin, led_pin, settings):
        self._clock = clock
        self._link = link
        self._driver = driver
        self._button_pin = button_pin
        self.settings = settings
        self._button = Button(clock, settings["debounce_ms"], settings["long_ms"])
        self._led = Led(led_pin, clock)
        self._lines = LineReader()
        self._seq = 0
        self._origin = None
        self._joined = []               # more askers waiting for the same measurement
        self._next_probe = 0
        self.laser_on = False
        self.lost = False
        self.say("HELLO", "laser-tape", VERSION, driver.name)

    def say(self, *fields):
        self._link.write(format_line(self._seq, fields))
        self._seq = (self._seq + 1) % SEQ_LIMIT

    def poll(self):
        now = self._clock.ticks_ms()
        data = self._link.read()
        if data:
            for line in self._lines.feed(data):
                self._host_line(line, now)
        press = self._button.update(self._button_pin.value() == 0, now)
        if press is not None:
            self._press(press, now)
        answer = self._driver.poll(now)
        if answer is not None:
            self._answer(answer, now)
        if self.lost and not self._driver.busy() \
                and self._clock.ticks_diff(now, self._next_probe) >= 0:
            self._start(LASER_OFF, None, now)
        self._led.update(now)

    def report_fault(self, error):
        """Last resort for a bug: say what went wrong and carry on."""
        self._driver.cancel()
        self._origin = None
        self._joined = []
        self.say("ERR", "internal", "-", printable(
            "firmware fault: %s %s" % (type(error).__name__, error), 60, " "))
        self._led.steady(self._pattern(), self._clock.ticks_ms())   # nothing is pending now

    # --- the host -------------------------------------------------------------------------
    def _host_line(self, line, now):
        if line is None:
            self.say("BAD", "-", "line longer than %d bytes" % MAX_COMMAND)
            return
        try:
            command = parse_command(line)
            if command is None:
                return
            handler = COMMANDS.get(command.verb)
            if handler is None:
                raise BadCommand(command.origin(),
                                 "unknown command %s; try HELP" % printable(command.verb))
            handler(self, command, now)
        except BadCommand as bad:
            self.say("BAD", bad.origin, bad.reason)

    def _measure(self, command, now):
        _no_arguments(command)
        self._request(MEASURE, command.origin(), now)

    def _laser(self, command, now):
        state = command.args[0].upper() if len(command.args) == 1 else ""
        if state not in ("ON", "OFF"):
            raise BadCommand(command.origin(), "LASER needs ON or OFF")
        self._request(LASER_ON if state == "ON" else LASER_OFF, command.origin(), now)

    def _ping(self, command, now):
        _no_arguments(command)
        self.say("OK", command.origin(), "PING")

    def _version(self, command, now):
        _no_arguments(command)
        self.say("OK", command.origin(), "VERSION", VERSION, self._driver.name)

    def _config(self, command, now):
        changes = {}
        for arg in command.args:
            key, value = (arg.split("=", 1) + [""])[:2]
            limits = TUNABLE.get(key.lower())
            if limits is None:
                raise BadCommand(command.origin(), "CONFIG can set %s, not %s"
                                 % (" ".join(sorted(TUNABLE)), printable(key)))
            if not value.isdigit() or not limits[0] <= int(value) <= limits[1]:
                raise BadCommand(command.origin(), "%s must be a whole number from %d to %d"
                                 % (key.lower(), limits[0], limits[1]))
            changes[key.lower()] = int(value)
        self.settings.update(changes)
        self._button.debounce_ms = self.settings["debounce_ms"]
        self._button.long_ms = self.settings["long_ms"]
        fields = ["OK", command.origin(), "CONFIG"]
        for key in sorted(self.settings):
            fields.append("%s=%s" % (key, self.settings[key]))
        self.say(*fields)

    def _help(self, command, now):
        self.say("OK", command.origin(), "HELP",
                 "MEASURE, LASER ON|OFF, PING, VERSION, CONFIG [key=value...], HELP")

    # --- the button -----------------------------------------------------------------------
    def _press(self, press, now):
        self.say("BTN", press)
        if press == SHORT:
            self._request(MEASURE, "btn", now)
        else:
            self._request(LASER_OFF if self.laser_on else LASER_ON, "btn", now)

    # --- the laser module -----------------------------------------------------------------
    def _request(self, request, origin, now):
        if self._driver.busy():
            if request == MEASURE and self._driver.pending == MEASURE \
                    and self._origin is not None:
                self._joined.append(origin)     # one measurement answers both askers
                return
            if self._origin is not None:
                self.say("ERR", "busy", origin,
                         "the module is still busy with %s" % self._driver.pending)
                return
            self._driver.cancel()       # a probe gives way to the user
        self._start(request, origin, now)

    def _start(self, request, origin, now):
        self._origin = origin
        if request == MEASURE:
            timeout = self.settings["timeout_ms"]
        else:
            timeout = self.settings["laser_timeout_ms"]
        self._driver.send(request, now, timeout)
        self._led.steady(self._pattern(), now)

    def _answer(self, event, now):
        origins = [self._origin] + self._joined if self._origin is not None else []
        self._origin = None
        self._joined = []
        if event[0] == FAILED and event[1] in SILENT:
            for origin in origins:
                self.say("ERR", event[1], origin, event[2])
            if not self.lost:
                self.lost = True
                self.laser_on = False
                self.say("MODULE", "lost")
            self._next_probe = self._clock.ticks_add(now, self.settings["probe_ms"])
        else:
            if self.lost:
                self.lost = False
                self.say("MODULE", "ok")
            if event[0] == READING:
                self.laser_on = False       # a single measurement ends with the laser off
                quality = "-" if event[2] is None else str(event[2])
                for origin in origins:
                    self.say("MM", str(event[1]), quality, origin)
                self._led.flash(patterns.DONE, now)
            elif event[0] == FAILED:
                for origin in origins:
                    self.say("ERR", event[1], origin, event[2])
                self._led.flash(patterns.FAILED, now)
            elif event[0] == ACK:
                self.laser_on = event[1] == LASER_ON
                for origin in origins:
                    self.say("LASER", "on" if self.laser_on else "off", origin)
        self._led.steady(self._pattern(), now)

    def _pattern(self):
        if self.lost:
            return patterns.LOST
        if self._driver.pending == MEASURE and self._origin is not None:
            return patterns.MEASURING
        if self.laser_on:
            return patterns.AIMING
        return patterns.IDLE


def _no_arguments(command):
    if command.args:
        raise BadCommand(command.origin(), "%s takes no arguments" % command.verb)


COMMANDS = {
    "MEASURE": App._measure,
    "LASER": App._laser,
    "PING": App._ping,
    "VERSION": App._version,
    "CONFIG": App._config,
    "HELP": App._help,
}
