"""Scatter and artillery dice: which special face a die shows, or None for a pip die.

    from station.vision.special_dice import read_special, classify_crop

    reading = read_special(image, x, y, side)     # a die found at (x, y), `side` pixels wide
    reading = classify_crop(crop, mask=None)      # or: an axis-aligned BGR crop of one die
    if reading is None: ...                       # not a special die: read it as a d6
    reading.kind         # "scatter" or "artillery"
    reading.value        # scatter "arrow" / "hit"; artillery 2, 4, 6, 8, 10 or "misfire"
    reading.bearing_deg  # scatter: the arrow's direction in image coordinates, degrees
                         # clockwise from image up (on HIT the small arrow's; None if none)
    reading.confidence   # 0..1

Out of the box, no teaching: it looks at the ink on the die's top face (the marks whose
brightness differs from the die's body), split into connected components:
- pips (round blobs of one size, at most six) mean a d6: None;
- one long component with a wide end is the scatter arrow; its axis comes from the
  brightness-weighted second moments of the ink (sub-pixel, so bearings hold at 20 px dice),
  its head from which end is wider;
- a word (HIT) with, when present, a small arrow is the scatter die's HIT face;
- numerals are matched, at the four turns the die's square outline allows, against
  templates drawn in several sans-serif stroke styles (OpenCV's Hershey fonts: no font files
  on the Pi), scale-normalised so wide and narrow typefaces both fit;
- an artillery face whose ink is a single large non-numeral mark or a word (MISFIRE) is the
  misfire; other marks that are neither pips nor known symbols give None (the d6 path then
  flags the die unreadable rather than guessing). RULES.md SCAT-1..3 use these readings.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

DIGITS = ("2", "4", "6", "8", "10")
TEMPLATE_SHAPE = (24, 16)   # rows, cols of a normalised glyph
MIN_DIGIT_SCORE = 0.55      # correlation a numeral must reach
CONTEXT = 1.5               # crop side / die side in read_special


@dataclass
class SpecialReading:
    kind: str
    value: int | str
    bearing_deg: float | None
    confidence: float


@dataclass
class _Blob:
    mask: np.ndarray        # bool, crop-sized
    weight: np.ndarray      # float ink strength on the blob's pixels, crop-sized
    area: float
    centre: np.ndarray      # (x, y)
    circularity: float
    solidity: float
    holes: int
    elongation: float


def read_special(image: np.ndarray, x: float, y: float, side: float,
                 mask: np.ndarray | None = None) -> SpecialReading | None:
    """Read the die centred at (x, y) with the given side (pixels) in a full BGR frame.

    mask: optional full-frame uint8/bool mask of this die. The bearing is in the frame's
    image coordinates (the crop is axis-aligned, so nothing needs converting).
    """
    half = side * CONTEXT / 2
    h, w = image.shape[:2]
    x0, y0 = max(0, int(round(x - half))), max(0, int(round(y - half)))
    x1, y1 = min(w, int(round(x + half)) + 1), min(h, int(round(y + half)) + 1)
    if x1 - x0 < 6 or y1 - y0 < 6:
        return None
    crop_mask = None if mask is None else mask[y0:y1, x0:x1]
    return classify_crop(image[y0:y1, x0:x1], crop_mask, side_px=side)


def classify_crop(crop: np.ndarray, mask: np.ndarray | None = None,
                  side_px: float | None = None) -> SpecialReading | None:
    """The special face shown by the die in `crop` (BGR), or None when it is not one.

    mask: optional mask of the die in the crop (non-zero = die). side_px: the die's side
    when known (else estimated from the mask).
    """
    if crop is None or crop.ndim != 3 or crop.shape[0] < 6 or crop.shape[1] < 6:
        return None
    mask = None if mask is None else np.asarray(mask) > 0
    side = side_px or (math.sqrt(float(mask.sum())) if mask is not None
                       else min(crop.shape[:2]) / CONTEXT)
    die = _top_face(crop, side, mask)
    if not 0.3 * side * side < die.sum() < 2.0 * side * side:
        return None
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    blobs = _ink_blobs(grey, die, side)
    if not blobs:
        return None
    if _looks_like_pips(blobs, side):
        return None
    face_area = side * side
    big = [b for b in blobs if b.area > 0.012 * face_area]
    if not big:
        return None
    # One long mark with a wide end: the arrow face.
    if len(big) == 1 and big[0].area > 0.04 * face_area:
        arrow = _arrow_bearing(big[0])
        if arrow is not None:
            bearing, quality = arrow
            return SpecialReading("scatter", "arrow", bearing, quality)
    angle = _die_angle(die)
    best = _best_symbol(big, angle, side)
    if best is not None:
        label, score, arrow_blob = best
        if label == "HIT":
            bearing = None
            if arrow_blob is not None:
                found = _arrow_bearing(arrow_blob)
                bearing = found[0] if found else None
            return SpecialReading("scatter", "hit", bearing, score)
        return SpecialReading("artillery", int(label), None, score)
    if _looks_like_misfire(big, side):
        return SpecialReading("artillery", "misfire", None, 0.7)
    return None


# ---------------------------------------------------------------- die and ink


def _top_face(crop: np.ndarray, side: float, mask: np.ndarray | None) -> np.ndarray:
    """The die's top face: the body-coloured region around the crop's centre, made convex.

    Side faces are shaded differently from the top face (light falls from above), so they
    drop out, and so do neighbouring dice of other colours; the convex hull puts back the
    marks printed on the face.
    """
    lab = cv2.cvtColor(cv2.GaussianBlur(crop, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    h, w = lab.shape[:2]
    yy, xx = np.indices((h, w))
    central = (xx - w / 2) ** 2 + (yy - h / 2) ** 2 < (0.38 * side) ** 2
    if mask is not None:
        central &= mask
    if central.sum() < 8:
        return np.zeros((h, w), bool)
    # The body is the commonest colour near the centre (marks, glare and sides are fewer).
    samples = lab[central]
    _, labels_k, centres = cv2.kmeans(samples, 3, None, (cv2.TERM_CRITERIA_MAX_ITER, 10, 0.5),
                                      2, cv2.KMEANS_PP_CENTERS)
    body = centres[int(np.argmax(np.bincount(labels_k.ravel(), minlength=3)))]
    dist = np.linalg.norm(lab - body, axis=2)
    tol = max(14.0, 0.1 * float(body[0]))
    like = (dist < tol).astype(np.uint8)
    if mask is not None:
        like &= mask.astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(like, 4)
    if n <= 1:
        return np.zeros((h, w), bool)
    hits = np.bincount(labels[central], minlength=n)
    hits[0] = 0
    region = (labels == int(np.argmax(hits))).astype(np.uint8)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    top = np.zeros((h, w), np.uint8)
    cv2.fillPoly(top, [hull], 1)
    return top.astype(bool)


def _ink_blobs(grey: np.ndarray, die: np.ndarray, side: float) -> list[_Blob]:
    """Marks on the top face: brighter or darker than the body, away from the outline."""
    erode = max(1, int(round(side * 0.04)))
    inner = cv2.erode(die.astype(np.uint8), np.ones((2 * erode + 1,) * 2, np.uint8)) > 0
    if inner.sum() < 16:
        return []
    ys, xs = np.nonzero(inner)
    cx, cy = xs.mean(), ys.mean()
    yy, xx = np.indices(grey.shape)
    near = inner & ((xx - cx) ** 2 + (yy - cy) ** 2 < (0.3 * side) ** 2)
    body = float(np.median(grey[inner]))
    central = grey[near] if near.sum() > 8 else grey[inner]
    hi, lo = np.percentile(central, 98) - body, body - np.percentile(central, 2)
    polarity = 1.0 if hi > lo else -1.0
    contrast = max(hi, lo)
    if contrast < 25:
        return []
    signed = (grey - body) * polarity
    ink = (signed > 0.45 * contrast) & inner
    weight = np.clip(signed / contrast, 0, 1)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(ink.astype(np.uint8), 8)
    blobs = []
    for i in range(1, n):
        area = stats[i, cv2.CC_STAT_AREA]
        if area < max(2, 0.002 * side * side):
            continue
        blobs.append(_describe_blob(labels == i, weight, area, cents[i]))
    return blobs


def _describe_blob(blob: np.ndarray, weight: np.ndarray, area: float, centre) -> _Blob:
    u8 = blob.astype(np.uint8)
    contours, hierarchy = cv2.findContours(u8, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    outer = max((c for c, link in zip(contours, hierarchy[0]) if link[3] < 0),
                key=cv2.contourArea)
    holes = sum(1 for c, link in zip(contours, hierarchy[0])
                if link[3] >= 0 and cv2.contourArea(c) >= 1.5)
    perimeter = max(cv2.arcLength(outer, True), 1e-6)
    hull_area = max(cv2.contourArea(cv2.convexHull(outer)), 1.0)
    ys, xs = np.nonzero(blob)
    pts = np.column_stack([xs, ys]).astype(np.float64)
    cov = np.cov(pts.T) if len(pts) > 2 else np.eye(2)
    ev = np.linalg.eigvalsh(cov)
    return _Blob(mask=blob, weight=np.where(blob, weight, 0.0), area=float(area),
                 centre=np.asarray(centre, float),
                 circularity=float(4 * math.pi * area / perimeter ** 2),
                 solidity=float(area / hull_area), holes=holes,
                 elongation=float(math.sqrt(max(ev[1], 1e-6) / max(ev[0], 1e-6))))


def _looks_like_pips(blobs: list[_Blob], side: float) -> bool:
    """At most six round blobs of about one size, each a few percent of the face."""
    if len(blobs) > 6:
        return False
    areas = np.array([b.area for b in blobs])
    round_ = all(b.elongation < 1.6 and b.holes == 0 and b.solidity > 0.8 for b in blobs)
    sized = all(0.004 * side * side < a < 0.09 * side * side for a in areas)
    return round_ and sized and areas.max() < 2.5 * areas.min()


# ---------------------------------------------------------------- arrows


def _arrow_bearing(blob: _Blob) -> tuple[float, float] | None:
    """(bearing, quality) of an arrow-shaped blob, or None when it has no arrow's shape.

    Axis: brightness-weighted second moments (exact for a mirror-symmetric arrow). Head: the
    end whose mark is wider across the axis.
    """
    if blob.elongation < 1.7 or blob.holes:
        return None
    w = blob.weight
    dil = cv2.dilate(blob.mask.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    w = np.where(dil, np.maximum(w, 0), 0.0)   # include the anti-aliased rim
    ys, xs = np.nonzero(w)
    ww = w[ys, xs]
    total = ww.sum()
    mx, my = (xs * ww).sum() / total, (ys * ww).sum() / total
    dx, dy = xs - mx, ys - my
    cxx, cyy, cxy = (ww * dx * dx).sum(), (ww * dy * dy).sum(), (ww * dx * dy).sum()
    theta = 0.5 * math.atan2(2 * cxy, cxx - cyy)    # axis angle from +x (image axes)
    ax, ay = math.cos(theta), math.sin(theta)
    along = dx * ax + dy * ay
    across = np.abs(-dx * ay + dy * ax)
    length = along.max() - along.min()
    if length < 4:
        return None
    # Width near each end (outer 40 %): the head end is much wider than the shaft end.
    lo_end = along < along.min() + 0.4 * length
    hi_end = along > along.max() - 0.4 * length
    width_lo = np.percentile(across[lo_end], 95) if lo_end.any() else 0.0
    width_hi = np.percentile(across[hi_end], 95) if hi_end.any() else 0.0
    if max(width_lo, width_hi) < 1.4 * max(min(width_lo, width_hi), 0.5):
        return None
    if width_lo > width_hi:
        ax, ay = -ax, -ay
    bearing = math.degrees(math.atan2(ax, -ay)) % 360.0
    ratio = max(width_lo, width_hi) / max(min(width_lo, width_hi), 0.5)
    return bearing, float(min(0.99, 0.6 + 0.1 * ratio))


# ---------------------------------------------------------------- numerals and words


def _die_angle(die: np.ndarray) -> float:
    """The die outline's rotation in degrees (0..90): the numerals are square to it."""
    contours, _ = cv2.findContours(die.astype(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)
    (_, _), (_, _), angle = cv2.minAreaRect(max(contours, key=cv2.contourArea))
    return float(angle) % 90.0


def _normalise(ink: np.ndarray) -> np.ndarray | None:
    """A glyph's ink cropped to its box, resized to TEMPLATE_SHAPE, zero-mean unit-norm."""
    ys, xs = np.nonzero(ink > 0.2)
    if len(xs) < 4:
        return None
    box = ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32)
    h, w = box.shape
    if w > 1.6 * h:      # wider than tall: a word or "10"
        shape = (TEMPLATE_SHAPE[1] * 2, TEMPLATE_SHAPE[1])
    else:
        shape = (TEMPLATE_SHAPE[1], TEMPLATE_SHAPE[0])
    out = cv2.resize(box, shape, interpolation=cv2.INTER_AREA)
    out = cv2.GaussianBlur(out, (3, 3), 0.8)
    out -= out.mean()
    norm = np.linalg.norm(out)
    return out / norm if norm > 1e-6 else None


@functools.cache
def _templates() -> dict[str, list[np.ndarray]]:
    """Each label's normalised templates in several stroke styles and weights."""
    out: dict[str, list[np.ndarray]] = {}
    styles = [(cv2.FONT_HERSHEY_SIMPLEX, t) for t in (3, 5, 7)] + \
             [(cv2.FONT_HERSHEY_DUPLEX, t) for t in (3, 5, 7)] + \
             [(cv2.FONT_HERSHEY_PLAIN, t) for t in (2, 3)]
    for label in (*DIGITS, "HIT"):
        for face, thick in styles:
            scale = 2.4 if face != cv2.FONT_HERSHEY_PLAIN else 4.8
            canvas = np.zeros((120, 240), np.uint8)
            cv2.putText(canvas, label, (10, 90), face, scale, 255, thick, cv2.LINE_AA)
            for squeeze in (0.8, 1.0, 1.25):   # narrow and wide typefaces
                glyph = cv2.resize(canvas, None, fx=squeeze, fy=1.0)
                norm = _normalise(glyph.astype(np.float32) / 255.0)
                if norm is not None:
                    out.setdefault(label, []).append(norm)
    return out


def _rotate(image: np.ndarray, angle_deg: float) -> np.ndarray:
    h, w = image.shape[:2]
    size = int(math.ceil(math.hypot(h, w))) + 2
    M = cv2.getRotationMatrix2D((w / 2, h / 2), angle_deg, 1.0)
    M[:, 2] += (size - w) / 2, (size - h) / 2
    return cv2.warpAffine(image, M, (size, size), flags=cv2.INTER_LINEAR)


def _score_group(blobs: list[_Blob], angle: float) -> tuple[str, float] | None:
    ink = np.zeros_like(blobs[0].weight, dtype=np.float32)
    for b in blobs:
        ink = np.maximum(ink, b.weight.astype(np.float32))
    upright = _rotate(ink, angle)
    best: tuple[str, float] | None = None
    templates = _templates()
    for turn in range(4):
        glyph = _normalise(np.rot90(upright, turn))
        if glyph is None:
            continue
        for label, items in templates.items():
            for template in items:
                if template.shape != glyph.shape:
                    continue
                score = float((template * glyph).sum())
                if best is None or score > best[1]:
                    best = (label, score)
    return best


def _best_symbol(blobs: list[_Blob], angle: float, side: float
                 ) -> tuple[str, float, _Blob | None] | None:
    """The numeral or HIT the blobs spell, with the small arrow set aside on HIT faces."""
    options: list[tuple[list[_Blob], _Blob | None]] = [(blobs, None)]
    for b in blobs:
        if len(blobs) > 1 and b.elongation >= 1.7 and b.area < 0.05 * side * side:
            options.append(([o for o in blobs if o is not b], b))
    best = None
    for group, arrow in options:
        if not group or len(group) > 4:
            continue
        found = _score_group(group, angle)
        if found is None:
            continue
        label, score = found
        if label != "HIT" and arrow is not None:
            continue          # numerals come without extra marks
        if best is None or score > best[1]:
            best = (label, score, arrow)
    if best is None or best[1] < MIN_DIGIT_SCORE:
        return None
    return best


def _looks_like_misfire(blobs: list[_Blob], side: float) -> bool:
    """A large single non-numeral mark (burst, bomb, skull) or a row of small letters."""
    area = sum(b.area for b in blobs)
    if len(blobs) <= 2 and area > 0.06 * side * side:
        return True
    return len(blobs) >= 5
