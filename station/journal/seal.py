"""Seals: each journal entry carries a SHA-256 over the seal of the entry before it and
everything the entry holds, so an entry changed, deleted or added by hand after the station
wrote it breaks the chain (`station journal verify`).

An entry's seal covers its id, time, kind, action, headline and data as stored, its frame
(by its SHA-256), its rows in the `dice` table and, for an outcome, the ids of the readings
linked to it. A reading's own link (`parent`) is set when its outcome is written, in the
outcome's transaction, so it is sealed with the outcome rather than with the reading.

A seal is stored as SCHEME:HEX. SCHEME is `sha256`, or `hmac-KEYID` when the station has a
key (journal.key_file): HMAC-SHA256, which nobody without the key can make again. KEYID
names the key (a hash of it, not the key) so that verifying with the wrong one says so.

The journal also holds records of its own, sealed like the entries (RECORDS): a break, when
the station found the journal not as it had left it, and a key taking a journal over.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

VERSION = "station journal seal 1"      # in every sealed message: a later format is told apart
PLAIN = "sha256"
# What players write down: 12 hex digits are 48 bits, so a chain rewritten without the key
# would need some 10^14 tries to come out with the seal they noted at that id.
HEAD_DIGITS = 12
# The journal's own records, sealed in the chain like the entries (store.Journal writes them):
BREAK = "break"     # the journal was not as the station had left it: what it knew, what it found
KEYED = "keyed"     # sealed with the key from here on: the entries before it taken over
RECORDS = (BREAK, KEYED)


def key_id(key: bytes) -> str:
    return hashlib.sha256(b"station journal key id\0" + key).hexdigest()[:8]


def scheme_of(key: bytes | None) -> str:
    return PLAIN if key is None else f"hmac-{key_id(key)}"


def scheme(seal: Any) -> str | None:
    """The scheme a stored seal names; None if it is not a seal at all."""
    return seal.rpartition(":")[0] if isinstance(seal, str) else None


def key_of(stored: Any) -> str | None:
    """The id of the key a stored seal was made with; None when it was made without one."""
    name = scheme(stored) or ""
    return name.removeprefix("hmac-") if name.startswith("hmac-") else None


def make_seal(prev: Any, content: list[Any], key: bytes | None) -> str:
    """The seal of an entry holding `content` (as store.Journal reads it back) after an
    entry sealed `prev` ("" for the first)."""
    message = json.dumps([VERSION, prev, *content], ensure_ascii=True, separators=(",", ":"),
                         default=_blob).encode()
    mac = hashlib.sha256(message) if key is None else hmac.new(key, message, hashlib.sha256)
    return f"{scheme_of(key)}:{mac.hexdigest()}"


def _blob(value: Any) -> Any:
    if isinstance(value, bytes):        # a frame: its hash stands for it
        return {"sha256": hashlib.sha256(value).hexdigest()}
    raise TypeError(f"cannot seal {type(value).__name__}")


def digest(seal: Any) -> str:
    """The hex digits of a stored seal ("" when there is none)."""
    return seal.rpartition(":")[2] if isinstance(seal, str) else ""


def short(seal: Any) -> str:
    """A seal as the screen shows it and players write it down: its first hex digits."""
    return digest(seal)[:HEAD_DIGITS]


def matches(stored: Any, prev: Any, content: list[Any], key: bytes | None) -> bool:
    """Does the seal `stored` belong to `content` after `prev`, made as its scheme says?"""
    made_with = scheme(stored)
    if made_with == PLAIN or key is not None and made_with == scheme_of(key):
        return stored == make_seal(prev, content, None if made_with == PLAIN else key)
    return False


def describe(kind: str, data: Any) -> str:
    """What one of the journal's own records says (for `verify` and the screen)."""
    data = data if isinstance(data, dict) else {}
    if kind == KEYED:
        taken = data.get("taken_over") if isinstance(data.get("taken_over"), dict) else {}
        return (f"sealed with the key {data.get('key')} from here on; #{taken.get('first')}-"
                f"#{taken.get('last')} before, not sealed with it, were taken over as they were "
                "(station journal start-keying): a change made to them before cannot be seen")
    expected, found = _head_text(data.get("expected")), data.get("found")
    if found is None:
        return ("the journal was deleted or replaced while the station ran, and begun again "
                f"here; the lost one ended at {expected}")
    return (f"while the station ran, the journal's last entry went from {expected} to "
            f"{_head_text(found)}: entries deleted, changed or added meanwhile")


def _head_text(head: Any) -> str:
    if not isinstance(head, dict):
        return "none (it was empty)"
    return f"#{head.get('id')} (seal {short(head.get('seal')) or 'none'})"


class CannotVerify(Exception):
    """The seals were made with a key that was not given: the message says which."""


@dataclass(frozen=True)
class Problem:
    first: int              # the entries concerned, first to last
    last: int
    change: str             # one of CHANGES
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"first": self.first, "last": self.last, "change": self.change, "text": self.text}


CHANGES = ("deleted", "break", "edited", "rewritten", "unchecked", "unsealed", "unkeyed", "link",
           "head")


@dataclass
class Verdict:
    sealed: int = 0                     # entries with a seal, right or wrong
    unsealed: int = 0                   # entries written before the journal was sealed
    key: str | None = None              # the key the seals are made with, from `keyed_from` on
    keyed_from: int | None = None
    taken_over: tuple[int, int] | None = None   # entries before keyed_from the key took over
    head: tuple[int, Any] | None = None     # the last entry's id and seal
    problems: list[Problem] = field(default_factory=list)
    heads_matched: list[int] = field(default_factory=list)  # noted heads found as noted

    @property
    def intact(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"intact": self.intact, "sealed": self.sealed, "unsealed": self.unsealed,
                "key": self.key, "keyed_from": self.keyed_from,
                "taken_over": None if self.taken_over is None else
                {"first": self.taken_over[0], "last": self.taken_over[1]},
                "head": None if self.head is None else
                {"id": self.head[0], "seal": short(self.head[1])},
                "problems": [p.to_json() for p in self.problems],
                "heads_matched": self.heads_matched}


def verify(chain: Iterable[Any], key: bytes | None, heads: dict[int, str] | None = None,
           counter: int | None = None) -> Verdict:
    """Walk the entries (store.Journal.chain()) and say what does not match its seal.

    `heads`: entry id -> the start of its seal as players wrote it down (the screen's
    journal line). `counter`: the highest id the journal has given, which shows the last
    entries deleted (None: the journal does not count them). Each entry is checked against
    the stored seal of the entry before it, so a change shows where it was made, and entries
    after it that were left alone still verify. An entry inserted among the others needs the
    later ones renumbered (ids are sealed): it shows as a run of broken entries, or, without
    a seal, as an unsealed one. The journal's own records (a break, a key taking over) are
    reported as they say. CannotVerify when keyed seals meet no key or another key."""
    verdict, heads = Verdict(), heads or {}
    broken: list[Problem] = []          # one entry each; runs of them are merged at the end
    kinds: dict[int, Any] = {}
    links: list[tuple[int, Any]] = []
    seen: dict[int, Any] = {}           # the seals of the entries in `heads`
    # with a key: the entries before the first one sealed with it, which are not; taken
    # over if that one is a KEYED record. Else those without a seal were written before
    # seals (the keyed seal after them shows that nobody took seals off), and those sealed
    # without the key are unprotected unless a later KEYED record takes them over (a station
    # from before start-keying chained its keyed seals onto them)
    pending: list[int] = []
    unvouched: list[int] = []
    before_key: list[int] = []
    # `prev`: the seal of the entry before (or the one it had, made again, if it was removed);
    # `gone`: the problem of an entry that does not match it, when that entry before was
    # deleted or lost its seal: the change may be in either
    last_id, prev, gone, prev_key = 0, "", None, None
    for entry in chain:
        kinds[entry.id] = entry.kind
        if entry.parent is not None:
            links.append((entry.id, entry.parent))
        if entry.id in heads:
            seen[entry.id] = entry.seal
        verdict.head = (entry.id, entry.seal)
        if entry.kind == BREAK:
            verdict.problems.append(Problem(entry.id, entry.id, "break", (
                f"#{entry.id} records a break: {describe(entry.kind, entry.data)}")))
        if entry.id != last_id + 1:     # ids are given one after another: a gap is a deletion
            missing = f"#{last_id + 1}" + (f"-#{entry.id - 1}" if entry.id - 1 > last_id + 1 else "")
            verdict.problems.append(Problem(
                last_id + 1, entry.id - 1, "deleted",
                f"{missing} deleted: the ids go from #{last_id} to #{entry.id}" if last_id
                else f"{missing} deleted: the ids start at #{entry.id}"))
            gone = ("unchecked", "cannot be checked: the entry it was sealed after is deleted, "
                    "so a change made to it does not show")
        last_id = entry.id

        if not entry.seal:
            if verdict.sealed:
                broken.append(Problem(entry.id, entry.id, "unsealed", (
                    "has no seal, though the entries before it have: added or changed by hand "
                    "(or written by a station older than seals)")))
            else:
                verdict.unsealed += 1
                if key is not None:
                    pending.append(entry.id)
                prev = ""
                continue
            # its seal removed: made again as the entry before's was, to check the next one
            prev = make_seal(prev, entry.content, prev_key)
            gone = ("edited", f"no longer matches its seal over #{entry.id} as it is: one of "
                    "the two was changed since it was written")
            continue
        verdict.sealed += 1
        made_with = key_of(entry.seal)
        if made_with is not None and verdict.key is None:
            if key is None or key_id(key) != made_with:
                raise CannotVerify(
                    f"the entries from #{entry.id} on are sealed with the key {made_with}, which "
                    "alone can check them"
                    + (f", not the one given ({key_id(key)})" if key is not None else ""))
            verdict.key, verdict.keyed_from = made_with, entry.id
            if entry.kind == KEYED and pending:
                verdict.taken_over = (pending[0], pending[-1])
            else:
                unvouched = pending[verdict.unsealed:]      # the unsealed ones come first
                before_key = pending
            pending = []
        elif made_with == verdict.key and entry.kind == KEYED and unvouched \
                and _takes_over(entry.data, unvouched):
            verdict.taken_over, unvouched = (before_key[0], before_key[-1]), []
        elif made_with is None and verdict.key is None and key is not None:
            pending.append(entry.id)
        elif made_with is None and entry.kind == KEYED:
            # what a station writes with a key, sealed without one: plain seals made again
            broken.append(Problem(entry.id, entry.id, "unkeyed", (
                "records that a key took the journal over, but is not sealed with a key: "
                "sealed again by someone without it")))
        if verdict.key is not None and made_with is None:
            broken.append(Problem(entry.id, entry.id, "unkeyed", (
                f"is sealed without the key, though the entries from #{verdict.keyed_from} on "
                "are sealed with it: sealed again by someone without the key")))
        elif not matches(entry.seal, prev, entry.content, key):
            change, text = gone or ("edited", (
                "changed since it was written: it no longer matches its seal (its text, data, "
                "frame, dice or the readings linked to it)"))
            broken.append(Problem(entry.id, entry.id, change, text))
        prev, gone, prev_key = entry.seal, None, key if made_with else None
    if counter is not None and counter > last_id:
        missing = f"#{last_id + 1}" + (f"-#{counter}" if counter > last_id + 1 else "")
        verdict.problems.append(Problem(last_id + 1, counter, "deleted", (
            f"{missing} deleted: the journal has given ids up to #{counter}, "
            + (f"and its last entry is #{last_id}" if last_id else "and it is empty"))))
    if broken and broken[-1].first == last_id and broken[-1].change == "edited":
        # nothing after it to say it was there before: it may have been appended
        broken[-1] = dataclasses.replace(broken[-1], text=broken[-1].text + ", or added by hand")
    broken += _unprotected(unvouched + pending, key)    # pending: none is sealed with the key
    verdict.problems += _runs(broken)
    verdict.problems += [
        Problem(entry_id, entry_id, "link",
                f"#{entry_id} is linked to #{parent}, which is not an outcome written after it: "
                "the link was changed by hand")
        for entry_id, parent in links
        if not isinstance(parent, int) or parent <= entry_id or kinds.get(parent) != "outcome"]
    for entry_id, written in heads.items():
        found = digest(seen.get(entry_id))
        if found and found.startswith(written):
            verdict.heads_matched.append(entry_id)
            continue
        verdict.problems.append(Problem(entry_id, entry_id, "head", (
            f"#{entry_id} was written down with the seal {written}, but it is not in the journal"
            + (f" (it ends at #{last_id}: the entries after it were deleted, or this is a copy "
               "taken without its -wal file, which holds the latest entries)"
               if entry_id > last_id else "")
            if entry_id not in seen else
            f"#{entry_id} was written down with the seal {written}, but it has "
            + (found[:len(written)] if found else "no seal")
            + ": it was noted wrong, or the journal was changed at or before it and sealed "
              "again")))
    verdict.problems.sort(key=lambda p: (p.first, CHANGES.index(p.change)))
    return verdict


def _takes_over(data: Any, ids: list[int]) -> bool:
    """Does a KEYED record's data say it took over the entries `ids`?"""
    taken = data.get("taken_over") if isinstance(data, dict) else None
    return (isinstance(taken, dict) and isinstance(taken.get("first"), int)
            and isinstance(taken.get("last"), int) and taken["first"] <= ids[0]
            and ids[-1] <= taken["last"])


def _unprotected(ids: list[int], key: bytes | None) -> list[Problem]:
    """Entries before the first sealed with the key, not taken over by it: a station with
    a key never writes on after them unless told (store.Journal), so someone without the key
    sealed them again or removed their seals, or they were never taken over."""
    return [Problem(entry_id, entry_id, "unkeyed", (
        f"is not sealed with the key given ({key_id(key)}) and was not taken over by it "
        "(station journal start-keying): anyone could have changed it and sealed it again, or "
        "removed its seal")) for entry_id in ids]


def _runs(broken: list[Problem]) -> list[Problem]:
    """Entries one after another broken the same way, as one problem: a chain rewritten
    from some entry on, or ids renumbered after an insertion, fail at every later entry."""
    runs: list[list[Problem]] = []
    for problem in sorted(broken, key=lambda p: (p.change, p.first)):
        if runs and runs[-1][-1].last + 1 == problem.first and runs[-1][-1].change == problem.change:
            runs[-1].append(problem)
        else:
            runs.append([problem])
    merged = []
    for run in runs:
        first, last = run[0].first, run[-1].last
        if len(run) == 1:
            merged.append(Problem(first, last, run[0].change, f"#{first} {run[0].text}"))
        elif run[0].change == "edited":
            merged.append(Problem(first, last, "rewritten", (
                f"#{first}-#{last} do not match their seals: changed from #{first} on (several "
                "entries changed, or one inserted or deleted just before and the later ones "
                "renumbered)")))
        else:
            merged.append(Problem(first, last, run[0].change,
                                  f"#{first}-#{last}: each {run[0].text}"))
    return merged


MIN_KEY_BYTES = 16      # 128 bits: a shorter secret could be guessed


def load_key(path: Path, *, private: bool) -> bytes:
    """The secret in a key file: its bytes, without the line end an editor adds. ValueError
    saying what is wrong; `private` (the station's own key): also when every user of the
    machine can read it."""
    try:
        key = path.read_bytes().strip()
        mode = path.stat().st_mode
    except OSError as error:
        raise ValueError(f"cannot read {path} ({error.strerror or error})") from None
    if len(key) < MIN_KEY_BYTES:
        raise ValueError(f"{path} holds {len(key)} bytes; a key needs at least {MIN_KEY_BYTES}")
    if private and mode & stat.S_IROTH:
        raise ValueError(f"{path} can be read by every user of this machine")
    return key
