"""`station journal list|show|export|stats|verify`: what the station read, resolved and
measured, and whether it is still as the station wrote it."""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from station.cli import UsageError
from station.cli.inputs import number, output_file, write_output
from station.config import DEFAULT_JOURNAL, SIMULATED_JOURNAL


def register(registry) -> None:
    def journal_arg(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
        parser.add_argument("--journal", default=DEFAULT_JOURNAL, metavar="PATH",
                            help=f"the journal file (default {DEFAULT_JOURNAL})")
        return parser

    p = journal_arg(registry.command(
        "journal list", "list outcomes, measurements and the journal's own records", list_entries))
    p.add_argument("--all", action="store_true", help="readings too (every tray the camera read)")
    p.add_argument("--limit", type=number("entries", 0, integer=True), default=50,
                   help="the last N entries (default 50; 0: all)")
    p.add_argument("--json", action="store_true", help="one JSON array")
    p = journal_arg(registry.command(
        "journal show", "show one entry again: redraws the screen of an outcome", show_entry))
    p.add_argument("id", type=int, help="the entry's id (from journal list)")
    p.add_argument("--png", metavar="FILE", help="write the redrawn screen to FILE")
    p.add_argument("--frame", metavar="FILE", help="write the JPEG frame the dice were read from")
    p.add_argument("--json", action="store_true", help="the entry as JSON")
    p = journal_arg(registry.command("journal export", "every entry as CSV or JSON", export))
    p.add_argument("--format", choices=("csv", "json"), default="json")
    p = journal_arg(registry.command(
        "journal stats", "are the dice fair? face counts per colour and kind, chi-square", stats))
    p.add_argument("--json", action="store_true")
    p = journal_arg(registry.command(
        "journal verify", "is every entry as the station wrote it? checks the seals", verify,
        description="Check every entry's seal: exit status 0 when the journal is as the station "
                    "wrote it, 1 when an entry was changed, deleted or added by hand (each "
                    "named), 2 when the file cannot be read or its seals need a key not given. "
                    "Prints the head: the last entry's "
                    "id and seal, as the station's screen shows them."))
    p.add_argument("--head", metavar="ID:SEAL", type=written_head, action="append", default=[],
                   help="a seal written down from the screen's journal line, e.g. "
                        "42:3fa9c2e107bd: the entry must still carry it (repeatable)")
    p.add_argument("--key", metavar="FILE",
                   help="the key the station seals with (journal.key_file in its configuration)")
    p.add_argument("--json", action="store_true")
    p = journal_arg(registry.command(
        "journal backup", "copy the journal, whole even while the station writes it", backup))
    p.add_argument("out", metavar="OUT", help="the copy: a new file")
    p = journal_arg(registry.command(
        "journal start-keying", "seal a journal kept without a key with the station's key from "
        "now on", start_keying,
        description="Once, with the station stopped, as the station's user: record in the "
                    "journal that the key seals it from here on, taking over the entries "
                    "before as they are (a station with a key does not write on after entries "
                    "not sealed with it). Not for a journal that was ever sealed with this "
                    "key: then someone without the key has sealed it again. The only journal "
                    "command that writes."))
    p.add_argument("--key", metavar="FILE", required=True,
                   help="the station's key (journal.key_file in its configuration)")


def _journal_path(args) -> Path:
    path = Path(args.journal).expanduser()
    if not path.exists():
        simulated = Path(SIMULATED_JOURNAL).expanduser()
        hint = (f" (the simulated station's is --journal {simulated})"
                if simulated.exists() and path != simulated else "")
        raise UsageError(f"no journal at {path}: run `station run` first, or give --journal "
                         f"PATH{hint}")
    if path.is_dir():
        raise UsageError(f"--journal {path} is a folder: give the journal file in it")
    return path


def _key(args, private: bool) -> bytes:
    """--key: the secret in the file; `private`: as the station takes its own key."""
    from station.journal.seal import load_key
    try:
        return load_key(Path(args.key).expanduser(), private=private)
    except ValueError as error:
        raise UsageError(f"--key: {error}. Give the file journal.key_file names in the "
                         "station's configuration") from None


@contextmanager
def _open(args) -> Iterator:
    """The journal, read-only; a file that cannot be read (or a damaged entry met while
    reading) is a UsageError."""
    from station.journal import Journal, JournalError
    path = _journal_path(args)
    try:
        with Journal(path, readonly=True) as journal:
            yield journal
    except JournalError as error:
        raise UsageError(str(error)) from None


def list_entries(args) -> int:
    from station.journal.seal import RECORDS
    with _open(args) as journal:
        kinds = None if args.all else ("outcome", "measurement", *RECORDS)
        # one more than asked for: whether older entries were left out
        entries = list(journal.entries(kinds, limit=args.limit and args.limit + 1, frames=False))
        older = bool(args.limit) and len(entries) > args.limit
        entries = entries[1:] if older else entries
        if args.json:
            print(json.dumps([e.to_json() for e in entries], indent=1))
            return 0
        if not entries:
            print("the journal is empty")
        for e in entries:
            odds = e.data.get("odds")       # a ruling without dice is certain: as on its screen
            chance = f"  chance {odds * 100:.1f}%" if isinstance(odds, (int, float)) \
                and e.data.get("dice") else ""
            rules = " ".join(e.data.get("rules", []))
            print(f"#{e.id:<5} {e.at[:19].replace('T', ' ')} UTC  {e.kind:<11} {e.action:<24} "
                  f"{e.headline}{chance}  {rules}".rstrip())
        if older:
            print(f"(the last {args.limit}; --limit 0 lists them all)")
    return 0


def show_entry(args) -> int:
    from station.display.render import render
    from station.display.sinks import TerminalSink
    from station.service.replay import screen_of, step_lines

    # Checked before the work: a name PIL or the file system refuses would fail at the end.
    png = output_file(args.png, "--png", (".png",)) if args.png else None
    frame_path = output_file(args.frame, "--frame") if args.frame else None
    with _open(args) as journal:
        entry = journal.get(args.id)
        if entry is None:
            raise UsageError(f"no entry #{args.id} in {args.journal}; `station journal list` shows the ids")
        if args.json:
            print(json.dumps(entry.to_json(), indent=1))
        else:
            TerminalSink(sys.stdout, in_place=False).show(screen_of(journal, entry))
            steps = step_lines(entry)
            if steps:
                print("   every step:", *(f"     {line}" for line in steps), sep="\n")
        if png:
            picture = io.BytesIO()
            render(screen_of(journal, entry)).save(picture, format="PNG")
            write_output(png, "--png", picture.getvalue())
            print(f"screen written to {args.png}", file=sys.stderr)
        if frame_path:
            frame = entry.frame or next((r.frame for r in reversed(journal.readings_of(entry.id))
                                         if r.frame), None)
            if frame is None:
                raise UsageError(f"entry #{entry.id} has no frame (typed in, or a measurement)")
            write_output(frame_path, "--frame", frame)
            print(f"frame written to {args.frame}", file=sys.stderr)
    return 0


CSV_COLUMNS = ("id", "at", "kind", "action", "headline", "parent", "outcome", "dice", "odds",
               "rules", "inches", "base_to_base_in", "raw_mm", "problem", "seal")


def export(args) -> int:
    with _open(args) as journal:
        entries = list(journal.entries(frames=False))
        if args.format == "json":
            json.dump([e.to_json() for e in entries], sys.stdout, indent=1)
            print()
            return 0
        writer = csv.writer(sys.stdout)
        writer.writerow(CSV_COLUMNS)
        for e in entries:
            d = e.data
            dice = " ".join(str(x.get("value") if isinstance(x, dict) else x)
                            for x in d.get("dice", []))
            writer.writerow([e.id, e.at, e.kind, e.action, e.headline, e.parent or "",
                             d.get("outcome", ""), dice, d.get("odds", ""),
                             " ".join(d.get("rules", [])), d.get("inches", ""),
                             d.get("base_to_base_inches", ""), d.get("raw_mm", ""), d.get("problem", ""), e.seal or ""])
    return 0


# "42:3fa9c2e107bd", "#42 3fa9c2e107bd", or the screen's "journal #42 · seal 3fa9c2e107bd"
HEAD = re.compile(r"(?:journal\s+)?#?(\d{1,18})(?:\s*[:·]\s*|\s+)(?:seal\s+)?([0-9a-f]{8,64})",
                  re.IGNORECASE)
MAX_PROBLEMS = 20           # lines of problems printed; --json lists them all
# Seals without a key match whenever someone sealed the journal again after changing it:
# "intact" then says less than it seems to.
PLAIN_SEALS = ("sealed without a key: anyone can seal a changed journal again, which only a "
               "head noted from the screen shows (--head)")


def written_head(text: str) -> tuple[int, str]:
    """--head: an entry's id and the start of its seal, as HEAD reads them."""
    match = HEAD.fullmatch(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give the entry's id and its seal as the screen shows them, e.g. "
            "42:3fa9c2e107bd (at least 8 hex digits)")
    return int(match[1]), match[2].lower()


def verify(args) -> int:
    from station.journal.seal import HEAD_DIGITS, CannotVerify, short
    key = _key(args, private=False) if args.key else None
    with _open(args) as journal:
        try:
            verdict = journal.verify(key, dict(args.head))
        except CannotVerify as error:
            raise UsageError(f"{error}: give the station's key with --key FILE "
                             "(journal.key_file in its configuration)") from None
    if args.json:
        print(json.dumps({"journal": str(args.journal), **verdict.to_json()}, indent=1))
        return 0 if verdict.intact else 1
    problems = verdict.problems
    print(f"{args.journal}: " + ("intact" if verdict.intact else
                                 f"NOT intact, {len(problems)} problem{'s' * (len(problems) > 1)}"))
    for problem in problems[:MAX_PROBLEMS]:
        print(f"  {problem.text}")
    if len(problems) > MAX_PROBLEMS:
        print(f"  ... and {len(problems) - MAX_PROBLEMS} more (--json lists them all)")
    taken = verdict.taken_over
    print(f"  {verdict.sealed} {'entry' if verdict.sealed == 1 else 'entries'} sealed"
          + (f", with the key {verdict.key} from #{verdict.keyed_from} on" if verdict.key else "")
          + (f" (#{taken[0]}-#{taken[1]} before it taken over as they were: the key shows no "
             f"change made to them before #{verdict.keyed_from})" if taken else "")
          + (f"; {verdict.unsealed} unsealed, written before the station sealed its entries "
             "(nothing shows whether they were changed)" if verdict.unsealed else ""))
    if verdict.sealed and not verdict.key:
        print(f"  {PLAIN_SEALS}")
    noted = dict(args.head)
    for head_id in verdict.heads_matched:       # say it: a match printed nothing before
        digits = len(noted[head_id])
        print(f"  noted head #{head_id} matches its seal" + (
            "" if digits >= HEAD_DIGITS else f" (on {digits} hex digits only: the screen shows "
            f"{HEAD_DIGITS}, and fewer are easier to forge)"))
    if verdict.head is not None:
        head_id, seal = verdict.head
        print(f"  head #{head_id} {short(seal) or '(no seal)'}")
    return 0 if verdict.intact else 1


def backup(args) -> int:
    from station.journal import JournalError
    out = Path(args.out).expanduser()
    if out.exists():
        raise UsageError(f"{out} exists: give a new file for the copy")
    with _open(args) as journal:
        try:
            journal.backup(out)
        except JournalError as error:
            raise UsageError(str(error)) from None
    print(f"{args.journal} copied to {out}; `station journal verify --journal {out}` checks it")
    return 0


def start_keying(args) -> int:
    from station.journal import Journal, JournalError
    from station.journal.seal import key_id, short
    key = _key(args, private=True)
    try:
        with Journal(_journal_path(args), key=key, start_keying=True) as journal:
            record = journal.get(journal.keyed_at) if journal.keyed_at else None
    except JournalError as error:
        raise UsageError(str(error)) from None
    if record is None:
        print(f"{args.journal}: nothing to take over: no entry is sealed without the key "
              f"{key_id(key)} and left untaken (entries from before seals need no taking over), "
              "or there is none yet")
        return 0
    taken = record.data["taken_over"]
    print(f"{args.journal}: #{taken['first']}-#{taken['last']}, not sealed with the key "
          f"{key_id(key)}, taken over as they were; the key seals every entry from "
          f"#{taken['last'] + 1} on")
    print(f"  head #{record.id} {short(record.seal)}: note it, and start the station")
    return 0


def stats(args) -> int:
    from station.journal.stats import face_stats
    with _open(args) as journal:
        groups = face_stats(journal.dice_rows())
    if args.json:
        print(json.dumps([g.to_json() for g in groups], indent=1))
        return 0
    if not groups:
        print("no dice in the journal yet: too few rolls to judge")
    for g in groups:
        faces = "  ".join(f"{face}:{count}" for face, count in g.counts.items())
        print(f"{g.colour} {g.kind}: {g.rolls} rolls   {faces}")
        print(f"   {g.verdict}")
    return 0
