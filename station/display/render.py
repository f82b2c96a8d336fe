"""Draw a `Screen` as a picture (Pillow): the full layout for HDMI/DSI and a compact one.

Full layout, made to be read from across a table: a top bar with the action and the state;
the tray image on the left with every die's value marked beside it (flagged dice in red);
the result in big letters on the right, with the sums, the chance of this result and the
rule IDs under it; a bottom bar with what to do next or what is wrong.

The compact layout fits small OLED/LCD screens (128x64 up to 320x240): action, the big
result, chance and first rule, the prompt.

Fonts: Pillow's own scalable font, so the picture is the same on every machine (the golden
images depend on it, and the layout's sizes were fitted to it). It has Latin letters only,
without ≥ ≤ → × ½ and the like, which it writes >= <= -> x 1/2 (`PLAIN`): a screen with other
text (an action named in Cyrillic) is drawn whole in DejaVu Sans, which Raspberry Pi OS and
Debian have (fonts-dejavu-core), and with those signs as they are; without it such letters
show as boxes, and the log says what to install.
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import itertools
import logging
import math
from collections.abc import Sequence
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
HEADLINE_SIZES = (112, 92, 76, 64)  # the result's letters at 480 pixels high, largest first
TRAY_SHARES = (0.5, 0.4)          # of the full layout's width, for the tray picture


# Characters the rules' texts use that the bundled font has no glyph for, as it writes them.
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


def _as_drawn(text: str, f: ImageFont.FreeTypeFont) -> str:
    """`text` as font `f` can draw it: in the bundled font ≥ and → are >= and -> (`PLAIN`);
    a Unicode font has them."""
    return text if getattr(f, "path", None) in UNICODE_FONTS else text.translate(PLAIN)


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

    # right (or all): the result, laid out first: the tray leaves it room if it needs it
    body = (0, top, width, height - bottom)
    x1 = width - round(18 * unit)
    y0 = body[1] + round(14 * unit)
    prompt = screen.prompt or _hint(screen)
    problem = not screen.headline and screen.level != "info" and bool(screen.prompt)
    if problem:                         # said big, not only below
        prompt = _hint(screen)
        problem_font = font(round(38 * unit))
    # the journal number and seal are the proof of a roll: the text above leaves them a line
    journal_line = round(24 * unit) if screen.entry_id is not None else 0
    y1 = body[3] - round(6 * unit) - journal_line
    # The largest result and the widest tray that leave the details whole under it (a MISS
    # in 112 px letters, or a throw's four rolls on half the screen, left them cut short)
    shares = TRAY_SHARES if screen.frame is not None else (0,)
    for share, size in itertools.product(shares, HEADLINE_SIZES if screen.headline else (0,)):
        tray_w = round(width * share)
        x0 = tray_w + round(22 * unit)
        y = y0
        if screen.headline:
            big = _fitted(draw, screen.headline, round(size * unit), x1 - x0, bold=True)
            y = _bottom(draw, (x0, y0), big) + round(10 * unit)
        elif problem:
            said = _wrapped(screen.prompt, problem_font, x1 - x0, 4)
            y = y0 + len(said) * _line_height(problem_font) + round(10 * unit)
        plan, whole = _under_result(draw, screen, x1 - x0, y1 - y, unit)
        if whole:
            break

    # left: the tray as the camera saw it
    tray_box = (round(10 * unit), body[1] + round(10 * unit), tray_w, body[3] - round(10 * unit))
    if len(screen.rolls) > 1:
        _draw_rolls(image, screen.rolls, tray_box, unit)
    elif screen.frame is not None:
        _draw_tray(image, screen.frame, screen.marks, tray_box)

    if screen.headline:
        _draw_fitted(draw, (x0, y0), big, TONE_COLOURS.get(screen.tone, TEXT))
    elif problem:
        _draw_lines(draw, (x0, y0), said, problem_font,
                    MARK_PROBLEM if screen.level == "error" else ACCENT)
    for space, lines, f, colour in plan:
        y = _draw_lines(draw, (x0, y + space), lines, f, colour)
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
    # the journal id and seal, for players to note (`journal verify --head`), on a line of its
    # own where the screen has room for it beside the details whole; a 128x64 OLED has none
    # (the web display and `journal show` give it)
    small_line = max(9, round(line * 0.6))        # a reference, not for reading across the table
    journals = [screen.journal_line()] if screen.entry_id is not None and \
        height >= COMPACT_DETAILS_FROM else []
    for journal in [*journals, ""]:
        below = lift + (small_line if journal else 0)
        result, shown, small, whole = _compact_body(draw, screen, big, rule, line, size, below)
        if whole:
            break
    lift = below
    _draw_fitted(draw, (width / 2, rule + 4), result, white, "mt")
    y = _bottom(draw, (width / 2, rule + 4), result, "mt") + 4
    for lines in shown:
        y = _draw_lines(draw, (0, y), lines, small, white)
    under = "  ".join(x for x in (screen.odds_percent(), screen.rules[0] if screen.rules else "") if x)
    _fit_text(draw, (0, height - 2 * line - 2 - lift), spaced(under), line, width, fill=white)
    if journal:
        _fit_text(draw, (0, height - len(prompt) * line - small_line - 1), journal, small_line,
                  width, fill=white)
    for i, text in enumerate(prompt):
        _fit_text(draw, (0, height - (len(prompt) - i) * line - 1), text, line, width, fill=white)
    return image


def _compact_body(draw: ImageDraw.ImageDraw, screen: Screen, big: str, rule: float, line: int,
                  size: tuple[int, int], lift: float
                  ) -> tuple[Fitted, list[Sequence[str]], ImageFont.FreeTypeFont, bool]:
    """The big result and the details under it on a small screen, `lift` px of its foot
    taken; and whether the details are whole."""
    width, height = size
    room = height - 2 * line - rule - 8 - lift    # between the rule under the action and the chance
    result = _fitted(draw, big, room, width, bold=True)
    if not screen.details or height < COMPACT_DETAILS_FROM:
        return result, [], font(9), True
    # a screen with room for more (320x240) shows the details under the result: the dice
    # read and the rule's arithmetic, as the full layout does; in the largest letters and
    # details that show them whole, else the smallest (at 320x240 the three steps of a
    # ranged attack were cut to a line each in 24 px letters, under a 60 px MISS)
    for big_size, detail_size in itertools.product(
            (round(height / 4), round(height / 5), round(height / 6)),
            range(max(9, round(line * 0.7)), 8, -1)):
        result, small = _fitted(draw, big, min(room, big_size), width, bold=True), font(detail_size)
        below = _bottom(draw, (width / 2, rule + 4), result, "mt") + 4
        shown, whole = _detail_lines(draw, screen, small, width,
                                     height - 2 * line - 8 - lift - below, 0)
        if whole:
            break
    return result, shown, small, whole


def _compact_prompt(draw: ImageDraw.ImageDraw, prompt: str, line: int, width: int,
                    spaced) -> list[str]:
    """The prompt's lines on a small screen: one, its spaces doubled (`spaced`) when that
    fits at the smallest size, else as written; two lines when even that does not fit (a
    128x64 OLED cut "ROLL again, NEXT action, MEASURE" short), wrapped at the largest size
    that needs no more (a 128x128 one wrapped them at its 18 px and cut "MEASURE")."""
    smallest = font(8)
    for text in (spaced(prompt), prompt):
        if draw.textlength(_as_drawn(text, smallest), font=smallest) <= width:
            return [text]
    size = next((size for size in range(line, 8, -1)
                 if len(_wrapped(prompt, font(size), width, 99)) <= 2), 8)
    return [spaced(text) for text in _wrapped(prompt, font(size), width, 2)]


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
    fitted = _fitted(draw, text, size, max_width, bold)
    _draw_fitted(draw, xy, fitted, fill, anchor)
    return _bottom(draw, xy, fitted, anchor)


Fitted = tuple[str, ImageFont.FreeTypeFont, int]         # text, font, stroke width


def _fitted(draw: ImageDraw.ImageDraw, text: str, size: int, max_width: float,
            bold: bool) -> Fitted:
    """`text` at the largest size up to `size` that fits `max_width`; at the smallest, 8,
    without words from its middle if it must (a roll's caption ran into the next one's)."""
    size = max(size, 8)
    text = _as_drawn(text, font(size))
    stroke = max(1, size // 28) if bold else 0
    while size > 8 and draw.textlength(text, font=font(size)) + 2 * stroke > max_width:
        size -= max(1, size // 10)
        stroke = max(1, size // 28) if bold else 0
    if draw.textlength(text, font=font(size)) + 2 * stroke > max_width:
        text = _wrapped(text, font(size), max_width - 2 * stroke, 1)[0]
    return text, font(size), stroke


def _draw_fitted(draw: ImageDraw.ImageDraw, xy, fitted: Fitted, fill, anchor: str = "la") -> None:
    text, f, stroke = fitted
    draw.text(xy, text, font=f, fill=fill, anchor=anchor, stroke_width=stroke, stroke_fill=fill)


def _bottom(draw: ImageDraw.ImageDraw, xy, fitted: Fitted, anchor: str = "la") -> float:
    text, f, stroke = fitted
    return draw.textbbox(xy, text, font=f, anchor=anchor, stroke_width=stroke)[3]


Plan = list[tuple[float, Sequence[str], ImageFont.FreeTypeFont, tuple[int, int, int]]]


def _under_result(draw: ImageDraw.ImageDraw, screen: Screen, width: float, room: float,
                  unit: float) -> tuple[Plan, bool]:
    """The details, the chance, the rule IDs and any hardware problems in `room` pixels high
    under the result, as (space above, lines, font, colour) from the top, and whether the
    details are shown whole. The chance, the rules (cited on screen, whatever else is cut)
    and the problems get their room first (a throw shows four rolls and four details: the
    rules line fell off the screen); the details take what is left, in the largest of five
    sizes that shows them whole, else in the smallest (`_detail_lines`)."""
    body, small, tiny = font(round(26 * unit)), font(round(22 * unit)), font(round(20 * unit))
    facts = screen.odds_text()
    under: Plan = []
    if facts:
        under.append((6 * unit, _wrapped(facts, body, width, 2), body, ACCENT))
    if screen.rules:
        under.append((4 * unit if facts else 0, _wrapped("rules " + "  ".join(screen.rules), small,
                                         width, 4), small, MUTED))
    for name, problem in screen.hardware.items():
        under.append((4 * unit, _wrapped(f"{name}: {problem}", tiny, width, 4), tiny,
                      MARK_PROBLEM))
    room -= sum(space + len(lines) * _line_height(f) for space, lines, f, _ in under)
    gap = round(4 * unit)
    for detail_font in (body, font(round(24 * unit)), small, tiny, font(round(18 * unit))):
        details, whole = _detail_lines(draw, screen, detail_font, width, room, gap)
        if whole:
            break
    plan: Plan = [(gap if i else 0, lines, detail_font, TEXT) for i, lines in enumerate(details)]
    if details and under:                     # the last detail's gap, as between details
        space, lines, f, colour = under[0]
        under[0] = (space + gap, lines, f, colour)
    return plan + under, whole


def _detail_lines(draw: ImageDraw.ImageDraw, screen: Screen, f: ImageFont.FreeTypeFont,
                  width: float, room: float, gap: float) -> tuple[list[Sequence[str]], bool]:
    """The lines of each detail shown in `room` at font `f`, in their order, and whether all
    are whole. The room is shared out (`_share_lines`) from the detail the result rests on
    (`Screen.key_detail`): it gets its lines first and is the last left out; a detail given
    fewer lines than it needs loses words from its middle (`_wrapped`)."""
    details, key = screen.details, screen.key_detail
    order = [key, *(i for i in range(len(details)) if i != key)] if key is not None \
        else list(range(len(details)))
    needs = [len(_wrapped(details[i], f, width, 99)) for i in order]
    shares = _share_lines(needs, room, _line_height(f), gap)
    return ([_wrapped(details[i], f, width, share) for i, share in sorted(zip(order, shares))],
            shares == needs)


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


_MEASURE = ImageDraw.Draw(Image.new("RGB", (1, 1)))     # text widths, whatever the picture


@functools.lru_cache(maxsize=4096)      # a layout tries several sizes and widths: the same texts
def _wrapped(text: str, f: ImageFont.FreeTypeFont, max_width: float,
             max_lines: int) -> tuple[str, ...]:
    """`text` word-wrapped to `max_width`, at most `max_lines`. A longer text keeps its first
    and last words with an ellipsis between them, two from the end for one from the start:
    a rule's step ends with its verdict ("ranged attack roll: dice 2+6, +1 = 9, 9 < DEF 12:
    miss" lost "< DEF 12: miss" when it was cut at the end)."""
    words = _as_drawn(text, f).split()
    lines = _word_wrap(words, f, max_width)
    if len(lines) <= max_lines:
        return lines
    # as many words as the lines hold end to end, then fewer while they do not wrap into them
    widths = [_width(" " + word, f) for word in words]
    room = max_lines * max_width - _width("…", f)
    head = tail = 0
    while head + tail < len(words):
        for at_end in ((True, False) if tail <= 2 * head else (False, True)):
            i = len(words) - 1 - tail if at_end else head
            if widths[i] <= room:
                room -= widths[i]
                head, tail = (head, tail + 1) if at_end else (head + 1, tail)
                break
        else:
            break
    lines = _word_wrap(_around(words, head, tail), f, max_width)
    while len(lines) > max_lines and head + tail:
        head, tail = (head - 1, tail) if head and 2 * head >= tail else (head, tail - 1)
        lines = _word_wrap(_around(words, head, tail), f, max_width)
    return lines


def _around(words: list[str], head: int, tail: int) -> list[str]:
    """The first `head` and the last `tail` words, an ellipsis between them."""
    return [*words[:head], "…", *words[len(words) - tail:]]


def _word_wrap(words: list[str], f: ImageFont.FreeTypeFont, max_width: float) -> tuple[str, ...]:
    lines: list[str] = []
    line: list[str] = []
    used = 0.0
    for word in words:
        if line and used + _width(" " + word, f) > max_width:
            lines.append(" ".join(line))
            line, used = [], 0.0
        used += _width(" " + word if line else word, f)
        line.append(word)
    if line:
        lines.append(" ".join(line))
    return tuple(lines)


@functools.lru_cache(maxsize=8192)
def _width(text: str, f: ImageFont.FreeTypeFont) -> float:
    """A word's width. In Pillow's basic layout a line's is the sum of its words' (measuring
    each line as it grew took most of the time a long ruling's screen was drawn in)."""
    return _MEASURE.textlength(text, font=f)


def _draw_lines(draw: ImageDraw.ImageDraw, xy, lines: Sequence[str], f: ImageFont.FreeTypeFont,
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
