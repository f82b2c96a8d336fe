"""Draw a `Screen` as a picture (Pillow): the full layout for HDMI/DSI and a compact one.

Full layout, made to be read from across a table: a top bar with the action and the state;
the tray image on the left with every die's value marked beside it (flagged dice in red);
the result in big letters on the right, with the sums, the chance of this result and the
rule IDs under it; a bottom bar with what to do next or what is wrong.

The compact layout fits small OLED/LCD screens (128x64 up to 320x240): action, the big
result, chance and first rule, the prompt.

Fonts: Pillow's own scalable font, so the picture is the same on every machine (the golden
images depend on it). It has Latin letters only: a screen with other text (an action named in
Cyrillic) is drawn whole in DejaVu Sans, which Raspberry Pi OS and Debian have
(fonts-dejavu-core); without it such letters show as boxes, and the log says what to install.
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import logging
import math
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from station.display.labels import PAD, place_labels
from station.display.screen import DieMark, Screen, TrayView

log = logging.getLogger(__name__)

BACKGROUND = (18, 20, 24)
PANEL = (34, 38, 46)
TEXT = (236, 238, 242)
MUTED = (150, 158, 172)
ACCENT = (250, 196, 60)
TONE_COLOURS = {"good": (92, 214, 120), "bad": (255, 96, 88), "neutral": (240, 240, 240)}
LEVEL_COLOURS = {"info": (44, 62, 92), "warn": (150, 104, 20), "error": (160, 36, 36)}
MARK_OK = (250, 196, 60)
MARK_PROBLEM = (255, 70, 60)
MARK_CHECK = (255, 128, 40)       # a value read less than CHECK_BELOW sure: look at the die
COMPACT_DETAILS_FROM = 120        # pixels high: a small screen this tall shows the details too


# Characters the rules' texts use that the bundled font has no glyph for.
PLAIN = str.maketrans({"≥": ">=", "≤": "<=", "→": "->", "×": "x", "½": "1/2", "—": "-",
                       "−": "-", "✓": "ok"})


UNICODE_FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",    # Debian, Pi OS
                 "/usr/share/fonts/TTF/DejaVuSans.ttf",                 # Arch
                 "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",   # Fedora
                 "/System/Library/Fonts/Supplemental/Arial Unicode.ttf")
_wide = contextvars.ContextVar("wide", default=False)   # this screen needs the Unicode font


def font(size: int) -> ImageFont.FreeTypeFont:
    return _font(size, _wide.get())


@functools.lru_cache(maxsize=64)
def _font(size: int, wide: bool) -> ImageFont.FreeTypeFont:
    path = _unicode_font() if wide else None
    return ImageFont.truetype(path, size) if path else ImageFont.load_default(size=size)


@functools.cache
def _unicode_font() -> str | None:
    found = next((path for path in UNICODE_FONTS if Path(path).is_file()), None)
    if found is None:
        log.warning("a screen has letters Pillow's font lacks (an action's name?): they show "
                    "as boxes; install DejaVu Sans (apt install fonts-dejavu-core)")
    return found


def _needs_wide(screen: Screen) -> bool:
    """Does any text on the screen (an action's name, a prompt) go beyond Latin-1?"""
    text = " ".join(str(getattr(screen, f.name)) for f in dataclasses.fields(screen)
                    if f.name not in ("frame", "rolls"))              # pictures, not text
    return any(ord(ch) > 0xFF for ch in text.translate(PLAIN))


def _drawn_with_its_font(draw_screen):
    """`render`, `render_compact`: the whole screen in the font its text needs."""
    @functools.wraps(draw_screen)
    def drawn(screen: Screen, *args, **kwargs) -> Image.Image:
        token = _wide.set(_needs_wide(screen))
        try:
            return draw_screen(screen, *args, **kwargs)
        finally:
            _wide.reset(token)
    return drawn


@_drawn_with_its_font
def render(screen: Screen, size: tuple[int, int] = (800, 480)) -> Image.Image:
    """The full layout at `size` (width, height)."""
    width, height = size
    image = Image.new("RGB", size, BACKGROUND)
    draw = ImageDraw.Draw(image)
    unit = height / 480                           # everything scales with the height
    top, bottom = round(64 * unit), round(58 * unit)

    # top bar: action name, position in the carousel, state
    draw.rectangle((0, 0, width, top), fill=PANEL)
    state = screen.state_label
    state_font = font(round(22 * unit))
    state_w = draw.textlength(state, font=state_font)
    pill = (width - state_w - 36 * unit, 12 * unit, width - 12 * unit, top - 12 * unit)
    draw.rounded_rectangle(pill, radius=8 * unit, fill=_state_colour(screen))
    draw.text(((pill[0] + pill[2]) / 2, (pill[1] + pill[3]) / 2), state, font=state_font,
              fill=BACKGROUND, anchor="mm")
    position = f"{screen.position[0]}/{screen.position[1]}"
    pos_font = font(round(20 * unit))
    pos_x = pill[0] - 14 * unit - draw.textlength(position, font=pos_font)
    draw.text((pos_x, top / 2), position, font=pos_font, fill=MUTED, anchor="lm")
    _fit_text(draw, (14 * unit, top / 2), screen.action, round(34 * unit), pos_x - 30 * unit,
              fill=TEXT, anchor="lm", bold=True)

    # left: the tray as the camera saw it
    body = (0, top, width, height - bottom)
    tray_w = round(width * 0.5) if screen.frame is not None else 0
    tray_box = (round(10 * unit), body[1] + round(10 * unit), tray_w, body[3] - round(10 * unit))
    if len(screen.rolls) > 1:
        _draw_rolls(image, screen.rolls, tray_box, unit)
    elif screen.frame is not None:
        _draw_tray(image, screen.frame, screen.marks, tray_box)

    # right (or all): the result
    x0 = tray_w + round(22 * unit)
    x1 = width - round(18 * unit)
    y = body[1] + round(14 * unit)
    prompt = screen.prompt or _hint(screen)
    if screen.headline:
        y = _fit_text(draw, (x0, y), screen.headline, round(112 * unit), x1 - x0,
                      fill=TONE_COLOURS.get(screen.tone, TEXT), bold=True) + round(10 * unit)
    elif screen.level != "info" and screen.prompt:      # a problem: say it big, not only below
        big = font(round(38 * unit))
        y = _draw_lines(draw, (x0, y), _wrapped(draw, screen.prompt, big, x1 - x0, 4), big,
                        MARK_PROBLEM if screen.level == "error" else ACCENT) + round(10 * unit)
        prompt = _hint(screen)
    # the journal number and seal are the proof of a roll: the text above leaves them a line
    journal_line = round(24 * unit) if screen.entry_id is not None else 0
    y = _draw_under_result(draw, screen, (x0, y, x1, body[3] - round(6 * unit) - journal_line), unit)
    if screen.entry_id is not None and y <= body[3] - 24 * unit:
        _fit_text(draw, (x1, body[3] - 6 * unit), screen.journal_line(), round(18 * unit), x1 - x0,
                  fill=MUTED, anchor="rd")

    # bottom bar: what to do, or what is wrong
    draw.rectangle((0, height - bottom, width, height), fill=LEVEL_COLOURS.get(screen.level, PANEL))
    _fit_text(draw, (14 * unit, height - bottom / 2), prompt, round(26 * unit), width - 28 * unit,
              fill=TEXT, anchor="lm", bold=screen.level != "info")
    return image


@_drawn_with_its_font
def render_compact(screen: Screen, size: tuple[int, int] = (128, 64)) -> Image.Image:
    """The small-screen layout: action, big result, chance and rule, prompt."""
    width, height = size
    image = Image.new("RGB", size, (0, 0, 0))
    draw = ImageDraw.Draw(image)
    line = max(9, height // 7)
    white = (255, 255, 255)
    # the bundled font's space is 2 px wide at OLED sizes: double it so words stay apart
    spaced = (lambda text: text.replace(" ", "  ")) if line < 14 else (lambda text: text)
    rule = max(line, _fit_text(draw, (0, 0), spaced(screen.action), line, width, fill=white)) + 2
    draw.line((0, rule, width, rule), fill=white)             # under the action's descenders
    big = screen.headline or screen.state_label
    prompt = _compact_prompt(draw, screen.prompt or _hint(screen), line, width, spaced)
    lift = (len(prompt) - 1) * line               # a prompt on two lines takes from the result
    room = height - 2 * line - rule - 8 - lift    # between the rule under the action and the chance
    # a screen with room for more (320x240) shows the details under the result: the dice
    # read and the rule's arithmetic, as the full layout does
    details = screen.details if height >= COMPACT_DETAILS_FROM else []
    big_size = min(room, round(height / 4)) if details else room
    bottom = _fit_text(draw, (width / 2, rule + 4), big, big_size, width, fill=white,
                       anchor="mt", bold=True)
    if details:
        small = font(max(9, round(line * 0.7)))
        needs = [len(_wrapped(draw, detail, small, width, 99)) for detail in details]
        y = bottom + 4
        for detail, share in zip(details, _share_lines(needs, height - 2 * line - 8 - lift - y,
                                                       _line_height(small), 0)):
            y = _draw_lines(draw, (0, y), _wrapped(draw, detail, small, width, share), small, white)
    under = "  ".join(x for x in (screen.odds_percent(), screen.rules[0] if screen.rules else "") if x)
    _fit_text(draw, (0, height - 2 * line - 2 - lift), spaced(under), line, width, fill=white)
    for i, text in enumerate(prompt):
        _fit_text(draw, (0, height - (len(prompt) - i) * line - 1), text, line, width, fill=white)
    return image


def _compact_prompt(draw: ImageDraw.ImageDraw, prompt: str, line: int, width: int,
                    spaced) -> list[str]:
    """The prompt's lines on a small screen: one, its spaces doubled (`spaced`) when that
    fits at the smallest size, else as written; two lines when even that does not fit (a
    128x64 OLED cut "ROLL again, NEXT action, MEASURE" short)."""
    smallest = font(8)
    for text in (spaced(prompt), prompt):
        if draw.textlength(text.translate(PLAIN), font=smallest) <= width:
            return [text]
    return [spaced(text) for text in _wrapped(draw, prompt, font(line), width, 2)]


def _hint(screen: Screen) -> str:
    if screen.state == "manual":
        return "ROLL: next value   NEXT: next die   RE-ROLL: cancel"
    offer = "   RE-ROLL allowed" if screen.reroll_offered else ""
    return f"ROLL   MEASURE   NEXT action{offer}"


def _state_colour(screen: Screen) -> tuple[int, int, int]:
    if screen.state == "error" or screen.level == "error":
        return MARK_PROBLEM
    if screen.state in ("resolved", "measured"):
        return TONE_COLOURS["good"]
    if screen.state == "idle":
        return (120, 180, 255)
    return ACCENT


def _fit_text(draw: ImageDraw.ImageDraw, xy, text: str, size: int, max_width: float,
              *, fill, anchor: str = "la", bold: bool = False) -> float:
    """Draw `text` at the largest size up to `size` that fits `max_width`; return its bottom."""
    text = text.translate(PLAIN)
    size = max(size, 8)
    stroke = max(1, size // 28) if bold else 0
    while size > 8 and draw.textlength(text, font=font(size)) + 2 * stroke > max_width:
        size -= max(1, size // 10)
        stroke = max(1, size // 28) if bold else 0
    f = font(size)
    draw.text(xy, text, font=f, fill=fill, anchor=anchor, stroke_width=stroke, stroke_fill=fill)
    return draw.textbbox(xy, text, font=f, anchor=anchor, stroke_width=stroke)[3]


def _draw_under_result(draw: ImageDraw.ImageDraw, screen: Screen, box, unit: float) -> float:
    """The details, the chance, the rule IDs and any hardware problems in `box` (x0, y0, x1,
    y1) from its top; return the y below them. The chance, the rules (cited on screen,
    whatever else is cut) and the problems get their room first (a throw shows four rolls
    and four details: the rules line fell off the screen); the details take what is left,
    in the largest of four sizes that shows them whole, else in the smallest, sharing it
    (`_share_lines`): a detail given fewer lines than it needs ends with an ellipsis."""
    x0, y, x1, y1 = box
    width = x1 - x0
    body, small, tiny = font(round(26 * unit)), font(round(22 * unit)), font(round(20 * unit))
    facts = screen.odds_text()
    under = []                                    # (gap above, lines, font, colour)
    if facts:
        under.append((6 * unit, _wrapped(draw, facts, body, width, 2), body, ACCENT))
    if screen.rules:
        under.append((4 * unit if facts else 0, _wrapped(draw, "rules " + "  ".join(screen.rules), small,
                                         width, 4), small, MUTED))
    for name, problem in screen.hardware.items():
        under.append((4 * unit, _wrapped(draw, f"{name}: {problem}", tiny, width, 4), tiny,
                      MARK_PROBLEM))
    room_for_details = y1 - sum(gap + len(lines) * _line_height(f) for gap, lines, f, _ in under)
    gap = round(4 * unit)
    for detail_font in (body, font(round(24 * unit)), small, tiny):   # whole if they can be
        needs = [len(_wrapped(draw, line, detail_font, width, 99)) for line in screen.details]
        shares = _share_lines(needs, room_for_details - y, _line_height(detail_font), gap)
        if shares == needs:
            break
    for line, share in zip(screen.details, shares):
        y = _draw_lines(draw, (x0, y), _wrapped(draw, line, detail_font, width, share),
                        detail_font, TEXT) + gap
    for gap, lines, f, colour in under:
        y = _draw_lines(draw, (x0, y + gap), lines, f, colour)
    return y


def _share_lines(needs: list[int], room: float, line_height: float, gap: float) -> list[int]:
    """How many lines each detail gets of `room`: one each in order while they fit, then a
    second each, and so on up to what each needs; details with no line are left out (the
    list is cut there). Every detail is seen before any is drawn whole."""
    shares = [0] * len(needs)
    used = 0.0
    for round_ in range(1, max(needs, default=0) + 1):
        for i, need in enumerate(needs):
            if need < round_ or (round_ > 1 and shares[i] == 0):
                continue
            cost = line_height + (gap if shares[i] == 0 else 0)
            if used + cost - gap > room:            # the last detail's gap may hang over
                return [share for share in shares if share]
            shares[i] += 1
            used += cost
    return [share for share in shares if share]


def _line_height(f: ImageFont.FreeTypeFont) -> float:
    return f.size * 1.25


def _wrapped(draw: ImageDraw.ImageDraw, text: str, f: ImageFont.FreeTypeFont, max_width: float,
             max_lines: int) -> list[str]:
    """`text` word-wrapped to `max_width`, at most `max_lines` (the last one cut with an
    ellipsis)."""
    lines: list[str] = []
    line = ""
    for word in text.translate(PLAIN).split():
        trial = f"{line} {word}".strip()
        if line and draw.textlength(trial, font=f) > max_width:
            lines.append(line)
            line = word
        else:
            line = trial
    if line:
        lines.append(line)
    if len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and draw.textlength(last + "…", font=f) > max_width:
            last = last[:-1]
        lines = lines[:max_lines - 1] + [last.rstrip() + "…"]
    return lines


def _draw_lines(draw: ImageDraw.ImageDraw, xy, lines: list[str], f: ImageFont.FreeTypeFont,
                fill) -> float:
    """Draw `lines` one under another from `xy`; return the y below them."""
    x, y = xy
    for line in lines:
        draw.text((x, y), line, font=f, fill=fill)
        y += _line_height(f)
    return y


def _draw_rolls(image: Image.Image, rolls: list[TrayView], box, unit: float) -> None:
    """Several rolls of one ruling in `box`, in a grid (one column up to two rolls), each
    zoomed on its dice under a caption of what it was for."""
    x0, y0, x1, y1 = box
    columns = 1 if len(rolls) <= 2 else 2 if len(rolls) <= 4 else 3
    rows = math.ceil(len(rolls) / columns)
    gap, caption = round(8 * unit), round(20 * unit)
    cell_w = (x1 - x0 - gap * (columns - 1)) / columns
    cell_h = (y1 - y0 - gap * (rows - 1)) / rows
    draw = ImageDraw.Draw(image)
    for i, view in enumerate(rolls):
        left = round(x0 + (i % columns) * (cell_w + gap))
        top = round(y0 + (i // columns) * (cell_h + gap))
        _fit_text(draw, (left, top), view.caption or f"roll {i + 1}", round(16 * unit), cell_w,
                  fill=MUTED)
        _draw_tray(image, view.frame, view.marks,
                   (left, top + caption, round(left + cell_w), round(top + cell_h)))


def _draw_tray(image: Image.Image, frame: np.ndarray, marks: list[DieMark], box) -> None:
    """Paste the frame, zoomed on the dice, into `box` and mark each die with its value."""
    x0, y0, x1, y1 = box
    left, top, right, bottom = zoom_box(frame.shape[1], frame.shape[0], marks, (x1 - x0) / (y1 - y0))
    rgb = Image.fromarray(np.ascontiguousarray(frame[top:bottom, left:right, ::-1])
                          if frame.ndim == 3 else frame[top:bottom, left:right])
    scale = min((x1 - x0) / rgb.width, (y1 - y0) / rgb.height)
    shown = rgb.resize((max(1, round(rgb.width * scale)), max(1, round(rgb.height * scale))),
                       Image.Resampling.BILINEAR)
    ox = x0 + ((x1 - x0) - shown.width) // 2
    oy = y0 + ((y1 - y0) - shown.height) // 2
    image.paste(shown, (ox, oy))
    draw = ImageDraw.Draw(image)
    label_font = font(max(18, round((y1 - y0) / 10)))
    radius = max(10, round(min(shown.size) / 20))
    centres, tips, labels, colours = [], [], [], []
    for mark in marks:
        cx, cy = ox + (mark.center[0] - left) * scale, oy + (mark.center[1] - top) * scale
        colour = MARK_PROBLEM if mark.problem else MARK_CHECK if mark.doubtful else MARK_OK
        draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), outline=colour, width=3)
        tip = None
        if mark.bearing_deg is not None and not mark.problem:   # the scatter arrow's way
            angle = math.radians(mark.bearing_deg)
            tip = (cx + 3.5 * radius * math.sin(angle), cy - 3.5 * radius * math.cos(angle))
            draw.line((cx, cy, *tip), fill=colour, width=4)
            for side in (-0.5, 0.5):
                draw.line((*tip, tip[0] - radius * math.sin(angle + side),
                           tip[1] + radius * math.cos(angle + side)), fill=colour, width=4)
        centres.append((cx, cy))
        tips.append(tip)
        labels.append(mark.label if not mark.problem else f"{mark.label} {mark.problem}")
        colours.append(colour)
    extents = [draw.textbbox((0, 0), label, font=label_font, anchor="lb") for label in labels]
    anchors = place_labels(centres, tips, extents, radius,
                           (ox, oy, ox + shown.width, oy + shown.height))
    for label, colour, anchor in zip(labels, colours, anchors):
        bbox = draw.textbbox(anchor, label, font=label_font, anchor="lb")
        draw.rectangle((bbox[0] - PAD[0], bbox[1] - PAD[1], bbox[2] + PAD[0], bbox[3] + PAD[1]),
                       fill=(0, 0, 0))
        draw.text(anchor, label, font=label_font, fill=colour, anchor="lb")


def zoom_box(width: int, height: int, marks: list[DieMark], aspect: float) -> tuple[int, int, int, int]:
    """The part of the frame to show: around the dice (a third of the frame at least), with
    the box's aspect ratio; the whole frame when there are no dice."""
    if not marks:
        return 0, 0, width, height
    xs = [m.center[0] for m in marks]
    ys = [m.center[1] for m in marks]
    margin = 0.12 * max(width, height)
    w = max(max(xs) - min(xs) + 2 * margin, width / 3)
    h = max(max(ys) - min(ys) + 2 * margin, height / 3)
    w, h = max(w, h * aspect), max(h, w / aspect)
    w, h = min(w, width), min(h, height)
    cx = min(max((max(xs) + min(xs)) / 2, w / 2), width - w / 2)
    cy = min(max((max(ys) + min(ys)) / 2, h / 2), height - h / 2)
    return round(cx - w / 2), round(cy - h / 2), round(cx + w / 2), round(cy + h / 2)
