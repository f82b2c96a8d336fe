"""The station: reads dice and laser tapes and says what the wargame rules make of them."""

__version__ = "0.1.0"
