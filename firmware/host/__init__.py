"""CPython-only helpers that run the tape firmware on a PC: a fake `machine` module, clocks
that stand in for MicroPython's `time`, simulated laser modules, and `HostedTape`, which
puts them together. Never copied to the Pico."""
