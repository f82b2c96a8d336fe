"""Stand-ins for MicroPython's `time` module: the ticks functions, wrapping like the Pico's.

MicroPython's ticks_ms() wraps at 2**30; firmware that compares ticks without ticks_diff
breaks at the wrap, so the tests start clocks just before it.
"""

import time

TICKS_PERIOD = 1 << 30


class _Ticks:
    def ticks_ms(self) -> int:
        return self.now_ms() % TICKS_PERIOD

    @staticmethod
    def ticks_diff(end: int, start: int) -> int:
        half = TICKS_PERIOD // 2
        return ((end - start + half) % TICKS_PERIOD) - half

    @staticmethod
    def ticks_add(ticks: int, delta: int) -> int:
        return (ticks + delta) % TICKS_PERIOD

    def now_ms(self) -> int:
        raise NotImplementedError


class ManualClock(_Ticks):
    """Time moves only when a test says so."""

    def __init__(self, start_ms: int = 0) -> None:
        self._now = start_ms

    def now_ms(self) -> int:
        return self._now

    def advance(self, ms: int) -> None:
        self._now += ms

    def sleep_ms(self, ms: int) -> None:
        self.advance(ms)


class RealClock(_Ticks):
    """Wall-clock time, for a simulated tape a person or the station talks to."""

    def __init__(self) -> None:
        self._origin = time.monotonic()

    def now_ms(self) -> int:
        return int((time.monotonic() - self._origin) * 1000)

    @staticmethod
    def sleep_ms(ms: int) -> None:
        time.sleep(ms / 1000)
