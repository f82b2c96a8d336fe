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

Out of the box, no teaching at the table:
1. The top face: a common colour near the crop's centre, grown into a convex region
   (side faces are shaded differently, neighbouring dice differ in colour); of the colour
   clusters grown at a few tolerances, the region closest to a die face's area.
2. The ink: marks brighter or darker than the face (both polarities), as a 0..1 map.
3. The face, turned square to its outline and scaled to 32x32, is classified by a small
   neural network (numpy, weights in `special_dice_weights.npz`, trained by
   `benchmarks/special_train.py` on rendered dice: pips, arrows, HIT, numerals in several
   sans-serif fonts, misfire symbols and words) averaged over the four quarter turns, so a
   numeral is read whichever way up it lies. Classes: other (pips,
   or no die at all: None), arrow, hit, 2, 4, 6, 8, 10, misfire.
4. Bearings are measured, not classified: the arrow's axis from the brightness-weighted
   second moments of its ink (sub-pixel, exact for a mirror-symmetric arrow), its head from
   which end is wider. On a HIT face the small arrow is the elongated mark beside the word.
RULES.md SCAT-1..3 use these readings.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass

import cv2
import numpy as np

CLASSES = ("other", "arrow", "hit", 2, 4, 6, 8, 10, "misfire")   # other: pips, no die
FACE_PX = 32                # side of the normalised face the network reads
CONTEXT = 1.5               # crop side / die side in read_special
MIN_PROBABILITY = 0.5       # below this the die is left to the d6 reader
FACE_AREA = 0.95            # a top face's area / side**2 (its corners are rounded)
TOLERANCE_STEPS = (1.0, 1.5, 2.2)   # colour tolerances tried when growing the top face
WEIGHTS = os.path.join(os.path.dirname(__file__), "special_dice_weights.npz")


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
    holes: int
    elongation: float
    centre: np.ndarray      # (x, y) pixels in the crop


def read_special(image: np.ndarray, x: float, y: float, side: float,
                 mask: np.ndarray | None = None) -> SpecialReading | None:
    """Read the die centred at (x, y) with the given side (pixels) in a full BGR frame.

    mask: optional full-frame uint8/bool mask of this die. The bearing is in the frame's
    image coordinates (the crop is axis-aligned, so nothing needs converting).
    """
    crop, crop_mask = _cut(image, x, y, side, mask)
    if crop is None:
        return None
    return classify_crop(crop, crop_mask, side_px=side)


def _cut(image, x, y, side, mask=None):
    half = side * CONTEXT / 2
    h, w = image.shape[:2]
    x0, y0 = max(0, int(round(x - half))), max(0, int(round(y - half)))
    x1, y1 = min(w, int(round(x + half)) + 1), min(h, int(round(y + half)) + 1)
    if x1 - x0 < 6 or y1 - y0 < 6:
        return None, None
    return image[y0:y1, x0:x1], None if mask is None else mask[y0:y1, x0:x1]


def classify_crop(crop: np.ndarray, mask: np.ndarray | None = None,
                  side_px: float | None = None) -> SpecialReading | None:
    """The special face shown by the die in `crop` (BGR), or None when it is not one.

    mask: optional mask of the die in the crop (non-zero = die). side_px: the die's side
    when known (else estimated from the mask, or from the crop as `CONTEXT` x the side).
    """
    face = face_view(crop, mask, side_px)
    if face is None:
        return None
    canonical, blobs = face
    probs = _model().predict(canonical)
    best = int(np.argmax(probs))
    label, confidence = CLASSES[best], float(probs[best])
    if label == "other" or confidence < MIN_PROBABILITY:
        return None
    if label == "arrow":
        arrow = _arrow_bearing(max(blobs, key=lambda b: b.area)) if blobs else None
        return SpecialReading("scatter", "arrow", arrow[0] if arrow else None, confidence)
    if label == "hit":
        return SpecialReading("scatter", "hit", _small_arrow_bearing(blobs), confidence)
    return SpecialReading("artillery", label, None, confidence)


def face_view(crop: np.ndarray, mask: np.ndarray | None = None, side_px: float | None = None
              ) -> tuple[np.ndarray, list[_Blob]] | None:
    """The top face's ink as a FACE_PX square turned square to the face, and its marks."""
    if crop is None or crop.ndim != 3 or crop.shape[0] < 6 or crop.shape[1] < 6:
        return None
    mask = None if mask is None else np.asarray(mask) > 0
    side = side_px or (math.sqrt(float(mask.sum())) if mask is not None
                       else min(crop.shape[:2]) / CONTEXT)
    top = _top_face(crop, side, mask)
    if not 0.3 * side * side < top.sum() < 2.0 * side * side:
        return None
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    weight = _ink(grey, top, side)
    if weight is None:
        return None
    contours, _ = cv2.findContours(top.astype(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)
    (cx, cy), (w, h), angle = cv2.minAreaRect(max(contours, key=cv2.contourArea))
    span = min(max(w, h, 4.0), 1.15 * side)   # not wider than a die, if sides crept in
    M = cv2.getRotationMatrix2D((cx, cy), angle, FACE_PX / span)
    M[:, 2] += FACE_PX / 2 - cx, FACE_PX / 2 - cy
    canonical = cv2.warpAffine(weight, M, (FACE_PX, FACE_PX), flags=cv2.INTER_AREA
                               if span > FACE_PX else cv2.INTER_LINEAR)
    return canonical, _blobs(weight, side)


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
    # The body is the commonest colour near the centre (marks, glare and sides are fewer);
    # when that does not give a face of about a die's size, the next commonest.
    samples = lab[central]
    start = np.searchsorted(np.percentile(samples[:, 0], [33, 67]), samples[:, 0])
    _, labels_k, centres = cv2.kmeans(samples, 3, start.astype(np.int32).reshape(-1, 1),
                                      (cv2.TERM_CRITERIA_MAX_ITER, 10, 0.5), 1,
                                      cv2.KMEANS_USE_INITIAL_LABELS)
    # Light falls off across the face and glare brightens part of it, so a tight colour
    # tolerance can keep only part of the face: of every cluster grown at a few
    # tolerances, keep the region closest to a die face's area.
    counts = np.bincount(labels_k.ravel(), minlength=3)
    top, best = np.zeros((h, w), bool), math.inf
    for cluster in np.argsort(-counts):
        for widen in TOLERANCE_STEPS:
            region = _region_of(lab, centres[cluster], central, mask, widen)
            miss = abs(math.log(max(region.sum(), 1.0) / (FACE_AREA * side * side)))
            if miss < best:
                top, best = region, miss
    return top


def _region_of(lab, body, central, mask, widen: float = 1.0) -> np.ndarray:
    """The convex hull of the body-coloured component covering most of the centre."""
    h, w = lab.shape[:2]
    dist = np.linalg.norm(lab - body, axis=2)
    tol = widen * max(10.0, 0.07 * float(body[0]))   # side faces are >= 20 % darker/lighter
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


def _ink(grey: np.ndarray, top: np.ndarray, side: float) -> np.ndarray | None:
    """0..1 map of the marks on the top face (brighter or darker than it), None if blank."""
    erode = max(1, int(round(side * 0.04)))
    inner = cv2.erode(top.astype(np.uint8), np.ones((2 * erode + 1,) * 2, np.uint8)) > 0
    if inner.sum() < 16:
        return None
    ys, xs = np.nonzero(inner)
    cx, cy = xs.mean(), ys.mean()
    yy, xx = np.indices(grey.shape)
    near = inner & ((xx - cx) ** 2 + (yy - cy) ** 2 < (0.3 * side) ** 2)
    body = float(np.median(grey[inner]))
    central = grey[near] if near.sum() > 8 else grey[inner]
    hi, lo = np.percentile(central, 98) - body, body - np.percentile(central, 2)
    contrast = max(hi, lo)
    if contrast < 25:
        return None
    signed = (grey - body) * (1.0 if hi > lo else -1.0)
    return np.where(inner, np.clip(signed / contrast, 0, 1), 0).astype(np.float32)


def _blobs(weight: np.ndarray, side: float) -> list[_Blob]:
    """The marks as connected components: ink above Otsu's split of the face (at most 0.45,
    so that a bright glare spot setting the contrast does not wipe out the print)."""
    inside = weight[weight > 0]
    level = 0.45
    if inside.size > 16:
        otsu, _ = cv2.threshold((inside * 255).astype(np.uint8).reshape(-1, 1), 0, 255,
                                cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        level = min(level, max(0.2, otsu / 255))
    n, labels, stats, _ = cv2.connectedComponentsWithStats((weight > level).astype(np.uint8),
                                                           8)
    blobs = []
    for i in range(1, n):
        area = float(stats[i, cv2.CC_STAT_AREA])
        if area < max(2.0, 0.002 * side * side):
            continue
        blob = labels == i
        contours, hierarchy = cv2.findContours(blob.astype(np.uint8), cv2.RETR_CCOMP,
                                               cv2.CHAIN_APPROX_NONE)
        holes = sum(1 for c, link in zip(contours, hierarchy.reshape(-1, 4))
                    if link[3] >= 0 and cv2.contourArea(c) >= 1.5)
        ys, xs = np.nonzero(blob)
        ev = np.linalg.eigvalsh(np.cov(np.column_stack([xs, ys]).T.astype(float))) \
            if len(xs) > 2 else np.ones(2)
        blobs.append(_Blob(mask=blob, weight=np.where(blob, weight, 0.0), area=area,
                           holes=holes, centre=np.array([xs.mean(), ys.mean()]),
                           elongation=float(math.sqrt(max(ev[1], 1e-6) / max(ev[0], 1e-6)))))
    return blobs


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
        along = -along
    # An arrow's head ends in a point; a T's bar (on a HIT face) ends square.
    tip = along > along.max() - 0.12 * length
    if np.percentile(across[tip], 95) > 0.75 * max(width_lo, width_hi):
        return None
    bearing = math.degrees(math.atan2(ax, -ay)) % 360.0
    ratio = max(width_lo, width_hi) / max(min(width_lo, width_hi), 0.5)
    return bearing, float(min(0.99, 0.6 + 0.1 * ratio))




def _small_arrow_bearing(blobs: list[_Blob]) -> float | None:
    """The small arrow beside the word on a HIT face: of the arrow-shaped marks, the one
    farthest from the marks' middle (the word sits in the middle of the face)."""
    if not blobs:
        return None
    middle = np.mean([b.centre for b in blobs], axis=0)
    found = [(float(np.linalg.norm(b.centre - middle)), a[0]) for b in blobs
             if b.elongation >= 1.7 for a in [_arrow_bearing(b)] if a]
    return max(found)[1] if found else None


# ---------------------------------------------------------------- the face classifier


class _Network:
    """A one-hidden-layer network in numpy: features of the 32x32 face -> class scores."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        self.w = {k: np.asarray(v, np.float32) for k, v in weights.items()}

    def probabilities(self, faces: np.ndarray) -> np.ndarray:
        """Softmax probabilities for a batch of (N, FACE_PX, FACE_PX) faces."""
        x = (face_features(faces) - self.w["mean"]) / self.w["std"]
        hidden = np.maximum(x @ self.w["w1"] + self.w["b1"], 0)
        logits = hidden @ self.w["w2"] + self.w["b2"]
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, face: np.ndarray) -> np.ndarray:
        """Class probabilities of one face, averaged over its four quarter turns."""
        turns = np.stack([np.rot90(face, k) for k in range(4)])
        return self.probabilities(turns).mean(axis=0)


def face_features(faces: np.ndarray) -> np.ndarray:
    """Ink at 16x16 plus gradient-orientation histograms on a 4x4 grid (N, 256 + 128)."""
    faces = np.asarray(faces, np.float32)
    small = np.stack([cv2.resize(f, (16, 16), interpolation=cv2.INTER_AREA) for f in faces])
    gx = np.stack([cv2.Sobel(f, cv2.CV_32F, 1, 0, ksize=3) for f in faces])
    gy = np.stack([cv2.Sobel(f, cv2.CV_32F, 0, 1, ksize=3) for f in faces])
    mag = np.hypot(gx, gy)
    bins = ((np.arctan2(gy, gx) % np.pi) / np.pi * 8).astype(int) % 8
    n = len(faces)
    cell = FACE_PX // 4
    hist = np.zeros((n, 4, 4, 8), np.float32)
    for b in range(8):
        m = np.where(bins == b, mag, 0).reshape(n, 4, cell, 4, cell).sum(axis=(2, 4))
        hist[..., b] = m
    hist /= hist.sum(axis=3, keepdims=True) + 1e-3
    return np.concatenate([small.reshape(n, -1), hist.reshape(n, -1)], axis=1)


@functools.cache
def _model() -> _Network:
    if not os.path.exists(WEIGHTS):
        raise FileNotFoundError(
            f"{WEIGHTS} is missing: restore it from git, or train it again with "
            "`python benchmarks/special_train.py`")
    with np.load(WEIGHTS) as data:
        return _Network(dict(data))
