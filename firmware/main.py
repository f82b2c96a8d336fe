# Runs at power-up on the Pico: start the laser tape (see README.md).
from laser_tape import pico

pico.run()
