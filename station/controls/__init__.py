"""Buttons, status LED, buzzer (gpiozero) and their keyboard equivalents."""

from station.controls.buttons import Controls, ControlsError, Intent

__all__ = ["Controls", "ControlsError", "Intent"]
