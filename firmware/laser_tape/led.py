"""Status LED patterns: a steady pattern for the tape's state, and one-shot flashes on top.

A pattern is a tuple of durations in ms, alternating on and off, starting with on.
"""

IDLE = (40, 1960)                   # heartbeat: the tape is on and ready
MEASURING = (100, 100)              # quick blink while the module measures
AIMING = (1000, 0)                  # solid while the laser pointer is on
LOST = (100, 100, 100, 700)         # double blink until the laser module answers again
DONE = (400, 100)                   # one flash: a reading was taken
FAILED = (80, 80, 80, 80, 80, 300)  # three quick flashes: the module reported an error


class Led:
    def __init__(self, pin, clock):
        self._pin = pin
        self._clock = clock
        self._steady = IDLE
        self._steady_at = clock.ticks_ms()
        self._flash = None
        self._flash_at = 0

    def steady(self, pattern, now):
        if pattern != self._steady:
            self._steady = pattern
            self._steady_at = now

    def flash(self, pattern, now):
        self._flash = pattern
        self._flash_at = now

    def update(self, now):
        diff = self._clock.ticks_diff
        if self._flash is not None:
            elapsed = diff(now, self._flash_at)
            if elapsed < sum(self._flash):
                self._pin.value(_lit(self._flash, elapsed))
                return
            self._flash = None
            self._steady_at = now
        self._pin.value(_lit(self._steady, diff(now, self._steady_at) % sum(self._steady)))


def _lit(pattern, elapsed):
    """1 if the LED is on `elapsed` ms into the pattern."""
    on = True
    for length in pattern:
        if elapsed < length:
            return 1 if on else 0
        elapsed -= length
        on = not on
    return 0
