"""Where the dice might be: candidate die centres and sizes in a tray frame.

The segmentation is deliberately generous (every die must be among the candidates); the crop
classifier decides afterwards which candidates are dice. It uses edges, not colour, so it
works on any tray colour: dice have strong outlines and pips, a tray has smooth areas. Only
once dice are found does colour help: beside a die, a die of another colour.

Kinds of candidates:
- `blob_candidates`: strong edges, closed and hole-filled into blobs; each local maximum of
  the distance transform is a candidate centre, its value the half-side of the die (a
  square of side a has its inscribed radius a/2 there). Touching dice give one maximum each.
- `density_candidates`: once the die size is known, peaks of edge density at die scale find
  the dice whose outline did not close (a white die on a white tray shows little more than
  its pips);
- `cluster_candidates`: a grid over blobs bigger than the dice found in them (touching dice),
  or holding a die read without a face (two touching dice can read as one leaning die); the
  reader reads it coarse to fine (`coarse`);
- `around`: nine candidates around a place the classifier half took for a die (a die whose
  outline stays under the edge threshold leaves candidates off its centre);
- `pip_candidates`: once the die size is known, lone pip-sized blobs on a patch that differs
  in colour from the floor around it: a 1 whose outline stays under the edge threshold
  leaves a blob of its pip only, too small to be a candidate of the first kind;
- `other_colour_candidates`: beside each die found, a body of another colour than the die's
  and the floor's: a touching die whose blob merged with its neighbour's;
- `pip_cluster_candidates`: in a blob holding touching dice, the centres of groups of pips
  that no die found explains: a touching die the other candidates all missed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

EDGE_FLOOR = 18        # grey levels: the weakest edge that counts, whatever the image
EDGE_PERCENTILE = 90   # ... or 1.5x this percentile of the image's edges, if higher
MIN_HALF_SIDE = 5.0    # pixels at work scale: smaller blobs are noise, not dice
MAX_HOLE_FRACTION = 0.03  # holes up to this share of the image get filled (pips, die faces)
DIE_BLOB_AREA = 1.3    # a lone die's blob, in die sides squared (outline and shadow included)
CLUSTER_MISSING = 0.2  # a blob this many die areas larger than its dice explain is crowded,
CLUSTER_MIN = 1.6      # if it is this many die areas at least (one die's blob varies)...
CLUSTER_DICE = 12      # ... and at most this many (not a tray wall or frame)...
CLUSTER_FILL = 0.35    # ... if they fill this share of their bounding box at least.
PAIR_MIN = 1.4         # A blob filling less (dice strewn in a chain), or from this many die
                       # areas to CLUSTER_MIN (a die touching one found), gets a grid only
SPRAWL_CLEAR = 1.0     # off every die found, and this x its side off one read without a
                       # face (a leaning die's tilted top face reads as a flat die's)
DOUBT_BLOB = 1.0       # die areas: a blob this large holding a die read without a face is
                       # searched like a cluster (two touching dice can look like one leaning)
GRID_CLEAR = 0.6       # no grid points closer than this x its side to a die surely read,
GRID_CORE = 0.2        # ... nor from this to GRID_CLEAR x its side from a die read unsurely
GRID_DEPTH = 0.22      # ... nor closer than this x the die side to a blob's edge
DENSITY_FLOOR = 0.12   # share of edge pixels in a die-sized window: a candidate from there on
TAKEN_REACH = 0.75     # a found die's edges (outline, shadow) lie within this x its side
PIP_SIDES = (0.1, 0.45)  # a lone pip's blob: its longer side this share of the die side,
PIP_ROUND = 0.6        # ... its shorter side at least this share of its longer one, and
PIP_CONTRAST = 12.0    # ... the colour around it this far (CIE Lab) from the floor's
PIP_BLOB = 1.4         # die areas: a blob this large holding a die found holds touching dice;
PIP_ROOM = 0.1         # ... with this many die areas beyond `TAKEN_REACH` of its dice found
                       # (room for one more: most such blobs are all explained), it is
PIP_RADIUS = 0.09      # ... searched for pips of about this x the die's side in radius,
PIP_RESPONSE = 15.0    # ... this strong (grey levels, the LoG scale-normalised); those
PIP_OWN = 0.5          # ... within this x the side of a die found are its own, the others
PIP_LINK = 0.42        # ... grouped when closer than this x the side (one face's pips)
RING = 0.75            # die sides from a die read to where a touching die's body lies
OWN_PATCH = 0.2        # the median colours of the die's own body (this x its side either
RING_PATCH = 0.12      # side of its centre) and of the ring's places (this x) are compared:
OTHER_COLOUR = 60.0    # this far apart (BGR distance), and as far from the floor's, a place
SAME_COLOUR = 40.0     # is another die's body, its pixels those within this of its colour,
BODY_AREA = 0.2        # ... this x side squared at least, its centre within this x side of
BODY_REACH = 1.2       # the die (touching it) and at most this far inside it (a top face's
BODY_DEPTH = 0.75      # half side is 0.38 sides; a body deeper is a stretch of floor)
FOUND_CLEAR = 0.5      # no ring places this x a found die's side from it (that die's body),
BODY_APART = 0.4       # ... nor this x side from a body found already
RESIDUE_REACH = 0.5    # a die read with a face explains its blob this x side round its centre;
RESIDUE_DEPTH = 0.25   # blob left over this x side deep is a die of its own
RESIDUE_MAX = 4        # ... at most this many in one blob
RESIDUE_ROOM = 0.4     # die sides squared: the least room left in a blob for another die



@dataclass(frozen=True)
class Candidate:
    """A place that may hold a die: centre and die side, in the frame's pixels."""

    x: float
    y: float
    side: float


def edge_map(image: np.ndarray) -> np.ndarray:
    """Largest colour-channel morphological gradient: catches yellow on white as well as grey."""
    blurred = cv2.GaussianBlur(image, (3, 3), 0)
    gradient = cv2.morphologyEx(blurred, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    b, g, r = cv2.split(gradient)
    return cv2.max(cv2.max(b, g), r)


def strong_edges(edges: np.ndarray) -> np.ndarray:
    counts = np.cumsum(cv2.calcHist([edges], [0], None, [256], [0, 256]).ravel())
    percentile = int(np.searchsorted(counts, counts[-1] * EDGE_PERCENTILE / 100))
    threshold = max(EDGE_FLOOR, 1.5 * percentile)
    return cv2.threshold(edges, threshold, 255, cv2.THRESH_BINARY)[1]


def open_blobs(closed: np.ndarray) -> np.ndarray:
    """`closed_blobs` without thin lines and specks (too small or thin for a die)."""
    return cv2.morphologyEx(closed, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))


def closed_blobs(edges_mask: np.ndarray) -> np.ndarray:
    """Strong edges closed into blobs, holes (pips, plain faces) filled."""
    h, w = edges_mask.shape
    mask = cv2.morphologyEx(edges_mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is not None:
        max_hole = MAX_HOLE_FRACTION * h * w
        holes = [c for c, link in zip(contours, hierarchy[0])
                 if link[3] >= 0 and cv2.contourArea(c) < max_hole]
        cv2.drawContours(mask, holes, -1, 255, -1)
    return mask


def pip_candidates(closed: np.ndarray, image: np.ndarray, side: float,
                   taken: list[Candidate]) -> list[Candidate]:
    """A candidate of the dice's `side` at every lone pip-sized blob of `closed`
    (`closed_blobs`, `image`'s scale) away from the `taken` dice, on a patch whose colour
    differs from the floor around it by `PIP_CONTRAST` at least.

    A 1 whose outline stays under the edge threshold (a purple die on a dark green floor)
    leaves a blob of its pip only, smaller than a die: no candidate of `blob_candidates`,
    and too few edges for `density_candidates`. Its pip lies at its face's centre, where
    the classifier reads a die best. The colour test keeps dust on a floor (a speck on
    white paper reads as a white die's 1) from becoming a die."""
    contours, hierarchy = cv2.findContours(closed, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return []
    # Outer boundaries only: blobs inside a blob's hole are blobs too (RETR_EXTERNAL would
    # miss every blob inside a frame-wide one, a tray wall's).
    contours = [c for c, link in zip(contours, hierarchy[0]) if link[3] < 0]
    boxes = np.array([cv2.boundingRect(c) for c in contours]).reshape(-1, 4)
    longest, shortest = boxes[:, 2:].max(axis=1), boxes[:, 2:].min(axis=1)
    pip_sized = np.flatnonzero((longest >= PIP_SIDES[0] * side) & (longest <= PIP_SIDES[1] * side)
                               & (shortest >= PIP_ROUND * longest))
    found = []
    for i in pip_sized:
        bx, by, bw, bh = boxes[i]
        # Round and filled (a polygon through its boundary pixels' centres: a disc fills
        # about 3/4 of (bw - 1) x (bh - 1)), not a bent piece of an outline.
        if cv2.contourArea(contours[i]) < 0.5 * (bw - 1) * (bh - 1):
            continue
        x, y = bx + (bw - 1) / 2, by + (bh - 1) / 2
        if any(math.hypot(x - c.x, y - c.y) < TAKEN_REACH * c.side for c in taken):
            continue
        if _body_contrast(image, closed, x, y, side) >= PIP_CONTRAST:
            found.append(Candidate(float(x), float(y), side))
    return found


def _body_contrast(image: np.ndarray, closed: np.ndarray, x: float, y: float, side: float
                   ) -> float:
    """CIE Lab distance between the mean colour within 0.3 `side` of (x, y) (a die's body
    around its pip) and that from 0.55 to 0.8 `side` away (the floor around a die), the
    blobs of `closed` (pips, edges) left out of both."""
    h, w = closed.shape[:2]
    x0, x1 = max(0, int(x - 0.8 * side)), min(w, int(x + 0.8 * side) + 1)
    y0, y1 = max(0, int(y - 0.8 * side)), min(h, int(y + 0.8 * side) + 1)
    plain = cv2.bitwise_not(closed[y0:y1, x0:x1])

    def square(r: float) -> tuple[slice, slice]:
        return (slice(max(0, int(y - y0 - r)), max(0, int(y - y0 + r) + 1)),
                slice(max(0, int(x - x0 - r)), max(0, int(x - x0 + r) + 1)))

    floor = plain.copy()
    floor[square(0.55 * side)] = 0
    body = np.zeros_like(plain)
    body[square(0.3 * side)] = plain[square(0.3 * side)]
    if not body.any() or not floor.any():
        return 0.0
    patch = image[y0:y1, x0:x1]
    means = np.float32([[cv2.mean(patch, mask=body)[:3], cv2.mean(patch, mask=floor)[:3]]])
    lab = cv2.cvtColor(means / 255.0, cv2.COLOR_BGR2Lab)[0]
    return float(np.linalg.norm(lab[0] - lab[1]))


def blob_distances(blobs: np.ndarray) -> np.ndarray:
    """Each blob pixel's distance to the blob's edge."""
    return cv2.distanceTransform(blobs, cv2.DIST_L2, 5)


def blob_candidates(dist: np.ndarray) -> list[Candidate]:
    """Distance-transform maxima of the filled blobs (`blob_distances`; module docstring)."""
    peaks = (dist >= cv2.dilate(dist, np.ones((7, 7), np.uint8))) & (dist >= MIN_HALF_SIDE)
    return _suppress(dist, peaks, spacing=0.9)


def blob_components(blobs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The filled blobs' labels (0: no blob) and their connected-component statistics."""
    # 16-bit labels are three times faster than 32-bit ones; they suffice since every blob
    # has at least the 25 pixels of the 5x5 opening in `open_blobs`.
    ltype = cv2.CV_16U if blobs.size < 25 * 65535 else cv2.CV_32S
    _, labels, stats, _ = cv2.connectedComponentsWithStats(blobs, connectivity=8, ltype=ltype)
    return labels, stats


def cluster_candidates(components: tuple[np.ndarray, np.ndarray], dist: np.ndarray,
                       side: float, taken: list[Candidate], settled: list[Candidate] = (),
                       doubtful: list[Candidate] = (), step: float = 0.25, *,
                       unsure: list[Candidate] = (), coarse: bool | None = None
                       ) -> list[Candidate]:
    """A grid of candidates (every `step` die sides) over blobs with more dice than found.

    Dice in a cluster merge into one blob whose distance-transform maxima may sit between
    them; where a blob is larger than the dice found in it explain, a grid over it lets the
    classifier, trained to accept only centred dice, find every die's centre. `components`
    is `blob_components(blobs)`, `dist` is `blob_distances(blobs)`: the grid keeps
    `GRID_DEPTH` die sides inside the blob's edge. A blob of at least `DOUBT_BLOB` die
    areas holding a `doubtful` die (one read without a face: leaning or unreadable) gets a
    grid too: two touching dice seen in perspective can make a blob no larger than one
    die's with its shadow, and a candidate between them looks like a leaning die. A blob
    filling under `CLUSTER_FILL` of its box (a chain of dice), or from `PAIR_MIN` to
    `CLUSTER_MIN` die areas (a die touching one found), gets a grid only off every die found
    (`GRID_CLEAR`) and `SPRAWL_CLEAR` off the doubtful ones: a grid point on a leaning die's
    tilted top face would read it as a flat die.

    No grid points near dice read already: within `GRID_CLEAR` of their side of the
    `settled` ones (read surely as a face), and from `GRID_CORE` to `GRID_CLEAR` of it
    around the `unsure` ones (read as a pip face, not surely: a point nearer the centre may
    read the die better centred; one farther out would only find it again off-centre).
    `coarse`: True, only every other point of every other row (a grid twice as coarse, a
    quarter of the points); False, only the others; None, all. Read coarse first, the dice
    it finds can spare the fine points near them.
    """
    labels, stats = components
    n = len(stats)
    area = stats[:, cv2.CC_STAT_AREA]
    fill = area / np.maximum(1, stats[:, cv2.CC_STAT_WIDTH] * stats[:, cv2.CC_STAT_HEIGHT])
    found_in = np.bincount(_labels_at(labels, taken), minlength=n)
    in_doubt = np.zeros(n, bool)
    in_doubt[_labels_at(labels, doubtful)] = True
    die_area = DIE_BLOB_AREA * side * side
    def larger_than_found(least: float) -> np.ndarray:
        return np.maximum(found_in + CLUSTER_MISSING, least) * die_area < area
    # A grid over the whole blob, or only off the dice found in it (see the constants).
    whole = ((larger_than_found(CLUSTER_MIN) | in_doubt & (DOUBT_BLOB * die_area <= area))
             & (fill > CLUSTER_FILL))
    off_dice = ~whole & larger_than_found(PAIR_MIN)
    crowded = [i for i in range(1, n) if (whole[i] or off_dice[i])
               and area[i] < CLUSTER_DICE * die_area]
    pitch = max(1.0, step * side)
    found = []
    for i in crowded:
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        # No grid points near dice read already (see above), nor near a blob's edge: a
        # die's centre lies half a die inside its blob, a cluster's too. Drawn in the
        # blob's box only: the same pixels as in the frame, many times cheaper.
        free = ((labels[y:y + bh, x:x + bw] == i)
                & (dist[y:y + bh, x:x + bw] >= GRID_DEPTH * side)).view(np.uint8)
        for c in taken if off_dice[i] else settled:
            cv2.circle(free, (int(c.x) - x, int(c.y) - y), int(GRID_CLEAR * c.side), 0, -1)
        if off_dice[i]:
            for c in doubtful:
                cv2.circle(free, (int(c.x) - x, int(c.y) - y), int(SPRAWL_CLEAR * c.side), 0, -1)
        if unsure:
            ring = np.zeros_like(free)
            for c in unsure:
                cv2.circle(ring, (int(c.x) - x, int(c.y) - y), int(GRID_CLEAR * c.side), 1, -1)
            for c in unsure:
                cv2.circle(ring, (int(c.x) - x, int(c.y) - y), int(GRID_CORE * c.side), 0, -1)
            free &= 1 - ring
        ys = np.arange(y + pitch / 2, y + bh, pitch)
        xs = np.arange(x + pitch / 2, x + bw, pitch)
        keep = free[ys.astype(int) - y][:, xs.astype(int) - x].astype(bool)
        if coarse is not None:
            on_coarse = (np.arange(len(ys)) % 2 == 0)[:, None] & (np.arange(len(xs)) % 2 == 0)
            keep &= on_coarse if coarse else ~on_coarse
        rows, columns = np.nonzero(keep)
        found += [Candidate(float(xs[j]), float(ys[k]), side) for k, j in zip(rows, columns)]
    return found


def density_candidates(edges_mask: np.ndarray, side: float, taken: list[Candidate],
                       near: list[Candidate] = (), reach: float = 0.0) -> list[Candidate]:
    """Peaks of edge density over a die-sized window, away from the dice already found.

    The found dice's own edges are blanked first: next to a busy die, a plain die's weaker
    peak would not be a maximum and would go unseen. The density, smooth at die scale, is
    found at half the resolution: four times cheaper, and its peaks within two pixels.
    With `near`, only the peaks within `reach` die sides of those, found in their box grown
    by a side more (a peak depends on the edges within a side of it): cheaper.
    """
    if near:
        h, w = edges_mask.shape
        grow = (reach + 1) * side
        # Even corners: the window is halved on the frame's own pixel pairs.
        x0 = max(0, int(min(c.x for c in near) - grow)) // 2 * 2
        y0 = max(0, int(min(c.y for c in near) - grow)) // 2 * 2
        x1 = min(w, int(max(c.x for c in near) + grow) + 1)
        y1 = min(h, int(max(c.y for c in near) + grow) + 1)
        found = density_candidates(edges_mask[y0:y1, x0:x1], side,
                                   [Candidate(c.x - x0, c.y - y0, c.side) for c in taken])
        found = [Candidate(c.x + x0, c.y + y0, c.side) for c in found]
        return [c for c in found
                if any(math.hypot(c.x - k.x, c.y - k.y) <= reach * side for k in near)]
    unexplained = edges_mask.copy()
    for c in taken:
        cv2.circle(unexplained, (int(c.x), int(c.y)), int(TAKEN_REACH * c.side), 0, -1)
    h, w = edges_mask.shape    # even-sized: OpenCV halves those some twenty times faster
    half = cv2.resize(unexplained[:h - h % 2, :w - w % 2], (max(1, w // 2), max(1, h // 2)),
                      interpolation=cv2.INTER_AREA)
    k = max(3, int(round(side / 2)))
    density = cv2.boxFilter(half, cv2.CV_32F, (k, k)) / 255.0
    peaks_mask = (density >= cv2.dilate(density, np.ones((k // 2 * 2 + 1,) * 2, np.uint8)))
    peaks_mask &= density > DENSITY_FLOOR
    for c in taken:
        cv2.circle(peaks_mask.view(np.uint8), (int(c.x / 2), int(c.y / 2)), int(0.35 * c.side),
                   0, -1)
    found = _suppress(density, peaks_mask, spacing=0.0, fixed_radius=side / 4)
    return [Candidate(2 * c.x + 0.5, 2 * c.y + 0.5, side) for c in found]


def around(x: float, y: float, side: float, step: float) -> list[Candidate]:
    """Nine candidates of side `side`: the place itself and eight around it, `step` die
    sides away (a die's centre near a place that was cut off it)."""
    d = step * side
    return [Candidate(x + dx * d, y + dy * d, side) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]


def _suppress(score: np.ndarray, peaks: np.ndarray, spacing: float,
              fixed_radius: float | None = None) -> list[Candidate]:
    """Greedy non-maximum suppression: strongest peak first, closer peaks dropped.

    With `fixed_radius`, every candidate gets that half-side and peaks closer than it merge;
    otherwise the score is the half-side and peaks within `spacing` x it merge.
    """
    contours, _ = cv2.findContours(peaks.astype(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return []
    boxes = np.array([cv2.boundingRect(c) for c in contours], np.float64)
    xs = boxes[:, 0] + (boxes[:, 2] - 1) / 2
    ys = boxes[:, 1] + (boxes[:, 3] - 1) / 2
    values = score[np.clip(ys.round().astype(int), 0, score.shape[0] - 1),
                   np.clip(xs.round().astype(int), 0, score.shape[1] - 1)]
    order = np.argsort(-values, kind="stable")
    xs, ys, values = xs[order], ys[order], values[order]
    radii = np.full(len(xs), fixed_radius) if fixed_radius is not None else values
    reach = radii[:, None] if fixed_radius is not None else \
        spacing * np.maximum(radii[:, None], radii)
    close = np.hypot(xs[:, None] - xs, ys[:, None] - ys) <= reach
    kept, merged = [], np.zeros(len(xs), bool)
    for i in range(len(xs)):
        if not merged[i]:
            kept.append(Candidate(float(xs[i]), float(ys[i]), 2 * float(radii[i])))
            merged |= close[i]
    return kept


def _labels_at(labels: np.ndarray, places: list[Candidate]) -> np.ndarray:
    """The blob label (`blob_components`) under each place (clipped to the frame)."""
    h, w = labels.shape
    return np.array([labels[min(h - 1, max(0, int(c.y))), min(w - 1, max(0, int(c.x)))]
                     for c in places], int)


def other_colour_candidates(image: np.ndarray, components: tuple[np.ndarray, np.ndarray],
                            dice: list[Candidate], found: list[Candidate], side: float
                            ) -> list[Candidate]:
    """The centres of die bodies of another colour touching the `dice` (any reading).

    Two touching dice make one blob whose distance-transform ridge puts one candidate
    between them, read as leaning, and the dice's centres lie closer than one die, one
    reading keeps apart: of a pair, one die is read and the other is lost. When the two
    differ in colour the lost one shows as a patch of another colour beside the one read.
    Around each of the `dice` whose blob (`components`, `blob_components`) is larger than
    the dice `found` in it (read with a face) explain, by `CLUSTER_MISSING` die areas,
    `RING` x `side` out in eight directions, a place inside the blob and away from every
    die found whose median colour lies `OTHER_COLOUR` from the die's own body's and from
    the floor's (the median outside the blobs) is a body; the pixels of its colour (within
    `SAME_COLOUR`) connected to it, pips closed in, give its centre: the point deepest
    inside them (a centroid drifts to whatever bled in)."""
    labels, stats = components
    found_in = np.bincount(_labels_at(labels, found), minlength=len(stats))
    crowded = (found_in + CLUSTER_MISSING) * DIE_BLOB_AREA * side * side < \
        stats[:, cv2.CC_STAT_AREA]
    crowded[0] = False
    dice = [d for d, label in zip(dice, _labels_at(labels, dice)) if crowded[label]]
    if not dice:
        return []
    blobs = labels > 0
    h, w = image.shape[:2]
    centres = np.array([(d.x, d.y) for d in dice], np.float32)
    turns = np.arange(8) * (np.pi / 4)
    ring = (centres[:, None] + RING * side * np.stack([np.cos(turns), np.sin(turns)], 1)
            ).reshape(-1, 2)
    owner = np.repeat(np.arange(len(dice)), len(turns))
    xi, yi = ring[:, 0].astype(int), ring[:, 1].astype(int)
    keep = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    keep[keep] = blobs[yi[keep], xi[keep]]
    if found:
        known = np.array([(k.x, k.y, k.side) for k in found], np.float32)
        keep &= (np.hypot(ring[:, None, 0] - known[:, 0], ring[:, None, 1] - known[:, 1])
                 >= FOUND_CLEAR * known[:, 2]).all(axis=1)
    if not keep.any():
        return []
    step = max(1, int(side / 2))
    floor_pixels = image[::step, ::step][~blobs[::step, ::step]]
    if len(floor_pixels) == 0:
        return []
    floor = np.median(floor_pixels, axis=0)
    own = _patch_medians(image, centres, OWN_PATCH * side)[owner[keep]]
    places = ring[keep]
    colours = _patch_medians(image, places, RING_PATCH * side)
    other = (np.linalg.norm(colours - own, axis=1) >= OTHER_COLOUR) & \
        (np.linalg.norm(colours - floor, axis=1) >= OTHER_COLOUR)
    close = np.ones((max(3, int(side * PIP_SIDES[1]) | 1),) * 2, np.uint8)
    bodies: list[Candidate] = []
    for (px, py), colour, d in zip(places[other], colours[other], owner[keep][other]):
        if any(math.hypot(px - k.x, py - k.y) < BODY_APART * side for k in bodies):
            continue
        x0, y0 = max(0, int(px - side)), max(0, int(py - side))
        x1, y1 = min(w, int(px + side) + 1), min(h, int(py + side) + 1)
        window = image[y0:y1, x0:x1].astype(np.float32) - colour
        mask = ((window * window).sum(axis=2) < SAME_COLOUR ** 2).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, close)
        _, labels = cv2.connectedComponents(mask, connectivity=8)
        body = (labels == labels[int(py) - y0, int(px) - x0]).astype(np.uint8)
        if labels[int(py) - y0, int(px) - x0] == 0 or body.sum() < BODY_AREA * side * side:
            continue
        dist = cv2.distanceTransform(body, cv2.DIST_L2, 3)
        cy, cx = np.unravel_index(int(dist.argmax()), dist.shape)
        if dist[cy, cx] <= BODY_DEPTH * side and \
                math.hypot(cx + x0 - dice[d].x, cy + y0 - dice[d].y) <= BODY_REACH * side:
            bodies.append(Candidate(float(cx + x0), float(cy + y0), side))
    return bodies


def residue_candidates(components: tuple[np.ndarray, np.ndarray], found: list[Candidate],
                       held: list[Candidate], side: float) -> list[Candidate]:
    """Places in the blobs (`components`, `blob_components`) under the dice `held` that the
    `found` dice (read with a face) do not explain: each explains its blob `RESIDUE_REACH`
    sides round its centre; the deepest point of what is left, when `RESIDUE_DEPTH` sides
    deep, is a candidate, and again once that one is taken, up to `RESIDUE_MAX` a blob.

    Two touching dice make one blob; when one of them is read, its blob's area looks
    explained (a die's blob is measured by the outline-sized side, with the outline's
    perspective and shadow), so the grids leave it alone and the other die is lost."""
    if not held:
        return []
    labels, stats = components
    held = _labels_at(labels, held)
    found_in = np.bincount(_labels_at(labels, found), minlength=len(stats))
    # A blob smaller than its dice and `RESIDUE_ROOM` more cannot hold another (most blobs
    # hold one die; this spares their distance transforms).
    roomy = stats[:, cv2.CC_STAT_AREA] >= (found_in + RESIDUE_ROOM) * side * side
    reach = [RESIDUE_REACH * max(side, c.side) for c in found]
    out: list[Candidate] = []
    for label in np.unique(held[(held > 0) & roomy[held]]):
        x0, y0, bw, bh = (int(v) for v in stats[label, :4])
        # One pixel of background round the blob's box: the distance transform takes what
        # lies beyond the image's edge for blob, which would make the box's edges deep.
        left = np.zeros((bh + 2, bw + 2), np.uint8)
        left[1:-1, 1:-1] = labels[y0:y0 + bh, x0:x0 + bw] == label
        x0, y0 = x0 - 1, y0 - 1
        for c, r in zip(found, reach):
            if x0 - r <= c.x <= x0 + bw + r and y0 - r <= c.y <= y0 + bh + r:
                cv2.circle(left, (round(c.x - x0), round(c.y - y0)), round(r), 0, -1)
        for _ in range(RESIDUE_MAX):
            dist = cv2.distanceTransform(left, cv2.DIST_L2, 3)
            cy, cx = np.unravel_index(int(dist.argmax()), dist.shape)
            if dist[cy, cx] < RESIDUE_DEPTH * side:
                break
            out.append(Candidate(float(cx + x0), float(cy + y0), side))
            cv2.circle(left, (int(cx), int(cy)), round(RESIDUE_REACH * side), 0, -1)
    return out


def pip_cluster_candidates(components: tuple[np.ndarray, np.ndarray], image: np.ndarray,
                           side: float, found: list[Candidate], clear: float
                           ) -> list[Candidate]:
    """Centres of groups of pips in the blobs (`components`, `blob_components`) under the
    `found` dice that hold more than one die (`PIP_BLOB` die areas) and room for another
    (`PIP_ROOM`), farther than `clear` sides from every die found.

    A pip is a spot darker or lighter than what is round it: a peak of the scale-normalised
    Laplacian of Gaussian at a pip's scale (`PIP_RADIUS`), `PIP_RESPONSE` grey levels strong,
    inside the blob (on a die's body, not the floor, whose specks a crop can read as a 1).
    Pips within `PIP_OWN` sides of a die found are its own; the others, of one polarity,
    closer than `PIP_LINK` sides are one group, whose mean lies near the centre of the face
    they are on (a 1's pip at it). A die touching a die found can be missed by every
    candidate so far while its face shows plainly (seventy-first session), and its pips lie
    where no die found explains them; those of a found die's side faces lie within `clear`
    of it, or read as no die."""
    if not found:
        return []
    labels, stats = components
    held = _labels_at(labels, found)
    held = np.unique(held[(held > 0)
                          & (stats[held, cv2.CC_STAT_AREA] >= PIP_BLOB * side * side)])
    if not len(held):
        return []
    sigma = PIP_RADIUS * side / math.sqrt(2.0)
    pad = math.ceil(3 * sigma)
    h, w = labels.shape
    centres = np.array([(c.x, c.y) for c in found])
    out: list[Candidate] = []
    for label in held:
        bx, by, bw, bh = (int(v) for v in stats[label, :4])
        # The blob less its dice's own (`PIP_OWN`), where its pips are sought.
        left = (labels[by:by + bh, bx:bx + bw] == label).astype(np.uint8)
        near = np.flatnonzero((np.abs(centres[:, 0] - (bx + bw / 2)) <= bw / 2 + side)
                              & (np.abs(centres[:, 1] - (by + bh / 2)) <= bh / 2 + side))
        room = left.copy()
        for x, y in centres[near]:
            cv2.circle(room, (round(x - bx), round(y - by)), round(TAKEN_REACH * side), 0, -1)
        if cv2.countNonZero(room) < PIP_ROOM * side * side:
            continue
        for x, y in centres[near]:
            cv2.circle(left, (round(x - bx), round(y - by)), round(PIP_OWN * side), 0, -1)
        lx, ly, lw, lh = cv2.boundingRect(left)
        x0, y0 = max(0, bx + lx - pad), max(0, by + ly - pad)
        x1, y1 = min(w, bx + lx + lw + pad), min(h, by + ly + lh + pad)
        inside = np.zeros((y1 - y0, x1 - x0), bool)
        inside[by + ly - y0:by + ly + lh - y0, bx + lx - x0:bx + lx + lw - x0] = \
            left[ly:ly + lh, lx:lx + lw] > 0
        for pips in _pips(image[y0:y1, x0:x1], sigma, inside):
            pips += (x0, y0)
            mids = _group_means(pips, PIP_LINK * side)
            clear_of_all = np.hypot(mids[:, :1] - centres[:, 0], mids[:, 1:] - centres[:, 1]
                                    ).min(axis=1) > clear * side
            out += [Candidate(float(x), float(y), side) for x, y in mids[clear_of_all]]
    return out


def pip_groups(image: np.ndarray, x: float, y: float, reach: float, side: float,
               work_side: float) -> list[tuple[float, float]]:
    """The centres of the groups of pips (`_pips`, grouped as `pip_cluster_candidates`
    groups them) within `reach` pixels of (x, y), on dice of `side` pixels in `image`; the
    neighbourhood is shrunk first so that a die is at most `work_side` pixels."""
    shrink = min(1.0, work_side / side)
    pad = 3 * PIP_RADIUS * side / math.sqrt(2.0) + 2.0
    h, w = image.shape[:2]
    x0, y0 = max(0, int(x - reach - pad)), max(0, int(y - reach - pad))
    x1, y1 = min(w, int(x + reach + pad) + 1), min(h, int(y + reach + pad) + 1)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return []
    patch = image[y0:y1, x0:x1]
    if shrink < 1.0:
        patch = cv2.resize(patch, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
    ph, pw = patch.shape[:2]
    sx, sy = pw / (x1 - x0), ph / (y1 - y0)     # the patch's pixels per image pixel
    ys, xs = np.mgrid[0:ph, 0:pw]
    inside = np.hypot((xs + 0.5) / sx + x0 - 0.5 - x, (ys + 0.5) / sy + y0 - 0.5 - y) <= reach
    centres: list[tuple[float, float]] = []
    for pips in _pips(patch, PIP_RADIUS * side * sx / math.sqrt(2.0), inside):
        centres += [(float((mx + 0.5) / sx + x0 - 0.5), float((my + 0.5) / sy + y0 - 0.5))
                    for mx, my in _group_means(pips, PIP_LINK * side * sx)]
    return centres


def _pips(image: np.ndarray, sigma: float, inside: np.ndarray) -> list[np.ndarray]:
    """Spots darker, then lighter, than what is round them in the BGR `image`: peaks of the
    scale-normalised Laplacian of Gaussian at `sigma`, `PIP_RESPONSE` grey levels strong,
    where `inside` (a mask of the image's size) holds; per polarity the spots found, N x 2
    (x, y) in the image's pixels."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    response = sigma * sigma * cv2.Laplacian(cv2.GaussianBlur(grey, (0, 0), sigma), cv2.CV_32F)
    found = []
    for polarity in (1.0, -1.0):
        spots = polarity * response
        peaks = (spots >= PIP_RESPONSE) & inside & \
            (spots == cv2.dilate(spots, np.ones((3, 3), np.uint8)))
        ys, xs = np.nonzero(peaks)
        if len(xs):
            found.append(np.column_stack([xs, ys]).astype(np.float64))
    return found


def _group_means(points: np.ndarray, link: float) -> np.ndarray:
    """The means of `points` (N x 2) in groups, points closer than `link` in one group
    (single linkage: the transitive closure of "closer than `link`")."""
    reach = (np.hypot(points[:, None, 0] - points[None, :, 0],
                      points[:, None, 1] - points[None, :, 1]) < link).astype(np.float32)
    while True:
        wider = (reach @ reach > 0).astype(np.float32)
        if np.array_equal(wider, reach):
            break
        reach = wider
    # Each point's group, named by its first member.
    _, group = np.unique(reach.argmax(axis=1), return_inverse=True)
    count = np.bincount(group)
    return np.column_stack([np.bincount(group, points[:, 0]) / count,
                            np.bincount(group, points[:, 1]) / count])


def _patch_medians(image: np.ndarray, centres: np.ndarray, half: float) -> np.ndarray:
    """Per centre (N x 2, x y), the median BGR colour of 5 x 5 pixels spread over the square
    `half` pixels either side of it (clipped to the image): N x 3 floats."""
    h, w = image.shape[:2]
    offsets = np.linspace(-half, half, 5)
    xs = np.clip((centres[:, 0, None] + offsets).astype(int), 0, w - 1)
    ys = np.clip((centres[:, 1, None] + offsets).astype(int), 0, h - 1)
    pixels = image[ys[:, :, None], xs[:, None, :]].reshape(len(centres), -1, 3)
    # Sorted as int16 along the last axis: many times faster than a median of uint8 rows.
    return np.sort(pixels.transpose(0, 2, 1).astype(np.int16), axis=-1)[..., 12].astype(
        np.float32)
