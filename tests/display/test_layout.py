"""The full layout's text column: what is drawn where, recorded from Pillow's draw calls."""

import dataclasses

from PIL import ImageDraw

from station.display.render import PLAIN, _share_lines, _wrapped, font, render
from station.display.screen import DieMark, face_label


def drawn_text(monkeypatch, screen, size=(800, 480)) -> list[tuple[str, float]]:
    """(text, bottom y) of every text `render` draws."""
    calls = []
    real = ImageDraw.ImageDraw.text

    def recording(self, xy, text, *args, **kwargs):
        f = kwargs.get("font")
        calls.append((text, xy[1] + (f.size if f is not None else 0)))
        return real(self, xy, text, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", recording)
    render(screen, size)
    return calls


def recorded(monkeypatch, method: str, keep=lambda kwargs: True) -> list[tuple]:
    """The xy of every `ImageDraw.<method>` call (whose keyword arguments `keep` accepts)
    made from now on."""
    calls = []
    real = getattr(ImageDraw.ImageDraw, method)

    def recording(self, xy, *args, **kwargs):
        if keep(kwargs):
            calls.append(tuple(xy))
        return real(self, xy, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, method, recording)
    return calls


def label_boxes(monkeypatch) -> list[tuple]:
    """The black boxes that dice labels are drawn on, as they are drawn."""
    return recorded(monkeypatch, "rectangle", lambda kwargs: kwargs.get("fill") == (0, 0, 0))


def test_a_long_ruling_cites_every_rule_above_the_bottom_bar(monkeypatch, screens):
    """A throw shows four rolls, three long details, the chance and five rule IDs (seen on
    the station, twenty-fifth session: the rules line ran under the bottom bar, three IDs
    lost). The rules and the chance get their room; the details are shortened instead."""
    long = "models with equal or smaller bases it contacts: knocked down, collateral 2d6 + STR"
    rules = ["WM-THR-1", "WM-DEV-1", "WM-THR-2", "WM-THR-3", "WM-THR-4"]
    throw = dataclasses.replace(
        screens["throw"], headline='THROWN 6.5", DEVIATES 5 x 1"', details=[long] * 4,
        rules=rules, odds=0.046, odds_of='thrown, deviating 1" in direction 5',
        rolls=screens["throw"].rolls * 2)
    for size in [(800, 480), (480, 320), (1920, 1080)]:
        bar_top = size[1] - round(58 * size[1] / 480)
        calls = drawn_text(monkeypatch, throw, size)
        cited = " ".join(text for text, bottom in calls if bottom <= bar_top)
        assert all(rule in cited for rule in rules), (size, cited)
        assert "chance 4.6%" in cited, size
        assert "models" in cited and "2d6 + STR" in cited, size     # a detail still shown


def test_details_that_fit_are_drawn_whole(monkeypatch, screens):
    """Room left, nothing is shortened."""
    calls = drawn_text(monkeypatch, screens["resolved"])
    texts = [text for text, _ in calls]
    assert "2D6+5: 4+5+5 = 14" in texts and "14 >= DEF 13: hit" in texts


def test_long_details_are_shown_whole_when_a_smaller_size_fits(monkeypatch, screens):
    """The scatter ruling's two details (seen on the station, forty-first session: each cut
    to two lines with an ellipsis while room was left below the rules): drawn whole, in a
    smaller size, with the journal number still in sight."""
    details = ['A = 2: moves 2" along 325.7° (dx -1.13", dy +1.65"), ignoring anything in the way',
               "arrow bearing 325.7° clockwise from the tray's up edge"]
    scatter = dataclasses.replace(screens["scatter"], details=details, entry_id=70,
                                  odds=0.111, odds_of='an arrow and 2" (any bearing)')
    texts = [text for text, _ in drawn_text(monkeypatch, scatter)]
    assert not any(text.endswith("…") for text in texts), texts
    assert "anything in the way" in " ".join(texts) and "journal #70" in texts


def test_a_detail_cut_short_keeps_its_verdict():
    """A rule's step ends with its verdict: cut at the end, "ranged attack roll: dice 2+6,
    +1 = 9, 9 <…" lost "DEF 12: miss" (a ranged attack into melee, at 800x480). The middle
    goes instead; the step's first word stays."""
    from PIL import Image
    draw = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    step = "ranged attack roll: dice 2+6, +1 = 9, 9 < DEF 12: miss"
    for width, lines in ((200, 1), (160, 2), (120, 3)):
        cut = _wrapped(step, font(20), width, lines)
        shown = " ".join(cut)
        assert len(cut) == lines and "…" in shown, cut
        assert shown.startswith("ranged") and shown.endswith("DEF 12: miss"), cut
        assert all(draw.textlength(line, font=font(20)) <= width for line in cut), cut
    assert _wrapped(step, font(20), 500, 1) == (step,)


def shown_whole(monkeypatch, screen, size=(800, 480)) -> list[str]:
    """The details of `screen` that `render` draws whole (word-wrapped, nothing left out)."""
    drawn = " ".join(text for text, _ in drawn_text(monkeypatch, screen, size))
    return [detail for detail in screen.details if detail.translate(PLAIN) in drawn]


def test_a_miss_into_melee_shows_its_three_steps_whole(monkeypatch, screens):
    """The worst screens of every ruling rendered at 800x480 (sixty-seventh session): a
    ranged attack into melee drew its MISS 112 px high, "attack roll bonus: RAT 5, target in
    mele…" and "ranged attack roll: dice 2+6, +1 = 9, 9 <…", and left the attack on the
    other model out. The result's letters are smaller now (64 px of 112 at the least)."""
    details = ["attack roll bonus: RAT 5, target in melee -4 → +1",
               "ranged attack roll: dice 2+6, +1 = 9, 9 < DEF 12: miss",
               "attack roll against model 2: dice 3+3, +1 = 7, 7 < DEF 12: miss"]
    melee = dataclasses.replace(
        screens["throw"], action="Into melee", headline="MISS", tone="bad", details=details,
        rules=["WM-RNG-4", "WM-RNG-2", "WM-MEL-1"], odds=0.874, entry_id=48,
        odds_of="a miss on the target and on the other model",
        rolls=screens["throw"].rolls + screens["throw"].rolls[:1])
    sizes = []
    real = ImageDraw.ImageDraw.text
    monkeypatch.setattr(ImageDraw.ImageDraw, "text", lambda self, xy, text, *a, **k: (
        sizes.append(k["font"].size) if text == "MISS" else None, real(self, xy, text, *a, **k))[1])
    assert shown_whole(monkeypatch, melee) == details
    assert sizes and sizes[-1] >= 64


def test_a_throw_with_four_rolls_shows_its_contest_and_deviation_whole(monkeypatch, screens):
    """A throw (four rolls, sixty-seventh session): "attacker 6+STR 11 = 17, target 4+STR
    9 = 13: thrown 11/2 + 1" (larger base) =…" and "deviates from the intended point:
    direction 1 (0° from the line of attack),…" lost the distance thrown and the d3. The
    tray takes less of the screen instead; what follows the throw may still be shortened."""
    details = ['attacker 6+STR 11 = 17, target 4+STR 9 = 13: thrown 11/2 + 1" (larger base) = 6.5"',
               'deviates from the intended point: direction 1 (0° from the line of attack), '
               'd3 from d6 3 → 2"',
               "knocked down; damage 2d6 + STR, +1 die on contact with an obstacle or an equal "
               "or larger base; boostable (wm.damage kind=throw)"]
    throw = dataclasses.replace(
        screens["throw"], headline='THROWN 6.5", DEVIATES 1 × 2"', details=details,
        rules=["WM-THR-1", "WM-DEV-1", "WM-THR-2", "WM-THR-3", "WM-THR-4"], odds=0.046,
        odds_of='thrown, deviating 2" in direction 1', rolls=screens["throw"].rolls * 2)
    assert shown_whole(monkeypatch, throw)[:2] == details[:2]


def test_with_room_for_one_detail_the_one_the_result_rests_on_is_kept(screens):
    """A ranged attack's DEF and bonus steps came before its attack roll, and a screen with
    room for one line showed the DEF step: the roll that decided it goes first now."""
    from PIL import Image
    from station.display.render import _detail_lines
    draw = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    ranged = dataclasses.replace(screens["resolved"], key_detail=2, details=[
        "DEF 13: cover +4, elevated +2 → 19", "attack roll bonus: RAT 6, aim +2 → +8",
        "ranged attack roll: dice 4+1, +8 = 13, 13 < DEF 19: miss"])
    small = font(12)
    for room, shown in ((15, [2]), (15 * 2 + 4, [0, 2]), (15 * 3 + 8, [0, 1, 2])):
        lines, whole = _detail_lines(draw, ranged, small, 400, room, 4)
        assert [" ".join(l) for l in lines] == [ranged.details[i].translate(PLAIN) for i in shown]
        assert whole == (len(shown) == 3)


def test_a_caption_too_long_for_its_cell_keeps_to_it():
    """A throw's five rolls in three columns: "2 d6: attack roll against the model thrown at"
    ran into the next roll's caption, even at the smallest size."""
    from PIL import Image
    from station.display.render import _fitted
    draw = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    text, f, _ = _fitted(draw, "2 d6: attack roll against the model thrown at", 16, 100, False)
    assert draw.textlength(text, font=f) <= 100 and text.endswith("thrown at"), text


def test_details_share_the_room_line_by_line():
    """Every detail gets a line before any gets a second; none is left half-listed."""
    assert _share_lines([3, 3], room=4 * 30 + 10, line_height=30, gap=4) == [2, 2]
    assert _share_lines([1, 3], room=4 * 30 + 10, line_height=30, gap=4) == [1, 3]
    assert _share_lines([2, 2, 2], room=30, line_height=30, gap=4) == [1]
    assert _share_lines([2, 2], room=10, line_height=30, gap=4) == []
    assert _share_lines([], room=100, line_height=30, gap=4) == []


def test_labels_of_dice_side_by_side_do_not_cover_each_other(monkeypatch, screens):
    """A scatter die with an artillery die just right of it (seen on the station, thirty-first
    session: "ARROW 184°" and "MF" drawn over each other, "ARROW 1MF'"). The second label
    goes elsewhere; each label's black box is drawn whole."""
    boxes = label_boxes(monkeypatch)
    side_by_side = dataclasses.replace(
        screens["scatter"], marks=[DieMark((180, 160), "ARROW 184°", "grey", "", 183.7),
                                   DieMark((230, 160), "MF", "blue")])
    render(side_by_side, (800, 480))
    assert len(boxes) == 2
    (a0, a1, a2, a3), (b0, b1, b2, b3) = boxes
    assert not (a0 < b2 and b0 < a2 and a1 < b3 and b1 < a3), boxes


def test_a_label_leaves_its_scatter_arrow_in_sight(monkeypatch, screens):
    """An arrow pointing up, where a label goes first (above right, or above left by the
    picture's edge): the label goes elsewhere (seen on the station: "ARROW 326°" drawn
    over the arrow it names)."""
    boxes, lines = label_boxes(monkeypatch), recorded(monkeypatch, "line")
    for bearing in (20.0, 45.0, 70.0, 290.0, 315.0, 340.0):
        boxes.clear(), lines.clear()
        up_right = dataclasses.replace(screens["scatter"], marks=[
            DieMark((300, 300), f"ARROW {bearing:.0f}°", "white", "", bearing)])
        render(up_right, (800, 480))
        (x0, y0, x1, y1), = boxes
        shaft = [xy for xy in lines if len(xy) == 4][0]      # from the die to the tip
        points = [(shaft[0] + (shaft[2] - shaft[0]) * k / 20,
                   shaft[1] + (shaft[3] - shaft[1]) * k / 20) for k in range(21)]
        assert not any(x0 < x < x1 and y0 < y < y1 for x, y in points), bearing


def test_a_label_goes_nearer_its_own_die_than_its_neighbour(monkeypatch, screens):
    """A scatter die near the picture's lower right, its arrow up-left, an artillery die to
    its left (the seed-13 scatter screen, thirty-third session): "ARROW 326°" went below
    left, under the artillery die, as if it named that one. Each label's middle is now
    nearer its own die's ring than the other die's."""
    boxes, ellipses = label_boxes(monkeypatch), recorded(monkeypatch, "ellipse")
    neighbours = dataclasses.replace(screens["scatter"], marks=[
        DieMark((560, 420), "ARROW 326°", "white", "", 325.7),
        DieMark((420, 415), "2", "grey")])
    render(neighbours, (800, 480))
    rings = [((x0 + x1) / 2, (y0 + y1) / 2) for x0, y0, x1, y1 in ellipses]
    assert len(rings) == len(boxes) == 2
    for own, box in enumerate(boxes):
        mx, my = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        near = [((mx - x) ** 2 + (my - y) ** 2) ** 0.5 for x, y in rings]
        assert near[own] < near[1 - own], (own, box, rings)


def test_a_small_screen_with_room_shows_the_details_under_the_result(monkeypatch, screens):
    """320x240: the dice read and the rule's arithmetic under the big result, as on the full
    layout; 128x64 has no room for them."""
    from station.display.render import render_compact
    calls = []
    real = ImageDraw.ImageDraw.text
    monkeypatch.setattr(ImageDraw.ImageDraw, "text", lambda self, xy, text, *a, **k: (
        calls.append(text), real(self, xy, text, *a, **k))[1])
    render_compact(screens["resolved"], (320, 240))
    assert "2D6+5: 4+5+5 = 14" in calls and "14 >= DEF 13: hit" in calls
    assert "WM-RNG-2" in " ".join(calls)                  # the rule, still cited
    calls.clear()
    render_compact(screens["resolved"], (128, 64))
    assert not any("DEF 13" in text for text in calls)


def compact_text(monkeypatch, screen, size) -> str:
    """Every text `render_compact` draws, one line, its doubled spaces single."""
    from station.display.render import render_compact
    calls = []
    real = ImageDraw.ImageDraw.text
    monkeypatch.setattr(ImageDraw.ImageDraw, "text", lambda self, xy, text, *a, **k: (
        calls.append(text), real(self, xy, text, *a, **k))[1])
    render_compact(screen, size)
    return " ".join(" ".join(text.split()) for text in calls)


RANGED = ["DEF 13: cover +4, elevated +2 → 19",
          "attack roll bonus: RAT 6, aim +2, back strike +2 → +10",
          "boosted ranged attack roll: dice 4+1+1, +10 = 16, 16 < DEF 19: miss"]


def test_small_screens_keep_what_the_result_rests_on(monkeypatch, screens):
    """A ranged attack with its modifiers on small LCDs (sixty-seventh session): at 320x240
    its three steps were cut to a line each in 24 px letters ("attack roll bonus: RAT 6,
    ai…"); at 240x240 too; at 128x128 the attack roll was left out and the prompt lost
    "MEASURE". Now whole where smaller letters allow it, and the roll that decided it, with
    its verdict, where they do not."""
    ranged = dataclasses.replace(screens["resolved"], headline="MISS", tone="bad",
                                 details=RANGED, key_detail=2, rules=["WM-RNG-5", "WM-RNG-4"])
    for size in [(320, 240), (240, 240)]:
        drawn = compact_text(monkeypatch, ranged, size)
        assert all(detail.translate(PLAIN) in drawn for detail in RANGED), (size, drawn)
    for size in [(160, 128), (128, 128)]:
        drawn = compact_text(monkeypatch, ranged, size)
        assert "16 < DEF 19: miss" in drawn and "MEASURE" in drawn, (size, drawn)
        assert "MISS" in drawn and "58.3%" in drawn, (size, drawn)         # the result, its chance


def test_an_oled_shows_the_whole_prompt(monkeypatch, screens):
    """128x64: a prompt too wide for one line even at the smallest size goes on two lines
    (it was cut: "ROLL again, NEXT action, MEAS"); the result and the rule stay."""
    from station.display.render import render_compact
    calls = []
    real = ImageDraw.ImageDraw.text
    monkeypatch.setattr(ImageDraw.ImageDraw, "text", lambda self, xy, text, *a, **k: (
        calls.append((text, xy[1])), real(self, xy, text, *a, **k))[1])
    render_compact(screens["resolved"], (128, 64))
    y = {" ".join(text.split()): y for text, y in calls}
    assert "ROLL again, NEXT action," in y and "MEASURE" in y, y
    assert y["ROLL again, NEXT action,"] < y["MEASURE"] <= 64 - 9      # both on the screen
    assert "HIT" in y and any("WM-RNG-2" in text for text in y)


def test_the_rule_under_the_action_clears_its_descenders(monkeypatch, screens):
    """320x240: the line under the action ran through "Impaler spear"'s p's."""
    from PIL import Image
    from station.display.render import font, render_compact
    lines = recorded(monkeypatch, "line")
    render_compact(screens["resolved"], (320, 240))
    descenders = ImageDraw.Draw(Image.new("RGB", (1, 1))).textbbox(
        (0, 0), "Impaler spear", font=font(240 // 7))[3]
    assert lines and lines[0][1] > descenders


def test_a_die_label_writes_an_arrow_just_short_of_north_as_0_degrees():
    assert face_label("arrow", 359.7) == "ARROW 0°"       # SCAT-2: bearings 0 to under 360
    assert face_label("arrow", 117.4) == "ARROW 117°"
    assert face_label("misfire") == "MF" and face_label(4) == "4"


def test_an_action_named_in_cyrillic_is_drawn_in_letters_not_boxes():
    # Pillow's own font has no Cyrillic: every letter would be the same empty box, so two
    # different names of one length would draw the same title
    import numpy as np
    import pytest
    from station.display.render import _unicode_font, render_compact
    from station.display.screen import Screen
    if _unicode_font() is None:
        pytest.skip("no DejaVu Sans on this machine (apt install fonts-dejavu-core)")
    for draw, size in ((render, (800, 480)), (render_compact, (128, 64))):
        titles = [np.asarray(draw(Screen(state="idle", action=name), size))[: size[1] // 5]
                  for name in ("Импалер", "Копьеца")]
        assert not np.array_equal(*titles), draw.__name__


def test_signs_are_spelled_in_ascii_only_where_the_font_lacks_them(monkeypatch, screens):
    """Pillow's font has no ≥ or →, so a screen drawn in it writes >= and ->; a screen drawn
    in DejaVu Sans (an action named in Cyrillic) has them, and drew >= and -> all the same."""
    import pytest
    from station.display.render import _unicode_font
    if _unicode_font() is None:
        pytest.skip("no DejaVu Sans on this machine (apt install fonts-dejavu-core)")
    details = ["DEF 13: cover +4 → 17", "ranged attack roll: dice 6+6, +5 = 17, 17 ≥ DEF 17: hit"]
    latin = dataclasses.replace(screens["resolved"], headline="HIT ≥ DEF", details=details)
    cyrillic = dataclasses.replace(latin, action="Импалер")
    for size in [(800, 480), (320, 240)]:
        for screen, signs in ((latin, ("->", ">=")), (cyrillic, ("→", "≥"))):
            drawn = (" ".join(text for text, _ in drawn_text(monkeypatch, screen, size))
                     if size == (800, 480) else compact_text(monkeypatch, screen, size))
            assert "HIT " + signs[1] in drawn and "cover +4 " + signs[0] in drawn, (size, drawn)
            assert "17 " + signs[1] + " DEF 17: hit" in drawn, (size, drawn)


def test_a_small_screen_with_room_shows_the_journal_id_and_seal(monkeypatch, screens):
    """What players note to check the journal by (`journal verify --head`): on LCDs of 120 px
    and more, with the details still whole (else the details come first: at 128x128 they need
    every line); a 128x64 OLED has no line for it."""
    sealed = dataclasses.replace(screens["resolved"], entry_id=42, seal="3fa9c2e107bd")
    for size in [(320, 240), (240, 240), (160, 128)]:
        drawn = compact_text(monkeypatch, sealed, size)
        assert "journal #42 · seal 3fa9c2e107bd".translate(PLAIN) in drawn, (size, drawn)
    drawn = compact_text(monkeypatch, sealed, (320, 240))
    assert "2D6+5: 4+5+5 = 14" in drawn and "14 >= DEF 13: hit" in drawn
    assert "seal" not in compact_text(monkeypatch, sealed, (128, 64))
