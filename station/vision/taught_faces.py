"""Taught faces: dice faces the networks do not know, learned from a few photos.

A logo instead of the 6 (Games Workshop and army dice), a skull instead of the 1, an
artillery die with Roman numerals: the user photographs the die with that face up a few
times (`station calibrate faces`), and the reader then recognises the face by its look.

    faces = TaughtFaces.load(path)                 # or TaughtFaces() to start a profile
    faces.teach(image, kind, value)                # one photo of the die with that face up
    faces.save(path)
    dice = read_tray(frame, faces=faces)           # read_tray calls faces.apply(...)

How (docs/calibration.md, "Teaching unusual faces"):
1. Cut: the die's top face is found where the reader found the die (`centre_on_face`, as
   for special dice), and a grey patch PATCH pixels wide, PATCH_SIDES face sides wide, is
   cut around it (when reading, a second one around the outline's centre, at the typical
   face side: the top face is not always found); a view is the patch turned by one of
   TURNS angles, VIEW pixels square.
2. Compare: a template is the middle of a teaching view, a disc TEMPLATE pixels across
   (DISC_SIDES of a face side: inside the face at any turn); each view's windows at every
   shift up to (VIEW - TEMPLATE) / 2 pixels are compared with each template by normalised
   cross-correlation over the disc (zero mean, unit spread: light and contrast drop out).
   A die's score against one teaching photo is the best over turns, shifts and scales;
   its score for a face, the median over that face's photos (most of them must match).
3. Decide: the best face is taken when its score reaches that face's threshold and is at
   least MARGIN ahead of the next taught face. Thresholds are set at teaching time from the
   scores of each teaching photo against the face's other photos (leave one out) and of
   everything that is not the face (the other taught faces, the other dice in the photos,
   and drawn pip faces of other values for a d6 face): halfway between the median of the
   first and the highest of the second, at least MARGIN above that highest and at least
   MIN_ACCEPT.
A taught face overrides the networks' reading of that die (kind and value), and the die
carries the flag "taught" so that a doubting opponent can see why. Cocked dice stay cocked.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from station.vision.constants import KINDS
from station.vision.crops import CropSource
from station.vision.special_dice import centre_on_face
from station.vision.types import DetectedDie

FORMAT = "station taught faces 1"
PATCH = 60                 # pixels: the stored grey patch of a die
PATCH_SIDES = 2.25         # ... covering this many face sides (room to turn a VIEW in it)
VIEW = 40                  # pixels: a turned view, 1.5 face sides: shifts up to 0.3 side
TEMPLATE = 24              # pixels: the compared disc's box, DISC_SIDES face sides
DISC_SIDES = 0.9
TURNS = 36                 # every 10 degrees: a die lies at any angle
SCALES = (0.9, 1.0, 1.1)   # the top face's side is found within about 12 % (5-95 %)
BLUR = 0.8                 # pixels: softens resampling and small misplacements
MARGIN = 0.05              # a taken face is this far ahead of the next taught face
MIN_ACCEPT = 0.5           # no threshold is below this
NEGATIVE_BLUR = (0, 2)     # pixels of blur on the drawn pip faces (small dice look blurred)
OUTLINE_TO_FACE = 1.27     # a reader's outline side / the top face's (median, rendered trays)
SINGLE_ACCEPT = 0.7        # the threshold of a face taught from one photo (no leave-one-out)

_yy, _xx = np.mgrid[0:TEMPLATE, 0:TEMPLATE] - (TEMPLATE - 1) / 2
DISC = (_xx ** 2 + _yy ** 2 <= (TEMPLATE / 2) ** 2).ravel()


class TaughtFacesError(ValueError):
    """A teaching photo or a profile that cannot be used: the message says what to do."""


def face_key(kind: str, value) -> str:
    return f"{kind}:{value}"


def parse_value(kind: str, text: str):
    """A face value as the user types it ("6", "misfire") for a die kind, checked."""
    if kind not in KINDS:
        raise TaughtFacesError(f"unknown die kind {kind!r}: one of {', '.join(KINDS)}")
    value = int(text) if str(text).strip().isdigit() else str(text).strip().lower()
    if value not in KINDS[kind]:
        raise TaughtFacesError(f"{text!r} is not a face of the {kind} die: one of "
                               + ", ".join(map(str, KINDS[kind])))
    return value


@dataclass
class Match:
    """A die's best taught face: its key, score, the next face's score, and if taken."""

    key: str | None
    score: float
    runner_up: float
    taken: bool


@dataclass
class TaughtFaces:
    """Taught faces: grey patches of dice with a known face up ("kind:value" labels), and
    patches of other dice (label None) that set the thresholds."""

    patches: list[np.ndarray] = field(default_factory=list)     # PATCH x PATCH uint8
    labels: list[str | None] = field(default_factory=list)
    photos: list[str] = field(default_factory=list)              # where each came from
    thresholds: dict[str, float] = field(default_factory=dict)
    # the taught patches' turned templates and their faces, made at the first reading
    _cache: tuple | None = field(default=None, init=False, repr=False, compare=False)

    # ---------------------------------------------------------------- teaching

    def faces(self) -> list[str]:
        """The taught faces' keys, in the order first taught."""
        return list(dict.fromkeys(k for k in self.labels if k is not None))

    def teach(self, image: np.ndarray, kind: str, value, photo: str = "",
              at: tuple[float, float] | None = None, dice=None) -> tuple[float, float]:
        """Add a photo of the die with face `value` up; the other dice in it become
        counter-examples. `dice`: (x, y, outline side) of every die in the photo (default:
        `read_tray`'s); `at`: which one is the taught die when there are several. Returns
        the taught die's position. Call `settle()` after the last photo."""
        key = face_key(kind, parse_value(kind, str(value)))
        found = _dice_in(image) if dice is None else list(dice)
        name = photo or "the photo"
        if not found:
            raise TaughtFacesError(f"no die found in {name}: photograph the die on the tray "
                                   "floor, in focus, with its face up and nothing covering it")
        if at is not None:
            dist = [math.hypot(x - at[0], y - at[1]) for x, y, _ in found]
            chosen = int(np.argmin(dist))
            if dist[chosen] > found[chosen][2]:
                raise TaughtFacesError(f"no die at {at[0]:.0f},{at[1]:.0f} in {name}: the "
                                       f"dice are at {_places(found)}")
        elif len(found) > 1:
            raise TaughtFacesError(f"{len(found)} dice in {name} (at {_places(found)}): "
                                   "photograph the die alone, or say which it is with --at X,Y")
        else:
            chosen = 0
        for i, (x, y, side) in enumerate(found):
            self.patches.append(cut_patch(image, x, y, side))
            self.labels.append(key if i == chosen else None)
            self.photos.append(name)
        return found[chosen][0], found[chosen][1]

    def forget(self, key: str) -> int:
        """Drop a taught face's photos; returns how many. Call `settle()` after."""
        keep = [i for i, k in enumerate(self.labels) if k != key]
        dropped = len(self.labels) - len(keep)
        self.patches = [self.patches[i] for i in keep]
        self.labels = [self.labels[i] for i in keep]
        self.photos = [self.photos[i] for i in keep]
        return dropped

    def settle(self) -> dict[str, dict]:
        """Set every face's threshold from the photos; returns per face what it saw:
        {"photos", "typical" (the median score of a photo against the face's other photos),
        "highest_other" (the best score of anything else), "threshold", "unlike" (photos
        scoring below the threshold against the others), "self_check" (photos read back
        as the face, each against the others)}."""
        self.thresholds = {}
        if not self.faces():
            return {}
        self._align()
        self._cache = None
        taught = [i for i, k in enumerate(self.labels) if k is not None]
        turned = np.stack([_turned(self.patches[i]) for i in taught])
        # scores[i, j]: patch i's best match with taught patch j (itself left out)
        scores = np.full((len(self.patches), len(self.patches)), np.nan, np.float32)
        for i, patch in enumerate(self.patches):
            scores[i, taught] = _best(_windows(patch), turned)
        np.fill_diagonal(scores, np.nan)
        negatives = _pip_negatives()
        keys = self.faces()
        per_face = {k: [j for j, l in enumerate(self.labels) if l == k] for k in keys}
        face_scores = np.stack([_face_score(scores[:, per_face[k]]) for k in keys], axis=1)
        report = {}
        for f, key in enumerate(keys):
            own = per_face[key]
            others = [i for i, l in enumerate(self.labels) if l != key]
            other = list(face_scores[others, f])
            kind, value = key.split(":")
            if kind == "d6":
                own_turned = np.stack([_turned(self.patches[i]) for i in own])
                other += [float(_face_score(_best(_windows(pips), own_turned)))
                          for v, pips in negatives if str(v) != value]
            high = float(max(other)) if other else None
            if len(own) < 2:
                typical = None
                threshold = max(SINGLE_ACCEPT, (high or 0.0) + MARGIN)
            else:
                typical = float(np.median(face_scores[own, f]))
                threshold = max(MIN_ACCEPT, (high or 0.0) + MARGIN,
                                (typical + high) / 2 if high is not None else typical - MARGIN)
            self.thresholds[key] = float(threshold)
            report[key] = {"photos": len(own), "typical": typical, "highest_other": high,
                           "threshold": float(threshold),
                           "unlike": [self.photos[i] for i in own
                                      if len(own) > 1 and face_scores[i, f] < threshold]}
        for f, key in enumerate(keys):
            right = 0
            for i in per_face[key]:
                match = self._decide(face_scores[i], keys)
                right += match.taken and match.key == key
            report[key]["self_check"] = right
        return report

    def _align(self) -> None:
        """Each face's photos aligned on the one the others match best (its top face found
        off its centre in a photo would otherwise make a template of a die's edge)."""
        for key in self.faces():
            own = [i for i, k in enumerate(self.labels) if k == key]
            if len(own) < 2:
                continue
            windows = {i: _windows(self.patches[i]) for i in own}
            turned = {i: _turned(self.patches[i]) for i in own}
            agreement = {a: sum(float(_best(windows[i], turned[a][None])[0])
                                for i in own if i != a) for a in own}
            anchor = max(agreement, key=agreement.get)
            for i in own:
                if i != anchor:
                    fit = np.abs(windows[i] @ turned[anchor].T)
                    window, turn = np.unravel_index(int(np.argmax(fit)), fit.shape)
                    self.patches[i] = _recentre(self.patches[i], int(window), int(turn))

    # ---------------------------------------------------------------- reading

    def match(self, image: np.ndarray, x: float, y: float, outline_side: float) -> Match:
        """The best taught face of the die a reader found at (x, y) with that outline side."""
        keys = self.faces()
        if not keys:
            return Match(None, 0.0, 0.0, False)
        templates, owners = self._templates()
        windows = np.concatenate([_windows(p) for p in _patches(image, x, y, outline_side)])
        scores = _best(windows, templates)
        face_scores = np.array([_face_score(scores[owners == f]) for f in range(len(keys))])
        return self._decide(face_scores, keys)

    def apply(self, image: np.ndarray, dice: list[DetectedDie],
              outlines: list[tuple[float, float, float]]) -> list[DetectedDie]:
        """`read_tray`'s hook: each die (not cocked) that shows a taught face gets that face
        (kind and value) and the flag "taught"; `outlines`: (x, y, side) of each die as
        found."""
        for die, (x, y, side) in zip(dice, outlines):
            if "cocked" in die.flags:
                continue
            match = self.match(image, x, y, side)
            if not match.taken:
                continue
            kind, value = match.key.split(":")
            die.kind, die.value = kind, int(value) if value.isdigit() else value
            die.bearing_deg = die.image_bearing_deg = None
            die.confidence = match.score
            die.flags = [f for f in die.flags if f != "unreadable"] + ["taught"]
        return dice

    def _decide(self, face_scores: np.ndarray, keys: list[str]) -> Match:
        order = np.argsort(-face_scores)
        best = int(order[0])
        score = float(face_scores[best])
        runner_up = float(face_scores[order[1]]) if len(keys) > 1 else -1.0
        taken = score >= self.thresholds.get(keys[best], math.inf) and \
            score - runner_up >= MARGIN
        return Match(keys[best], score, runner_up, bool(taken))

    def _templates(self) -> tuple[np.ndarray, np.ndarray]:
        """The taught faces' templates and, for each, the index of its face in `faces()`."""
        if self._cache is not None and self._cache[0] == len(self.labels):
            return self._cache[1], self._cache[2]
        keys = self.faces()
        taught = [i for i, k in enumerate(self.labels) if k is not None]
        templates = np.stack([_turned(self.patches[i]) for i in taught])
        owners = np.array([keys.index(self.labels[i]) for i in taught])
        self._cache = (len(self.labels), templates, owners)
        return templates, owners

    # ---------------------------------------------------------------- storage

    def save(self, path: str) -> None:
        meta = {"format": FORMAT, "labels": self.labels, "photos": self.photos,
                "thresholds": self.thresholds, "patch_sides": PATCH_SIDES}
        with open(path, "wb") as out:
            np.savez_compressed(out, meta=np.array(json.dumps(meta)),
                                patches=np.stack(self.patches) if self.patches
                                else np.zeros((0, PATCH, PATCH), np.uint8))

    @classmethod
    def load(cls, path: str) -> TaughtFaces:
        """Raises TaughtFacesError (saying what to do) for a missing or bad file."""
        fix = "teach the faces again with `station calibrate faces`"
        try:
            data = np.load(path, allow_pickle=False)
        except FileNotFoundError:
            raise TaughtFacesError(f"no taught-faces profile at {path}: {fix}") from None
        except OSError as error:
            raise TaughtFacesError(f"cannot read {path} ({error.strerror or error}): "
                                   f"{fix}") from None
        except Exception:   # empty, cut short, pickled: numpy's words (allow_pickle) mislead
            data = None
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise TaughtFacesError(f"{path} is not a taught-faces profile (it is empty, cut "
                                   f"short, or another kind of file): {fix}")
        with data:
            try:
                meta, patches = json.loads(str(data["meta"])), data["patches"]
            except Exception:   # as above
                raise TaughtFacesError(f"{path} is not a taught-faces profile (its meta or "
                                       f"patches are missing or damaged): {fix}") from None
        problem = _profile_problem(meta, patches)
        if problem:
            raise TaughtFacesError(f"{path} is not a taught-faces profile {problem}: {fix}")
        return cls(list(patches), list(meta["labels"]), list(meta["photos"]),
                   {k: float(v) for k, v in meta["thresholds"].items()})


def _profile_problem(meta, patches: np.ndarray) -> str | None:
    """What is wrong with a profile's meta and patches as `load` read them, or None."""
    if not isinstance(meta, dict):
        return f"(its meta is {type(meta).__name__} {str(meta)[:40]}, not a table)"
    if meta.get("format") != FORMAT:
        return f"of this version ({meta.get('format')!r})"
    if patches.dtype != np.uint8 or patches.shape[1:] != (PATCH, PATCH):
        return f"(its patches are {patches.dtype} {patches.shape}, not n x {PATCH} x {PATCH})"
    for key in ("labels", "photos", "thresholds"):
        if key not in meta:
            return f"(its meta has no {key!r})"
    labels, photos, thresholds = meta["labels"], meta["photos"], meta["thresholds"]
    for key, value in (("labels", labels), ("photos", photos)):
        if not isinstance(value, list) or len(value) != len(patches):
            return f"(it has {len(patches)} patches but {key} {str(value)[:40]})"
    for label in labels:
        kind, _, value = str(label).partition(":")
        try:
            if label is not None and face_key(kind, parse_value(kind, value)) != label:
                raise TaughtFacesError(label)
        except TaughtFacesError:
            return f"(label {label!r} is not a die face such as 'd6:6')"
    if not isinstance(thresholds, dict):
        return f"(its thresholds are {str(thresholds)[:40]}, not a table)"
    for key, value in thresholds.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            return f"(the threshold of {key!r} is {value!r}, not a number)"
    return None

def _face_score(scores: np.ndarray) -> np.ndarray:
    """A face's score from its photos' scores (last axis; NaN: left out): their median, so
    that it takes most of a face's photos to match, not one by chance; -1 for none."""
    scores = np.asarray(scores, np.float32)
    counted = (~np.isnan(scores)).sum(axis=-1)
    ranked = np.sort(np.where(np.isnan(scores), -np.inf, scores), axis=-1)[..., ::-1]
    middle = np.take_along_axis(ranked, np.maximum((counted - 1) // 2, 0)[..., None], -1)[..., 0]
    return np.where(counted > 0, middle, -1.0)


def _places(found) -> str:
    return ", ".join(f"{x:.0f},{y:.0f}" for x, y, _ in found)


def _dice_in(image: np.ndarray) -> list[tuple[float, float, float]]:
    """(x, y, outline side) of every die `read_tray` finds (cocked ones too)."""
    from station.vision.reader import read_tray
    finder = _Outlines()
    read_tray(image, expect_special=True, faces=finder)
    kept: list[tuple[float, float, float]] = []
    for x, y, side in finder.found:     # most sure first; a die seen twice is one die
        if all(math.hypot(x - kx, y - ky) > 0.8 * max(side, ks) for kx, ky, ks in kept):
            kept.append((x, y, side))
    return kept


class _Outlines:
    """A stand-in for `TaughtFaces` in `read_tray` that keeps where the dice are."""

    def __init__(self) -> None:
        self.found: list[tuple[float, float, float]] = []

    def apply(self, image, dice, outlines):
        self.found = [tuple(map(float, o)) for o in outlines]
        return dice


def cut_patch(image: np.ndarray, x: float, y: float, outline_side: float) -> np.ndarray:
    """The PATCH-pixel grey patch around the top face of the die found at (x, y)."""
    return _patch_at(image, *centre_on_face(image, x, y, outline_side))


def _patches(image: np.ndarray, x: float, y: float, outline_side: float
             ) -> list[np.ndarray]:
    """The patches a die is read on: around its top face as found, and around its outline's
    centre at the typical face side (the top face is not always found: a die much like the
    floor, a die touching another)."""
    return [cut_patch(image, x, y, outline_side),
            _patch_at(image, x, y, outline_side / OUTLINE_TO_FACE)]


def _patch_at(image: np.ndarray, x: float, y: float, side: float) -> np.ndarray:
    reach = side * PATCH_SIDES * 0.75 + 4
    h, w = image.shape[:2]
    x0, y0 = max(0, int(x - reach) // 8 * 8), max(0, int(y - reach) // 8 * 8)
    x1, y1 = min(w, int(x + reach) + 2), min(h, int(y + reach) + 2)
    crop = CropSource(image[y0:y1, x0:x1]).crop(x - x0, y - y0, side, 0.0, PATCH, PATCH_SIDES)
    return cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)


def _turn_matrix(angle_deg: float, scale: float, size: int) -> np.ndarray:
    """The 2x3 map from patch pixels to a `size` view's: turned and scaled about the middle."""
    c = (PATCH - 1) / 2
    m = cv2.getRotationMatrix2D((c, c), angle_deg, scale)
    m[:, 2] += (size - PATCH) / 2
    return m


_TURNS = [_turn_matrix(360.0 * t / TURNS, 1.0, TEMPLATE) for t in range(TURNS)]
_SCALED = [_turn_matrix(0.0, scale, VIEW) for scale in SCALES]
_SHIFTS = VIEW - TEMPLATE + 1


def _soft(patch: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(patch.astype(np.float32), (0, 0), BLUR)


def _normalise(rows: np.ndarray) -> np.ndarray:
    rows = rows - rows.mean(axis=-1, keepdims=True)
    return rows / np.maximum(np.linalg.norm(rows, axis=-1, keepdims=True), 1e-3)


def _turned(patch: np.ndarray) -> np.ndarray:
    """A taught patch's templates: its middle disc at each of TURNS turns, normalised:
    (TURNS, disc pixels)."""
    soft = _soft(patch)
    discs = np.stack([cv2.warpAffine(soft, m, (TEMPLATE, TEMPLATE), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE).reshape(-1)[DISC]
                      for m in _TURNS])
    return _normalise(discs)


def _windows(patch: np.ndarray) -> np.ndarray:
    """A die's discs at every shift of up to (VIEW - TEMPLATE) / 2 pixels from the patch's
    middle, at each of SCALES, normalised: (SCALES x shifts x shifts, disc pixels)."""
    soft = _soft(patch)
    views = np.stack([cv2.warpAffine(soft, m, (VIEW, VIEW), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE) for m in _SCALED])
    win = np.lib.stride_tricks.sliding_window_view(views, (TEMPLATE, TEMPLATE), axis=(1, 2))
    return _normalise(win.reshape(-1, TEMPLATE * TEMPLATE)[:, DISC])


def _best(windows: np.ndarray, turned: np.ndarray) -> np.ndarray:
    """Normalised cross-correlation of the best window with the best turn of each taught
    patch's templates (`turned`: patches x TURNS x disc pixels): (patches,)."""
    fit = np.abs(windows @ turned.reshape(-1, turned.shape[-1]).T)
    return fit.max(axis=0).reshape(len(turned), TURNS).max(axis=1)


def _recentre(patch: np.ndarray, window: int, turn: int) -> np.ndarray:
    """The patch moved, scaled and turned so that its `window` (an index into `_windows`)
    becomes its middle, turned back by `turn`: a teaching photo whose top face was found
    off its centre, aligned on a better photo of the same face."""
    scale, rest = divmod(window, _SHIFTS * _SHIFTS)
    dy, dx = divmod(rest, _SHIFTS)
    half = (TEMPLATE - 1) / 2
    px, py = cv2.invertAffineTransform(_SCALED[scale]) @ np.array([dx + half, dy + half, 1.0])
    c = (PATCH - 1) / 2
    move = cv2.getRotationMatrix2D((px, py), -360.0 * turn / TURNS, SCALES[scale])
    move[:, 2] += (c - px, c - py)
    return cv2.warpAffine(patch, move, (PATCH, PATCH), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


@functools.cache
def _pip_negatives() -> list[tuple[int, np.ndarray]]:
    """Patches of plain pip faces 1-6, sharp and blurred as on small dice (NEGATIVE_BLUR):
    a taught d6 face must not be taken for them (a logo 6 die's other faces are pips)."""
    side = PATCH / PATCH_SIDES
    layout = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
              4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
              5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
              6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}
    out = []
    for value in range(1, 7):
        patch = np.full((PATCH * 4, PATCH * 4), 220, np.uint8)
        for u, v in layout[value]:
            cx = (PATCH / 2 + u * 0.24 * side) * 4
            cy = (PATCH / 2 + v * 0.25 * side) * 4
            cv2.circle(patch, (int(cx), int(cy)), int(0.095 * side * 4), 40, -1)
        patch = cv2.resize(patch, (PATCH, PATCH), interpolation=cv2.INTER_AREA)
        out += [(value, cv2.GaussianBlur(patch, (0, 0), sigma) if sigma else patch)
                for sigma in NEGATIVE_BLUR]
    return out
