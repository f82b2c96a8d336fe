"""The camera as a `DiceSource`: each request of a ruling is one physical roll in the tray.

`take("d6", 2, "2 d6: attack roll")` puts "Roll 2 d6: attack roll" on the screen, watches
the tray until the dice lie still, reads them, and checks the tray against the request:
exactly `count` dice of that kind, each readable and flat. Anything else is said plainly
("the tray shows 3 d6, 2 were asked for: take 1 out", "re-roll the cocked die") and the
source waits for the next roll. Every reading is journalled with its frame, accepted or not,
before it is shown. A long press on ROLL switches to typing the faces in with the buttons.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import cv2
import numpy as np

from station.controls import Intent
from station.display.screen import DieMark, TrayView
from station.rules.faces import ARTILLERY_FACES, D6_FACES, DieKind, Face, RerollNow
from station.vision.settle import StillFrames

MANUAL_FACES: dict[str, tuple[Any, ...]] = {
    "d6": D6_FACES,
    "artillery": ARTILLERY_FACES,
    # the scatter die typed in: HIT, or an arrow in 30-degree steps from the tray's up edge
    "scatter": ("hit", *(f"arrow@{deg}" for deg in range(0, 360, 30))),
}


class Cancelled(Exception):
    """The player gave up the roll (NEXT ACTION) or no roll came in time."""


MOTION = ("moving", "rolling", "hand")


class SettleWatcher(Protocol):
    def feed(self, frame: np.ndarray, t: float) -> str:
        """"still" once per still period, when the tray has been still long enough to read;
        one of MOTION while something moves; anything else ("quiet") otherwise."""
        ...


class Host(Protocol):
    """What the source needs from the session."""

    def prompt(self, state: str, headline: str, prompt: str, *, level: str = "info",
               frame: np.ndarray | None = None, marks: list[DieMark] | None = None,
               reroll_offered: bool = False) -> None: ...

    def next_intent(self, timeout: float) -> Intent | None: ...

    def live(self, frame: np.ndarray) -> None:
        """The tray as the camera sees it now, for screens that show it live."""
        ...

    def journal_reading(self, data: dict[str, Any], dice: list[dict[str, Any]],
                        frame: np.ndarray | None) -> int: ...


@dataclass
class Verdict:
    faces: list[Face] | None            # None: the tray does not answer the request
    problem: str = ""
    marks: list[DieMark] = field(default_factory=list)
    held: list[Any] = field(default_factory=list)   # dice of other kinds, for later requests


def judge(dice: list[Any], kind: DieKind, count: int) -> Verdict:
    """Does the tray (a list of DetectedDie) hold exactly the `count` `kind` dice asked for?

    Dice of other kinds are not a mistake: a scatter die is rolled together with its distance
    dice (SCAT-1), so they are held for the ruling's next requests.
    """
    wanted = [d for d in dice if d.kind == kind]
    others = [d for d in dice if d.kind != kind]
    flagged = [d for d in wanted if d.value is None or {"cocked", "unreadable"} & set(d.flags)]
    marks = [DieMark.from_detected(d) for d in dice]
    words = _dice_words(kind, count)
    # A cocked die first: the reader can see one leaning die twice (its top and a side), and
    # "take 1 out" would send the players looking for a die that is not there.
    if flagged:
        what = "cocked" if any("cocked" in d.flags for d in flagged) else "unreadable"
        many = len(flagged) > 1
        noun = ("" if kind == "d6" else f"{kind} ") + ("dice" if many else "die")
        return Verdict(None, f"re-roll the {what} {noun}{f' ({len(flagged)})' if many else ''}",
                       marks)
    if len(wanted) > count:
        extra = len(wanted) - count
        return Verdict(None, f"the tray shows {_dice_words(kind, len(wanted))}, {count} asked "
                             f"for: take {extra} out and roll again", marks)
    if len(wanted) < count:
        return Verdict(None, f"the tray shows {_dice_words(kind, len(wanted))}, {count} asked "
                             f"for: roll {'all ' if count > 1 else ''}{words}", marks)
    ordered = sorted(wanted, key=lambda d: (round(d.center[1] / 40), d.center[0]))  # reading order
    faces = [Face(kind, d.value, d.bearing_deg if kind == "scatter" else None) for d in ordered]
    return Verdict(faces, "", marks, others)


def _dice_words(kind: str, count: int) -> str:
    return f"{count} {kind}" if kind == "d6" else f"{count} {kind} {'die' if count == 1 else 'dice'}"


class TraySource:
    """DiceSource backed by the camera, the reader and a settle watcher."""

    def __init__(self, host: Host, camera: Any, read: Callable[[np.ndarray], list[Any]],
                 new_watcher: Callable[[], SettleWatcher], *, fps: float = 10.0,
                 timeout: float | None = None, clock: Callable[[], float] = time.monotonic,
                 manual: bool = False, previous: np.ndarray | None = None,
                 still_frames: int = 1, sleep: Callable[[float], None] = time.sleep) -> None:
        """previous: the tray frame the last outcome was read from: dice still lying as they
        were then are that roll, not a new one (ROLL or RE-ROLL pressed without rolling).
        still_frames: the frame read is the mean of the last this many frames since the tray
        last moved (`settle.StillFrames`: less sensor noise in a dim tray).
        Frames are taken `fps` times a second: the time a frame's capture and settle check
        take is part of its period, not added to it."""
        self.host, self.camera, self.read, self.new_watcher = host, camera, read, new_watcher
        self.still_frames = still_frames
        self.period = 1.0 / fps
        self.timeout, self.clock, self.sleep = timeout, clock, sleep
        self.manual = manual
        self.typed = False                   # some of the dice were typed in, not read
        self.previous = previous
        self.readings: list[int] = []        # journal ids of the accepted readings
        self.last_frame: np.ndarray | None = None
        self.last_marks: list[DieMark] = []
        self.rolls: list[TrayView] = []      # each accepted frame, for the outcome's screen
        self.held: list[Any] = []            # read with an earlier request, not yet asked for
        self.reroll_offer: str | None = None  # the roll RE-ROLL re-rolls instead of the next

    def offer_reroll(self, what: str) -> None:
        """The ruling allows re-rolling `what` (DICE-4): until its next dice are read, RE-ROLL
        re-rolls it (`RerollNow`); once they are, the chance is gone."""
        self.reroll_offer = what

    def take(self, kind: DieKind, count: int, purpose: str) -> list[Face]:
        try:
            return self._take(kind, count, purpose)
        finally:
            self.reroll_offer = None

    def _take(self, kind: DieKind, count: int, purpose: str) -> list[Face]:
        if self.manual:
            return self._typed(kind, count, purpose)
        headline = "ROLL " + _dice_words(kind, count).upper()
        if any(d.kind == kind for d in self.held):      # rolled together with earlier dice
            verdict = judge(self.held, kind, count)
            self.held = verdict.held
            if verdict.faces is not None:
                if self.rolls:                          # the same frame answers this purpose too
                    view = self.rolls[-1]
                    self.rolls[-1] = TrayView(view.frame, view.marks, f"{view.caption}; {purpose}")
                return verdict.faces
            self.host.prompt("waiting", headline, verdict.problem.capitalize(), level="warn",
                             frame=self.last_frame, marks=self.last_marks)
        elif self.rolls:    # a ruling's next roll: the last one stays in sight until then
            view = self.rolls[-1]
            read = " ".join(mark.label for mark in view.marks)
            doubtful = any(mark.doubtful for mark in view.marks)
            if self.reroll_offer:     # the footer has room for one choice more, not the reading
                text = (f"{'CHECK the die marked ?, then roll' if doubtful else 'Roll'} "
                        f"{purpose}, or first RE-ROLL {self.reroll_offer} (DICE-4)")
            else:
                check = ("CHECK the die marked ? before you pick it up; then roll "
                         if doubtful else "Roll ")
                text = f"{check}{purpose} (read: {read})"
            self.host.prompt("waiting", headline, text, frame=view.frame, marks=view.marks,
                             reroll_offered=bool(self.reroll_offer))
        else:
            self.host.prompt("waiting", headline, f"Roll {purpose}")
        expect = getattr(self.camera, "expect", None)
        if expect:
            expect(kind, count, purpose)
        watcher = self.new_watcher()
        still = StillFrames(self.still_frames)
        started = self.clock()
        state = "waiting"
        # A tray already read (an earlier request of this ruling, a rejected roll, the last
        # outcome's) must be rolled again: wait for motion before trusting "still". Dice
        # rolled before ROLL was pressed are read as they lie. None: decide on the first frame.
        moved: bool | None = None if not self.readings else False
        while True:
            frame_started = self.clock()
            intent = self.host.next_intent(0)
            if intent is Intent.MANUAL:
                self.manual = True
                return self._typed(kind, count, purpose)
            if intent in (Intent.NEXT, Intent.QUIT):
                raise Cancelled("roll cancelled")
            if intent is Intent.REROLL and self.reroll_offer:
                raise RerollNow()
            if intent is Intent.REROLL:       # said, or players think the button is dead
                self.host.prompt(state, headline, f"RE-ROLL: nothing to re-roll now (DICE-4); "
                                 f"roll {purpose}", level="warn", frame=self.last_frame,
                                 marks=self.last_marks)
            if self.timeout is not None and self.clock() - started > self.timeout:
                raise Cancelled(f"no still roll of {purpose} seen in {self.timeout:.0f} s")
            frame = self.camera.capture()
            if moved is None:
                moved = self.previous is None or looks_different(frame, self.previous)
            seen = watcher.feed(frame, self.clock())
            if seen in MOTION:
                still.clear()
                moved = True
                if state != "settling":
                    state = "settling"
                    self.host.prompt("settling", headline, f"Waiting for the dice to stop: {purpose}")
            else:
                still.add(frame)
            if seen != "still" or not moved:
                self.host.live(frame)
                self._wait_for_next_frame(frame_started)
                continue
            frame = still.mean()
            self.host.prompt("reading", headline, f"Reading {purpose}")
            dice = self._read(frame, expect_special=kind != "d6")
            if not dice and state == "waiting":   # ROLL on an empty tray: nothing rolled yet
                self.host.prompt("waiting", headline, f"Roll {purpose}")
                moved = False
                continue
            verdict = judge(dice, kind, count)
            if verdict.faces is None and kind == "d6" and hasattr(self.read, "expecting_special"):
                # A scatter or artillery die rolled with the d6s (SCAT-1, 2D6+A) can be read
                # as pips: before asking for a re-roll, read the tray expecting special dice.
                dice = self._read(frame, expect_special=True)
                verdict = judge(dice, kind, count)
            reading = self.host.journal_reading(
                {"purpose": purpose, "asked": {"kind": kind, "count": count},
                 "accepted": verdict.faces is not None, "problem": verdict.problem},
                [d.to_json() for d in dice], frame)
            if verdict.faces is not None:
                self.readings.append(reading)
                self.last_frame, self.last_marks, self.held = frame, verdict.marks, verdict.held
                self.rolls.append(TrayView(frame, verdict.marks, purpose))
                return verdict.faces
            self.host.prompt("waiting", headline, verdict.problem.capitalize(), level="warn",
                             frame=frame, marks=verdict.marks)
            if expect:                        # the players are asked to roll again
                expect(kind, count, purpose)
                watcher = self.new_watcher()  # (the simulated tray films a new scene)
                still.clear()
            state, moved = "waiting", False

    def _wait_for_next_frame(self, frame_started: float) -> None:
        """Sleep out what is left of the frame period begun at `frame_started` (a camera
        that blocks until its next frame, as the Pi camera does, has used most of it)."""
        left = self.period - (self.clock() - frame_started)
        if left > 0:
            self.sleep(left)

    def _read(self, frame: np.ndarray, expect_special: bool) -> list[Any]:
        """The reader's dice; told that scatter or artillery dice are expected when it can be
        (`devices.TrayReader.expecting_special`), which costs time on every die read as pips."""
        expecting = getattr(self.read, "expecting_special", None)
        return expecting(frame) if expect_special and expecting else self.read(frame)

    def _typed(self, kind: DieKind, count: int, purpose: str) -> list[Face]:
        """Manual entry with the buttons: ROLL steps the value, NEXT takes it, RE-ROLL cancels."""
        choices = MANUAL_FACES[kind]
        values: list[Any] = []
        index = 0
        while len(values) < count:
            shown = " ".join(_typed_label(v) for v in values + [choices[index]])
            bearing = ("; an arrow's bearing is clockwise from the tray's up edge"
                       if kind == "scatter" else "")
            offer = self.reroll_offer and not values
            cancel = (f"RE-ROLL re-rolls {self.reroll_offer} (DICE-4)" if offer
                      else "RE-ROLL cancels")
            self.host.prompt("manual", shown.upper(),
                             f"Die {len(values) + 1} of {count} for {purpose}: ROLL changes it, "
                             f"NEXT takes it, {cancel}{bearing}", reroll_offered=bool(offer))
            intent = self.host.next_intent(self.timeout or 3600)
            if intent is Intent.ROLL:
                index = (index + 1) % len(choices)
            elif intent is Intent.NEXT:
                values.append(choices[index])
                index = 0
            elif intent is Intent.REROLL and self.reroll_offer and not values:
                raise RerollNow()
            elif intent in (Intent.REROLL, Intent.QUIT):
                raise Cancelled("manual entry cancelled")
            elif intent is None:
                raise Cancelled("no manual entry in time")
        faces = [_typed_face(kind, v) for v in values]
        self.typed = True
        dice = [{"kind": f.kind, "value": f.value, "bearing_deg": f.bearing_deg, "colour": None,
                 "flags": ["typed"]} for f in faces]
        self.readings.append(self.host.journal_reading(
            {"purpose": purpose, "asked": {"kind": kind, "count": count}, "accepted": True,
             "manual": True, "problem": ""}, dice, None))
        self.last_frame, self.last_marks = None, []
        return faces


def _typed_label(value: Any) -> str:
    """A typed-in value as the screen shows it: "arrow@60" is "arrow 60°"."""
    text = str(value)
    return text.replace("@", " ") + "°" if text.startswith("arrow@") else text


def _typed_face(kind: DieKind, value: Any) -> Face:
    if isinstance(value, str) and value.startswith("arrow@"):
        return Face("scatter", "arrow", float(value.split("@")[1]))
    return Face(kind, value)


def looks_different(a: np.ndarray, b: np.ndarray) -> bool:
    """Has the tray changed between two frames (dice moved, added or taken away)? Compared
    small, grey and blurred, so sensor noise and a flicker of light do not count."""
    if a.shape != b.shape:
        return True
    def small(frame: np.ndarray) -> np.ndarray:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        width = 160
        grey = cv2.resize(grey, (width, max(1, grey.shape[0] * width // grey.shape[1])),
                          interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(grey, (5, 5), 0).astype(np.int16)
    changed = np.abs(small(a) - small(b)) > 25
    return bool(changed.mean() > 0.002)


def encode_jpeg(frame: np.ndarray, quality: int = 85) -> bytes:
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("the frame could not be encoded as JPEG")
    return data.tobytes()


def decode_jpeg(data: bytes) -> np.ndarray | None:
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
