"""The journal: what the station read, resolved and measured, kept as evidence (SQLite, WAL)."""

from station.journal.store import Entry, Journal, InUse, JournalError, KeyMismatch, Refused

__all__ = ["Entry", "Journal", "InUse", "JournalError", "KeyMismatch", "Refused"]
