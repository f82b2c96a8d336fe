# Laser tape settings: edit these to match your build, then copy the folder to the Pico.

# Which laser module is wired to the Pico:
#   "jrt"  JRT binary modules (BB2X, BA9D and relatives)
#   "m80"  "0x80" modules (DFRobot-style 80 m TTL boards)
MODULE = "jrt"

# The module's serial speed; None means the usual one (jrt 19200, m80 9600).
BAUD = None

# UART0 on GP0 (Pico TX, to the module's RX) and GP1 (Pico RX, from the module's TX).
UART_ID = 0
UART_TX_PIN = 0
UART_RX_PIN = 1

# Trigger button between GP15 and GND (the Pico's internal pull-up is used).
BUTTON_PIN = 15

# Status LED: "LED" is the Pico's own LED; a number (e.g. 16) drives an LED on that GP pin.
LED_PIN = "LED"

DEBOUNCE_MS = 30          # a press must be steady this long to count
LONG_PRESS_MS = 800       # hold this long to switch the laser pointer on or off
MEASURE_TIMEOUT_MS = 3000 # the module has this long to answer a measurement
LASER_TIMEOUT_MS = 800    # ... and this long to answer "laser on/off"
PROBE_EVERY_MS = 2000     # while the module is silent, wait this long between tries
