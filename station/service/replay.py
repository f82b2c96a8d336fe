"""Screens redrawn from the journal: the proof when an opponent doubts a roll."""

from __future__ import annotations

from station.display.screen import DieMark, Screen, TrayView, face_label
from station.journal import Entry, Journal
from station.service.screens import outcome_screen
from station.service.tray_source import decode_jpeg


def marks_of(dice: list[dict]) -> list[DieMark]:
    marks = []
    for d in dice:
        if not d.get("center"):
            continue
        flags = [f for f in d.get("flags", []) if f in ("cocked", "unreadable")]
        label = "?" if d.get("value") is None or flags else face_label(d["value"], d.get("bearing_deg"))
        marks.append(DieMark(tuple(d["center"]), label, d.get("colour") or "",
                             flags[0] if flags else "", d.get("bearing_deg")))
    return marks


def screen_of(journal: Journal, entry: Entry) -> Screen:
    """The screen as it was shown for `entry` (an outcome, a reading or a measurement)."""
    if entry.kind == "outcome":
        rolls = []
        for reading in journal.readings_of(entry.id):
            frame = decode_jpeg(reading.frame) if reading.frame else None
            if frame is not None:            # typed-in dice have no frame
                rolls.append(TrayView(frame, marks_of(reading.data.get("dice", [])),
                                      reading.data.get("purpose", "")))
        screen = outcome_screen(entry.data, rolls, entry.id, position=(1, 1))
        screen.prompt = f"journal #{entry.id}, {entry.at[:19].replace('T', ' ')} UTC"
        return screen
    if entry.kind == "reading":
        data = entry.data
        frame = decode_jpeg(entry.frame) if entry.frame else None
        return Screen(state="reading", action=entry.action, headline=entry.headline.upper(),
                      details=[data.get("purpose", "")], frame=frame,
                      marks=marks_of(data.get("dice", [])), entry_id=entry.id,
                      prompt=f"reading #{entry.id}, {entry.at[:19].replace('T', ' ')} UTC",
                      level="warn" if data.get("problem") else "info")
    data = entry.data
    return Screen(state="measured", action=entry.action, headline=entry.headline,
                  details=[f"{data.get('mm', 0):.0f} mm from the reference edge",
                           f"raw reading {data.get('raw_mm', 0):.1f} mm ({data.get('device', '?')})"],
                  rules=["MEAS-1", "MEAS-2"], entry_id=entry.id,
                  prompt=f"measurement #{entry.id}, {entry.at[:19].replace('T', ' ')} UTC")
