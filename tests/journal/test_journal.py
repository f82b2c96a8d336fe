"""The journal: SQLite in WAL mode, readings with frames, outcomes, measurements, statistics."""

import json
import random
import sqlite3
import sys
import threading
import time
from pathlib import Path

import pytest

from station.cli import main
from station.journal import Journal, JournalError, KeyMismatch, seal, store
from station.journal.stats import chi_square_sf, face_stats

ROOT = Path(__file__).resolve().parents[2]       # this checkout, for a station in a subprocess
DIE = {"kind": "d6", "value": 4, "center": [100.0, 120.0], "confidence": 0.97,
       "colour": "red", "flags": []}


def fill(journal: Journal) -> tuple[int, int, int]:
    reading = journal.add_reading("Impaler spear", "4 5", {"purpose": "2 d6: attack roll"},
                                  [DIE, {**DIE, "value": 5, "center": [200.0, 80.0]}], b"\xff\xd8jpeg")
    outcome = journal.add_outcome("Impaler spear", "HIT",
                                  {"action": "wm.ranged", "outcome": "hit", "dice": [4, 5],
                                   "odds": 0.5833, "rules": ["WM-RNG-2"],
                                   "steps": [{"rule": "WM-RNG-2", "text": "4+5+5 = 14 >= DEF 13"}],
                                   "headline": "HIT — WM-RNG-2 4+5+5 = 14 >= DEF 13"}, [reading])
    measurement = journal.add_measurement("Impaler spear", "7.1 in",
                                          {"device": "glm", "raw_mm": 180.15, "mm": 180.15,
                                           "inches": 7.093})
    return reading, outcome, measurement


def test_wal_mode_and_round_trip(tmp_path):
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        reading, outcome, measurement = fill(journal)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with Journal(path) as journal:
        entries = list(journal.entries())
        assert [e.kind for e in entries] == ["reading", "outcome", "measurement"]
        assert journal.get(reading).parent == outcome
        assert journal.get(reading).frame == b"\xff\xd8jpeg"
        assert journal.get(outcome).data["dice"] == [4, 5]
        assert [r.id for r in journal.readings_of(outcome)] == [reading]
        assert journal.dice_rows() == [("d6", "red", "4"), ("d6", "red", "5")]
        assert [e.id for e in journal.entries(limit=2)] == [outcome, measurement]


def test_rejected_readings_do_not_count_in_the_statistics(tmp_path):
    with Journal(tmp_path / "j.sqlite") as journal:
        journal.add_reading("x", "too many", {"problem": "too many"}, [DIE] * 3, None)
        assert journal.dice_rows() == []


def test_chi_square_tail_matches_tables():
    assert chi_square_sf(11.0705, 5) == pytest.approx(0.05, abs=1e-5)
    assert chi_square_sf(15.0863, 5) == pytest.approx(0.01, abs=1e-5)
    assert chi_square_sf(3.8415, 1) == pytest.approx(0.05, abs=1e-5)
    assert chi_square_sf(0.0, 5) == 1.0


def test_too_few_rolls_are_said_plainly():
    [group] = face_stats([("d6", "red", "6")] * 12)
    assert group.p_value is None
    assert group.verdict.startswith("too few rolls to judge: 12 so far")
    assert "about 1000" in group.verdict


def test_fair_dice_pass_and_a_loaded_die_is_caught():
    rng = random.Random(7)
    fair = [("d6", "white", str(rng.randint(1, 6))) for _ in range(3000)]
    loaded = [("d6", "black", str(6 if rng.random() < 0.3 else rng.randint(1, 5))) for _ in range(3000)]
    groups = {g.colour: g for g in face_stats(fair + loaded)}
    assert groups["white"].p_value > 0.01 and groups["white"].verdict.startswith("no sign of bias")
    assert groups["black"].p_value < 0.01 and groups["black"].verdict.startswith("looks biased")
    assert sum(groups["white"].counts.values()) == 3000


def test_scatter_faces_are_tested_against_four_arrows_and_two_hits():
    rows = [("scatter", "white", "arrow")] * 400 + [("scatter", "white", "hit")] * 200
    [group] = face_stats(rows)
    assert group.chi_square == 0.0 and group.counts == {"arrow": 400, "hit": 200}


def test_cli_list_show_export_stats(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        reading, outcome, measurement = fill(journal)
    assert main(["journal", "list", "--journal", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"#{outcome}" in out and "HIT" in out and "7.1 in" in out and "reading" not in out
    assert main(["journal", "export", "--format", "json", "--journal", str(path)]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert [e["kind"] for e in exported] == ["reading", "outcome", "measurement"]
    assert main(["journal", "export", "--format", "csv", "--journal", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("id,at,kind") and len(lines) == 4
    assert main(["journal", "stats", "--journal", str(path)]) == 0
    assert "too few rolls to judge" in capsys.readouterr().out
    png = tmp_path / "shown.png"
    assert main(["journal", "show", str(measurement), "--png", str(png), "--journal", str(path)]) == 0
    assert "7.1 in" in capsys.readouterr().out and png.stat().st_size > 1000


def test_show_lists_every_step_of_an_outcome(tmp_path, capsys):
    """The screen shows two or three steps; `journal show` lists them all (a trample's damage
    to its second and third models was on no screen)."""
    path = tmp_path / "j.sqlite"
    steps = [{"rule": "WM-TRM-1", "text": f"model {n}: damage 3+3+STR 12 = {15 + n}"}
             for n in (1, 2, 3, 4)]
    with Journal(path) as journal:
        trample = journal.add_outcome("Trample", "TRAMPLE: 4 of 4 hit",
                                      {"action": "wm.trample", "outcome": "4", "steps": steps,
                                       "rules": ["WM-TRM-1"]}, [])
    assert main(["journal", "show", str(trample), "--journal", str(path)]) == 0
    out = capsys.readouterr().out
    listed = out[out.index("every step:"):]
    assert all(f"WM-TRM-1  {step['text']}" in listed for step in steps), out


def test_cli_errors_name_the_fix(tmp_path, capsys):
    assert main(["journal", "list", "--journal", str(tmp_path / "none.sqlite")]) == 2
    assert "run `station run` first" in capsys.readouterr().err
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    assert main(["journal", "show", "99", "--journal", str(path)]) == 2
    assert "no entry #99" in capsys.readouterr().err


def journal_cli(capsys, *argv) -> tuple[int, str, str]:
    status = main(["journal", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_read_commands_open_the_journal_read_only(tmp_path, capsys):
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE scores (player TEXT)")
    db.commit()
    db.close()
    before = other.read_bytes()
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    for path in (other, empty):
        for command in (["list"], ["show", "1"], ["export"], ["stats"], ["verify"]):
            status, _, err = journal_cli(capsys, *command, "--journal", str(path))
            assert status == 2 and "is not a station journal" in err, (path, command)
    assert other.read_bytes() == before          # no tables added, not switched to WAL
    assert sqlite3.connect(other).execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert empty.stat().st_size == 0
    # the station itself will not make someone else's database its journal either
    with pytest.raises(JournalError, match="not a station journal"):
        Journal(other)
    assert other.read_bytes() == before


def test_a_damaged_journal_is_said_plainly(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        for _ in range(40):
            fill(journal)
    data = bytearray(path.read_bytes())
    page = sqlite3.connect(path).execute("PRAGMA page_size").fetchone()[0]
    data[page:] = b"\x55" * (len(data) - page)    # every page but the schema's
    path.write_bytes(data)
    for command in (["list"], ["list", "--all"], ["show", "3"], ["export"], ["stats"],
                    ["verify"]):
        status, _, err = journal_cli(capsys, *command, "--journal", str(path))
        assert status == 2, command
        assert "cannot read the journal" in err and ".recover" in err, command
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"x" * 600)
    status, _, err = journal_cli(capsys, "list", "--journal", str(junk))
    assert status == 2 and "cannot open the journal" in err and "not a database" in err


def test_an_entry_that_is_not_json_is_named(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        reading, outcome, measurement = fill(journal)
    db = sqlite3.connect(path)
    db.execute("UPDATE entries SET data='{not json' WHERE id=?", (outcome,))
    db.commit()
    db.close()
    for command in (["list"], ["show", str(outcome)], ["export"]):
        status, _, err = journal_cli(capsys, *command, "--journal", str(path))
        assert status == 2 and f"entry #{outcome} of the journal" in err, command
    status, out, _ = journal_cli(capsys, "show", str(measurement), "--journal", str(path))
    assert status == 0 and "7.1 in" in out


def test_show_checks_its_output_files_first(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        reading, outcome, measurement = fill(journal)
    (tmp_path / "a-file").touch()
    refused = [("--png", str(tmp_path / "x.xyz"), "ending in .png"),
               ("--png", str(tmp_path / "noext"), "ending in .png"),
               ("--png", str(tmp_path / "a-file" / "x.png"), "is a file, not a folder"),
               ("--frame", str(tmp_path), "is a folder"),
               ("--frame", str(tmp_path / "a-file" / "x.jpg"), "is a file, not a folder")]
    for option, target, said in refused:
        status, out, err = journal_cli(capsys, "show", str(reading), option, target,
                                       "--journal", str(path))
        assert status == 2 and said in err and out == "", (option, target)
    png, frame = tmp_path / "new" / "shown.png", tmp_path / "new" / "deeper" / "frame.jpg"
    status, _, _ = journal_cli(capsys, "show", str(reading), "--png", str(png),
                               "--frame", str(frame), "--journal", str(path))
    assert status == 0 and png.read_bytes()[:4] == b"\x89PNG"
    assert frame.read_bytes() == b"\xff\xd8jpeg"


def test_ids_and_limits_out_of_range(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        reading, outcome, measurement = fill(journal)
    huge = "99999999999999999999"
    status, _, err = journal_cli(capsys, "show", huge, "--journal", str(path))
    assert status == 2 and f"no entry #{huge}" in err
    status, out, _ = journal_cli(capsys, "list", "--limit", huge, "--journal", str(path),
                                 "--json")
    assert status == 0 and len(json.loads(out)) == 2
    for bad in ("-5", "nan", "2.5"):
        with pytest.raises(SystemExit) as exit:
            main(["journal", "list", "--limit", bad, "--journal", str(path)])
        assert exit.value.code == 2
        assert "give a whole number of entries from 0" in capsys.readouterr().err
    status, _, err = journal_cli(capsys, "list", "--journal", str(tmp_path))
    assert status == 2 and "is a folder" in err


def hold_write_lock(path, seconds: float) -> threading.Thread:
    """Another program holding the journal's write lock for `seconds`."""
    locked = threading.Event()

    def hold() -> None:
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("BEGIN IMMEDIATE")
        locked.set()
        time.sleep(seconds)
        db.execute("COMMIT")
        db.close()
    thread = threading.Thread(target=hold)
    thread.start()
    locked.wait()
    return thread


def test_writes_wait_long_for_another_program_s_lock(tmp_path):
    with Journal(tmp_path / "j.sqlite") as journal:
        timeout_ms = journal._db.execute("PRAGMA busy_timeout").fetchone()[0]
    assert timeout_ms >= 30_000


def test_a_write_blocked_past_the_busy_timeout_is_tried_again(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "BUSY_TIMEOUT_S", 0.2)
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        holder = hold_write_lock(path, 1.0)
        entry_id = journal.add_measurement("x", "7.1 in", {"inches": 7.1})
        holder.join()
        assert journal.get(entry_id).headline == "7.1 in"


def test_a_journal_locked_for_good_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "BUSY_TIMEOUT_S", 0.1)
    monkeypatch.setattr(store, "WRITE_PATIENCE_S", 0.3)
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        holder = hold_write_lock(path, 1.0)
        with pytest.raises(JournalError, match="another program has held it locked"):
            journal.add_measurement("x", "7.1 in", {"inches": 7.1})
        holder.join()
        assert journal.add_measurement("x", "7.2 in", {"inches": 7.2})   # not left in a transaction


def test_the_station_stops_with_a_message_when_its_journal_cannot_be_written(
        tmp_path, monkeypatch, capsys):
    import station.service.app as app

    class Station:
        def __init__(self, config, options) -> None:
            pass

        def run(self) -> int:
            raise JournalError("cannot write to the journal j.sqlite: disk I/O error")
    monkeypatch.setattr(app, "Station", Station)
    assert main(["run", "--simulate", "--journal", str(tmp_path / "j.sqlite")]) == 1
    assert "station: error: cannot write to the journal" in capsys.readouterr().err


def test_a_journal_deleted_while_the_station_runs_is_made_again(tmp_path):
    # SQLite would write on into the unlinked file: every later roll lost when it exits
    path = tmp_path / "journal.sqlite"
    journal = Journal(path)
    journal.add_measurement("Measure", "1.0 in", {"mm": 25.4})
    for gone in tmp_path.glob("journal.sqlite*"):
        gone.unlink()
    entry = journal.add_measurement("Measure", "2.0 in", {"mm": 50.8})
    journal.close()
    with Journal(path, readonly=True) as reread:        # after a record of what was lost
        assert [(e.id, e.headline) for e in reread.entries()] == [
            (2, "journal lost, begun again"), (3, "2.0 in")] and entry == 3


def test_one_writer_at_a_time(tmp_path, capsys):
    """The review's case: two stations on one journal (or start-keying while it runs) made
    a break before every entry. The second is refused; a writer killed lets go."""
    import os
    import subprocess
    import sys
    from station.config import ConfigError, load
    from station.service.app import Options, Station
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        with pytest.raises(store.InUse, match=f"another station \\(pid {os.getpid()}\\) is "
                                              "writing the journal .* Stop it first"):
            Journal(path)
        status, _, err = journal_cli(capsys, "start-keying", "--journal", str(path),
                                     "--key", str(key_file(tmp_path)))
        assert status == 2 and "another station" in err
        config = tmp_path / "station.toml"
        config.write_text("")
        with pytest.raises(ConfigError, match="journal.path: another station .* give this one "
                                              "another journal"):
            Station(load(config), Options(simulate=True, journal=path, keyboard=False))
        Journal(path, readonly=True).close()            # readers need no lock
        journal.add_measurement("x", "1 in", {"inches": 1})
    killed = subprocess.Popen([sys.executable, "-c", "import sys, time; from station.journal "
                               "import Journal; Journal(sys.argv[1]); print(flush=True); "
                               "time.sleep(60)", str(path)], stdout=subprocess.PIPE,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    killed.stdout.readline()
    killed.kill()
    killed.wait()
    with Journal(path) as journal:                      # its lock went with it
        assert journal.add_measurement("x", "2 in", {"inches": 2}) == 2
    assert problems_of(path) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="abstract sockets: Linux")
def test_a_second_writer_is_refused_though_the_lock_file_was_deleted(tmp_path):
    """`rm journal.sqlite*` while the station runs takes its lock file too (the station
    makes the journal again); a second station must still be refused, naming the first."""
    import os
    path = tmp_path / "journal.sqlite"
    with Journal(path) as journal:
        journal.add_measurement("Measure", "1.0 in", {"mm": 25.4})
        for gone in tmp_path.glob("journal.sqlite*"):
            gone.unlink()
        with pytest.raises(store.InUse, match=f"another station \\(pid {os.getpid()}\\)"):
            Journal(path)
        assert journal.add_measurement("Measure", "2.0 in", {"mm": 50.8}) == 3
    with Journal(path) as journal:                      # its claim went with it
        assert journal.add_measurement("Measure", "3.0 in", {"mm": 76.2}) == 4


def test_a_journal_deleted_while_another_process_reads_it_is_made_again(tmp_path):
    """The review's case: a reader elsewhere kept the deleted journal's WAL on disk, and the
    new file paired with it failed every write (disk I/O error), at a restart too."""
    import subprocess
    import sys
    path = tmp_path / "journal.sqlite"
    journal = Journal(path)
    journal.add_measurement("Measure", "1.0 in", {"mm": 25.4})
    reader = subprocess.Popen([sys.executable, "-c", "import sqlite3, sys, time; db = sqlite3."
                               "connect(f'file:{sys.argv[1]}?mode=ro', uri=True); db.execute("
                               "'SELECT count(*) FROM entries').fetchall(); print(flush=True); "
                               "time.sleep(60)", str(path)], stdout=subprocess.PIPE)
    try:
        reader.stdout.readline()
        path.unlink()
        assert journal.add_measurement("Measure", "2.0 in", {"mm": 50.8}) == 3
        journal.close()
        path.unlink()                               # and again while the station is stopped
        with Journal(path) as journal:
            assert journal.add_measurement("Measure", "3.0 in", {"mm": 76.2}) == 1
    finally:
        reader.kill()
        reader.wait()


def test_a_copy_without_its_wal_is_said_to_be_a_possible_cause(tmp_path, capsys):
    """The review's case: a `cp` of the running station's journal, without its -wal, lacks
    the latest entries; a head noted from the screen is then "not in the journal"."""
    path = tmp_path / "journal.sqlite"
    with Journal(path) as journal:
        fill(journal)               # in the file once it is closed
    with Journal(path) as journal:
        fill(journal)               # in its WAL
        copy = tmp_path / "copy.sqlite"
        copy.write_bytes(path.read_bytes())
        head = f"6:{seal.short(journal.seal_of(6))}"
    status, out, _ = verify_cli(capsys, copy, "--head", head)
    assert status == 1 and "(it ends at #3: the entries after it were deleted, or this is a copy "\
                           "taken without its -wal file" in out, out
    with Journal(path) as journal:             # what to do instead, while it writes
        fill(journal)
        status, _, err = journal_cli(capsys, "backup", str(copy), "--journal", str(path))
        assert status == 2 and "exists: give a new file" in err
        copy.unlink()
        status, out, _ = journal_cli(capsys, "backup", str(copy), "--journal", str(path))
        assert status == 0 and "copied to" in out
        head = f"9:{seal.short(journal.seal_of(9))}"
    status, out, _ = verify_cli(capsys, copy, "--head", head)
    assert status == 0, out


@pytest.mark.parametrize("wal", [False, True], ids=["checkpointed", "entries in its WAL"])
def test_a_copy_on_read_only_media_is_read(tmp_path, monkeypatch, wal):
    # a WAL journal on a locked SD card: mode=ro cannot make the WAL index beside it, and
    # immutable=1 ignores the WAL (the review's case: a copy taken while the station ran)
    path = tmp_path / "media" / "journal.sqlite"
    path.parent.mkdir()
    journal = Journal(tmp_path / "journal.sqlite")
    fill(journal)
    if not wal:
        journal.close()             # its WAL written into the file, and deleted
    for name in ("journal.sqlite", "journal.sqlite-wal")[:1 + wal]:
        (tmp_path / "media" / name).write_bytes((tmp_path / name).read_bytes())
    journal.close()
    assert path.with_name("journal.sqlite-wal").exists() == wal
    connect = sqlite3.connect

    def read_only_media(database, *args, **kwargs):
        if "mode=ro" in str(database) and str(path.parent) in str(database):
            raise sqlite3.OperationalError("unable to open database file")
        return connect(database, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", read_only_media)
    with Journal(path, readonly=True) as journal:
        assert len(list(journal.entries())) == 3
        assert journal.verify().intact



# --- seals -----------------------------------------------------------------------------------

def verify_cli(capsys, path, *options) -> tuple[int, str, str]:
    return journal_cli(capsys, "verify", "--journal", str(path), *options)


def forge_seals(path, start: int, end: int | None = None, key: bytes | None = None) -> None:
    """Make the seals of entries `start` to `end` (the last) again, as someone who changed
    the journal would."""
    with Journal(path, readonly=True) as journal:
        entries = list(journal.chain())
    db = sqlite3.connect(path)
    prev = ""
    for entry in entries:
        if start <= entry.id <= (end or entry.id):
            db.execute("UPDATE entries SET seal=? WHERE id=?",
                       (seal.make_seal(prev, entry.content, key), entry.id))
        prev = db.execute("SELECT seal FROM entries WHERE id=?", (entry.id,)).fetchone()[0] or ""
    db.commit()
    db.close()


def problems_of(path, key: bytes | None = None) -> list[tuple[int, str]]:
    with Journal(path, readonly=True) as journal:
        return [(p.first, p.change) for p in journal.verify(key).problems]


def test_each_entry_is_sealed_over_the_one_before(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        fill(journal)
        fill(journal)
        entries = list(journal.chain())
    prev = ""
    for entry in entries:
        assert entry.seal == seal.make_seal(prev, entry.content, None), entry.id
        prev = entry.seal
    head = entries[-1].seal
    assert len({e.seal for e in entries}) == 6 and head.startswith("sha256:") and len(head) == 71
    status, out, _ = verify_cli(capsys, path)
    assert status == 0 and out.splitlines() == [
        f"{path}: intact", "  6 entries sealed", "  sealed without a key: anyone can seal a "
        "changed journal again, which only a head noted from the screen shows (--head)",
        f"  head #6 {head[7:19]}"]
    status, out, _ = verify_cli(capsys, path, "--json")
    verdict = json.loads(out)
    assert status == 0 and verdict["intact"] and verdict["head"] == {"id": 6, "seal": head[7:19]}
    # the exports carry them
    assert main(["journal", "export", "--journal", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)[-1]["seal"] == head
    assert main(["journal", "export", "--format", "csv", "--journal", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(",seal") and lines[-1].endswith(f",{head}")


ADDED = ("INSERT INTO entries (id, at, kind, action, headline, data, seal) VALUES "
         "(7, '2026-01-01T20:00:00.000+00:00', 'measurement', 'Impaler spear', '5.0 in', '{}', ")
# What was done by hand to a journal of two fill()s (a reading, its outcome and a
# measurement, twice) -> (the first entry, the change) of each problem `verify` reports, and
# what it says of the first.
EDITED = "changed since it was written: it no longer matches its seal"
TAMPERING = {
    "an outcome's data": ("UPDATE entries SET data=replace(data, '\"hit\"', '\"miss\"') WHERE id=2",
                          [(2, "edited")], f"#2 {EDITED}"),
    "a headline": ("UPDATE entries SET headline='8.1 in' WHERE id=3", [(3, "edited")], "#3 changed"),
    "a frame": ("UPDATE entries SET frame=x'ffd8ffd9' WHERE id=4", [(4, "edited")], "#4 changed"),
    "a die": ("UPDATE dice SET value='6' WHERE entry_id=4 AND idx=1", [(4, "edited")], "#4 changed"),
    "a die added": ("INSERT INTO dice (entry_id, idx, kind, value) VALUES (4, 2, 'd6', '6')",
                    [(4, "edited")], "#4 changed"),
    "a reading unlinked": ("UPDATE entries SET parent=NULL WHERE id=4", [(5, "edited")],
                           "#5 changed"),
    "a reading linked to no entry": ("UPDATE entries SET parent=99 WHERE id=4",
                                     [(4, "link"), (5, "edited")],
                                     "#4 is linked to #99, which is not an outcome written after it"),
    "an entry deleted": ("DELETE FROM entries WHERE id=3", [(3, "deleted"), (4, "unchecked")],
                         "#3 deleted: the ids go from #2 to #4"),
    "a reading deleted with its dice": ("DELETE FROM dice WHERE entry_id=4; "
                                        "DELETE FROM entries WHERE id=4",
                                        [(4, "deleted"), (5, "unchecked")],
                                        "#4 deleted"),
    "the first entries deleted": ("DELETE FROM entries WHERE id<3",
                                  [(1, "deleted"), (3, "unchecked")],
                                  "#1-#2 deleted: the ids start at #3"),
    "a seal removed": ("UPDATE entries SET seal=NULL WHERE id=3", [(3, "unsealed")],
                       "#3 has no seal, though the entries before it have"),
    "a seal removed and the entry changed": (
        "UPDATE entries SET seal=NULL, headline='9.9 in' WHERE id=3",
        [(3, "unsealed"), (4, "edited")], "#3 has no seal, though the entries before it have"),
    "an entry added without a seal": (ADDED + "NULL)", [(7, "unsealed")], "#7 has no seal"),
    "an entry added with a made-up seal": (ADDED + "'sha256:' || lower(hex(randomblob(32))))",
                                           [(7, "edited")], f"#7 {EDITED}"),
    "two entries side by side": ("UPDATE entries SET headline='MISS' WHERE id IN (2, 3)",
                                 [(2, "rewritten")], "#2-#3 do not match their seals"),
}


def test_an_entry_after_a_deleted_or_unsealed_one_is_not_passed_in_silence(tmp_path):
    """The review's case: with a key, #1 deleted and #2 changed showed only the deletion;
    #2's seal removed and #3 changed, only the missing seal."""
    key = b"k" * 32
    for sql, expected in (
            ("DELETE FROM entries WHERE id=1; UPDATE entries SET headline='MISS' WHERE id=2",
             [(1, "deleted", "#1 deleted: the ids start at #2"),
              (2, "unchecked", "#2 cannot be checked: the entry it was sealed after is deleted, "
                               "so a change made to it does not show")]),
            ("UPDATE entries SET seal=NULL WHERE id=2; UPDATE entries SET headline='MISS' "
             "WHERE id=3", [(2, "unsealed", "#2 has no seal, though the entries before it have: "
                                            "added or changed by hand (or written by a station "
                                            "older than seals)"),
                            (3, "edited", "#3 no longer matches its seal over #2 as it is: one "
                                          "of the two was changed since it was written")]),
            ("UPDATE entries SET seal=NULL WHERE id=2", [(2, "unsealed", None)])):
        path = tmp_path / "j.sqlite"
        with Journal(path, key=key) as journal:
            fill(journal)
        db = sqlite3.connect(path)
        db.executescript(sql)
        db.close()
        with Journal(path, readonly=True) as journal:
            problems = journal.verify(key).problems
        assert [(p.first, p.change) for p in problems] == [e[:2] for e in expected]
        assert all(p.text.startswith(said or "") for p, (*_, said) in zip(problems, expected))
        for gone in tmp_path.glob("j.sqlite*"):
            gone.unlink()


@pytest.mark.parametrize("change", TAMPERING)
def test_a_change_by_hand_is_found_where_it_was_made(tmp_path, capsys, change):
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        fill(journal)
        fill(journal)
    sql, expected, said = TAMPERING[change]
    db = sqlite3.connect(path)
    db.executescript(sql)
    db.close()
    assert problems_of(path) == expected
    status, out, _ = verify_cli(capsys, path)
    assert status == 1 and out.startswith(f"{path}: NOT intact"), out
    assert out.splitlines()[1].startswith(f"  {said}"), out


def test_the_last_entry_may_have_been_added(tmp_path, capsys):
    """Nothing after it shows it was there before: verify says it may have been added."""
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        fill(journal)
    db = sqlite3.connect(path)
    db.execute("UPDATE entries SET headline='8.1 in' WHERE id=3")
    db.commit()
    status, out, _ = verify_cli(capsys, path)
    assert status == 1 and f"#3 {EDITED}" in out and "or added by hand" in out
    db.execute("UPDATE entries SET headline='MISS' WHERE id=2")
    db.commit()
    assert "or added by hand" not in verify_cli(capsys, path)[1]


def test_an_entry_inserted_among_the_others_is_found(tmp_path, capsys):
    """Ids are sealed: making room for an entry renumbers the later ones, which no longer
    match their seals, even when the one inserted was given a right seal."""
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        fill(journal)
        fill(journal)
    db = sqlite3.connect(path)
    db.executescript("""
        UPDATE entries SET id=-id WHERE id>=3;  UPDATE entries SET id=1-id WHERE id<0;
        UPDATE dice SET entry_id=-entry_id WHERE entry_id>=3;
        UPDATE dice SET entry_id=1-entry_id WHERE entry_id<0;
        UPDATE entries SET parent=parent+1 WHERE parent>=3;
        INSERT INTO entries (id, at, kind, action, headline, data)
            VALUES (3, '2026-01-01T20:00:00.000+00:00', 'measurement', 'Impaler spear', '1.0 in', '{}');""")
    db.close()
    forge_seals(path, 3, 3)
    assert problems_of(path) == [(4, "rewritten")]
    status, out, _ = verify_cli(capsys, path)
    assert status == 1 and "#4-#7 do not match their seals: changed from #4 on" in out
    assert "inserted" in out


def test_a_head_written_down_is_checked(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        fill(journal)
        noted = {i: seal.short(journal.seal_of(i)) for i in (2, 3)}
    status, out, _ = verify_cli(capsys, path, "--head", f"3:{noted[3]}",
                                "--head", f"#2 {noted[2][:8].upper()}",
                                "--head", f"journal #3 · seal {noted[3]}")
    assert status == 0 and f"head #3 {noted[3]}" in out
    assert "noted head #3 matches its seal\n" in out          # said, not only left unsaid
    assert "noted head #2 matches its seal (on 8 hex digits only" in out
    # the whole chain sealed again after a change (no key): every seal matches, but not the
    # one the players noted
    db = sqlite3.connect(path)
    db.execute("UPDATE entries SET headline='MISS' WHERE id=2")
    db.commit()
    forge_seals(path, 2)
    assert verify_cli(capsys, path)[0] == 0
    status, out, _ = verify_cli(capsys, path, "--head", f"3:{noted[3]}")
    assert status == 1 and f"#3 was written down with the seal {noted[3]}, but it has " in out
    # the last entry deleted: nothing else shows it
    db.execute("DELETE FROM entries WHERE id=3")
    db.commit()
    status, out, _ = verify_cli(capsys, path, "--head", f"3:{noted[3]}")
    assert status == 1 and "but it is not in the journal" in out
    for bad in ("3", "3:12345", "three:3fa9c2e107bd", "3:3fa9c2e1-07bd"):
        with pytest.raises(SystemExit) as exit:
            main(["journal", "verify", "--journal", str(path), "--head", bad])
        assert exit.value.code == 2 and "at least 8 hex digits" in capsys.readouterr().err


OLD_SCHEMA = """
CREATE TABLE entries (id INTEGER PRIMARY KEY, at TEXT NOT NULL, kind TEXT NOT NULL,
    action TEXT NOT NULL, headline TEXT NOT NULL, parent INTEGER REFERENCES entries(id),
    data TEXT NOT NULL, frame BLOB);
CREATE TABLE dice (entry_id INTEGER NOT NULL REFERENCES entries(id), idx INTEGER NOT NULL,
    kind TEXT NOT NULL, value TEXT, colour TEXT, x REAL, y REAL, x_mm REAL, y_mm REAL,
    bearing_deg REAL, confidence REAL, flags TEXT NOT NULL DEFAULT '', PRIMARY KEY (entry_id, idx));
CREATE INDEX entries_kind ON entries(kind, id);
INSERT INTO entries (at, kind, action, headline, data) VALUES
    ('2025-05-01T10:00:00.000+00:00', 'measurement', 'Measure', '7.1 in', '{"inches": 7.1}'),
    ('2025-05-01T10:01:00.000+00:00', 'measurement', 'Measure', '3.0 in', '{"inches": 3.0}');
"""


def test_a_journal_from_before_seals_opens_and_is_sealed_from_then_on(tmp_path, capsys):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    db.close()
    before = path.read_bytes()
    status, out, _ = verify_cli(capsys, path)
    assert status == 0 and "0 entries sealed; 2 unsealed" in out and "head #2 (no seal)" in out
    status, out, _ = journal_cli(capsys, "export", "--journal", str(path))
    assert status == 0 and [e["seal"] for e in json.loads(out)] == [None, None]
    assert path.read_bytes() == before           # read, not converted
    with Journal(path) as journal:               # the station adds the column
        fill(journal)
        assert journal.get(1).seal is None and journal.get(3).seal.startswith("sha256:")
    status, out, _ = verify_cli(capsys, path)
    assert status == 0 and "3 entries sealed; 2 unsealed" in out
    # unsealed entries prove nothing; a seal taken off a sealed one is seen
    db = sqlite3.connect(path)
    db.execute("UPDATE entries SET headline='9.9 in' WHERE id=1")
    db.commit()
    assert problems_of(path) == []
    db.execute("UPDATE entries SET seal=NULL WHERE id=5")
    db.commit()
    assert problems_of(path) == [(5, "unsealed")]


def delete_last_roll(path, first: int) -> None:
    """What a player who lost a roll might do with sqlite3: entries `first` on deleted."""
    db = sqlite3.connect(path)
    db.execute("DELETE FROM dice WHERE entry_id>=?", (first,))
    db.execute("DELETE FROM entries WHERE id>=?", (first,))
    db.commit()
    db.close()


def test_ids_are_never_given_twice(tmp_path, capsys):
    """The last roll deleted while the station was stopped: its ids are not written over by
    the next roll, so the deletion shows, with or without a key, before and after."""
    path = tmp_path / "j.sqlite"
    key = b"k" * 32
    with Journal(path, key=key) as journal:
        fill(journal)
        fill(journal)
    delete_last_roll(path, 4)
    assert problems_of(path, key) == [(4, "deleted")]
    status, out, _ = verify_cli(capsys, path, "--key", str(key_file(tmp_path, secret="k" * 32)))
    assert status == 1 and ("#4-#6 deleted: the journal has given ids up to #6, and its last "
                            "entry is #3") in out
    with Journal(path, key=key) as journal:
        assert fill(journal) == (7, 8, 9)
    with Journal(path, readonly=True) as journal:
        assert [p.text for p in journal.verify(key).problems] == [
            "#4-#6 deleted: the ids go from #3 to #7"]


@pytest.mark.parametrize("sealed", [False, True], ids=["before seals", "sealed"])
def test_an_older_station_s_journal_is_converted_to_ids_never_given_twice(tmp_path, capsys,
                                                                           sealed):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    if sealed:                      # the first sealed station's table: a seal, ids reused
        db.execute("ALTER TABLE entries ADD COLUMN seal TEXT")
        db.commit()
        forge_seals(path, 1)
    db.close()
    with Journal(path) as journal:
        assert journal.add_measurement("Measure", "5.0 in", {"inches": 5.0}) == 3
    db = sqlite3.connect(path)
    tables = dict(db.execute("SELECT name, sql FROM sqlite_master WHERE type='table'"))
    assert "AUTOINCREMENT" in tables["entries"] and "entries_new" not in tables
    assert "REFERENCES entries(id)" in tables["dice"]
    db.close()
    status, out, _ = verify_cli(capsys, path)          # the copy kept every seal
    assert status == 0 and ("3 entries sealed" if sealed else "1 entry sealed; 2 unsealed") in out
    delete_last_roll(path, 3)
    with Journal(path) as journal:
        assert journal.add_measurement("Measure", "6.0 in", {"inches": 6.0}) == 4
    assert problems_of(path) == [(3, "deleted")]


def test_a_journal_that_cannot_be_converted_is_left_as_it_was(tmp_path):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)      # a damaged row that today's table does not take
    db.executescript(OLD_SCHEMA.replace("at TEXT NOT NULL", "at TEXT")
                     + "UPDATE entries SET at=NULL WHERE id=2;")
    before = db.execute("SELECT * FROM sqlite_master").fetchall()
    db.close()
    with pytest.raises(JournalError, match="cannot convert the journal .* from an older station: "
                                           "NOT NULL .* may be damaged.* give it a new journal"):
        Journal(path)
    db = sqlite3.connect(path)
    assert db.execute("SELECT * FROM sqlite_master").fetchall() == before
    assert db.execute("SELECT count(*) FROM entries").fetchone() == (2,)
    db.close()


def test_an_older_journal_is_converted_only_with_the_room_it_needs(tmp_path, monkeypatch):
    """The review's case: a disk with 2-2.6 times the journal free took the copy, and the
    WAL it left filled the disk (every start then failed); the docs said 1x."""
    import os
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    db.close()
    before = path.read_bytes()
    statvfs = os.statvfs
    room = {"bytes": 2.9 * len(before)}

    def disk(folder):
        real = statvfs(folder)
        return os.statvfs_result((*real[:4], int(room["bytes"] // real.f_frsize), *real[5:]))

    monkeypatch.setattr(os, "statvfs", disk)
    with pytest.raises(JournalError, match="that needs about 0.1 MB free on its disk, and there "
                                           "are 0.1 MB. Free space there.* stays as it was"):
        Journal(path)
    assert "AUTOINCREMENT" not in sqlite3.connect(path).execute(
        "SELECT sql FROM sqlite_master WHERE name='entries'").fetchone()[0]
    # a disk full all the same: said as such, not as a damaged journal
    room["bytes"] = 1e12
    connect = sqlite3.connect

    def small_disk(*args, **kwargs):
        db = connect(*args, **kwargs)
        db.execute(f"PRAGMA max_page_count={len(before) // 4096 + 1}")
        return db

    monkeypatch.setattr(sqlite3, "connect", small_disk)
    with pytest.raises(JournalError, match="full.* Free space on its disk") as refused:
        Journal(path)
    assert "damaged" not in str(refused.value)
    monkeypatch.setattr(sqlite3, "connect", connect)
    with Journal(path) as journal:                  # the copy out of the WAL at once
        assert path.with_name("old.sqlite-wal").stat().st_size == 0
        assert journal.add_measurement("Measure", "5.0 in", {"inches": 5.0}) == 3


@pytest.mark.parametrize("counter_too", [False, True], ids=["entry", "entry and id counter"])
def test_entries_deleted_under_the_running_station_are_recorded(tmp_path, capsys, counter_too):
    """The review's case: the last entry deleted while the station runs (and SQLite's id
    counter put back, by one who knows of it), then the whole file: the station records each
    as a break instead of chaining on as if nothing had happened."""
    path = tmp_path / "j.sqlite"
    key = b"k" * 32
    journal = Journal(path, key=key)
    for i in range(5):
        journal.add_outcome("A", str(i), {"outcome": str(i)}, [])
    lost = journal.seal_of(5)
    db = sqlite3.connect(path)
    db.execute("DELETE FROM entries WHERE id=5")
    if counter_too:
        db.execute("UPDATE sqlite_sequence SET seq=4 WHERE name='entries'")
    db.commit()
    db.close()
    assert journal.add_outcome("A", "x", {"outcome": "x"}, []) == 7
    with Journal(path, readonly=True) as reread:
        problems = reread.verify(key).problems
        assert [(p.first, p.change) for p in problems] == [(5, "deleted"), (6, "break")]
        assert problems[1].text == (
            f"#6 records a break: while the station ran, the journal's last entry went from "
            f"#5 (seal {seal.short(lost)}) to #4 (seal {seal.short(reread.seal_of(4))}): "
            "entries deleted, changed or added meanwhile")
        head = reread.seal_of(7)
    for gone in tmp_path.glob("j.sqlite*"):
        gone.unlink()
    assert journal.add_outcome("A", "y", {"outcome": "y"}, []) == 9
    journal.close()
    with Journal(path, readonly=True) as reread:
        assert [p.text for p in reread.verify(key).problems] == [
            "#1-#7 deleted: the ids start at #8",
            "#8 records a break: the journal was deleted or replaced while the station ran, "
            f"and begun again here; the lost one ended at #7 (seal {seal.short(head)})"]
    status, out, _ = journal_cli(capsys, "list", "--journal", str(path))
    assert status == 0 and "break       journal                  journal lost, begun again" in out
    status, out, _ = journal_cli(capsys, "show", "8", "--journal", str(path))
    assert status == 0 and "JOURNAL LOST, BEGUN AGAIN" in out and "the lost one ended at #7" in out


def test_an_entry_changed_under_the_running_station_is_recorded(tmp_path):
    """Without a key the chain can be sealed again after a change; the station that wrote
    the last entry knows its seal, and records that it is not the one it finds."""
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        fill(journal)
        db = sqlite3.connect(path)
        db.execute("UPDATE entries SET headline='MISS' WHERE id=2")
        db.commit()
        db.close()
        forge_seals(path, 2)
        assert problems_of(path) == []
        journal.add_measurement("Measure", "5.0 in", {"inches": 5.0})
    assert problems_of(path) == [(4, "break")]


def test_seals_hold_through_retries_a_journal_made_again_and_a_reading_offered_twice(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(store, "BUSY_TIMEOUT_S", 0.2)
    path = tmp_path / "journal.sqlite"
    journal = Journal(path)
    reading, outcome, _ = fill(journal)
    holder = hold_write_lock(path, 1.0)
    journal.add_measurement("x", "7.1 in", {"inches": 7.1})      # waits, then tries again
    holder.join()
    # a reading belongs to its first outcome: its link is sealed with it, and stays
    journal.add_outcome("x", "HIT", {"outcome": "hit"}, [reading])
    assert journal.get(reading).parent == outcome
    status, out, _ = verify_cli(capsys, path)
    assert status == 0 and out.startswith(f"{path}: intact\n  5 entries sealed\n  sealed "
                                          "without a key: anyone can seal")
    for gone in tmp_path.glob("journal.sqlite*"):
        gone.unlink()
    fill(journal)                               # into a journal made again, after a break
    journal.close()
    assert problems_of(path) == [(1, "deleted"), (6, "break")]
    status, out, _ = verify_cli(capsys, path)
    assert status == 1 and "4 entries sealed" in out


def key_file(tmp_path, name: str = "journal.key", secret: str = "0123456789abcdef" * 2):
    path = tmp_path / name
    path.write_text(secret + "\n")
    path.chmod(0o600)
    return path


def test_keyed_seals_need_the_key_to_verify_and_to_be_made_again(tmp_path, capsys):
    key_path = key_file(tmp_path)
    key = seal.load_key(key_path, private=True)
    assert key == b"0123456789abcdef" * 2                 # without the line end
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        fill(journal)                                      # 1-3 before the key was set
    with Journal(path, key=key, start_keying=True) as journal:
        assert journal.keyed_at == 4                       # taken over by the key
        fill(journal)                                      # 5-7 with it
        assert journal.seal_of(5).startswith(f"hmac-{seal.key_id(key)}:")
    status, _, err = verify_cli(capsys, path)
    assert status == 2 and "from #4 on are sealed with the key" in err and "--key FILE" in err
    other = key_file(tmp_path, "other.key", "f" * 32)
    status, _, err = verify_cli(capsys, path, "--key", str(other))
    assert status == 2 and f"not the one given ({seal.key_id(b'f' * 32)})" in err
    status, out, _ = verify_cli(capsys, path, "--key", str(key_path))
    assert status == 0 and (f"7 entries sealed, with the key {seal.key_id(key)} from #4 on (#1-#3 "
                            "before it taken over as they were") in out
    # changed and sealed again by someone without the key: from the change on...
    db = sqlite3.connect(path)
    db.execute("UPDATE entries SET headline='MISS' WHERE id=6")
    db.commit()
    forge_seals(path, 6)
    assert problems_of(path, key) == [(6, "unkeyed")]
    # ...or all of it, as if the station had never had the key
    forge_seals(path, 1)
    assert problems_of(path, key) == [(1, "unkeyed")]
    assert problems_of(path) == [(4, "unkeyed")]   # without the key, only its record shows it
    # a keyed station (one from before it checked) chaining on from such entries: its key
    # does not vouch for them (the review's case: "keyed from #5 on" and intact)
    forge_seals(path, 5, key=key)
    with Journal(path, readonly=True) as journal:
        assert [p.text[:63] for p in journal.verify(key).problems] == [
            "#1-#4: each is not sealed with the key given (%s) and was" % seal.key_id(key)]
    # with another key than the station's, a seal made again does not match
    forge_seals(path, 4, key=key)
    forge_seals(path, 6, key=b"f" * 32)
    assert problems_of(path, key) == [(6, "rewritten")]


def remove_seals(path) -> None:
    db = sqlite3.connect(path)
    db.execute("UPDATE entries SET seal=NULL")
    db.commit()
    db.close()


SEALED_AGAIN = {    # a keyed journal of two fill()s, by someone without the key -> verify --key
    "all of it without a key": (lambda path: forge_seals(path, 1), [(1, "unkeyed")],
                                "#1-#6: each is not sealed with the key given"),
    "the seals removed": (remove_seals, [(1, "unkeyed")],
                          "#1-#6: each is not sealed with the key given"),
    "from #4 on without a key": (lambda path: forge_seals(path, 4), [(4, "unkeyed")],
                                 "#4-#6: each is sealed without the key, though"),
}


@pytest.mark.parametrize("how", SEALED_AGAIN)
def test_a_keyed_journal_sealed_again_without_the_key_is_not_written_on(tmp_path, capsys, how):
    """The review's case: a roll changed and the journal sealed again without the key.
    Plain seals anyone can make must not pass for the key's: `verify --key` calls them
    unprotected, and the keyed station refuses to chain its own seals on after them."""
    from station.config import ConfigError, load
    from station.service.app import Options, Station
    key_path = key_file(tmp_path)
    key = seal.load_key(key_path, private=True)
    path = tmp_path / "j.sqlite"
    with Journal(path, key=key) as journal:
        fill(journal)
        fill(journal)
    db = sqlite3.connect(path)
    db.execute("UPDATE dice SET value='6' WHERE entry_id=4")
    db.commit()
    db.close()
    forge, problems, said = SEALED_AGAIN[how]
    forge(path)
    assert problems_of(path, key) == problems
    status, out, _ = verify_cli(capsys, path, "--key", str(key_path))
    assert status == 1 and out.splitlines()[1].startswith(f"  {said}"), out
    if problems[0][0] == 1:         # nothing in the file shows it was ever sealed with the key
        refusal = ("holds entries not sealed with the station's key .*: #1-#6.* run `station "
                   f"journal start-keying --journal {path} --key {key_path}` once.* If it was "
                   "ever sealed with this key, someone without the key has sealed it again")
    else:                           # it was: not taken over even when told
        refusal = "is sealed with the station's key up to #3, but the entries after it .* Keep"
        with pytest.raises(KeyMismatch, match=refusal):
            Journal(path, key=key, start_keying=True)
    config = tmp_path / "station.toml"
    config.write_text(f'[journal]\nkey_file = "{key_path}"\n')
    with pytest.raises(ConfigError, match=f"journal.key_file: .*{refusal}"):
        Station(load(config), Options(simulate=True, journal=path, keyboard=False))


def test_start_keying_takes_a_journal_over_once(tmp_path, capsys):
    key_path = key_file(tmp_path)
    key = seal.load_key(key_path, private=True)
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)                 # #1-#2, from before seals
    db.close()
    with Journal(path) as journal:
        journal.add_measurement("Measure", "5.0 in", {"inches": 5.0})      # #3, sealed plain
    status, out, _ = journal_cli(capsys, "start-keying", "--journal", str(path),
                                 "--key", str(key_path))
    with Journal(path, readonly=True) as journal:
        head = seal.short(journal.seal_of(4))
    assert status == 0 and out.splitlines() == [
        f"{path}: #1-#3, not sealed with the key {seal.key_id(key)}, taken over as they were; "
        "the key seals every entry from #4 on", f"  head #4 {head}: note it, and start the station"]
    status, out, _ = journal_cli(capsys, "start-keying", "--journal", str(path),
                                 "--key", str(key_path))
    assert status == 0 and "nothing to take over" in out
    with Journal(path, key=key) as journal:     # the keyed station writes on
        journal.add_measurement("Measure", "6.0 in", {"inches": 6.0})
    status, out, _ = verify_cli(capsys, path, "--key", str(key_path))
    assert status == 0 and "3 entries sealed, with the key" in out and "2 unsealed" in out
    status, out, _ = journal_cli(capsys, "show", "4", "--journal", str(path))
    assert "SEALED WITH THE KEY FROM HERE" in out and "#1-#3 before, not sealed with it" in out
    # a key every user can read, none, another
    key_path.chmod(0o644)
    status, _, err = journal_cli(capsys, "start-keying", "--journal", str(path),
                                 "--key", str(key_path))
    assert status == 2 and "--key: " in err and "can be read by every user" in err
    other = key_file(tmp_path, "other.key", "f" * 32)
    status, _, err = journal_cli(capsys, "start-keying", "--journal", str(path),
                                 "--key", str(other))
    assert status == 2 and "the key given is another" in err
    with pytest.raises(SystemExit) as exit:
        main(["journal", "start-keying", "--journal", str(path)])
    assert exit.value.code == 2 and "--key" in capsys.readouterr().err
    # sealed again without the key: the record of the key taking over is still there
    key_path.chmod(0o600)
    forge_seals(path, 1)
    status, _, err = journal_cli(capsys, "start-keying", "--journal", str(path),
                                 "--key", str(key_path))
    assert status == 2 and "records at #4 that a key took it over, but the entries after" in err
    status, out, _ = verify_cli(capsys, path)   # without the key, the record still says so
    assert status == 1 and "#4 records that a key took the journal over, but is not sealed" in out


@pytest.mark.parametrize("before", ["unsealed", "plain"])
def test_a_journal_keyed_by_a_station_from_before_start_keying(tmp_path, capsys, caplog, before):
    """The review's case: the station before start-keying chained its keyed seals onto a
    journal from before seals (its entries are unsealed, not unprotected) or sealed without
    a key (start-keying takes those over); today's keyed station writes on in both."""
    key_path = key_file(tmp_path)
    key = seal.load_key(key_path, private=True)
    path = tmp_path / "old.sqlite"
    if before == "unsealed":
        db = sqlite3.connect(path)
        db.executescript(OLD_SCHEMA)
        db.close()
    with Journal(path) as journal:
        while journal.add_measurement("Measure", "5.0 in", {"inches": 5.0}) < 4:
            pass
    forge_seals(path, 3, key=key)                # #3-#4 sealed with the key, chained on
    with Journal(path, key=key) as journal:
        assert journal.add_measurement("Measure", "6.0 in", {"inches": 6.0}) == 5
    status, out, _ = verify_cli(capsys, path, "--key", str(key_path))
    if before == "unsealed":
        assert status == 0 and "3 entries sealed, with the key" in out and "2 unsealed" in out
    else:
        assert status == 1 and "#1-#2: each is not sealed with the key given" in out
        assert "start-keying" in caplog.text
        status, out, _ = journal_cli(capsys, "start-keying", "--journal", str(path),
                                     "--key", str(key_path))
        assert status == 0 and out.startswith(
            f"{path}: #1-#2, not sealed with the key {seal.key_id(key)}, taken over as they "
            "were; the key seals every entry from #3 on\n  head #6 ")
        status, out, _ = verify_cli(capsys, path, "--key", str(key_path))
        assert status == 0 and ("with the key %s from #3 on (#1-#2 before it taken over"
                                % seal.key_id(key)) in out
    status, out, _ = journal_cli(capsys, "start-keying", "--journal", str(path),
                                 "--key", str(key_path))
    assert status == 0 and "nothing to take over: no entry is sealed without the key" in out


def test_a_key_file_must_hold_a_secret(tmp_path):
    with pytest.raises(ValueError, match="cannot read .*No such file"):
        seal.load_key(tmp_path / "none.key", private=False)
    with pytest.raises(ValueError, match="holds 5 bytes; a key needs at least 16"):
        seal.load_key(key_file(tmp_path, secret="short"), private=False)
    readable = key_file(tmp_path)
    readable.chmod(0o644)
    assert seal.load_key(readable, private=False)        # verifying on a laptop: fine
    with pytest.raises(ValueError, match="can be read by every user"):
        seal.load_key(readable, private=True)            # the station's own key


def test_the_station_does_not_write_on_without_the_journal_s_key(tmp_path, capsys):
    from station.config import ConfigError, load
    from station.service.app import Options, Station
    path = tmp_path / "j.sqlite"
    with Journal(path, key=b"k" * 32) as journal:
        fill(journal)
    with pytest.raises(KeyMismatch, match=r"sealed with the key \w{8} .*#3.*no key was given"):
        Journal(path)
    with pytest.raises(KeyMismatch, match="the key given is another"):
        Journal(path, key=b"f" * 32)
    Journal(path, readonly=True).close()                  # reading needs no key
    config = tmp_path / "station.toml"
    config.write_text(f'[journal]\nkey_file = "{key_file(tmp_path)}"\n')
    options = Options(simulate=True, journal=path, keyboard=False)
    with pytest.raises(ConfigError, match="journal.key_file: the journal .* is sealed with the key"):
        Station(load(config), options)
    key_file(tmp_path).chmod(0o644)
    with pytest.raises(ConfigError, match="journal.key_file: .* can be read by every user"):
        Station(load(config), options)
    assert main(["run", "--simulate", "--config", str(config), "--journal", str(path)]) == 2
    assert "configuration: journal.key_file:" in capsys.readouterr().err


def test_lists_and_exports_leave_the_frames_on_disk(tmp_path, capsys):
    """A long journal's list or export held every JPEG in memory at once (72 MB for 46 MB of
    frames): without `frames` an entry only says whether it has one."""
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        fill(journal)
        light = list(journal.entries(frames=False))
        assert [e.frame for e in light] == [b"", None, None]
        assert [e.frame for e in journal.entries()][0] == b"\xff\xd8jpeg"
        assert light[0].to_json()["has_frame"] and not light[2].to_json()["has_frame"]
    assert main(["journal", "export", "--format", "json", "--journal", str(path)]) == 0
    assert [e["has_frame"] for e in json.loads(capsys.readouterr().out)] == [True, False, False]


def test_list_says_when_older_entries_are_left_out(tmp_path, capsys, monkeypatch):
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        fill(journal)
    assert main(["journal", "list", "--limit", "1", "--journal", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[0].startswith("#3") and "--limit 0 lists them all" in out[1]
    assert main(["journal", "list", "--limit", "2", "--journal", str(path)]) == 0
    assert "--limit 0" not in capsys.readouterr().out        # two to list: all of them
    # the simulated station's journal is named when the default one is not there
    monkeypatch.setattr("station.cli.commands.journal.SIMULATED_JOURNAL", str(path))
    assert main(["journal", "list", "--journal", str(tmp_path / "none.sqlite")]) == 2
    assert f"the simulated station's is --journal {path}" in capsys.readouterr().err
