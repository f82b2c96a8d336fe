"""The journal: SQLite in WAL mode, readings with frames, outcomes, measurements, statistics."""

import json
import random
import sqlite3
import threading
import time

import pytest

from station.cli import main
from station.journal import Journal, JournalError, store
from station.journal.stats import chi_square_sf, face_stats

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
        for command in (["list"], ["show", "1"], ["export"], ["stats"]):
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
    for command in (["list"], ["list", "--all"], ["show", "3"], ["export"], ["stats"]):
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
    with Journal(path, readonly=True) as reread:
        assert [e.headline for e in reread.entries()] == ["2.0 in"] and entry == 1


def test_a_copy_on_read_only_media_is_read(tmp_path, monkeypatch):
    # a WAL journal on a locked SD card: mode=ro cannot make the WAL index beside it
    path = tmp_path / "journal.sqlite"
    with Journal(path) as journal:
        fill(journal)
    connect = sqlite3.connect

    def read_only_media(database, *args, **kwargs):
        if "mode=ro" in str(database):
            raise sqlite3.OperationalError("unable to open database file")
        return connect(database, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", read_only_media)
    with Journal(path, readonly=True) as journal:
        assert len(list(journal.entries())) == 3
