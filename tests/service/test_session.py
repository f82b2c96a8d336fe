"""The session state machine on the synthetic tray, with the reader replaced by the renderer's
ground truth (the real reader is exercised end to end in test_run.py)."""

import sqlite3
import threading

import numpy as np

from station.config import ActionChoice
from station.controls import Intent
from station.camera import CameraError
from station.camera.synthetic import SyntheticTray
from station.journal import Journal
from station.laser.codec import Reading
from station.laser.measurement import Measurement, convert
from station.service.laser import LaserError
from station.service.session import Session
from station.vision.types import DetectedDie


class Watcher:
    def __init__(self):
        self.last = None

    def feed(self, frame, t):
        still = self.last is not None and np.array_equal(frame, self.last)
        self.last = frame
        return "still" if still else "moving"


class Laser:
    def __init__(self, answers):
        self.answers = list(answers)

    def measure(self):
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer if isinstance(answer, Measurement) else convert("glm", Reading(answer), None)


def truth_reader(tray):
    def read(frame):
        return [DetectedDie(t.kind, t.value, t.center, 1.0, t.colour, list(t.flags),
                            t.bearing_tray_deg) for t in tray.rendered.truth]
    return read


def make(tmp_path, actions, *, camera=None, laser=None, **tray_options):
    tray = camera or SyntheticTray((320, 240), rng=np.random.default_rng(1), **tray_options)
    shown = []
    session = Session(actions=actions, camera=tray, read=truth_reader(tray), new_watcher=Watcher,
                      journal=Journal(tmp_path / "j.sqlite"), show=shown.append, laser=laser,
                      fps=500, roll_timeout=5, show_live=lambda screen: session.lived.append(screen))
    session.lived = []
    session.idle()
    return session, tray, shown


ROLL_2D6 = ActionChoice("Roll 2D6", "dice.roll", {"expr": "2D6"})
SPEAR = ActionChoice("Impaler spear", "wm.ranged", {"rat": "5", "def": "13"})


def test_roll_reads_exactly_the_dice_asked_and_journals_before_showing(tmp_path):
    session, tray, shown = make(tmp_path, [SPEAR])
    journal = session.journal
    seen_in_journal = []
    show = session.show
    session.show = lambda screen: (seen_in_journal.append(
        [e.id for e in journal.entries(kind="outcome")]), show(screen))
    session.handle(Intent.ROLL)
    assert [t.kind for t in tray.rendered.truth] == ["d6", "d6"]
    final = shown[-1]
    assert final.state == "resolved" and final.headline in ("HIT", "MISS")
    values = sorted(t.value for t in tray.rendered.truth)
    outcome = next(journal.entries(kind="outcome"))
    assert sorted(outcome.data["dice"]) == values
    assert final.entry_id == outcome.id and seen_in_journal[-1] == [outcome.id]
    # the seal players can note down is the one the journal holds
    assert len(final.seal) == 12 and outcome.seal.split(":")[1].startswith(final.seal)
    assert final.text_lines()[-1] == f"journal #{outcome.id} · seal {final.seal}"
    assert "WM-RNG-2" in final.rules and 0 < final.odds < 1
    assert final.frame is not None and sorted(int(m.label) for m in final.marks) == values
    reading = journal.readings_of(outcome.id)[0]
    assert reading.frame[:2] == b"\xff\xd8"                    # the JPEG it was read from
    assert [s.state for s in shown[1:]] == ["waiting", "settling", "reading", "resolved"]
    assert session.lived and all(s.frame is not None and not s.marks for s in session.lived)


THROW = ActionChoice("Warpwolf throw", "wm.throw",
                     {"str": "11", "target_str": "9", "base": "large", "target_base": "medium"})


def test_a_ruling_of_several_rolls_shows_every_roll_live_and_from_the_journal(tmp_path):
    """A throw reads the attacker's die, then the target's (and the deviation's when thrown):
    the result screen shows each roll's frame and dice, not only the last one's."""
    from station.service.replay import screen_of
    session, tray, shown = make(tmp_path, [THROW])
    session.handle(Intent.ROLL)
    final = shown[-1]
    outcome = next(session.journal.entries(kind="outcome"))
    readings = session.journal.readings_of(outcome.id)
    assert final.state == "resolved" and len(final.rolls) == len(readings) >= 2
    captions = [view.caption for view in final.rolls]
    assert [r.data["purpose"] for r in readings] == captions
    assert "attacker's throw contest" in captions[0] and "target's throw contest" in captions[1]
    assert [[m.label for m in view.marks] for view in final.rolls] == [
        [str(d["value"]) for d in r.data["dice"]] for r in readings]
    assert final.frame is final.rolls[-1].frame and final.marks == final.rolls[-1].marks
    lines = final.text_lines()
    assert [line for line in lines if line.startswith("dice")] == [
        f"dice, {c}: {' '.join(m.label + '(' + m.colour + ')' for m in v.marks)}"
        for c, v in zip(captions, final.rolls)]
    again = screen_of(session.journal, outcome)          # `station journal show`
    assert [v.caption for v in again.rolls] == captions
    assert again.journal_line() == final.journal_line()
    assert [[m.label for m in v.marks] for v in again.rolls] == [
        [m.label for m in v.marks] for v in final.rolls]
    assert all(v.frame.shape == f.frame.shape for v, f in zip(again.rolls, final.rolls))


def test_next_walks_the_actions(tmp_path):
    session, _, shown = make(tmp_path, [ROLL_2D6, SPEAR])
    session.handle(Intent.NEXT)
    assert shown[-1].action == "Impaler spear" and shown[-1].position == (2, 2)
    session.handle(Intent.NEXT)
    assert shown[-1].action == "Roll 2D6"


def test_reroll_once_then_refused(tmp_path):
    session, tray, shown = make(tmp_path, [ROLL_2D6])
    session.handle(Intent.ROLL)
    first = shown[-1]
    assert first.reroll_offered
    session.handle(Intent.REROLL)
    again = shown[-1]
    assert again.state == "resolved" and not again.reroll_offered
    outcome = list(session.journal.entries(kind="outcome"))[-1]
    assert outcome.data["reroll_of"] == first.entry_id
    assert sorted(outcome.data["dice"][2:]) == sorted(t.value for t in tray.rendered.truth)
    session.handle(Intent.REROLL)
    assert "DICE-4" in shown[-1].prompt and shown[-1].level == "warn"


def test_cocked_die_asks_for_a_reroll_of_it(tmp_path):
    session, tray, shown = make(tmp_path, [ROLL_2D6], cocked=1.0)
    session.roll_timeout = 0.5
    session.handle(Intent.ROLL)
    assert any(s.prompt.startswith("Re-roll the cocked") for s in shown)
    assert shown[-1].state == "idle" and "no still roll" in shown[-1].prompt
    readings = list(session.journal.entries(kind="reading"))
    assert readings and not readings[0].data["accepted"]


def test_camera_failure_goes_back_to_idle_with_a_message_and_measuring_still_works(tmp_path):
    class Broken(SyntheticTray):
        def capture(self):
            raise CameraError("camera 0 gave no frame (unplugged?)")
    laser = Laser([254.0])
    session, _, shown = make(tmp_path, [ROLL_2D6], camera=Broken((320, 240)), laser=laser)
    session.handle(Intent.ROLL)
    assert shown[-1].level == "error" and "unplugged" in shown[-1].prompt
    assert session.state == "idle" and "camera" in session.hardware
    session.handle(Intent.MEASURE)
    assert shown[-1].state == "measured" and shown[-1].headline == "10.0 in"
    assert "camera" in shown[-1].hardware                     # still reported
    assert next(session.journal.entries(kind="measurement")).data["inches"] == 10.0


def test_laser_errors_are_shown_never_a_distance(tmp_path):
    laser = Laser([LaserError("the glm reported error 8: hardware error"),
                   LaserError("link lost", lost=True), 100.0])
    session, _, shown = make(tmp_path, [ROLL_2D6], laser=laser)
    session.handle(Intent.MEASURE)
    assert shown[-1].level == "error" and "error 8" in shown[-1].prompt and not shown[-1].headline
    session.handle(Intent.MEASURE)
    assert session.hardware["laser"] == "link lost"
    session.handle(Intent.MEASURE)
    assert "laser" not in session.hardware and shown[-1].state == "measured"
    assert len(list(session.journal.entries(kind="measurement"))) == 1


def test_manual_entry_runs_the_ruling_on_typed_faces(tmp_path):
    session, _, shown = make(tmp_path, [SPEAR])
    for intent in [Intent.ROLL] * 5 + [Intent.NEXT, Intent.NEXT]:   # 6, then 1
        session.intents.put(intent)
    session.handle(Intent.MANUAL)
    outcome = next(session.journal.entries(kind="outcome"))
    assert outcome.data["dice"] == [6, 1]
    assert shown[-1].state == "resolved"
    # typed dice say so, live and redrawn from the journal
    from station.service.replay import screen_of
    for screen in (shown[-1], screen_of(session.journal, outcome)):
        assert screen.details[0] == "dice typed in with the buttons, not read by the camera"


def test_unexpected_errors_never_stop_the_session(tmp_path):
    session, _, shown = make(tmp_path, [ROLL_2D6])
    session.read = lambda frame: 1 / 0
    session.handle(Intent.ROLL)
    assert shown[-1].level == "error" and "ZeroDivisionError" in shown[-1].prompt
    session.handle(Intent.NEXT)
    assert shown[-1].state == "idle"


def test_run_loop_quits(tmp_path):
    session, _, _ = make(tmp_path, [ROLL_2D6])
    thread = threading.Thread(target=session.run)
    thread.start()
    session.intents.put(Intent.QUIT)
    thread.join(2)
    assert not thread.is_alive()


def test_the_session_gives_freed_memory_back_after_each_intent(tmp_path, monkeypatch):
    import station.service.session as session_module
    trims = []
    monkeypatch.setattr(session_module, "release_freed_memory", lambda: trims.append(1))
    session, _, shown = make(tmp_path, [ROLL_2D6])
    for intent in (Intent.NEXT, Intent.NEXT, Intent.QUIT):
        session.intents.put(intent)
    session.run()
    assert shown[-1].state == "idle" and len(trims) == 3


def test_a_re_roll_given_up_after_its_dice_were_read_is_used(tmp_path, monkeypatch):
    # NEXT in the middle of a re-roll (an AOE's attack read, its deviation asked): the players
    # have seen the re-roll's dice, so pressing NEXT must not give them another (DICE-4)
    from station.rules import actions as rules
    from station.service.tray_source import Cancelled
    session, tray, shown = make(tmp_path, [ROLL_2D6])
    session.handle(Intent.ROLL)
    first = shown[-1].entry_id

    def read_then_next(outcome, source):
        source.take("d6", 2, "2 d6: re-roll")
        raise Cancelled("roll cancelled")

    monkeypatch.setattr(rules, "reroll", read_then_next)
    session.handle(Intent.REROLL)
    assert "re-roll's dice were read, so it is used (DICE-4)" in shown[-1].prompt
    abandoned = list(session.journal.entries(kind="outcome"))[-1]
    assert abandoned.headline == "ABANDONED" and abandoned.data["reroll_of"] == first
    assert len(session.journal.readings_of(abandoned.id)) == 1      # the dice seen, kept
    session.handle(Intent.REROLL)
    assert "no die is re-rolled more than once" in shown[-1].prompt


def test_a_refused_re_roll_leaves_the_result_on_the_screen(tmp_path):
    session, _, shown = make(tmp_path, [ROLL_2D6])
    session.handle(Intent.ROLL)
    result = shown[-1]
    session.handle(Intent.REROLL)
    session.handle(Intent.REROLL)
    refused = shown[-1]
    assert refused.state == "resolved" and refused.headline == shown[-2].headline
    assert refused.prompt.startswith("RE-ROLL: no die is re-rolled more than once (DICE-4)")
    assert result.headline and refused.entry_id == shown[-2].entry_id


def test_measure_pressed_while_the_dice_roll_comes_after_the_roll(tmp_path):
    session, _, shown = make(tmp_path, [ROLL_2D6, SPEAR], laser=Laser([254.0]))
    session.intents.put(Intent.MEASURE)          # pressed as the dice are thrown
    show = session.show                          # ... and NEXT as the result comes up
    session.show = lambda screen: (show(screen), screen.state == "resolved"
                                   and session.intents.put(Intent.NEXT))
    session.handle(Intent.ROLL)
    assert [s.state for s in shown[-3:]] == ["resolved", "measuring", "measured"]
    assert shown[-1].headline == "10.0 in"
    measurement = next(session.journal.entries(kind="measurement"))
    assert measurement.action == "Roll 2D6"      # the action it was pressed for
    assert shown[-1].seal and measurement.seal.split(":")[1].startswith(shown[-1].seal)
    session.handle(session.intents.get_nowait())
    assert session.choice.name == "Impaler spear"


def test_a_ruling_without_dice_neither_asks_for_dice_nor_shows_a_chance(tmp_path):
    sequence = ActionChoice("Melee round", "t9a.sequence", {})
    session, _, shown = make(tmp_path, [sequence])
    assert shown[-1].prompt == "Press ROLL to show it (no dice to roll)"
    session.handle(Intent.ROLL)
    assert shown[-1].state == "resolved" and shown[-1].odds is None


FIRE_BOMB = ActionChoice("Fire bomb", "wm.aoe", {"rat": "5", "def": "30", "pow": "12",
                                                 "aoe": "3", "rng": "10", "distance": "8"})


def test_a_reroll_is_chosen_before_the_deviation_is_rolled(tmp_path):
    # DEF 30: only 6+6 hits (WM-RNG-3), so the AOE deviates
    session, _, shown = make(tmp_path, [FIRE_BOMB])
    session.handle(Intent.ROLL)
    assert any(s.state == "waiting" and s.reroll_offered for s in shown)
    assert shown[-1].headline.startswith("DEVIATED") and not shown[-1].reroll_offered
    session.handle(Intent.REROLL)                 # the deviation is seen: too late
    assert "too late for the attack roll: the next dice are rolled (DICE-4)" in shown[-1].prompt

    prompt = session.prompt                       # pressed when the deviation is asked for
    session.prompt = lambda *args, **kw: (prompt(*args, **kw), kw.get("reroll_offered")
                                          and session.intents.put(Intent.REROLL))
    session.handle(Intent.ROLL)
    outcome = list(session.journal.entries(kind="outcome"))[-1]
    # the attack roll, its re-roll, then the re-roll's deviation: each read once
    assert [s["rule"] for s in outcome.data["steps"]][:4] == ["WM-RNG-1", "WM-RNG-2", "DICE-4",
                                                              "WM-RNG-2"]
    assert outcome.data["outcome"] == "deviated" and len(outcome.data["dice"]) == 6
    assert len(session.journal.readings_of(outcome.id)) == 4
    session.handle(Intent.REROLL)
    assert "no die is re-rolled more than once (DICE-4)" in shown[-1].prompt


def test_a_roll_given_up_after_its_dice_were_read_ends_the_older_results_reroll(tmp_path):
    # DEF 16, boosted: the first attack hits (re-rollable), the second misses and is given
    # up while its deviation is asked for: RE-ROLL must not re-roll the first attack then
    bomb = ActionChoice("Bomb", "wm.aoe", {"rat": "5", "def": "16", "pow": "12", "aoe": "3",
                                           "rng": "10", "distance": "8", "boosted": "1"})
    session, _, shown = make(tmp_path, [bomb])
    session.handle(Intent.ROLL)
    assert shown[-1].reroll_offered
    prompt = session.prompt
    session.prompt = lambda *args, **kw: (prompt(*args, **kw), kw.get("reroll_offered")
                                          and session.intents.put(Intent.NEXT))
    session.handle(Intent.ROLL)
    assert list(session.journal.entries(kind="outcome"))[-1].data["outcome"] == "abandoned"
    session.handle(Intent.REROLL)
    assert "nothing to re-roll yet" in shown[-1].prompt


def test_a_ruling_given_up_after_a_reroll_before_its_next_dice_journals_the_reroll(tmp_path):
    session, _, shown = make(tmp_path, [FIRE_BOMB])
    offered = []

    def press(state, headline, text, **kw):       # RE-ROLL when offered, NEXT at the deviation
        prompt(state, headline, text, **kw)
        if kw.get("reroll_offered"):
            offered.append(text)
            session.intents.put(Intent.REROLL)
        elif offered and state == "waiting" and "deviation" in text:
            session.intents.put(Intent.NEXT)
    prompt, session.prompt = session.prompt, press
    session.handle(Intent.ROLL)
    abandoned = list(session.journal.entries(kind="outcome"))[-1]
    assert abandoned.data["outcome"] == "abandoned" and abandoned.data["rules"] == ["DICE-4"]
    assert "re-roll is used" in abandoned.data["steps"][0]["text"]
    assert len(session.journal.readings_of(abandoned.id)) == 2      # the roll and its re-roll


def test_a_journal_changed_under_the_station_is_said_on_every_screen(tmp_path):
    session, _, shown = make(tmp_path, [ROLL_2D6], laser=Laser([254.0, 254.0, 254.0]))
    session.handle(Intent.MEASURE)
    session.handle(Intent.MEASURE)
    assert "journal" not in shown[-1].hardware
    db = sqlite3.connect(tmp_path / "j.sqlite")       # someone deletes the last entry
    db.execute("DELETE FROM entries WHERE id=(SELECT max(id) FROM entries)")
    db.commit()
    db.close()
    session.handle(Intent.MEASURE)
    assert shown[-1].hardware["journal"].startswith(
        "changed under the station: a break is recorded as #3")
    session.handle(Intent.NEXT)
    assert "journal" in shown[-1].hardware
