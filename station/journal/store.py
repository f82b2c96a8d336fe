"""The journal: every reading, outcome and measurement, kept in SQLite (WAL mode).

One `entries` table holds all three kinds (so `station journal show ID` takes any id), with
the JPEG frame a reading was made from, and the journal's own records (seal.RECORDS); a
`dice` table holds each die a reading saw, for the fairness statistics. Every write is its
own transaction, committed with synchronous=FULL before the caller shows anything: what the
screen showed is on disk, even if the process is killed the next instant. Each entry is
sealed in its transaction (`station.journal.seal`). A journal from an older station is
converted when the station next opens it (`_upgrade`): its ids are never given again from
then on, and entries written before seals stay unsealed.

The `station journal` commands open it read-only: they never create, add tables to or
convert a file, and a damaged file or entry is a JournalError that says so. The one
exception, `station journal start-keying`, writes as the station does.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import logging
import os
import shutil
import socket
import sqlite3
import struct
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Iterator

from station.journal import seal

log = logging.getLogger(__name__)

# AUTOINCREMENT: SQLite counts the ids given (sqlite_sequence) and never gives one again, so
# the last entries deleted leave a gap before the next one instead of being written over.
# The seal is stored before the data and frame: reading it does not read a frame.
ENTRIES = """(
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    at       TEXT NOT NULL,             -- ISO 8601, UTC
    kind     TEXT NOT NULL,             -- reading | outcome | measurement | break | keyed
    action   TEXT NOT NULL,             -- the action's name as players chose it
    headline TEXT NOT NULL,             -- what the screen said in big letters
    parent   INTEGER REFERENCES entries(id),  -- a reading's outcome, once resolved
    seal     TEXT,                      -- SCHEME:HEX (seal.py); NULL: written before seals
    data     TEXT NOT NULL,             -- JSON: the outcome, the reading or the measurement
    frame    BLOB                       -- JPEG the reading was made from
)"""
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS entries {ENTRIES};
CREATE TABLE IF NOT EXISTS dice (
    entry_id    INTEGER NOT NULL REFERENCES entries(id),
    idx         INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    value       TEXT,                   -- NULL when flagged unreadable or cocked
    colour      TEXT,
    x REAL, y REAL, x_mm REAL, y_mm REAL,
    bearing_deg REAL,
    confidence  REAL,
    flags       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (entry_id, idx)
);
CREATE INDEX IF NOT EXISTS entries_kind ON entries(kind, id);
CREATE INDEX IF NOT EXISTS entries_parent ON entries(parent);   -- an outcome's readings
"""
COLUMNS = "id, at, kind, action, headline, parent, data, frame"
# What a file must hold to be read as a journal (the seal column may be missing: older files).
TABLES = {"entries": set(COLUMNS.split(", ")),
          "dice": {"entry_id", "idx", "kind", "value", "colour", "x", "y", "x_mm", "y_mm",
                   "bearing_deg", "confidence", "flags"}}
# Another program (a backup, an sqlite3 shell) may hold the journal's write lock for a
# while: each write waits BUSY_TIMEOUT_S for it, and tries again until WRITE_PATIENCE_S
# have passed, so that no roll is lost to a lock held for a few seconds.
BUSY_TIMEOUT_S = 30.0
WRITE_PATIENCE_S = 300.0
SQLITE_INT_MAX = 2 ** 63 - 1      # larger Python ints cannot be bound to a query
# An older journal's conversion copies its entries: the copy in the file, and the same pages
# in the WAL until they are written into it (measured: less than 3x fails with a full disk)
CONVERSION_SPACE = 3
DAMAGED = "It may be damaged: keep a copy; `sqlite3 {path} .recover` saves what can be read"


@dataclass(frozen=True)
class Entry:
    id: int
    at: str
    kind: str
    action: str
    headline: str
    parent: int | None
    data: dict[str, Any]
    frame: bytes | None
    seal: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "at": self.at, "kind": self.kind, "action": self.action,
                "headline": self.headline, "parent": self.parent, "data": self.data,
                "has_frame": self.frame is not None, "seal": self.seal}


@dataclass(frozen=True)
class Sealable:
    """An entry as its seal covers it (`content`, as make_seal takes it), with what the
    chain's checks need besides."""
    id: int
    kind: Any
    parent: Any
    seal: Any
    content: list[Any]
    data: Any                   # its data read as JSON (None if it is not): a record's facts


class JournalError(Exception):
    """The journal file cannot be opened or read, is not a station journal, or is damaged."""


class Refused(JournalError):
    """The journal is not to be written by this station: `problem` says why, `fix()` what
    to do."""

    def __init__(self, problem: str, fix: str) -> None:
        self.problem, self._fix = problem, fix
        super().__init__(f"{problem}. {self.fix()}")

    def fix(self, key_file: str | Path = "FILE") -> str:
        """What to do, naming the key file when the caller knows it."""
        return self._fix.replace("{key_file}", str(key_file))


class KeyMismatch(Refused):
    """The journal's seals and the station's key do not go together."""


class InUse(Refused):
    """Another station writes the journal."""


NEW_JOURNAL = "start a new journal (journal.path, or --journal PATH)"


def _claim_holder(name: str) -> str:
    """The pid of the process listening on the abstract socket `name`, or "unknown"."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(name)
            pid, _, _ = struct.unpack("3i", probe.getsockopt(
                socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
        except OSError:
            return "unknown"
    return str(pid)


class Journal:
    def __init__(self, path: str | Path, readonly: bool = False, key: bytes | None = None,
                 start_keying: bool = False) -> None:
        """Open (and create, unless `readonly`) the journal at `path`; `key`: seal new
        entries with HMAC-SHA256 under it. A journal none of whose entries is sealed with the
        key is written on only with `start_keying`, which records that the key takes it
        over from then on (`keyed_at`: that record's id)."""
        self.path = Path(path)
        self.readonly = readonly
        self.key = key
        self._seal_column = "seal"
        self._db: sqlite3.Connection | None = None
        self._file_id: tuple[int, int] | None = None
        self._lock: IO[str] | None = None       # the writer's lock file, held till close
        self._claim: socket.socket | None = None  # ... and its claim on the path (Linux)
        self._copy: tempfile.TemporaryDirectory | None = None   # a reader's copy (_open_reader)
        # The writer's last entry (id, seal): the one it wrote, or found when it opened the
        # journal. Kept when the file is made again, so that the new one says what was lost.
        self._head: tuple[int, str | None] | None = None
        self.last_break: str | None = None      # a break recorded by this writer, in words
        self.keyed_at: int | None = None
        self._take_over: tuple[int, int] | None = None      # what a keyed record takes over
        try:
            if readonly:
                self._open_reader()
            else:
                take_over = self._open_writer(start_keying)
                self._head = self._last()
                if take_over:
                    self.keyed_at = self._write(self._keyed_record)
        except (sqlite3.Error, OSError) as error:
            self.close()
            raise JournalError(f"cannot open the journal {self.path}: {error}") from error
        except JournalError:
            self.close()
            raise

    def _open_reader(self) -> None:
        # mode=ro: reading someone else's database must not add tables to it or switch it to
        # WAL, nor turn an empty file into a journal. A copy on read-only media (a locked SD
        # card) cannot have the WAL index SQLite wants beside it: read it as immutable, which
        # ignores the WAL; one that holds entries is read from a copy of both made elsewhere.
        try:
            self._connect_reader(self.path, "mode=ro")
        except sqlite3.OperationalError:
            self.close()
            wal = self._wal
            if not (wal.exists() and wal.stat().st_size):
                self._connect_reader(self.path, "immutable=1")
            else:
                self._copy = tempfile.TemporaryDirectory(prefix="station-journal-")
                copy = Path(self._copy.name) / self.path.name
                log.info("%s: its WAL cannot be read in place (read-only media?): reading a "
                         "copy in %s", self.path, self._copy.name)
                shutil.copyfile(self.path, copy)
                shutil.copyfile(wal, copy.with_name(wal.name))
                self._connect_reader(copy, "mode=ro")
        self._note_file()

    def _connect_reader(self, path: Path, mode: str) -> None:
        self._db = sqlite3.connect(f"{path.resolve().as_uri()}?{mode}", uri=True,
                                   timeout=BUSY_TIMEOUT_S, check_same_thread=False,
                                   isolation_level=None)
        self._check_tables(allow_new=False)

    def _open_writer(self, start_keying: bool = False) -> bool:
        """Open the journal to write; True when the key is to take it over (`_check_key`)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self._lock is None:
            self._take_lock()
        if not self.path.exists():
            # A deleted journal's WAL and index: the last connection to close deletes them,
            # but one still open elsewhere (a reader of the deleted file) leaves them, and
            # SQLite would pair the new file with the old WAL (disk I/O error).
            for stale in ("-wal", "-shm"):
                self.path.with_name(self.path.name + stale).unlink(missing_ok=True)
        self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S,
                                   check_same_thread=False, isolation_level=None)
        self._check_tables(allow_new=True)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        converted = self._upgrade()
        self._db.executescript(SCHEMA)
        if converted:       # its pages out of the WAL, which would keep that size till the end
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        take_over = self._check_key(start_keying)
        self._note_file()
        return take_over

    @property
    def _wal(self) -> Path:
        return self.path.with_name(self.path.name + "-wal")

    def _note_file(self) -> None:
        stat = self.path.stat()
        self._file_id = (stat.st_dev, stat.st_ino)

    def _replaced(self) -> bool:
        """Is the file at the journal's path gone, or another than the one opened?"""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return True
        return (stat.st_dev, stat.st_ino) != self._file_id

    def follow(self) -> None:
        """A reader kept open (the web display) reads the journal made again at its path,
        once there is one: its connection would read the deleted or replaced file for ever."""
        if self._db is not None and not self._replaced() or not self.path.exists():
            return
        self.close()
        try:
            self._open_reader()
        except (sqlite3.Error, OSError) as error:
            self.close()
            raise JournalError(f"cannot open the journal {self.path}: {error}") from error

    def _take_lock(self) -> None:
        """One writer at a time: a second (another `station run`, start-keying while the
        station runs) would find the first's every entry a change under it, and record a
        break before each of its own. flock is let go when its holder exits, even killed.
        A lock file deleted under its holder (`rm journal.sqlite*` clears a journal, and
        the station makes it again) would let a second writer lock a new one, so on Linux
        the writer also claims the journal's path by an abstract socket, which no file
        operation removes and which goes with its holder too."""
        self._lock = open(self.path.with_name(self.path.name + ".lock"), "a+")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.seek(0)
            raise self._in_use(self._lock.read().strip() or "unknown") from None
        self._claim_path()
        self._lock.truncate(0)
        self._lock.write(f"{os.getpid()}\n")
        self._lock.flush()

    def _claim_path(self) -> None:
        """Bind the abstract socket named after the journal's resolved path (Linux only:
        elsewhere the lock file alone guards it); one bound already is another writer's,
        whose pid the kernel gives any process that connects to it (SO_PEERCRED)."""
        if not sys.platform.startswith("linux"):
            return
        digest = hashlib.sha256(str(self.path.resolve()).encode()).hexdigest()
        name = f"\0wargame-station-journal-{digest}"
        claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            claim.bind(name)
            claim.listen(1)
        except OSError as error:
            claim.close()
            if error.errno == errno.EADDRINUSE:
                raise self._in_use(_claim_holder(name)) from None
            log.warning("cannot claim the journal %s beside its lock file (%s): the lock "
                        "file alone keeps a second station from writing it", self.path, error)
            return
        self._claim = claim

    def _in_use(self, holder: str) -> InUse:
        """The refusal, the lock let go first."""
        self.close()
        return InUse(f"another station (pid {holder}) is writing the journal {self.path}",
                    "Stop it first (`station journal start-keying` too needs it stopped), "
                    "or give this one another journal (journal.path, or --journal PATH)")

    def _upgrade(self) -> bool:
        """An older station's entries table (ids it may give again, perhaps no seal column)
        is copied into today's, ids and values unchanged, so every seal still matches. An
        existing table cannot be given AUTOINCREMENT in place; one transaction does the copy,
        the drop and the rename, so a crash or a full disk leaves the old table as it was.
        True when it was converted."""
        row = self._db.execute("SELECT sql FROM sqlite_master WHERE type='table' "
                               "AND name='entries'").fetchone()
        if row is None or "AUTOINCREMENT" in row[0].upper():
            return False
        # The copy, in the file and again in the WAL, besides the journal as it is
        size = sum(f.stat().st_size for f in (self.path, self._wal) if f.exists())
        disk = os.statvfs(self.path.parent)
        free = disk.f_bavail * disk.f_frsize
        meanwhile = ("The journal stays as it was, readable, but this station cannot write it "
                     "until then: for the games meanwhile give it a new journal (journal.path, "
                     "or --journal PATH)")
        if free < CONVERSION_SPACE * size:
            raise JournalError(
                f"cannot convert the journal {self.path} from an older station: that needs "
                f"about {_mb(CONVERSION_SPACE * size)} free on its disk, and there are "
                f"{_mb(free)}. Free space there, or move the journal to a larger disk. "
                + meanwhile)
        log.warning("the journal %s is from an older station: copying its entries into a "
                    "table that never gives an id twice", self.path)
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(f"CREATE TABLE entries_new {ENTRIES}")
            self._db.execute(f"INSERT INTO entries_new (id, at, kind, action, headline, parent, "
                             f"seal, data, frame) SELECT id, at, kind, action, headline, parent, "
                             f"{self._seal_column}, data, frame FROM entries")
            self._db.execute("DROP TABLE entries")
            self._db.execute("ALTER TABLE entries_new RENAME TO entries")
            self._db.execute("COMMIT")
        except sqlite3.Error as error:
            self._rollback()
            full = (getattr(error, "sqlite_errorcode", 0) & 0xFF) == sqlite3.SQLITE_FULL
            raise JournalError(
                f"cannot convert the journal {self.path} from an older station: {error}. "
                + ("Free space on its disk, or move the journal to a larger one. " if full else
                   DAMAGED.format(path=self.path) + ". ")
                + meanwhile) from error
        self._seal_column = "seal"
        return True

    def _reopen_if_gone(self) -> None:
        """A journal file deleted or replaced while the station runs would swallow every
        later entry (SQLite writes on into the unlinked file): start it again at its path."""
        if self._replaced():
            log.error("the journal %s was deleted or replaced while the station ran: "
                      "writing on in a new journal there, beginning with a record of the lost "
                      "one's last entry", self.path)
            self._db.close()
            self._open_writer()

    def _check_tables(self, allow_new: bool) -> None:
        """A station journal, or (`allow_new`) a file with no tables yet."""
        names = {row[0] for row in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type='table'")}
        if allow_new and not names:
            return
        columns = {table: {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
                   for table in TABLES}
        self._seal_column = "seal" if "seal" in columns["entries"] else "NULL"
        wrong = [table for table, needed in TABLES.items() if not needed <= columns[table]]
        if wrong:
            what = ("is empty (as a copy of a journal in use is when taken without its -wal "
                    "file: `station journal backup` copies it whole)" if not names
                    else f"has no {' or '.join(wrong)} table as a journal has")
            raise JournalError(f"{self.path} is not a station journal: it {what}. Give the "
                               "journal file `station run` writes (journal.path in its config)")

    def _check_key(self, start_keying: bool) -> bool:
        """A station with a key chains on only from an entry sealed with it, else its seals
        would vouch for entries anyone could have sealed again: a journal sealed with the
        key and then not was sealed again by someone without it, and one never sealed with
        it is taken over only when told (`start_keying`: returns True). A station without a
        key, or with another, does not write on after entries sealed with a key. KeyMismatch
        says which case it is and what to do."""
        mine = seal.scheme_of(self.key) + ":"
        other = self._query("SELECT id, seal FROM entries WHERE substr(seal, 1, 5)='hmac-' AND "
                            "substr(seal, 1, ?)!=? ORDER BY id DESC LIMIT 1", (len(mine), mine))
        if other:
            given = (f"the key given is another ({seal.key_id(self.key)})" if self.key is not None
                     else "no key was given")
            raise KeyMismatch(f"the journal {self.path} is sealed with the key "
                              f"{seal.key_of(other[0][1])} (up to #{other[0][0]}), but {given}",
                              f"Give the key it was sealed with, or {NEW_JOURNAL}")
        last = self._last()
        if self.key is None or last is None:
            return False
        if (last[1] or "").startswith(mine):
            return self._unvouched(mine, start_keying)
        keyed = self._query("SELECT max(id) FROM entries WHERE substr(seal, 1, ?)=?",
                            (len(mine), mine))[0][0]
        # a record that a key took the journal over, its seal made again without the key
        record = self._query("SELECT max(id) FROM entries WHERE kind=?", (seal.KEYED,))[0][0]
        if keyed is not None or record is not None:
            was = (f"is sealed with the station's key up to #{keyed}" if keyed is not None else
                   f"records at #{record} that a key took it over")
            raise KeyMismatch(
                f"the journal {self.path} {was}, but the entries after it (to #{last[0]}) are "
                "not sealed with the key: someone without the key sealed or added them",
                "Keep the file as it is for the organiser (`station journal verify --key "
                f"{{key_file}}` names the entries), and {NEW_JOURNAL}")
        first = self._query("SELECT min(id) FROM entries")[0][0]
        self._take_over = (first, last[0])
        if start_keying:
            return True
        raise KeyMismatch(
            f"the journal {self.path} holds entries not sealed with the station's key "
            f"({seal.key_id(self.key)}): #{first}-#{last[0]}, sealed without a key or not at all",
            "If this journal was kept before the key was set, stop the station and run "
            f"`station journal start-keying --journal {self.path} --key {{key_file}}` once, as "
            "the station's user: the key seals it from then on. If it was ever sealed with this "
            f"key, someone without the key has sealed it again: keep the file, and {NEW_JOURNAL}")

    def _unvouched(self, mine: str, start_keying: bool) -> bool:
        """A journal sealed with the key after entries sealed without it, by a station from
        before start-keying, which chained its keyed seals onto them: `verify --key` calls
        those entries unprotected until a keyed record takes them over (`start_keying`:
        returns True). The station writes on meanwhile: no roll is lost to it."""
        first_keyed, kind = self._query(
            "SELECT id, kind FROM entries WHERE substr(seal, 1, ?)=? ORDER BY id LIMIT 1",
            (len(mine), mine))[0]
        plain = self._query("SELECT min(id), max(id) FROM entries WHERE id<? AND seal LIKE ?",
                            (first_keyed, seal.PLAIN + ":%"))[0]
        taken = self._query("SELECT 1 FROM entries WHERE kind=? AND substr(seal, 1, ?)=?",
                            (seal.KEYED, len(mine), mine))
        if kind == seal.KEYED or plain[0] is None or taken:
            return False
        self._take_over = (self._query("SELECT min(id) FROM entries")[0][0], first_keyed - 1)
        if start_keying:
            return True
        log.warning("%s: #%d-#%d are sealed without the station's key, before #%d which is "
                    "sealed with it: `station journal verify --key` calls them unprotected. "
                    "Stop the station and run `station journal start-keying --journal %s "
                    "--key KEY` (KEY: journal.key_file) once to take them over as they are", self.path, *plain,
                    first_keyed, self.path)
        return False

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None
        if self._claim is not None:
            self._claim.close()
            self._claim = None
        if self._copy is not None:
            self._copy.cleanup()
            self._copy = None

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing -----------------------------------------------------------------------

    def add_reading(self, action: str, headline: str, data: dict[str, Any],
                    dice: list[dict[str, Any]], frame: bytes | None) -> int:
        """A tray reading: the dice seen (DetectedDie.to_json() dicts) and the JPEG frame."""
        def write() -> int:
            entry_id = self._insert("reading", action, headline, {**data, "dice": dice}, frame)
            self._db.executemany(
                "INSERT INTO dice VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                [(entry_id, i, d["kind"], None if d.get("value") is None else str(d["value"]),
                  d.get("colour"), *(d.get("center") or (None, None)),
                  *(d.get("center_mm") or (None, None)), d.get("bearing_deg"),
                  d.get("confidence"), ",".join(d.get("flags", [])))
                 for i, d in enumerate(dice)])
            return entry_id
        return self._write(write)

    def add_outcome(self, action: str, headline: str, data: dict[str, Any],
                    readings: list[int]) -> int:
        """A resolved ruling; `readings` are the entries its dice came from."""
        def write() -> int:
            entry_id = self._insert("outcome", action, headline, data, None)
            # A reading belongs to one outcome: its link is sealed with that outcome, so it
            # is set once and never moved.
            self._db.executemany("UPDATE entries SET parent=? WHERE id=? AND parent IS NULL",
                                 [(entry_id, r) for r in readings])
            return entry_id
        return self._write(write)

    def add_measurement(self, action: str, headline: str, data: dict[str, Any]) -> int:
        return self._write(lambda: self._insert("measurement", action, headline, data, None))

    def _insert(self, kind: str, action: str, headline: str, data: dict[str, Any],
                frame: bytes | None, entry_id: int | None = None) -> int:
        """Write an entry, as `entry_id` or (None) the next id SQLite gives."""
        at = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        cursor = self._db.execute(
            "INSERT INTO entries (id, at, kind, action, headline, data, frame) "
            "VALUES (?,?,?,?,?,?,?)",
            (entry_id, at, kind, action, headline, json.dumps(data, default=_json_default),
             frame))
        return int(cursor.lastrowid)

    def _write(self, work: Callable[[], int]) -> int:
        """Run `work` in a transaction of its own and commit it (synchronous=FULL: on disk
        when this returns). While another program holds the write lock, try again; a
        JournalError only when the journal cannot be written."""
        if self.readonly:
            raise JournalError(f"the journal {self.path} was opened readonly (to be read)")
        deadline = time.monotonic() + WRITE_PATIENCE_S
        try:
            self._reopen_if_gone()
        except (sqlite3.Error, OSError) as error:
            raise JournalError(f"the journal {self.path} was deleted and cannot be made again: "
                               f"{error}. Check the disk and the folder's permissions") from error
        while True:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._record_break()
                entry_id = work()
                made = self._seal(entry_id)
                self._db.execute("COMMIT")
                self._head = (entry_id, made)
                return entry_id
            except sqlite3.Error as error:
                self._rollback()
                busy = (getattr(error, "sqlite_errorcode", 0) & 0xFF) in (
                    sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
                if not busy:
                    raise JournalError(f"cannot write to the journal {self.path}: {error}. "
                                       "Check the disk (full? read-only?) and the file's "
                                       "permissions") from error
                if time.monotonic() >= deadline:
                    raise JournalError(
                        f"cannot write to the journal {self.path}: another program has held "
                        f"it locked for over {WRITE_PATIENCE_S:g} s. Close it (an sqlite3 "
                        "shell, a backup), then try again") from error
                log.warning("the journal %s is locked by another program; trying again",
                            self.path)
                time.sleep(0.1)     # should SQLite give up at once, do not spin
            except BaseException:
                self._rollback()
                raise

    def _seal(self, entry_id: int) -> str:
        """Seal the entry `work` just wrote, in the same transaction: over what it holds when
        committed (an outcome's links to its readings included), after the entry before it."""
        before = self._db.execute("SELECT seal FROM entries WHERE id<? ORDER BY id DESC LIMIT 1",
                                  (entry_id,)).fetchone()
        made = seal.make_seal((before[0] or "") if before else "",
                              self._sealable(entry_id).content, self.key)
        self._db.execute("UPDATE entries SET seal=? WHERE id=?", (made, entry_id))
        return made

    def _record_break(self) -> None:
        """When the journal no longer ends with the entry the station wrote last (or found
        when it opened it), entries were deleted, changed or added under it, or the file was
        made again: chaining on would seal over that. A break entry records the last entry
        the station knew and the one it found instead, and `verify` reports it. Its id comes
        after every id the station knows of: none is given again, not even in a new file."""
        found = self._last()
        if found == self._head:
            return
        data = {name: None if head is None else {"id": head[0], "seal": head[1]}
                for name, head in (("expected", self._head), ("found", found))}
        log.error("%s: %s; recorded as a break", self.path,
                  seal.describe(seal.BREAK, data))
        newest = max(self._counter() or 0, *(head[0] for head in (self._head, found) if head))
        headline = "journal lost, begun again" if found is None \
            else "journal changed under the station"
        self._insert(seal.BREAK, "journal", headline, data, None, newest + 1)
        self._seal(newest + 1)
        # said on the screens as "journal: changed under the station: ..."
        self.last_break = (f"{headline.removeprefix('journal ')}: a break is recorded as "
                           f"#{newest + 1}; station journal verify shows what changed")

    def _keyed_record(self) -> int:
        """The record that the key seals the journal from here on, taking over the entries
        `_check_key` found not sealed with it, as they are."""
        first, last = self._take_over
        return self._insert(seal.KEYED, "journal", "sealed with the key from here",
                            {"key": seal.key_id(self.key),
                             "taken_over": {"first": first, "last": last}}, None)

    def _last(self) -> tuple[int, str | None] | None:
        """The last entry's id and seal; None when the journal is empty."""
        row = self._query(f"SELECT id, {self._seal_column} FROM entries ORDER BY id DESC LIMIT 1")
        return (row[0][0], row[0][1]) if row else None

    def _rollback(self) -> None:
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass        # the failed statement already ended the transaction

    # --- reading -------------------------------------------------------------------------

    def entries(self, kind: str | tuple[str, ...] | None = None,
                limit: int | None = None, frames: bool = True) -> Iterator[Entry]:
        """Entries (of `kind`, one or several) in the order they were written; `limit`: only
        the last ones. Without `frames` an entry's frame is b"" when it has one: a list or an
        export of a long journal need not hold every JPEG in memory at once."""
        columns = self._columns if frames else self._columns.replace(
            ", frame", ", CASE WHEN frame IS NULL THEN NULL ELSE x'' END")
        sql = f"SELECT {columns} FROM entries"
        args: list[Any] = []
        if kind:
            kinds = (kind,) if isinstance(kind, str) else kind
            sql += f" WHERE kind IN ({','.join('?' * len(kinds))})"
            args.extend(kinds)
        sql += " ORDER BY id DESC"
        if limit:
            if limit < 0:
                raise ValueError(f"limit {limit}: give a number of entries, 0 or more")
            sql += " LIMIT ?"
            args.append(min(limit, SQLITE_INT_MAX))     # more than there can be: all of them
        for row in reversed(self._query(sql, args)):
            yield self._entry(row)

    def get(self, entry_id: int) -> Entry | None:
        if not -SQLITE_INT_MAX <= entry_id <= SQLITE_INT_MAX:
            return None                                 # no row can have such an id
        rows = self._query(f"SELECT {self._columns} FROM entries WHERE id=?", (entry_id,))
        return self._entry(rows[0]) if rows else None

    def readings_of(self, outcome_id: int) -> list[Entry]:
        rows = self._query(
            f"SELECT {self._columns} FROM entries WHERE parent=? ORDER BY id", (outcome_id,))
        return [self._entry(row) for row in rows]

    def dice_rows(self) -> list[tuple[str, str, str]]:
        """(kind, colour, value) of every readable die of every reading that led to an outcome."""
        return self._query(
            "SELECT d.kind, COALESCE(d.colour, '?'), d.value FROM dice d JOIN entries e "
            "ON e.id = d.entry_id WHERE d.value IS NOT NULL AND e.parent IS NOT NULL")

    def chain(self) -> Iterator[Sealable]:
        """Every entry as its seal covers it, in the order written (for `verify`), all read
        in one transaction: an outcome the station writes meanwhile does not link readings
        already walked past to an entry not walked."""
        self._query("BEGIN")
        try:
            # every link in one look: a journal from before the index on `parent` (opened
            # read-only, so not converted) took a scan per entry, 6 s for 6,000 entries
            links: dict[int, list[int]] = {}
            for parent, child in self._query("SELECT parent, id FROM entries "
                                             "WHERE parent IS NOT NULL ORDER BY id"):
                links.setdefault(parent, []).append(child)
            for (entry_id,) in self._query("SELECT id FROM entries ORDER BY id"):
                try:
                    yield self._sealable(entry_id, links.get(entry_id, []))
                except sqlite3.Error as error:
                    raise self._unreadable(error) from None
        finally:
            self._rollback()

    def verify(self, key: bytes | None = None, heads: dict[int, str] | None = None
               ) -> seal.Verdict:
        """Check every entry against its seal (`seal.verify`)."""
        # read before the walk: entries written meanwhile only make the walk longer
        counter = self._counter()
        with closing(self.chain()) as entries:      # its transaction ends, however it ends
            return seal.verify(entries, key, heads, counter)

    def backup(self, out: Path) -> None:
        """Copy the journal into the new file `out`, whole and consistent even while the
        station writes it (SQLite's online backup: a `cp` misses what is in the -wal file)."""
        try:
            with closing(sqlite3.connect(out)) as copy:
                self._db.backup(copy)
        except sqlite3.Error as error:
            out.unlink(missing_ok=True)
            raise JournalError(f"cannot copy the journal {self.path} to {out}: {error}. Check "
                               "the folder and the free space there") from error

    def _counter(self) -> int | None:
        """The highest id SQLite has given an entry; None in an older station's journal,
        which does not count them."""
        if not self._query("SELECT 1 FROM sqlite_master WHERE name='sqlite_sequence'"):
            return None
        row = self._query("SELECT seq FROM sqlite_sequence WHERE name='entries'")
        return row[0][0] if row else None

    def seal_of(self, entry_id: int) -> str | None:
        rows = self._query(f"SELECT {self._seal_column} FROM entries WHERE id=?", (entry_id,))
        return rows[0][0] if rows else None

    @property
    def _columns(self) -> str:
        return f"{COLUMNS}, {self._seal_column}"

    def _sealable(self, entry_id: int, links: list[int] | None = None) -> Sealable:
        """The entry's columns as stored (the values, not what they mean: any change counts),
        its dice rows and the readings linked to it (`links`, when already looked up)."""
        row = self._db.execute(f"SELECT id, at, kind, action, headline, data, frame, parent, "
                               f"{self._seal_column} FROM entries WHERE id=?",
                               (entry_id,)).fetchone()
        dice = self._db.execute("SELECT idx, kind, value, colour, x, y, x_mm, y_mm, bearing_deg, "
                                "confidence, flags FROM dice WHERE entry_id=? ORDER BY idx",
                                (entry_id,)).fetchall()
        if links is None:
            links = [link for (link,) in self._db.execute(
                "SELECT id FROM entries WHERE parent=? ORDER BY id", (entry_id,))]
        try:
            data = json.loads(row[5])
        except (TypeError, ValueError):
            data = None
        return Sealable(row[0], row[2], row[7], row[8],
                        [*row[:7], [list(d) for d in dice], links], data)

    def _query(self, sql: str, args: Any = ()) -> list[tuple]:
        try:
            return self._db.execute(sql, args).fetchall()
        except sqlite3.Error as error:
            raise self._unreadable(error) from None

    def _unreadable(self, error: sqlite3.Error) -> JournalError:
        return JournalError(f"cannot read the journal {self.path}: {error}. "
                            + DAMAGED.format(path=self.path))

    def _entry(self, row: tuple) -> Entry:
        """The row as an Entry; JournalError naming the entry if it is not what was written."""
        try:
            data = json.loads(row[6])
        except (TypeError, ValueError):
            data = None
        fields_ok = (all(isinstance(v, str) for v in row[1:5])
                     and (row[5] is None or isinstance(row[5], int))
                     and (row[7] is None or isinstance(row[7], bytes))
                     and (row[8] is None or isinstance(row[8], str)))
        if not isinstance(data, dict) or not fields_ok:
            what = "its data is not a JSON object" if not isinstance(data, dict) else \
                "a column holds the wrong type"
            raise JournalError(f"entry #{row[0]} of the journal {self.path} is damaged: {what}. "
                               "Keep a copy of the file; `station journal show ID` still "
                               "shows the other entries")
        return Entry(row[0], row[1], row[2], row[3], row[4], row[5], data, row[7], row[8])


def _mb(size: int) -> str:
    return f"{size / 1e6:.0f} MB" if size >= 1e7 else f"{size / 1e6:.1f} MB"


def _json_default(value: Any) -> Any:
    if hasattr(value, "to_json"):
        return value.to_json()
    if hasattr(value, "item"):          # numpy scalars
        return value.item()
    if isinstance(value, (set, tuple)):
        return list(value)
    raise TypeError(f"cannot store {type(value).__name__} in the journal")
