"""The camera as a dice source: exactly the dice asked for, or a plain word about what is wrong."""

import queue

import numpy as np
import pytest

from station.controls import Intent
from station.rules.actions import parse_params, reroll_now, resolve
from station.rules.faces import Face, RerollNow
from station.service.tray_source import Cancelled, TraySource, judge, looks_different
from station.vision.types import DetectedDie


def die(value, x=100.0, y=100.0, kind="d6", flags=(), bearing=None):
    return DetectedDie(kind, value, (x, y), 0.95, "red", list(flags), bearing)


class Host:
    """Records what the session would show and journal."""

    def __init__(self, intents=()):
        self.screens, self.readings, self.lived = [], [], 0
        self.offered = []                # prompts that offered a RE-ROLL (DICE-4)
        self.intents = queue.Queue()
        for intent in intents:
            self.intents.put(intent)

    def prompt(self, state, headline, prompt, *, level="info", frame=None, marks=None,
               reroll_offered=False):
        self.screens.append((state, headline, prompt, level))
        if reroll_offered:
            self.offered.append(prompt)

    def next_intent(self, timeout):
        try:
            return self.intents.get_nowait()
        except queue.Empty:
            return None

    def live(self, frame):
        self.lived += 1

    def journal_reading(self, data, dice, frame):
        self.readings.append((data, dice, frame is not None))
        return len(self.readings)


class Camera:
    """Frames are integers standing for trays; `trays[i]` is what the reader sees on tray i."""

    def __init__(self, trays):
        self.trays, self.index, self.expected = trays, -1, []

    def expect(self, kind, count, purpose):
        self.index += 1
        self.expected.append((kind, count))

    def capture(self):
        return np.full((4, 4, 3), self.index, np.uint8)


class Watcher:
    """Still on the third frame it is fed: tumbling, tumbling, still."""

    def __init__(self):
        self.fed = 0

    def feed(self, frame, t):
        self.fed += 1
        return "still" if self.fed >= 3 else "moving"


def source(host, trays, **kw):
    camera = Camera(trays)
    tray = TraySource(host, camera, lambda frame: trays[int(frame[0, 0, 0])], Watcher, fps=1000, **kw)
    return tray, camera


def test_judge_accepts_exactly_the_dice_asked_for_in_reading_order():
    verdict = judge([die(5, x=300), die(2, x=100)], "d6", 2)
    assert verdict.faces == [Face("d6", 2), Face("d6", 5)]
    assert sorted(m.label for m in verdict.marks) == ["2", "5"]


@pytest.mark.parametrize("dice, words", [
    ([die(5), die(2), die(1)], "the tray shows 3 d6, 2 asked for: take 1 out"),
    ([die(5)], "the tray shows 1 d6, 2 asked for: roll all 2 d6"),
    ([die(5), die(None, flags=["cocked"])], "re-roll the cocked die"),
    ([die(5), die(None, flags=["unreadable"])], "re-roll the unreadable die"),
    # one leaning die seen twice, its top and a side: not "take 1 out"
    ([die(5), die(3, x=300), die(None, x=320, flags=["cocked"])], "re-roll the cocked die"),
])
def test_judge_says_what_is_wrong(dice, words):
    verdict = judge(dice, "d6", 2)
    assert verdict.faces is None
    assert verdict.problem.startswith(words)


def test_one_die_asked_for_is_not_all_of_them():
    assert judge([], "d6", 1).problem == "the tray shows 0 d6, 1 asked for: roll 1 d6"


def test_scatter_bearing_is_kept():
    verdict = judge([die("arrow", kind="scatter", bearing=123.4)], "scatter", 1)
    assert verdict.faces == [Face("scatter", "arrow", 123.4)]


def test_waits_for_still_dice_then_reads_and_journals():
    host = Host()
    tray, camera = source(host, [[die(3), die(6, x=200)]])
    assert tray.take("d6", 2, "2 d6: attack roll") == [Face("d6", 3), Face("d6", 6)]
    assert camera.expected == [("d6", 2)]
    states = [s[0] for s in host.screens]
    assert states == ["waiting", "settling", "reading"]
    assert host.screens[0][2] == "Roll 2 d6: attack roll"
    assert host.readings[0][0]["accepted"] and host.readings[0][2]     # with its frame
    assert tray.readings == [1]
    assert host.lived == 2                      # the two frames before the dice lay still


def test_a_cocked_die_is_journalled_shown_and_rolled_again():
    host = Host()
    trays = [[die(3), die(None, flags=["cocked"])], [die(3), die(4, x=200)]]
    camera = Camera(trays)
    reads = iter(trays)
    tray = TraySource(host, camera, lambda frame: next(reads), Watcher, fps=1000)
    assert tray.take("d6", 2, "2 d6: attack roll") == [Face("d6", 3), Face("d6", 4)]
    problems = [s for s in host.screens if s[3] == "warn"]
    assert problems and problems[0][2] == "Re-roll the cocked die"
    assert [r[0]["accepted"] for r in host.readings] == [False, True]
    assert tray.readings == [2]


def test_dice_rolled_together_serve_the_next_request_from_the_same_reading():
    # SCAT-1: the scatter die and the artillery die are rolled together
    host = Host()
    tray_dice = [die("arrow", kind="scatter", bearing=80.0), die(6, x=300, kind="artillery")]
    tray, camera = source(host, [tray_dice])
    assert tray.take("scatter", 1, "1 scatter die") == [Face("scatter", "arrow", 80.0)]
    assert tray.take("artillery", 1, "1 artillery die") == [Face("artillery", 6)]
    assert camera.expected == [("scatter", 1)] and len(host.readings) == 1
    assert tray.readings == [1] and [m.label for m in tray.last_marks] == ["ARROW 80°", "6"]


def test_held_dice_that_do_not_fit_are_rolled_again():
    host = Host()
    trays = [[die("hit", kind="scatter"), die(None, x=300, kind="artillery", flags=["cocked"])],
             [die(4, kind="artillery")]]
    tray, camera = source(host, trays)
    tray.take("scatter", 1, "1 scatter die")
    assert tray.take("artillery", 1, "1 artillery die") == [Face("artillery", 4)]
    assert any(s[2] == "Re-roll the cocked artillery die" for s in host.screens)
    assert camera.expected == [("scatter", 1), ("artillery", 1)]


def test_next_cancels_a_roll():
    host = Host([Intent.NEXT])
    tray, _ = source(host, [[die(3)]])
    with pytest.raises(Cancelled):
        tray.take("d6", 1, "1 d6: test")


def test_no_roll_in_time_cancels():
    class Never(Watcher):
        def feed(self, frame, t):
            return "moving"
    host = Host()
    tray = TraySource(host, Camera([[]]), lambda f: [], Never, fps=1000, timeout=0.05)
    with pytest.raises(Cancelled, match="no still roll"):
        tray.take("d6", 1, "1 d6: test")


def test_manual_entry_with_the_buttons():
    # long press, then: ROLL ROLL (1 -> 3) NEXT, NEXT (1): faces 3 and 1
    host = Host([Intent.MANUAL, Intent.ROLL, Intent.ROLL, Intent.NEXT, Intent.NEXT])
    tray, _ = source(host, [[die(6)]])
    assert tray.take("d6", 2, "2 d6: attack roll") == [Face("d6", 3), Face("d6", 1)]
    assert host.readings[-1][0]["manual"] and not host.readings[-1][2]
    assert tray.manual                      # the rest of the ruling is typed in too


def test_manual_scatter_entry_gives_a_bearing():
    host = Host([Intent.ROLL, Intent.ROLL, Intent.NEXT])
    tray = TraySource(host, Camera([[]]), lambda f: [], Watcher, manual=True)
    assert tray.take("scatter", 1, "scatter die") == [Face("scatter", "arrow", 30.0)]


def test_the_tray_of_the_last_outcome_is_not_read_again_until_the_dice_move():
    class Still(Camera):
        def capture(self):
            return frame

    class Quiet:                                       # nothing moves in this tray
        def feed(self, frame, t):
            return "still"

    frame = np.zeros((120, 160, 3), np.uint8)
    frame[40:60, 40:60] = 255
    host = Host()
    tray = TraySource(host, Still([[die(3)]]), lambda f: [die(3)], Quiet, fps=1000,
                      timeout=0.05, previous=frame.copy())
    with pytest.raises(Cancelled):                     # same dice, same place: no new roll
        tray.take("d6", 1, "1 d6: test")
    moved = frame.copy()
    moved[40:60, 40:60] = 0
    moved[70:90, 100:120] = 255
    tray = TraySource(host, Still([[die(3)]]), lambda f: [die(5)], Quiet, fps=1000,
                      timeout=1, previous=moved)
    assert tray.take("d6", 1, "1 d6: test") == [Face("d6", 5)]     # rolled before ROLL: read


def test_looks_different_ignores_noise():
    rng = np.random.default_rng(0)
    tray = rng.integers(60, 200, (480, 640, 3)).astype(np.uint8)
    noisy = np.clip(tray.astype(int) + rng.integers(-6, 7, tray.shape), 0, 255).astype(np.uint8)
    assert not looks_different(tray, noisy)
    moved = tray.copy()
    moved[100:160, 100:160] = 255
    assert looks_different(tray, moved)


def test_roll_on_an_empty_tray_waits_quietly_for_the_dice():
    class Scripted:                    # still (empty), then a hand and tumbling dice, still
        def __init__(self):
            self.seen = iter(["still", "hand", "rolling", "still"])

        def feed(self, frame, t):
            return next(self.seen)

    host = Host()
    trays = [[], [die(2)]]
    reads = iter(trays)
    tray = TraySource(host, Camera(trays), lambda frame: next(reads), Scripted, fps=1000)
    assert tray.take("d6", 1, "1 d6: test") == [Face("d6", 2)]
    assert not [s for s in host.screens if s[3] == "warn"]      # no "the tray shows 0 d6"
    assert len(host.readings) == 1                              # the empty tray is not kept


@pytest.mark.parametrize("still_frames", [1, 3, 8])
def test_the_frame_read_is_the_mean_of_the_last_still_frames(still_frames):
    # two frames of tumbling dice, then four of still ones that differ by sensor noise only
    frames = [np.full((4, 4, 3), v, np.uint8) for v in (250, 240, 96, 100, 104, 108)]
    states = ["rolling", "rolling", "quiet", "quiet", "quiet", "still"]

    class Filmed:
        def capture(self):
            return frames.pop(0)

    class Scripted:
        def feed(self, frame, t):
            return states.pop(0)

    seen = []

    def read(frame):
        seen.append(frame)
        return [die(4)]

    tray = TraySource(Host(), Filmed(), read, Scripted, fps=1000, still_frames=still_frames)
    assert tray.take("d6", 1, "1 d6: test") == [Face("d6", 4)]
    # the last min(still_frames, 4) still frames: never the tumbling ones
    expected = {1: 108, 3: 104, 8: 102}[still_frames]
    assert seen[0].shape == (4, 4, 3) and (seen[0] == expected).all()


@pytest.mark.parametrize("capture_s, sleeps", [(0.03, 0.02), (0.05, None), (0.08, None)])
def test_frames_come_at_the_set_rate_whatever_the_capture_costs(capture_s, sleeps):
    # A camera that blocks until its next frame (the Pi camera) spends part of each frame
    # period in capture: the source sleeps only what is left of it, so 20 fps stay 20 fps.
    now = [0.0]
    slept = []

    class Blocking(Camera):
        def capture(self):
            now[0] += capture_s
            return super().capture()

    def sleep(seconds):
        slept.append(seconds)
        now[0] += seconds

    tray = TraySource(Host(), Blocking([[die(3)]]), lambda frame: [die(3)], Watcher, fps=20,
                      clock=lambda: now[0], sleep=sleep)
    assert tray.take("d6", 1, "1 d6") == [Face("d6", 3)]
    assert slept == ([pytest.approx(sleeps)] * 2 if sleeps else [])


def test_special_dice_are_counted_in_words():
    two = [die(6, kind="artillery"), die(4, x=300, kind="artillery")]
    assert judge(two, "artillery", 1).problem.startswith(
        "the tray shows 2 artillery dice, 1 asked for: take 1 out")


def test_a_typed_scatter_arrow_shows_its_bearing_and_where_it_is_measured_from():
    host = Host([Intent.ROLL, Intent.ROLL, Intent.ROLL, Intent.NEXT])    # hit, 0°, 30°, 60°
    tray = TraySource(host, Camera([[]]), lambda f: [], Watcher, manual=True)
    assert tray.take("scatter", 1, "1 scatter die") == [Face("scatter", "arrow", 60.0)]
    last = [s for s in host.screens if s[0] == "manual"][-1]
    assert last[1] == "ARROW 60°" and "clockwise from the tray's up edge" in last[2]
    assert "RE-ROLL cancels" in last[2]


def test_a_rulings_next_roll_keeps_the_last_one_in_sight_and_asks_to_check_a_doubtful_die():
    # a throw: the attacker's die, then the target's; the attacker's 5 was read unsure
    host = Host()
    unsure = DetectedDie("d6", 5, (100.0, 100.0), 0.5, "red", [], None)
    trays = [[unsure], [die(2)]]
    camera = Camera(trays)
    reads = iter(trays)
    tray = TraySource(host, camera, lambda frame: next(reads), Watcher, fps=1000)
    tray.take("d6", 1, "1 d6: attacker's throw contest")
    tray.take("d6", 1, "1 d6: target's throw contest")
    waiting = [s for s in host.screens if s[0] == "waiting"]
    assert waiting[-1][2] == ("CHECK the die marked ? before you pick it up; then roll "
                              "1 d6: target's throw contest (read: 5?)")


AOE = ["rat=5", "def=14", "pow=12", "aoe=4", "rng=10", "distance=8"]


def test_reroll_pressed_before_the_deviation_rerolls_the_attack_roll():
    # a miss (2+2+5 < 14); RE-ROLL while the deviation is asked for; the re-roll hits
    host = Host()
    trays = [[die(2), die(2, x=300)], [], [die(6), die(5, x=300)]]
    tray, camera = source(host, trays)
    prompt = host.prompt
    host.prompt = lambda *args, **kw: (prompt(*args, **kw), kw.get("reroll_offered")
                                       and host.intents.put(Intent.REROLL))
    params = parse_params("wm.aoe", AOE)
    with pytest.raises(RerollNow) as now:
        resolve("wm.aoe", params, tray)
    assert host.offered[0].endswith("or first RE-ROLL the attack roll (DICE-4)")
    outcome = reroll_now("wm.aoe", params, now.value.faces, tray)
    assert outcome.outcome == "direct_hit" and [f.value for f in outcome.dice] == [2, 2, 6, 5]
    assert len(host.offered) == 1 and tray.reroll_offer is None


def test_reroll_before_the_next_roll_is_not_offered_once_those_dice_are_read():
    host = Host([Intent.REROLL])          # pressed during the attack roll: nothing to re-roll
    trays = [[die(2), die(2, x=300)], [die(3)], [die(4)]]
    tray, _ = source(host, trays)
    outcome = resolve("wm.aoe", parse_params("wm.aoe", AOE), tray)
    assert outcome.outcome == "deviated" and outcome.reroll_passed and not outcome.rerollable
    assert len(host.offered) == 1 and tray.reroll_offer is None


def test_typing_the_dice_in_re_roll_is_offered_at_the_next_rolls_first_die():
    # typed 1+1 (a miss); at the deviation's first die RE-ROLL re-rolls the attack roll
    host = Host([Intent.NEXT, Intent.NEXT, Intent.REROLL])
    tray = TraySource(host, Camera([[]]), lambda f: [], Watcher, manual=True)
    params = parse_params("wm.aoe", AOE)
    with pytest.raises(RerollNow) as now:
        resolve("wm.aoe", params, tray)
    assert now.value.faces == [Face("d6", 1), Face("d6", 1)]
    assert host.offered and "RE-ROLL re-rolls the attack roll (DICE-4)" in host.offered[0]
    # the direction typed in: at the distance die it is too late, and RE-ROLL cancels
    host = Host([Intent.NEXT, Intent.NEXT, Intent.NEXT, Intent.REROLL])
    tray = TraySource(host, Camera([[]]), lambda f: [], Watcher, manual=True)
    with pytest.raises(Cancelled):
        resolve("wm.aoe", params, tray)


def test_reroll_pressed_with_nothing_to_reroll_is_answered():
    host = Host([Intent.REROLL])          # during the attack roll itself
    tray, _ = source(host, [[die(2), die(2, x=300)]])
    assert tray.take("d6", 2, "2 d6: attack roll") == [Face("d6", 2), Face("d6", 2)]
    assert ("waiting", "ROLL 2 D6", "RE-ROLL: nothing to re-roll now (DICE-4); roll 2 d6: "
            "attack roll", "warn") in host.screens
