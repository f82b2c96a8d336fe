"""The journal: what the station read, resolved and measured, kept as evidence (SQLite, WAL)."""

from station.journal.store import Entry, Journal, JournalError, KeyMismatch

__all__ = ["Entry", "Journal", "JournalError", "KeyMismatch"]
