"""Pure functions on numpy images: a tray frame in, the dice on it out."""
