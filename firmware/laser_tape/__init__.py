"""Laser tape firmware for a Raspberry Pi Pico (MicroPython).

The modules take their hardware as arguments (UART, pins, clock, USB link), so the same code
runs on the Pico and on CPython against fakes. Only `pico.py` touches `machine`.
"""

VERSION = "1.0.0"
