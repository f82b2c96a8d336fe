import pytest

from firmware.host.fake_time import TICKS_PERIOD, ManualClock
from firmware.host.harness import HostedTape

# Clocks start 5 s before MicroPython's ticks_ms() wraps, so any comparison of ticks that
# skips ticks_diff() fails within the first seconds of a test.
NEAR_WRAP = TICKS_PERIOD - 5000


@pytest.fixture
def clock():
    return ManualClock(NEAR_WRAP)


@pytest.fixture(params=["jrt", "m80"])
def tape(request, clock):
    """A booted tape of each module family, its greeting already read."""
    made = HostedTape(request.param, clock=clock)
    made.lines()
    return made
