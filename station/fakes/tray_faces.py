"""Face textures for the synthetic tray: d6 pips, scatter arrows and HIT, artillery numerals.

Every face is drawn on a square RGBA-like canvas (BGR + alpha with rounded corners) of
`TEXTURE` pixels, "up" being the texture's row 0. The renderer warps it onto the die's face in
3D. Glyphs come from TrueType fonts through Pillow (fonts shipped by the `font-roboto`,
`font-source-sans-pro` and `font-lato` PyPI packages, or DejaVu from Debian when present), with
OpenCV's Hershey fonts as the fallback, so at least three sans-serif styles are always there.
"""

from __future__ import annotations

import functools
import importlib
import math
import os
from dataclasses import dataclass, field

import cv2
import numpy as np

TEXTURE = 128  # pixels on a side of a face texture

# name -> BGR. The players' colour words; dice get a jittered version of these.
DIE_COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (40, 35, 190),
    "blue": (170, 80, 25),
    "white": (230, 232, 234),
    "black": (32, 30, 30),
    "green": (60, 150, 35),
    "yellow": (40, 205, 225),
    "purple": (120, 35, 95),
    "orange": (25, 115, 235),
    "grey": (128, 128, 124),
}
LIGHT_COLOURS = {"white", "yellow", "orange", "grey"}

PIP_LAYOUT = {
    1: [(0.5, 0.5)],
    2: [(0.27, 0.27), (0.73, 0.73)],
    3: [(0.26, 0.26), (0.5, 0.5), (0.74, 0.74)],
    4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    5: [(0.26, 0.26), (0.74, 0.26), (0.5, 0.5), (0.26, 0.74), (0.74, 0.74)],
    6: [(0.27, 0.24), (0.27, 0.5), (0.27, 0.76), (0.73, 0.24), (0.73, 0.5), (0.73, 0.76)],
}

_FONT_PACKAGES = {
    "roboto": ("font_roboto", "Roboto-Bold.ttf"),
    "source-sans": ("font_source_sans_pro", "SourceSansPro-Bold.ttf"),
    "lato": ("font_lato", "Lato-Black.ttf"),
}
_SYSTEM_FONTS = {
    "dejavu": "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
}
HERSHEY_FONTS = {"hershey-simplex": cv2.FONT_HERSHEY_SIMPLEX,
                 "hershey-duplex": cv2.FONT_HERSHEY_DUPLEX}


def _font_file(name: str) -> str | None:
    if name in _SYSTEM_FONTS:
        path = _SYSTEM_FONTS[name]
        return path if os.path.exists(path) else None
    module, filename = _FONT_PACKAGES[name]
    try:
        package = importlib.import_module(module)
    except ImportError:
        return None
    for root, _dirs, files in os.walk(os.path.dirname(package.__file__)):
        if filename in files:
            return os.path.join(root, filename)
    return None


@functools.cache
def available_fonts() -> tuple[str, ...]:
    """Font names usable for artillery numerals here (TrueType ones need Pillow)."""
    names = []
    try:
        import PIL.ImageFont  # noqa: F401
        names = [n for n in (*_FONT_PACKAGES, *_SYSTEM_FONTS) if _font_file(n)]
    except ImportError:
        pass
    return tuple(names) + tuple(HERSHEY_FONTS)


@functools.cache
def glyph_mask(text: str, font: str, height: int) -> np.ndarray:
    """A tight uint8 mask (255 = ink) of `text` whose cap height is about `height` pixels."""
    if font in HERSHEY_FONTS:
        face = HERSHEY_FONTS[font]
        scale = height / 22.0
        thick = max(2, round(height / 7))
        (w, h), base = cv2.getTextSize(text, face, scale, thick)
        canvas = np.zeros((h + base + 2 * thick, w + 2 * thick), np.uint8)
        cv2.putText(canvas, text, (thick, h + thick), face, scale, 255, thick, cv2.LINE_AA)
    else:
        from PIL import Image, ImageDraw, ImageFont
        pil_font = ImageFont.truetype(_font_file(font), int(height * 1.4))
        x0, y0, x1, y1 = pil_font.getbbox(text)
        image = Image.new("L", (x1 - x0 + 4, y1 - y0 + 4), 0)
        ImageDraw.Draw(image).text((2 - x0, 2 - y0), text, fill=255, font=pil_font)
        canvas = np.asarray(image).copy()
    ys, xs = np.nonzero(canvas > 40)
    return canvas[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


@dataclass
class FaceStyle:
    """How one die looks: body colour and ink colour (pips, arrows, numerals)."""

    body: tuple[int, int, int]
    ink: tuple[int, int, int]
    colour: str
    font: str = "hershey-duplex"
    misfire_style: str = "burst"  # "burst", "bomb" or "word"
    hit_arrow: bool = True
    # The arrow face's arrow: length and shaft width (shares of the face), the head's share of
    # the length and its width in shaft widths (`random_arrow` varies them).
    arrow: tuple[float, float, float, float] = (0.72, 0.11, 0.36, 3.0)
    # The HIT face's small arrow, in the same terms (`random_small_arrow` varies it).
    small_arrow: tuple[float, float, float, float] = (0.26, 0.05, 0.42, 3.0)
    # Unusual materials (`random_style(materials=...)`); the defaults draw a plain die.
    material: str = "plain"    # "plain", "marbled", "translucent", "metallic", "low-contrast"
    body_texture: np.ndarray | None = None  # per-pixel body colour (swirls, metal sheen)
    opacity: float = 1.0       # translucent dice: the floor shows through the body
    ghost: float = 0.0         # translucent dice: strength of the far face's pips seen through
    recess: float = 0.0        # darkening round the pips (engraved pips)
    # Custom faces (`MARKED_DICE`): (kind, value) -> a symbol or Roman numeral drawn instead
    # of the usual face; empty draws every face as usual.
    marks: dict = field(default_factory=dict)


def random_style(rng: np.random.Generator, colour: str | None = None,
                 fonts: tuple[str, ...] | None = None, materials: float = 0.0) -> FaceStyle:
    """A die's look. materials: the chance that it is made of an unusual material instead
    (`unusual_style`); 0 draws no more random numbers than plain dice ever did, so a seed
    renders the same tray as before the option existed."""
    colour = colour or str(rng.choice(list(DIE_COLOURS)))
    body = tuple(int(np.clip(c + rng.integers(-18, 19), 0, 255)) for c in DIE_COLOURS[colour])
    if colour in LIGHT_COLOURS:
        ink = (25, 25, 25) if colour != "grey" or rng.random() < 0.5 else (245, 245, 245)
    elif colour == "black" and rng.random() < 0.25:
        ink = (40, 200, 230)  # yellow-on-black, as some scatter dice are printed
    else:
        ink = (240, 240, 238)
    fonts = fonts or available_fonts()
    style = FaceStyle(body=body, ink=ink, colour=colour, font=str(rng.choice(fonts)),
                      misfire_style=str(rng.choice(["burst", "bomb", "word"])),
                      hit_arrow=bool(rng.random() < 0.85))
    if materials > 0 and rng.random() < materials:
        style = unusual_style(rng, style)
    return style


# Unusual dice seen in real trays, which read worst (docs/history/vision.md, fourth session):
# name -> (body BGR, the players' colour word, pip inks that go with it).
_RED_PIP, _YELLOW_PIP, _WHITE_PIP, _BLACK_PIP = (45, 40, 185), (40, 190, 220), (235, 235, 232), \
    (28, 26, 26)
TRANSLUCENT = {
    "smoke": ((55, 58, 62), "black", [_RED_PIP, _WHITE_PIP, _YELLOW_PIP]),
    "brown smoke": ((50, 62, 80), "brown", [_RED_PIP, _WHITE_PIP]),
    "red": ((35, 30, 150), "red", [_WHITE_PIP, _YELLOW_PIP, _BLACK_PIP]),
    "green": ((60, 150, 30), "green", [_YELLOW_PIP, _WHITE_PIP, _BLACK_PIP]),
    "blue": ((150, 70, 20), "blue", [_WHITE_PIP, _RED_PIP]),
    "purple": ((110, 30, 90), "purple", [_WHITE_PIP, _YELLOW_PIP]),
    "clear": ((205, 205, 200), "white", [_BLACK_PIP, _RED_PIP]),
}
METALLIC = {
    "gold": ((45, 150, 200), "yellow", [_BLACK_PIP, (30, 30, 110)]),
    "bronze": ((45, 95, 140), "brown", [_BLACK_PIP]),
    "copper": ((50, 90, 180), "orange", [_BLACK_PIP, _WHITE_PIP]),
    "silver": ((175, 172, 168), "grey", [_BLACK_PIP, _RED_PIP]),
}
LOW_CONTRAST = [  # (body colour name in DIE_COLOURS, or a BGR and a word), ink
    ("black", _RED_PIP), ("red", _YELLOW_PIP), ("green", _YELLOW_PIP), ("blue", _RED_PIP),
    ("purple", _RED_PIP), ("yellow", _WHITE_PIP), ("grey", _WHITE_PIP),
    (((40, 65, 100), "brown"), _BLACK_PIP), (((40, 40, 60), "brown"), _RED_PIP),
]
_MARBLE_VEINS = [(235, 235, 232), (25, 25, 25), (170, 80, 25), (40, 35, 190), (60, 150, 35),
                 (40, 205, 225), (120, 35, 95)]


def _jitter(rng, colour, spread=18) -> tuple[int, int, int]:
    return tuple(int(np.clip(c + rng.integers(-spread, spread + 1), 0, 255)) for c in colour)


def _smooth_noise(rng, cells: int) -> np.ndarray:
    """Smooth random field over the texture, about `cells` bumps across, roughly -1..1."""
    small = rng.standard_normal((cells + 1, cells + 1)).astype(np.float32)
    return cv2.resize(small, (TEXTURE, TEXTURE), interpolation=cv2.INTER_CUBIC) / 1.5


def _marble(rng, body, vein) -> np.ndarray:
    """Swirled plastic: veins of a second colour along the level lines of a warped wave."""
    a = rng.uniform(0, math.pi)
    along = _xx * math.cos(a) + _yy * math.sin(a)
    phase = rng.uniform(0.6, 2.0) * 2 * math.pi * along + rng.uniform(2, 5) * _smooth_noise(rng, 2)
    width = rng.uniform(0.2, 0.6)
    vein_share = np.exp(-(np.sin(phase) ** 2) / width ** 2) * rng.uniform(0.5, 1.0)
    vein_share *= np.clip(_smooth_noise(rng, 2) + 0.8, 0, 1)   # veins fade in and out
    tex = np.array(body, np.float32) * (1 - vein_share[..., None]) \
        + np.array(vein, np.float32) * vein_share[..., None]
    return tex.clip(0, 255).astype(np.uint8)


def _metal(rng, body) -> np.ndarray:
    """Metallic paint: a broad sheen across the face and fine brushed grain."""
    a = rng.uniform(0, 2 * math.pi)
    along = _xx * math.cos(a) + _yy * math.sin(a)
    sheen = 0.75 + rng.uniform(0.3, 0.7) * np.exp(-((along - rng.uniform(0.2, 0.8)) ** 2) / 0.05)
    sheen += 0.12 * _smooth_noise(rng, 4)
    grain = rng.standard_normal((TEXTURE, 1)).astype(np.float32) * 4
    tex = np.array(body, np.float32) * sheen[..., None] + grain[..., None]
    return tex.clip(0, 255).astype(np.uint8)


def _glitter(rng, tex: np.ndarray) -> np.ndarray:
    count = int(rng.integers(30, 150))
    ys, xs = rng.integers(0, TEXTURE, count), rng.integers(0, TEXTURE, count)
    tex = tex.astype(np.float32)
    tex[ys, xs] += rng.uniform(40, 140, (count, 1))
    return tex.clip(0, 255).astype(np.uint8)


def unusual_style(rng: np.random.Generator, style: FaceStyle) -> FaceStyle:
    """`style` remade in an unusual material: swirled (marbled) plastic, translucent
    (the floor and the far face's pips show through), metallic paint, or plain plastic
    with pips of a low-contrast colour (red on black, yellow on red, white on yellow)."""
    material = str(rng.choice(["marbled", "translucent", "metallic", "low-contrast"],
                              p=[0.3, 0.3, 0.2, 0.2]))
    texture, opacity, ghost = None, 1.0, 0.0
    if material == "translucent":
        # Smoke-coloured ones (red pips, often with white swirls) read worst: half of them.
        names = list(TRANSLUCENT)
        share = [0.5 / 2 if "smoke" in n else 0.5 / (len(names) - 2) for n in names]
        body, colour, inks = TRANSLUCENT[str(rng.choice(names, p=share))]
        body = _jitter(rng, body, 15)
        opacity, ghost = float(rng.uniform(0.55, 0.85)), float(rng.uniform(0.15, 0.45))
        if rng.random() < 0.4:
            texture = _marble(rng, body, _jitter(rng, (225, 225, 222)))  # smoke with white swirls
        if rng.random() < 0.3:
            texture = _glitter(rng, texture if texture is not None else
                               np.full((TEXTURE, TEXTURE, 3), body, np.uint8))
    elif material == "metallic":
        body, colour, inks = METALLIC[str(rng.choice(list(METALLIC)))]
        body = _jitter(rng, body, 15)
        texture = _metal(rng, body)
    elif material == "marbled":
        colour = str(rng.choice(list(DIE_COLOURS)))
        body = _jitter(rng, DIE_COLOURS[colour])
        vein = _jitter(rng, _MARBLE_VEINS[int(rng.integers(len(_MARBLE_VEINS)))])
        texture = _marble(rng, body, vein)
        inks = [_RED_PIP, _WHITE_PIP, _YELLOW_PIP, _BLACK_PIP]
    else:
        name, ink = LOW_CONTRAST[int(rng.integers(len(LOW_CONTRAST)))]
        (body, colour) = (DIE_COLOURS[name], name) if isinstance(name, str) else name
        body, inks = _jitter(rng, body), [ink]
    ink = _jitter(rng, inks[int(rng.integers(len(inks)))], 20)
    return FaceStyle(body=body, ink=ink, colour=colour, font=style.font,
                     misfire_style=style.misfire_style, hit_arrow=style.hit_arrow,
                     material=material, body_texture=texture, opacity=opacity, ghost=ghost,
                     recess=float(rng.uniform(0.0, 0.5)))


def _rounded_alpha(radius_frac: float = 0.14) -> np.ndarray:
    n, r = TEXTURE, int(TEXTURE * radius_frac)
    alpha = np.zeros((n * 4, n * 4), np.uint8)
    r4 = r * 4
    cv2.rectangle(alpha, (r4, 0), (4 * n - 1 - r4, 4 * n - 1), 255, -1)
    cv2.rectangle(alpha, (0, r4), (4 * n - 1, 4 * n - 1 - r4), 255, -1)
    for cx in (r4, 4 * n - 1 - r4):
        for cy in (r4, 4 * n - 1 - r4):
            cv2.circle(alpha, (cx, cy), r4, 255, -1)
    return cv2.resize(alpha, (n, n), interpolation=cv2.INTER_AREA)


_ALPHA = _rounded_alpha()
# Beveled edges: the face darkens a little toward its border, as rounded dice do.
_yy, _xx = np.mgrid[0:TEXTURE, 0:TEXTURE] / (TEXTURE - 1)
_EDGE = np.minimum(np.minimum(_xx, 1 - _xx), np.minimum(_yy, 1 - _yy))
_BEVEL = (0.78 + 0.22 * np.clip(_EDGE / 0.09, 0, 1)).astype(np.float32)


def _blank(style: FaceStyle) -> np.ndarray:
    if style.body_texture is not None:
        return style.body_texture.copy()
    return np.full((TEXTURE, TEXTURE, 3), style.body, np.uint8)


def _finish(face: np.ndarray, opacity: np.ndarray | None = None) -> np.ndarray:
    """Bevel shading, then BGRA with rounded corners; `opacity` (0..1 per pixel) lets the
    floor show through a translucent die."""
    shaded = (face.astype(np.float32) * _BEVEL[..., None]).clip(0, 255).astype(np.uint8)
    alpha = _ALPHA if opacity is None else (_ALPHA * opacity).astype(np.uint8)
    return np.dstack([shaded, alpha])


def _paint(face: np.ndarray, mask: np.ndarray, colour) -> None:
    a = (mask.astype(np.float32) / 255.0)[..., None]
    face[:] = (face * (1 - a) + np.array(colour, np.float32) * a).astype(np.uint8)


def _pip_mask(value: int, scale: float = 1.0) -> np.ndarray:
    """The pips of `value` (255 = ink); `scale` < 1 draws them nearer the centre, mirrored
    (the far face of a translucent die, seen through it)."""
    ss = 4
    mask = np.zeros((TEXTURE * ss, TEXTURE * ss), np.uint8)
    radius = int(0.095 * TEXTURE * ss * scale)
    for u, v in PIP_LAYOUT[value]:
        if scale != 1.0:
            u, v = 0.5 + (0.5 - u) * scale, 0.5 + (v - 0.5) * scale
        cv2.circle(mask, (int(u * TEXTURE * ss), int(v * TEXTURE * ss)), radius, 255, -1)
    return cv2.resize(mask, (TEXTURE, TEXTURE), interpolation=cv2.INTER_AREA)


def pip_face(value: int, style: FaceStyle) -> np.ndarray:
    face = _blank(style)
    mask = _pip_mask(value)
    if style.ghost:
        far = _pip_mask(7 - value, 0.8)
        far = cv2.GaussianBlur(far, (0, 0), 2.0).astype(np.float32) * style.ghost
        _paint(face, far.astype(np.uint8), style.ink)
    if style.recess:
        rim = cv2.GaussianBlur(cv2.dilate(mask, np.ones((5, 5), np.uint8)), (0, 0), 1.5)
        _paint(face, (rim * style.recess).astype(np.uint8), (0, 0, 0))
    _paint(face, mask, style.ink)
    if style.opacity >= 1.0:
        return _finish(face)
    # The body lets the floor through, more so at the bevelled edges; the pips are paint.
    body = style.opacity * (0.7 + 0.3 * np.clip(_EDGE / 0.12, 0, 1))
    return _finish(face, np.maximum(body, mask / 255.0))


def random_arrow(rng: np.random.Generator) -> tuple[float, float, float, float]:
    """An arrow of another die maker's proportions (`FaceStyle.arrow`): long or short, thin
    or stout, with a short or long, narrow or broad head."""
    return (float(rng.uniform(0.55, 0.8)), float(rng.uniform(0.07, 0.16)),
            float(rng.uniform(0.25, 0.5)), float(rng.uniform(2.2, 3.6)))


def random_small_arrow(rng: np.random.Generator) -> tuple[float, float, float, float]:
    """A HIT face's small arrow of another die maker's proportions (`FaceStyle.small_arrow`)."""
    return (float(rng.uniform(0.18, 0.34)), float(rng.uniform(0.035, 0.075)),
            float(rng.uniform(0.3, 0.5)), float(rng.uniform(2.2, 3.6)))


def arrow_polygon(length: float, width: float, head_frac: float = 0.4,
                  head_width: float | None = None) -> np.ndarray:
    """An arrow pointing up (texture -y), centred on (0, 0): shaft then triangular head."""
    head_width = head_width or width * 3.0
    half, head = length / 2, length * head_frac
    return np.array([
        (-width / 2, half), (width / 2, half), (width / 2, -half + head),
        (head_width / 2, -half + head), (0, -half), (-head_width / 2, -half + head),
        (-width / 2, -half + head)], np.float32)


def _draw_polygon(mask: np.ndarray, poly: np.ndarray, angle_deg: float, centre, ss: int):
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
    pts = (poly @ rot.T + np.array(centre, np.float32)) * ss
    cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 255, cv2.LINE_AA)


def scatter_face(value: str, angle_deg: float, style: FaceStyle) -> np.ndarray:
    """Arrow face (big arrow at `angle_deg` clockwise from texture up) or HIT face.

    On HIT the small arrow, when the style has one, sits below the word at `angle_deg`.
    """
    face = _blank(style)
    ss = 4
    mask = np.zeros((TEXTURE * ss, TEXTURE * ss), np.uint8)
    c = TEXTURE / 2
    if value == "arrow":
        length, width, head, head_width = style.arrow
        _draw_polygon(mask, arrow_polygon(TEXTURE * length, TEXTURE * width, head,
                                          TEXTURE * width * head_width), angle_deg, (c, c), ss)
    else:
        word = glyph_mask("HIT", "hershey-duplex" if style.font.startswith("hershey")
                          else style.font, int(TEXTURE * 0.22 * ss))
        h, w = word.shape
        scale = min(1.0, TEXTURE * 0.62 * ss / w)
        word = cv2.resize(word, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
        h, w = word.shape
        y0 = int((c - (12 if style.hit_arrow else 0)) * ss - h / 2)
        x0 = int(c * ss - w / 2)
        mask[y0:y0 + h, x0:x0 + w] = np.maximum(mask[y0:y0 + h, x0:x0 + w], word)
        if style.hit_arrow:
            length, width, head, head_width = style.small_arrow
            _draw_polygon(mask, arrow_polygon(TEXTURE * length, TEXTURE * width, head,
                                              TEXTURE * width * head_width),
                          angle_deg, (c, c + TEXTURE * 0.28), ss)
    mask = cv2.resize(mask, (TEXTURE, TEXTURE), interpolation=cv2.INTER_AREA)
    _paint(face, mask, style.ink)
    return _finish(face)


def _misfire_mask(style: FaceStyle, ss: int) -> np.ndarray:
    n = TEXTURE * ss
    mask = np.zeros((n, n), np.uint8)
    c = n / 2
    if style.misfire_style == "word":
        word = glyph_mask("MISFIRE", style.font, int(TEXTURE * 0.14 * ss))
        h, w = word.shape
        scale = min(1.0, n * 0.78 / w)
        word = cv2.resize(word, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
        h, w = word.shape
        mask[int(c - h / 2):int(c - h / 2) + h, int(c - w / 2):int(c - w / 2) + w] = word
    elif style.misfire_style == "bomb":
        cv2.circle(mask, (int(c - 0.05 * n), int(c + 0.07 * n)), int(0.22 * n), 255, -1,
                   cv2.LINE_AA)
        cv2.line(mask, (int(c + 0.08 * n), int(c - 0.08 * n)), (int(c + 0.2 * n),
                 int(c - 0.24 * n)), 255, int(0.05 * n), cv2.LINE_AA)
        _draw_burst(mask, (c + 0.24 * n, c - 0.29 * n), 0.1 * n, 0.04 * n, 8)
    else:
        _draw_burst(mask, (c, c), 0.36 * n, 0.16 * n, 10)
        cv2.circle(mask, (int(c), int(c)), int(0.09 * n), 0, -1, cv2.LINE_AA)
    return mask


def _draw_burst(mask, centre, outer, inner, spikes):
    pts = []
    for i in range(2 * spikes):
        r = outer if i % 2 == 0 else inner
        a = math.pi * i / spikes
        pts.append((centre[0] + r * math.sin(a), centre[1] - r * math.cos(a)))
    cv2.fillPoly(mask, [np.round(np.array(pts)).astype(np.int32)], 255, cv2.LINE_AA)


def artillery_face(value: int | str, style: FaceStyle) -> np.ndarray:
    face = _blank(style)
    ss = 2
    if value == "misfire":
        mask = _misfire_mask(style, ss)
    else:
        mask = np.zeros((TEXTURE * ss, TEXTURE * ss), np.uint8)
        glyph = glyph_mask(str(value), style.font, int(TEXTURE * 0.5 * ss))
        h, w = glyph.shape
        scale = min(1.0, TEXTURE * 0.8 * ss / w)
        glyph = cv2.resize(glyph, (max(1, int(w * scale)), max(1, int(h * scale))),
                           interpolation=cv2.INTER_AREA)
        h, w = glyph.shape
        y0, x0 = (TEXTURE * ss - h) // 2, (TEXTURE * ss - w) // 2
        mask[y0:y0 + h, x0:x0 + w] = glyph
    mask = cv2.resize(mask, (TEXTURE, TEXTURE), interpolation=cv2.INTER_AREA)
    _paint(face, mask, style.ink)
    return _finish(face)


# Dice whose networks do not know some faces (docs/calibration.md, "Teaching unusual
# faces"): a logo instead of the 6 (Games Workshop and army dice), a skull instead of the 1,
# an artillery die with Roman numerals and a skull for the misfire.
MARKED_DICE = {
    "star6": {("d6", 6): "star"},
    "skull1": {("d6", 1): "skull"},
    "roman": {("artillery", 2): "II", ("artillery", 4): "IV", ("artillery", 6): "VI",
              ("artillery", 8): "VIII", ("artillery", 10): "X", ("artillery", "misfire"): "skull"},
}
SYMBOLS = ("star", "skull")


def marked_face(mark: str, style: FaceStyle) -> np.ndarray:
    """A face showing a symbol (`SYMBOLS`) or a word or numeral in the style's font."""
    face = _blank(style)
    ss = 4
    n = TEXTURE * ss
    mask = np.zeros((n, n), np.uint8)
    c = n / 2
    if mark == "star":
        _draw_burst(mask, (c, c + 0.03 * n), 0.4 * n, 0.17 * n, 5)
    elif mark == "skull":
        cv2.circle(mask, (int(c), int(c - 0.06 * n)), int(0.27 * n), 255, -1, cv2.LINE_AA)
        cv2.rectangle(mask, (int(c - 0.15 * n), int(c + 0.1 * n)),
                      (int(c + 0.15 * n), int(c + 0.3 * n)), 255, -1, cv2.LINE_AA)
        for dx in (-0.11, 0.11):     # eyes
            cv2.circle(mask, (int(c + dx * n), int(c - 0.06 * n)), int(0.075 * n), 0, -1,
                       cv2.LINE_AA)
        nose = np.array([(c, c + 0.03 * n), (c - 0.035 * n, c + 0.1 * n),
                         (c + 0.035 * n, c + 0.1 * n)])
        cv2.fillPoly(mask, [np.round(nose).astype(np.int32)], 0, cv2.LINE_AA)
        for dx in (-0.075, 0.0, 0.075):   # teeth
            cv2.line(mask, (int(c + dx * n), int(c + 0.2 * n)), (int(c + dx * n),
                     int(c + 0.3 * n)), 0, int(0.025 * n))
    else:
        glyph = glyph_mask(mark, style.font, int(TEXTURE * 0.4 * ss))
        h, w = glyph.shape
        scale = min(1.0, n * 0.8 / w)
        glyph = cv2.resize(glyph, (max(1, int(w * scale)), max(1, int(h * scale))),
                           interpolation=cv2.INTER_AREA)
        h, w = glyph.shape
        y0, x0 = (n - h) // 2, (n - w) // 2
        mask[y0:y0 + h, x0:x0 + w] = glyph
    mask = cv2.resize(mask, (TEXTURE, TEXTURE), interpolation=cv2.INTER_AREA)
    _paint(face, mask, style.ink)
    return _finish(face)


def face_texture(kind: str, value, style: FaceStyle, angle_deg: float = 0.0) -> np.ndarray:
    """The BGRA texture of one face of a die of `kind` showing `value`."""
    if (kind, value) in style.marks:
        return marked_face(style.marks[kind, value], style)
    if kind == "d6":
        return pip_face(int(value), style)
    if kind == "scatter":
        return scatter_face(str(value), angle_deg, style)
    if kind == "artillery":
        return artillery_face(value, style)
    raise ValueError(f"unknown die kind {kind!r}: expected d6, scatter or artillery")
