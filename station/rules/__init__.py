"""The rules core: pure Python, no I/O. Rulings ask a DiceSource for dice and return Outcomes."""
