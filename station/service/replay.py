"""Screens redrawn from the journal: the proof when an opponent doubts a roll."""

from __future__ import annotations

from station.display.screen import DieMark, Screen, TrayView
from station.journal import Entry, Journal
from station.journal.seal import BREAK, RECORDS, describe, short
from station.service.screens import outcome_screen
from station.service.tray_source import decode_jpeg


def marks_of(dice: list[dict]) -> list[DieMark]:
    return [DieMark.from_json(d) for d in dice if d.get("center")]


def screen_of(journal: Journal, entry: Entry) -> Screen:
    """The screen as it was shown for `entry` (an outcome, a reading or a measurement), or
    what one of the journal's own records says."""
    if entry.kind == "outcome":
        rolls = []
        for reading in journal.readings_of(entry.id):
            frame = decode_jpeg(reading.frame) if reading.frame else None
            if frame is not None:            # typed-in dice have no frame
                rolls.append(TrayView(frame, marks_of(reading.data.get("dice", [])),
                                      reading.data.get("purpose", "")))
        screen = outcome_screen(entry.data, rolls, entry.id, position=(1, 1),
                                seal=short(entry.seal))
        screen.prompt = f"journal #{entry.id}, {entry.at[:19].replace('T', ' ')} UTC"
        return screen
    if entry.kind in RECORDS:
        return Screen(state="journal", action="The journal", headline=entry.headline.upper(),
                      details=[describe(entry.kind, entry.data)], entry_id=entry.id,
                      seal=short(entry.seal), level="warn" if entry.kind == BREAK else "info",
                      prompt=f"journal record #{entry.id}, {entry.at[:19].replace('T', ' ')} UTC")
    if entry.kind == "reading":
        data = entry.data
        frame = decode_jpeg(entry.frame) if entry.frame else None
        return Screen(state="reading", action=entry.action, headline=entry.headline.upper(),
                      details=[data.get("purpose", "")], frame=frame,
                      marks=marks_of(data.get("dice", [])), entry_id=entry.id,
                      seal=short(entry.seal),
                      prompt=f"reading #{entry.id}, {entry.at[:19].replace('T', ' ')} UTC",
                      level="warn" if data.get("problem") else "info")
    data = entry.data
    return Screen(state="measured", action=entry.action, headline=entry.headline,
                  details=[f"{data.get('mm', 0):.0f} mm from the reference edge",
                           f"raw reading {data.get('raw_mm', 0):.1f} mm ({data.get('device', '?')})"],
                  rules=["MEAS-1", "MEAS-2"], entry_id=entry.id, seal=short(entry.seal),
                  prompt=f"measurement #{entry.id}, {entry.at[:19].replace('T', ' ')} UTC")
