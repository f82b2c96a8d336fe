"""Laser tapes: sans-I/O codecs per wire protocol, and one transport that owns the port."""
