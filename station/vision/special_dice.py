"""Scatter and artillery dice: which special face a die shows, or None for a pip die.

    from station.vision.special_dice import read_special, classify_crop

    reading = read_special(image, x, y, side)     # a die found at (x, y), `side` pixels wide
    reading = classify_crop(crop)                 # or: an axis-aligned BGR crop of one die
    if reading is None: ...                       # not a special die: read it as a d6
    reading.kind         # "scatter" or "artillery"; a cocked die: the kind it most likely
                         # is, "d6" too (a leaning die shows its top face askew)
    reading.value        # scatter "arrow" / "hit"; artillery 2, 4, 6, 8, 10 or "misfire";
                         # None: the die is cocked (leaning on a die or the wall): re-roll
    reading.bearing_deg  # scatter: the arrow's direction in image coordinates, degrees
                         # clockwise from image up (on HIT the small arrow's; None if none,
                         # or on a die too small to show it: SMALL_ARROW_SIDE)
    reading.confidence   # 0..1

Out of the box, no teaching at the table:
1. The face: a small CNN (ONNX, run like the d6 network, `networks`; weights
   `weights/special_faces.onnx`, trained by `station/vision/training/train_special.py` on
   rendered dice in several sans-serif fonts and scatter arrows of several makers' shapes)
   reads a 40x40 crop of the die, 1.5 sides wide, averaged over two quarter turns so that
   numerals read whichever way up they lie. Classes: other (pips, or no die at all: None),
   arrow, hit, 2, 4, 6, 8, 10, misfire and cocked (any face, leaning). Where the reader
   only screens many places for a special face (`special_face_probability`), a smaller,
   cheaper network of the same classes does (`weights/special_screen.onnx`).
2. A die read as a face is shown to a lean check (the pip dice's, `classifier.LeanCheck`,
   fine-tuned on special dice cut where `read_special` and `read_segmented` cut them: weights `weights/special_lean.onnx`, trained by
   `station/vision/training/train_special_lean.py`), at the place it was read (at the top
   face found, when the face read best at a guess of where it lies) and at the
   segmenter's outline, which flags the leaning dice whose tilted face the face network
   reads as a flat one; not a die whose top face, found in the image, is square
   (`SQUARE_FACE`): a tilted face is foreshortened.
3. Bearings are measured, not classified, on the full-resolution pixels: the top face is a
   common colour near the crop's centre grown into a convex region (side faces are shaded
   differently, neighbouring dice differ in colour); its marks, brighter or darker than it,
   are the ink. The arrow's axis comes from the brightness-weighted second moments of its
   ink (sub-pixel, exact for a mirror-symmetric arrow), its head from which end is wider.
   On a HIT face the small arrow is the arrow-shaped mark farthest from the word.
4. An arrow face's bearing is checked by a bearing network (`weights/scatter_bearing.onnx`,
   trained by `station/vision/training/train_bearing.py`) that reads the arrow's direction
   off the face network's crop: where the print gives none (glare across the shaft) or one
   the network is sure points elsewhere, the network's bearing is taken. A HIT face's small
   arrow has a network of its own (`weights/scatter_hit_bearing.onnx`, the same script),
   trained also on HIT faces drawn without one, where it learns to be unsure: it gives no
   bearing there.
   A face read as an arrow that the face network doubts and the bearing network cannot
   point is read as a MISFIRE where that is its next likeliest face (`ARROW_DOUBT`: the
   word's bar taken for a shaft).
RULES.md SCAT-1..3 use these readings.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from station.vision.classifier import LeanCheck, normalise
from station.vision.networks import Network
from station.vision.crops import CropSource, outward_angle, softness, unsharp

# other: pips, or no die at all; cocked: a die leaning on another or the wall (any face)
CLASSES = ("other", "arrow", "hit", 2, 4, 6, 8, 10, "misfire", "cocked")
FACE_CROP = 40              # side of the crop the face network reads, pixels
CONTEXT = 1.5               # crop side / die side
COCKED = CLASSES.index("cocked")
MIN_PROBABILITY = 0.5       # below this the die is left to the d6 reader
COCKED_PROBABILITY = 0.7    # P(cocked) from which a die is flagged cocked, not read (on
                            # its own crop: `read_special`, `read_segmented`'s top face)
OUTLINE_COCKED_PROBABILITY = 0.9   # the same on the crop of a segmented die's whole
                                   # outline (`read_segmented`'s first look), which holds
                                   # its side faces and shadow too, and a flat die found
                                   # off its centre: a die flagged there stays cocked (0.9
                                   # for the forty-sixth session's network, on development
                                   # trays; the top face's crop flags leaning dice from 0.7,
                                   # docs/history/special-dice.md, sessions 14, 15, 45, 46)
FACE_TURNS = 2              # quarter turns the face network averages: four read 0.04 % more
                            # held-out crops right (artillery 0.3 %) at twice the cost
                            # (docs/history/special-dice.md, session 46)
FACE_AREA = 0.95            # a top face's area / side**2 (its corners are rounded)
OUTLINE_TO_FACE = (1.0, 1.2, 1.4, 1.6, 1.8)   # a segmented outline's side / the top face's
OUTWARD = (0.03, 0.06, 0.09)   # a segmented die is also read this share of its distance to the
AROUND = 0.25                  # frame's centre farther out, and this share of its outline's
TOP_FACE = 0.7                 # side around it, this share of its outline wide (where a flat
                               # die's top face may lie; the outlines are 1.2-1.9 faces wide)
SURE_AROUND = 0.8              # a face read at those places counts from this sure (below it,
                               # 3 of 4 were wrong on validation trays: a neighbour's face)
SURE_HIT = (0.8, 40)        # `read_segmented`: a HIT face on a die whose outline is at least
                            # 40 px wide counts from 0.8 sure. Dice come there from the pip
                            # reader, and a pip 1 with a glare spot reads as HIT: on validation
                            # trays 7 wrong HITs of pip dice were read 0.50-0.75 sure on outlines
                            # of 58-141 px, while every right HIT read under 0.8 was on a die
                            # under 30 px, whose word is a few pixels high (docs/history/special-dice.md,
                            # session 12)
SOFT_CROP = 0.29            # a face network crop this soft (`crops.softness`) whose likeliest
SHARPEN_CROP = (1.0, 1.2)   # face is a special one under MIN_PROBABILITY is read again through
                            # this unsharp mask (amount, sigma in crop pixels), and that
                            # reading taken when it names a special face MIN_PROBABILITY sure:
                            # blurred numerals (a camera out of focus; on a large frame the
                            # reader's own `SOFT_FRAME` does not see it at its working size).
                            # Not a doubted arrow (`ARROW_DOUBT` reads it): sharpened, a
                            # blurred MISFIRE word's bar looks like an arrow's shaft. On
                            # 1,200 development trays (half of them blurred more than the
                            # benchmark's) the face network read 20 more faces, none wrong
                            # (sixty-eighth session, docs/history/special-dice.md)
TOLERANCE_STEPS = (1.0, 1.5, 2.2)   # colour tolerances tried when growing the top face
MIN_CONTRAST = 25           # grey levels between the face and its print
ARROW_LEVELS = (None, 0.6, 0.75, 0.9)   # ink levels tried in turn for an arrow face's arrow
    # (None: Otsu's): a glare spot's soft halo merged with a light arrow shrinks away as the
    # level rises, the sharp-edged print does not. Not for a HIT face's small arrow: on small
    # dice the word's strokes break up into arrow-like marks at high levels.
WHOLE_ARROW = (2.7, 0.05)   # elongation and area / side**2 of a whole arrow, shaft and head
                            # (measured 2.7-5.4 and 0.06-0.10 at those levels)
SMALL_ARROW_SIDE = 20       # pixels: on a smaller die a HIT face's small arrow (a quarter of
                            # the face long, a twentieth wide) is a blur of a few pixels; on
                            # validation trays not one bearing read from it was right
                            # (docs/history/special-dice.md, session 11): none is given
WEIGHTS = os.path.join(os.path.dirname(__file__), "weights", "special_faces.onnx")
SCREEN_WEIGHTS = os.path.join(os.path.dirname(__file__), "weights", "special_screen.onnx")
LEAN_WEIGHTS = os.path.join(os.path.dirname(__file__), "weights", "special_lean.onnx")
LEAN_SIZE, LEAN_CONTEXT = 64, 2.0   # the lean check's crop (as the pip dice's)
LEAN_CUTOFF = 0.95          # P(leaning) from which a die read as a face is flagged cocked
                            # (chosen on development trays, fifty-sixth session),
SQUARE_FACE = 0.97          # unless its top face is found at least this square at each of
SQUARE_FACE_SIDES = (1.0, 1.3)   # these x its side: of 35 leaning dice the check saw on
                            # development trays 1 was (0.973), of the flat dice half were
                            # (docs/history/special-dice.md, fortieth session)
LEAN_ROUND_SHIFT = (-0.15, 0.0, 0.15)   # the check is also read round the place read, moved
LEAN_ROUND_SIDES = (0.85, 1.0, 1.2)     # this x its side each way, this x its side wide; this
LEAN_ROUND_QUANTILE = 0.6               # quantile of it counts too (`_leaning_round`, chosen
                                        # on development trays, fifty-fourth session)
BEARING_WEIGHTS = os.path.join(os.path.dirname(__file__), "weights", "scatter_bearing.onnx")
BEARING_BINS = 36           # the bearing network's classes: 10-degree sectors from image up
BEARING_AGREE = 10.0        # degrees: the print's bearing and the network's agree within this
BEARING_SURE = 0.7          # the network's bins round its bearing hold this much probability:
                            # it is sure enough to overrule the print, or to stand alone
                            # (both chosen on development trays, docs/history/special-dice.md,
                            # thirty-first session)
HIT_BEARING_WEIGHTS = os.path.join(os.path.dirname(__file__), "weights",
                                   "scatter_hit_bearing.onnx")
HIT_BEARING_AGREE = 10.0    # the same for a HIT face's small arrow and its network (chosen
HIT_BEARING_SURE = 0.6      # on development trays, thirty-second session; under
                            # SMALL_ARROW_SIDE neither gives one: 0.93 sure, the network
                            # still put a 17 px die's small arrow 177 degrees off)
ARROW_DOUBT = (0.8, 0.8)    # a face read as an arrow under this sure, whose bearing network
                            # holds under this much round its bearing, is read as a
                            # MISFIRE where that is its next likeliest face (the word's bar
                            # taken for a shaft); not on a die under SMALL_ARROW_SIDE,
                            # whose arrow is a blur.
                            # Development trays: 6 MISFIRE words caught, no arrow; of
                            # other makers' arrows, one 0.52 sure would be taken (forty-
                            # ninth session, docs/special-dice.md, step 4)


@dataclass
class SpecialReading:
    kind: str                    # "scatter", "artillery"; "d6" only for a cocked die
    value: int | str | None      # None: cocked
    bearing_deg: float | None
    confidence: float
    centre: tuple[float, float] | None = None   # where it was read (`read_segmented`: its
                                                # top face's centre), frame pixels
    kind_from_face: float | None = None  # flagged cocked by the lean check: how sure the face
                                         # its kind came from was read, given flat


@dataclass
class _Blob:
    mask: np.ndarray        # bool, crop-sized
    weight: np.ndarray      # float ink strength on the blob's pixels, crop-sized
    halo: np.ndarray        # the ink strength on the blob and the pixels around it
    area: float
    holes: int
    elongation: float
    centre: np.ndarray      # (x, y) pixels in the crop


def read_special(image: np.ndarray, x: float, y: float, side: float
                 ) -> SpecialReading | None:
    """Read the die centred at (x, y) with the given side (pixels) in a full BGR frame.

    The bearing is in the frame's image coordinates. A cocked die (leaning on another die
    or the wall) gives a reading with value None: re-roll it.
    """
    if side < 2 or not (0 <= x < image.shape[1] and 0 <= y < image.shape[0]):
        return None
    return _reading(image, x, y, side, _face_probabilities(image, [(x, y, side)])[0],
                    COCKED_PROBABILITY)


def _face_probabilities(image: np.ndarray, places: list[tuple[float, float, float]]
                        ) -> np.ndarray:
    """The face network's probabilities at each of `places` (x, y, side), one row each; a
    blurred crop that leaves a special face in doubt read again sharpened (`SOFT_CROP`)."""
    crops = [face_crop(image, *place) for place in places]
    probs = _model().predict_many(crops)
    for row, crop in zip(probs, crops):
        label, confidence = _likeliest_flat_face(row)
        if label not in ("other", "arrow", "cocked") and confidence < MIN_PROBABILITY and \
                softness(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)) >= SOFT_CROP:
            sharpened = _model().predict(unsharp(crop, *SHARPEN_CROP))
            label, confidence = _likeliest_flat_face(sharpened)
            if label not in ("other", "cocked") and confidence >= MIN_PROBABILITY:
                row[:] = sharpened
    return probs


def _likeliest_flat_face(probs: np.ndarray) -> tuple[object, float]:
    """The likeliest face given the die lies flat, and P(face | flat); ("cocked", P) from
    COCKED_PROBABILITY."""
    if probs[COCKED] >= COCKED_PROBABILITY:
        return "cocked", float(probs[COCKED])
    return _likeliest_face(probs[:COCKED] / max(1.0 - float(probs[COCKED]), 1e-6))


def _reading(image: np.ndarray, x: float, y: float, side: float, probs: np.ndarray,
             cocked_from: float, also: tuple[float, float, float] | None = None,
             centred: tuple[float, float, float] | None = None) -> SpecialReading | None:
    """The reading of the die at (x, y), `side` wide, whose face network probabilities are
    `probs`: cocked (from P(cocked) `cocked_from`, or when the lean check finds it leaning
    at `centred`, (x, y, side) unless given, at `also` (a segmented die's other place), or
    round `centred`: `_leaning_round`), a face (with its bearing, measured here), or None."""
    cocked = float(probs[COCKED])
    if cocked >= cocked_from:
        return SpecialReading(_likely_kind(probs), None, None, cocked, (x, y))
    probs = probs[:COCKED] / max(1.0 - cocked, 1e-6)     # P(face | lying flat)
    label, confidence = _likeliest_face(probs)
    pointing = None
    if label == "arrow":
        pointing = _bearing_model().predict(face_crop(image, x, y, side))
        doubt, mass = ARROW_DOUBT
        if side >= SMALL_ARROW_SIDE and confidence < doubt \
                and bearing_of_probabilities(pointing)[1] < mass:
            others = np.where(np.arange(len(probs)) == CLASSES.index("arrow"), 0.0, probs)
            second, second_confidence = _likeliest_face(others / max(float(others.sum()), 1e-6))
            if second == "misfire":
                label, confidence = second, second_confidence
    if label == "other" or confidence < MIN_PROBABILITY:
        return None
    kind = "scatter" if label in ("arrow", "hit") else "artillery"
    centred = centred or (x, y, side)
    places = [centred] + ([also] if also not in (None, centred) else [])
    leaning = _leaning(image, places)
    if leaning < LEAN_CUTOFF:
        leaning = max(leaning, _leaning_round(image, *centred))
    if leaning >= LEAN_CUTOFF and \
            not _square_top_face(image, x, y, [side * k for k in SQUARE_FACE_SIDES]):
        return SpecialReading(kind, None, None, leaning, (x, y), kind_from_face=confidence)
    if kind == "artillery":
        return SpecialReading("artillery", label, None, confidence, (x, y))
    crop = _cut(image, x, y, side)
    if label == "arrow":
        return SpecialReading("scatter", "arrow", _arrow_face_bearing(crop, side, pointing),
                              confidence, (x, y))
    return SpecialReading("scatter", "hit", _hit_face_bearing(image, x, y, side, crop),
                          confidence, (x, y))


def _likeliest_face(probs: np.ndarray) -> tuple[object, float]:
    """The likeliest of the flat faces (`CLASSES` but cocked) and its probability."""
    best = int(np.argmax(probs))
    return CLASSES[best], float(probs[best])


def _square_top_face(image: np.ndarray, x: float, y: float, outline_sides: list[float]
                     ) -> bool:
    """Is the top face of the die at (x, y) found at least `SQUARE_FACE` square in the image
    (`find_top_face`), sought in an outline of each of `outline_sides`? A leaning die's
    tilted face is foreshortened (`TopFace`): such a die is flat, whatever a network made of
    its side faces and shadow."""
    faces = [find_top_face(image, x, y, side) for side in outline_sides]
    return all(face is not None and face.squareness >= SQUARE_FACE for face in faces)


def _face_of(probs: np.ndarray, outline_side: float, cocked_from: float) -> float:
    """How surely `probs` read a flat special face (P(face | flat)), 0 when they read none
    (pips, no die, cocked from `cocked_from`, below `MIN_PROBABILITY`, or a HIT below
    `SURE_HIT` on a die whose outline is `outline_side` pixels wide)."""
    if probs[COCKED] >= cocked_from:
        return 0.0
    flat = probs[:COCKED] / max(1.0 - float(probs[COCKED]), 1e-6)
    best = int(np.argmax(flat))
    sure_hit, from_side = SURE_HIT
    least = sure_hit if CLASSES[best] == "hit" and outline_side >= from_side \
        else MIN_PROBABILITY
    return float(flat[best]) if best != 0 and flat[best] >= least else 0.0


def special_face_probability(image: np.ndarray, places: list[tuple[float, float, float]],
                             turns: int = 4) -> np.ndarray:
    """How surely the face network reads a flat special face at each of `places` (x, y,
    side), in one call (`_face_of`: 0 where it reads pips, no die or a cocked die), from
    `turns` quarter turns of each crop: a cheap first look before `read_segmented`, by the
    screen network (`SCREEN_WEIGHTS`: the reader screens some hundreds of places round a
    busy tray's dice, where the face network would cost twice as much)."""
    if not places:
        return np.zeros(0)
    probs = _screen_model().predict_many([face_crop(image, *place) for place in places],
                                         turns)
    return np.array([_face_of(p, side, COCKED_PROBABILITY)
                     for p, (_, _, side) in zip(probs, places)])


def _likely_kind(probs: np.ndarray) -> str:
    """Which die a cocked die most likely is: the kind whose faces (pips: "other") are the
    most probable together. Of the dice flagged cocked, cut at their true centre on 120
    benchmark-like trays with 30 % cocked dice (seed 52), right on 37 of 51 d6, 9 of 24
    scatter and 28 of 30 artillery dice with the network before session 15 (the
    scatter-or-artillery guess it replaced: 0, 9 and 30): a leaning die shows its top face
    askew, and pips, arrows and numerals blur."""
    scores = {"d6": probs[CLASSES.index("other")],
              "scatter": probs[CLASSES.index("arrow")] + probs[CLASSES.index("hit")],
              "artillery": probs[CLASSES.index(2):COCKED].sum()}
    return max(scores, key=scores.get)


def read_segmented(image: np.ndarray, x: float, y: float, outline_side: float
                   ) -> SpecialReading | None:
    """`read_special` for a die as a segmenter found it: (x, y) and the side of its outline,
    the centre up to half a side off the top face's (the face network learned dice cut
    within an eighth of a side of it, and the bearings are measured on a face of about
    `side`). The die is read where it was found, centred on the top face `centre_on_face`
    finds, and where a flat die's top face may lie (`top_face_places`, counted from
    `SURE_AROUND`; a HIT on a large die everywhere from `SURE_HIT`: the pip reader sends
    pip dice here too);
    the surest face wins, read at its place (`centre`). A die read as
    cocked where it was found (from `OUTLINE_COCKED_PROBABILITY`) stays cocked (a re-roll
    rather than a wrong face; letting a sure face read elsewhere win took the flag from
    cocked dice, docs/history/special-dice.md, session 11), unless its top face is found
    square (`_square_top_face`: fortieth session); one read as nothing there but cocked at its
    top face (from `COCKED_PROBABILITY`) is cocked."""
    if outline_side < 2 or not (0 <= x < image.shape[1] and 0 <= y < image.shape[0]):
        return None
    face = centre_on_face(image, x, y, outline_side)
    places = [(x, y, outline_side), face] + top_face_places(image, x, y, outline_side)
    probs = _face_probabilities(image, places)
    outline_cocked = OUTLINE_COCKED_PROBABILITY
    if probs[0][COCKED] >= outline_cocked and _square_top_face(image, x, y, [outline_side]):
        outline_cocked = math.inf    # its outline's crop holds side faces and shadow; read it
    cocked_from = [outline_cocked] + [COCKED_PROBABILITY] * (len(places) - 1)
    faces = [_face_of(p, outline_side, c) for p, c in zip(probs, cocked_from)]
    sure = faces[:2] + [face if face >= SURE_AROUND else 0.0 for face in faces[2:]]
    best = int(np.argmax(sure))
    if probs[0][COCKED] >= cocked_from[0]:
        return _reading(image, x, y, outline_side, probs[0], cocked_from[0])
    if sure[best] > 0:
        # The lean check reads at the outline and at the top face found, not at a guess of
        # `top_face_places`: a crop a quarter side off a flat die's centre shows a side face
        # as a lean does. Read at the outline alone, 67 leaning dice of 416 were read as a
        # face on 600 fresh cocked trays, 58 with the top face too (sixtieth session).
        return _reading(image, *places[best], probs[best], cocked_from[best],
                        places[1] if best == 0 else places[0], centred=places[min(best, 1)])
    return _reading(image, *face, probs[1], cocked_from[1]) \
        if probs[1][COCKED] >= cocked_from[1] else None


def top_face_places(image: np.ndarray, x: float, y: float, outline_side: float
                     ) -> list[tuple[float, float, float]]:
    """Where a flat die's top face may lie in the outline found at (x, y), `TOP_FACE` of
    its side wide: a camera above the tray sees a die away from the frame's centre partly
    from the side, and its top face, the highest, lies outward of the outline's centre
    (`OUTWARD` of the distance to the frame's centre); a tilted camera or the die's shadow
    move it elsewhere, so also `AROUND` of the outline's side away in the eight compass
    directions. The places inside the frame."""
    h, w = image.shape[:2]
    side = outline_side * TOP_FACE
    places = [(x + k * (x - w / 2), y + k * (y - h / 2)) for k in OUTWARD] + \
        [(x + AROUND * outline_side * math.cos(a), y + AROUND * outline_side * math.sin(a))
         for a in np.arange(8) * (math.pi / 4)]
    return [(px, py, side) for px, py in places if 0 <= px < w and 0 <= py < h]


def face_crop(image: np.ndarray, x: float, y: float, side: float,
              angle_deg: float = 0.0) -> np.ndarray:
    """The face network's input: a FACE_CROP square BGR crop of the die at (x, y), CONTEXT
    times its side wide, turned by angle_deg, from any camera resolution (shared with the
    training script)."""
    return _local_crop(image, x, y, side, angle_deg, FACE_CROP, CONTEXT)


def _local_crop(image: np.ndarray, x: float, y: float, side: float, angle_deg: float,
                size: int, context: float) -> np.ndarray:
    """`CropSource.crop` of the frame, but only the die's neighbourhood is shrunk, not the
    whole frame; its corner sits on a multiple of 8 pixels so that the shrinking grid is the
    frame's (the crop is the one a `CropSource` of the whole frame cuts)."""
    reach = side * context * 0.75 + 4          # half the crop's diagonal and a margin
    h, w = image.shape[:2]
    x0, y0 = max(0, int(x - reach) // 8 * 8), max(0, int(y - reach) // 8 * 8)
    x1, y1 = min(w, int(x + reach) + 2), min(h, int(y + reach) + 2)
    return CropSource(image[y0:y1, x0:x1]).crop(x - x0, y - y0, side, angle_deg, size, context)


def _leaning(image: np.ndarray, places: list[tuple[float, float, float]]) -> float:
    """The lean check's highest P(leaning) of a die seen at `places`, each (x, y, side)
    (`LEAN_WEIGHTS`): the pip dice's lean check (`classifier.LeanCheck`: an outward-up crop
    `LEAN_CONTEXT` sides wide, and the die's distance from the frame's centre) trained on
    scatter and artillery dice (`training/train_special_lean.py`)."""
    return float(_lean_probabilities(image, places).max())


def _leaning_round(image: np.ndarray, x: float, y: float, side: float) -> float:
    """The lean check round a die read at (x, y), `side` wide: its `LEAN_ROUND_QUANTILE`
    over places moved `LEAN_ROUND_SHIFT` of the side each way, `LEAN_ROUND_SIDES` wide. The
    check swings with the crop (on a 34-degree leaning die, 0.88-0.95 at the places read and
    at least 0.98 over most of the places round them; docs/history/special-dice.md,
    fifty-fourth session: the check before it learned the places the whole reader reads)."""
    h, w = image.shape[:2]
    places = [(x + dx * side, y + dy * side, side * k) for k in LEAN_ROUND_SIDES
              for dy in LEAN_ROUND_SHIFT for dx in LEAN_ROUND_SHIFT]
    places = [p for p in places if 0 <= p[0] < w and 0 <= p[1] < h]
    return float(np.quantile(_lean_probabilities(image, places), LEAN_ROUND_QUANTILE))


def _lean_probabilities(image: np.ndarray, places: list[tuple[float, float, float]]
                        ) -> np.ndarray:
    """The lean check's P(leaning) of a die seen at each of `places` (x, y, side)."""
    h, w = image.shape[:2]
    crops = [_local_crop(image, x, y, side, outward_angle(x, y, w, h), LEAN_SIZE, LEAN_CONTEXT)
             for x, y, side in places]
    radial = [math.hypot(x - w / 2, y - h / 2) / w for x, y, _ in places]
    return _lean_model().predict_at(np.stack(crops), radial)


def _cut(image, x, y, side) -> np.ndarray:
    """The axis-aligned full-resolution crop, CONTEXT sides wide, that bearings are read on."""
    return _cut_at(image, x, y, side)[0]


def _cut_at(image, x, y, side) -> tuple[np.ndarray, tuple[int, int]]:
    half = side * CONTEXT / 2
    h, w = image.shape[:2]
    x0, y0 = max(0, int(round(x - half))), max(0, int(round(y - half)))
    x1, y1 = min(w, int(round(x + half)) + 1), min(h, int(round(y + half)) + 1)
    return image[y0:y1, x0:x1], (x0, y0)


def centre_on_face(image: np.ndarray, x: float, y: float, outline_side: float
                   ) -> tuple[float, float, float]:
    """(x, y, side) of the top face of the die a segmenter found at (x, y) with the side of
    its outline (`find_top_face`). Unchanged when none fits within 30 %."""
    face = find_top_face(image, x, y, outline_side)
    return (x, y, outline_side) if face is None else (face.x, face.y, face.side)


@dataclass
class TopFace:
    """A die's top face found in the image: its centre and side in pixels, and how square
    it is: the square root of the smaller over the larger principal second moment of its
    pixels, 1 for a square at any turn, the foreshortening for a tilted one (a flat die's top
    face seen from above is nearly square, a leaning die's is foreshortened, also when it
    tilts along a diagonal and shows as a rhombus of equal sides)."""

    x: float
    y: float
    side: float
    squareness: float


def measure_top_face(image: np.ndarray, x: float, y: float, outline_side: float,
                     most: float) -> TopFace | None:
    """`find_top_face` on the frame area-averaged down so that the outline is at most `most`
    pixels (its cost grows with the crop; a die's size is measured well enough on a
    smaller one), in the frame's pixels."""
    scale = min(1.0, most / outline_side)
    if scale == 1.0:
        return find_top_face(image, x, y, outline_side)
    area, (x0, y0) = _cut_at(image, x, y, outline_side * 1.2)   # a margin round the cut
    small = cv2.resize(area, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    face = find_top_face(small, (x - x0) * scale, (y - y0) * scale, outline_side * scale)
    return None if face is None else TopFace(x0 + face.x / scale, y0 + face.y / scale,
                                             face.side / scale, face.squareness)


def find_top_face(image: np.ndarray, x: float, y: float, outline_side: float
                  ) -> TopFace | None:
    """The top face of the die a segmenter found at (x, y) with the side of its outline (1
    to 1.8 top faces, and up to a third of a side off its centre): of the top faces found
    for a few guesses of the face's side, the one whose area fits its guess best. None when
    none fits within 30 %."""
    crop, (x0, y0) = _cut_at(image, x, y, outline_side)
    if min(crop.shape[:2]) < 6:
        return None
    best, top = math.log(1.3), None
    for guess in outline_side / np.array(OUTLINE_TO_FACE):
        region = _top_face(crop, guess)
        miss = abs(math.log(max(region.sum(), 1.0) / (FACE_AREA * guess * guess)))
        if miss < best:
            best, top = miss, region
    if top is None:
        return None
    ys, xs = np.nonzero(top)
    low, high = np.linalg.eigvalsh(np.cov(np.stack([xs, ys]).astype(np.float64)))
    return TopFace(x0 + float(xs.mean()), y0 + float(ys.mean()), math.sqrt(len(xs) / FACE_AREA),
                   math.sqrt(max(low, 0.0) / max(high, 1e-9)))


def classify_crop(crop: np.ndarray, side_px: float | None = None) -> SpecialReading | None:
    """`read_special` on an axis-aligned BGR crop with the die in its middle; side_px: the
    die's side (default: the crop's side / CONTEXT)."""
    if crop is None or crop.ndim != 3 or min(crop.shape[:2]) < 6:
        return None
    h, w = crop.shape[:2]
    return read_special(crop, w / 2, h / 2, side_px or min(h, w) / CONTEXT)


def _marks(crop: np.ndarray, side: float, levels=(None,)) -> Iterator[list[_Blob]]:
    """The marks on the die's top face in `crop`, in the order to try them: those of the
    stronger polarity (brighter or darker than the face), then those of the other one (a glare
    spot on a light die can be brighter than its dark print is dark); then those of the
    stronger polarity at each further ink level of `levels` (the first: None, `_blobs`' own;
    the weaker polarity cut higher is the glare's halo, not print), only those long and large
    enough to be a whole arrow (not a lone arrow head, a piece of glare or a side face's
    edge). None if the face is not found."""
    if min(crop.shape[:2]) < 6:
        return
    top = _top_face(crop, side)
    if not 0.3 * side * side < top.sum() < 2.0 * side * side:
        return
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    weights = _ink(grey, top, side)
    for weight in weights:
        yield _blobs(weight, side, levels[0])
    for level in levels[1:] if weights else ():
        yield [b for b in _blobs(weights[0], side, level)
               if b.elongation >= WHOLE_ARROW[0] and b.area >= WHOLE_ARROW[1] * side * side]


def _arrow_of(marks: Iterable[list[_Blob]]) -> float | None:
    """The bearing of an arrow face's arrow: its largest mark, if arrow-shaped."""
    for blobs in marks:
        arrow = _arrow_bearing(max(blobs, key=lambda b: b.area)) if blobs else None
        if arrow:
            return arrow[0]
    return None


def _arrow_face_bearing(crop: np.ndarray, side: float, pointing: np.ndarray
                        ) -> float | None:
    """The bearing of an arrow face's arrow (image coordinates): the print's (`_arrow_of`,
    exact where it works) unless the bearing network (`BEARING_WEIGHTS`, whose
    probabilities are `pointing`), sure of another, disagrees; the network's where the
    print gives none (glare across the shaft, a neighbour's side face, a blurred head) and
    it is sure; else None (a re-roll, SCAT-2)."""
    printed = _arrow_of(_marks(crop, side, ARROW_LEVELS))
    return _checked_bearing(printed, pointing, BEARING_AGREE, BEARING_SURE)


def _hit_face_bearing(image: np.ndarray, x: float, y: float, side: float,
                      crop: np.ndarray) -> float | None:
    """The bearing of a HIT face's small arrow, as an arrow face's (`_arrow_face_bearing`)
    with the HIT network (`HIT_BEARING_WEIGHTS`); None where the face shows no small arrow
    (the network is unsure there), it cannot be read, or the die is under SMALL_ARROW_SIDE."""
    if side < SMALL_ARROW_SIDE:
        return None
    return _checked_bearing(_small_arrow_of(_marks(crop, side)),
                            _hit_bearing_model().predict(face_crop(image, x, y, side)),
                            HIT_BEARING_AGREE, HIT_BEARING_SURE)


def _checked_bearing(printed: float | None, probs: np.ndarray, agree: float, sure: float
                     ) -> float | None:
    """The print's bearing unless a bearing network whose `probs` hold at least `sure` round
    another bearing disagrees by more than `agree` degrees; the network's where the print
    gives none and it is that sure; else None (a re-roll, SCAT-2)."""
    seen, mass = bearing_of_probabilities(probs)
    if printed is not None and (bearing_gap(printed, seen) <= agree or mass < sure):
        return printed
    return seen if mass >= sure else None


def bearing_gap(a: float, b: float) -> float:
    """Degrees between two bearings."""
    return abs((a - b + 180.0) % 360.0 - 180.0)


def _small_arrow_of(marks: Iterable[list[_Blob]]) -> float | None:
    for blobs in marks:
        bearing = _small_arrow_bearing(blobs)
        if bearing is not None:
            return bearing
    return None


# ---------------------------------------------------------------- die and ink


def _top_face(crop: np.ndarray, side: float) -> np.ndarray:
    """The die's top face: the body-coloured region around the crop's centre, made convex.

    Side faces are shaded differently from the top face (light falls from above), so they
    drop out, and so do neighbouring dice of other colours; the convex hull puts back the
    marks printed on the face.
    """
    lab = cv2.cvtColor(cv2.GaussianBlur(crop, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    h, w = lab.shape[:2]
    yy, xx = np.indices((h, w))
    central = (xx - w / 2) ** 2 + (yy - h / 2) ** 2 < (0.38 * side) ** 2
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
        body = centres[cluster]
        dist = np.linalg.norm(lab - body, axis=2)     # once per cluster, for every tolerance
        for widen in TOLERANCE_STEPS:
            region = _region_of(dist, body, central, widen)
            miss = abs(math.log(max(region.sum(), 1.0) / (FACE_AREA * side * side)))
            if miss < best:
                top, best = region, miss
    return top


def _region_of(dist, body, central, widen: float = 1.0) -> np.ndarray:
    """The convex hull of the body-coloured component covering most of the centre; `dist`:
    each pixel's colour distance (Lab) to the body colour `body`."""
    h, w = dist.shape
    tol = widen * max(10.0, 0.07 * float(body[0]))   # side faces are >= 20 % darker/lighter
    like = (dist < tol).astype(np.uint8)
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


def _ink(grey: np.ndarray, top: np.ndarray, side: float) -> list[np.ndarray]:
    """0..1 maps of the marks on the top face, the stronger polarity first (brighter or
    darker than the face); none if the face is blank."""
    erode = max(1, int(round(side * 0.04)))
    inner = cv2.erode(top.astype(np.uint8), np.ones((2 * erode + 1,) * 2, np.uint8)) > 0
    if inner.sum() < 16:
        return []
    ys, xs = np.nonzero(inner)
    cx, cy = xs.mean(), ys.mean()
    yy, xx = np.indices(grey.shape)
    near = inner & ((xx - cx) ** 2 + (yy - cy) ** 2 < (0.3 * side) ** 2)
    body = float(np.median(grey[inner]))
    central = grey[near] if near.sum() > 8 else grey[inner]
    hi, lo = np.percentile(central, 98) - body, body - np.percentile(central, 2)
    maps = [(contrast, np.where(inner, np.clip(sign * (grey - body) / contrast, 0, 1), 0)
             .astype(np.float32)) for sign, contrast in ((1.0, hi), (-1.0, lo))
            if contrast >= MIN_CONTRAST]
    return [m for _, m in sorted(maps, key=lambda cm: -cm[0])]


def _blobs(weight: np.ndarray, side: float, level: float | None = None) -> list[_Blob]:
    """The marks as connected components: ink above `level`, by default Otsu's split of the
    face (at most 0.45, so that a bright glare spot setting the contrast does not wipe out
    the print)."""
    if level is None:
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
        halo = cv2.dilate(blob.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        blobs.append(_Blob(mask=blob, weight=np.where(blob, weight, 0.0),
                           halo=np.where(halo, weight, 0.0), area=area,
                           holes=holes, centre=np.array([xs.mean(), ys.mean()]),
                           elongation=float(math.sqrt(max(ev[1], 1e-6) / max(ev[0], 1e-6)))))
    return blobs


# ---------------------------------------------------------------- arrows


def _arrow_bearing(blob: _Blob, halo: bool = False) -> tuple[float, float] | None:
    """(bearing, quality) of an arrow-shaped blob, or None when it has no arrow's shape.

    Axis: brightness-weighted second moments (exact for a mirror-symmetric arrow); with
    `halo`, of the ink on the mark and the pixel around it (a small arrow blurred over a
    few pixels loses its rim to the threshold, and with it a share of its shape). Head: the
    end whose mark is wider across the axis.
    """
    if blob.elongation < 1.7:
        return None
    w, mask = blob.weight, blob.mask
    if blob.holes:   # a glare spot or blur punched a hole in the arrow: fill it
        contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL,
                                       cv2.CHAIN_APPROX_NONE)
        filled = cv2.drawContours(np.zeros(mask.shape, np.uint8), contours, -1, 1, -1) > 0
        w = np.where(filled & ~mask, np.median(w[mask]), w)
        mask = filled
    ys, xs = np.nonzero(w)          # the shape is measured on the mark's own pixels
    axis = w if not halo else np.where(mask, w, blob.halo) if blob.holes \
        else np.maximum(w, blob.halo)
    hy, hx = np.nonzero(axis)
    hw = axis[hy, hx]
    total = hw.sum()
    mx, my = (hx * hw).sum() / total, (hy * hw).sum() / total
    ex, ey = hx - mx, hy - my
    cxx, cyy, cxy = (hw * ex * ex).sum(), (hw * ey * ey).sum(), (hw * ex * ey).sum()
    dx, dy = xs - mx, ys - my
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
             if b.elongation >= 1.7 for a in [_arrow_bearing(b, halo=True)] if a]
    return max(found)[1] if found else None


# ---------------------------------------------------------------- the networks


class _BearingNet:
    """A scatter arrow's bearing network (`training/train_bearing.py`)."""

    def __init__(self, path: str) -> None:
        self.net = Network(path)

    def predict(self, crop: np.ndarray) -> np.ndarray:
        """BEARING_BINS probabilities of the arrow's bearing on one FACE_CROP crop, averaged
        over its four quarter turns, each turned back (np.rot90 turns the picture, and the
        arrow, a quarter counter-clockwise: a quarter of the bins)."""
        logits = self.net.run(normalise(np.stack([np.rot90(crop, k) for k in range(4)])))
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        return np.mean([np.roll(row, k * BEARING_BINS // 4) for k, row in enumerate(p)], axis=0)


class _FaceNet:
    """The face network (a small CNN, ONNX, run like the d6 one: `networks`)."""

    def __init__(self, path: str, turns: int = FACE_TURNS) -> None:
        self.net = Network(path)
        self.turns = turns

    def predict(self, crop: np.ndarray) -> np.ndarray:
        """Class probabilities of one FACE_CROP crop, averaged over its first `turns`
        quarter turns (numerals and words read whichever way up they lie)."""
        return self.predict_many([crop])[0]

    def predict_many(self, crops: list[np.ndarray], turns: int | None = None) -> np.ndarray:
        """`predict` of several crops in one network call: one row each; `turns`: other
        than the network's own number of quarter turns."""
        turns = turns or self.turns
        turned = np.stack([np.rot90(crop, k) for crop in crops for k in range(turns)])
        logits = self.net.run(normalise(turned)).reshape(len(crops), turns, len(CLASSES))
        p = np.exp(logits - logits.max(axis=2, keepdims=True))
        return (p / p.sum(axis=2, keepdims=True)).mean(axis=1)


def bearing_of_probabilities(p: np.ndarray) -> tuple[float, float]:
    """(bearing, mass) from the bearing network's BEARING_BINS probabilities: the circular
    mean of the likeliest bin and its two neighbours each side (the training target is shared
    between the two bins either side of a bearing), and how much of the probability they
    hold (how sure the network is of one direction)."""
    step = 360.0 / len(p)
    peak = int(np.argmax(p))
    near = [(peak + k) % len(p) for k in range(-2, 3)]
    angles = np.radians(np.array(near) * step)
    weights = p[near]
    bearing = math.degrees(math.atan2((weights * np.sin(angles)).sum(),
                                      (weights * np.cos(angles)).sum())) % 360.0
    return bearing, float(weights.sum())


def _committed(weights: str, script: str) -> str:
    """`weights`, or an error that says how to get the file back."""
    if not os.path.exists(weights):
        raise FileNotFoundError(
            f"{weights} is missing: restore it from git, or train it again with "
            f"`python station/vision/training/{script}`")
    return weights


@functools.cache
def _model() -> _FaceNet:
    return _FaceNet(_committed(WEIGHTS, "train_special.py"))


@functools.cache
def _screen_model() -> _FaceNet:
    return _FaceNet(_committed(SCREEN_WEIGHTS, "train_special.py"), turns=4)


@functools.cache
def _bearing_model() -> _BearingNet:
    return _BearingNet(_committed(BEARING_WEIGHTS, "train_bearing.py"))


@functools.cache
def _hit_bearing_model() -> _BearingNet:
    return _BearingNet(_committed(HIT_BEARING_WEIGHTS, "train_bearing.py"))


@functools.cache
def _lean_model() -> LeanCheck:
    return LeanCheck(_committed(LEAN_WEIGHTS, "train_special_lean.py"))


def warm_up_special() -> None:
    """Load the face, bearing and lean networks and run them once (`reader.warm_up`)."""
    for face_model in (_model, _screen_model):
        face_model().predict(np.zeros((FACE_CROP, FACE_CROP, 3), np.uint8))
    for bearing_model in (_bearing_model, _hit_bearing_model):
        bearing_model().predict(np.zeros((FACE_CROP, FACE_CROP, 3), np.uint8))
    _lean_model().predict_at(np.zeros((1, LEAN_SIZE, LEAN_SIZE, 3), np.uint8), [0.0])
