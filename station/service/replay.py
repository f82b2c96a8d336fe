"""Screens redrawn from the journal: the proof when an opponent doubts a roll."""

from __future__ import annotations

from station.display.screen import DieMark, Screen, TrayView
from station.journal import Entry, Journal
from station.journal.seal import BREAK, RECORDS, describe, short
from station.service.screens import measurement_details, outcome_screen
from station.service.tray_source import decode_jpeg


def marks_of(dice: list[dict]) -> list[DieMark]:
    return [DieMark.from_json(d) for d in dice if d.get("center")]


def step_lines(entry: Entry) -> list[str]:
    """Every step of an outcome, "RULE  text": its screen shows two or three of them (a
    trample's damage to its second and third models was on no screen)."""
    if entry.kind != "outcome":
        return []
    return [f"{step['rule']}  {step['text']}" for step in entry.data.get("steps", [])]


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
    warning = entry.data.get("warning")       # live, the prompt said it
    return Screen(state="measured", action=entry.action, headline=entry.headline,
                  details=measurement_details(entry.action, entry.data)
                  + ([f"warning: {warning}"] if warning else []),
                  level="warn" if warning else "info", rules=["MEAS-1", "MEAS-2"],
                  entry_id=entry.id, seal=short(entry.seal),
                  prompt=f"measurement #{entry.id}, {entry.at[:19].replace('T', ' ')} UTC")
