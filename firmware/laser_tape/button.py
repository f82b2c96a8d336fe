"""The trigger button: debounced, with short and long presses.

A short press (released before `long_ms`) measures; holding for `long_ms` toggles the laser
pointer at once, while the button is still held, so the user sees the dot appear.
"""

SHORT = "short"
LONG = "long"


class Button:
    def __init__(self, clock, debounce_ms=30, long_ms=800):
        self._clock = clock
        self.debounce_ms = debounce_ms
        self.long_ms = long_ms
        self._raw = False
        self._raw_since = None
        self._pressed = False
        self._pressed_at = 0
        self._long_sent = False

    def update(self, raw_pressed, now):
        """Feed one sample of the pin (True = pressed); returns SHORT, LONG or None."""
        ticks_diff = self._clock.ticks_diff
        if raw_pressed != self._raw or self._raw_since is None:
            self._raw = raw_pressed
            self._raw_since = now
        if self._raw != self._pressed and ticks_diff(now, self._raw_since) >= self.debounce_ms:
            self._pressed = self._raw
            if self._pressed:
                self._pressed_at = self._raw_since
                self._long_sent = False
            elif not self._long_sent:
                return SHORT
        if self._pressed and self._raw and not self._long_sent \
                and ticks_diff(now, self._pressed_at) >= self.long_ms:
            self._long_sent = True
            return LONG
        return None
