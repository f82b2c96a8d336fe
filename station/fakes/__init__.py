"""Simulated hardware that speaks the real formats: tray renderer, laser devices on ptys."""
