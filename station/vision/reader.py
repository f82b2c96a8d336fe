"""`read_tray`: every die in a tray frame, with its top face, colour and flags.

1. Scale: the frame is searched at a working size (long side at most `WORK_SIDE`); when the dice
   turn out small there, the search is repeated at a finer working size, so a 640x480 webcam
   and a 4K camera give dice of similar pixel size to the classifier (and at a coarser one
   too when those small dice are all read as 1s: pips of dice a soft frame shows no outline
   of, `_all_ones`). A frame out of focus is sharpened first (`_sharpened_if_soft`).
2. Candidates from the edges (`segment.py`), generous on purpose.
3. Each candidate is cut from the full-resolution frame as a scale-normalised crop
   (`crops.py`); a cheap gate network drops the crops that are surely not dice, and the
   classifier (`classifier.py`) reads the others: not a die, or top face 1..6.
4. One die, one reading: overlapping detections keep the most confident (a face read
   surely before a "leaning" reading: two touching dice cut between them look leaning; a
   leaning reading between two dice readings gives way to them, `_split_leaning`, and
   once the search's passes are done, to two such readings of any pass, `_split_seen`, or
   to two nearer ones when the dice's centres beyond them read as dice, `_split_touching`).
5. A second search at the now-known die size finds dice with weak outlines, and a grid of
   candidates over blobs bigger than one die, or holding a die read without a face,
   separates touching dice (read coarse to fine: the dice read very surely on the coarse
   grid spare the fine points near them); places half taken for a die, away from the dice
   found, are looked around (`_look_around`: a die the colour of the floor leaves
   candidates off its centre), and places read as a die but dropped for want of a sure
   face, round them at the top face's size (`_dropped_die_look`: a die by the tray wall, a
   die touching one found);
   a pip face (or special die) read beside a die found, but dropped for it (a touching
   pair's blob gives large candidates, and one die, one reading compares the larger side),
   is read again at the typical side (`_beside_look`; nearer a neighbour read off its centre too, when
   their midpoint reads no pip face); beside each die found, a body
   of another colour is read round its centre (`_other_colour_look`: a touching die whose
   outline merged with its neighbour's). Dice read with doubt
   are read again at other quarter turns; a die read without a face is read again where a
   flat die's top face would be, outward of its outline as the camera sees it from above
   (`_outward_look`), and, when it overlaps another die, away from that die (`_away_look`).
   A die still read as a face, but not surely enough, is read by the detail network on
   larger crops (`_detail_look`), and one still undecided on crops with their contrast
   brought out (`_contrast_look`: pips that differ from the body in hue, little in
   brightness), then on crops lit by each pixel's colour distance from the die's body and
   at other sizes (`_colour_look`). Two
   dice read as pip faces with doubt, closer than a die's side, whose midpoint reads as a
   sure face, are one die read twice off its centre (`_join_halves`); a die read as a 1
   with doubt is read again around it (`_one_pip_look`: a candidate on one pip of a 2
   reads as a 1). Last, a pip die still read without a face is read by the
   outward network on crops turned outward-up, at its centre and around it
   (`_outward_opinion`: it tells a flat die's side faces, seen inward of its top face, from
   a leaning die's); one still without a face is read on its top face found in the image,
   when that face is square (`_top_face_look`: a leaning die's tilted top face is not).
   Then, in blobs of touching dice with room for another die, groups of pips no die found
   explains are read round their centre at a top face's size (`_pip_cluster_look`: a die
   touching another that no candidate came near enough to read).
6. A die the classifier calls special (scatter, artillery) is read by `special_dice`, after
   the looks of step 5 (`_special_verdicts`): one it reads as no special face is a pip die
   to the looks, run again with its special vote set to 0, and stays unread when none reads
   a pip face; so is one it calls special only doubtfully (`DOUBTFUL_SPECIAL`), which keeps
   the special reader's reading when no look reads a pip face. When
   the caller expects special dice (`expect_special`: the rules asked for a scatter or
   artillery roll), a die it reads as pips with some doubt that it is special is shown to
   `special_dice` too, whose reading wins only when sure: small special dice often look like
   pips to the d6 network; and round each die found, a special die touching it that no
   look found is sought (`_special_beside_look`: the pair read as one die), and the blobs
   no die was taken at are read as lone special dice (`_lone_special_look`: a lone MISFIRE
   face, a symbol no pip die shows, reads as no die to the d6 network). A die then
   reported cocked is read round it, and two faces found on either side of it, a side
   apart, replace it (`_split_cocked_pair`: two touching dice read as one cocked die at
   their contact; the other die of such a pair may be a pip die, read by the d6 network
   there). The special reader reports a die where it finds its top face, so
   two places on one special die can be read as one face at one spot: reported once
   (`_one_reading_a_die`), as is a die read twice without a value (a re-roll is one die),
   or twice as one pip face that the crop between the two readings shows too.
7. Flags: `touching` when another die is closer than `TOUCHING` sides; a cocked die, and a die
   the classifier cannot decide, are reported with value None and `cocked`/`unreadable`
   (re-roll it, or type it in). A cocked die's kind is the best guess of which die it is:
   "d6", unless the special reader says scatter or artillery (always for a die the d6
   network calls special; for one it calls cocked, when special dice are expected). When
   special dice are expected, a die the d6 network calls cocked with doubt (under `SURE`)
   that the special reader reads as a face `FLAT_OVER_COCKED` sure is that face: a flat
   special die the d6 network took for leaning. Before that, the lean check (`_lean_check`)
   flags a die read as a pip face that it finds leaning, and reads as its likeliest pip face
   a die the classifier reads as leaning that it finds plainly flat (`FLAT_BY_CHECK`); then a
   pip die still without a face, touching no other, is read at its top face's pips when the
   check finds it flat there (`_recentred_on_pips`: a flat die seen obliquely).
8. Colour: each die's body colour named (`colour.colour_name`); on a frame without colour
   (`colour.has_colour`: a monochrome camera's) none, as brightness alone would name a red
   die black.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from station.vision.classifier import (CLASSES, COCKED, DETAIL_SIZE, NOT_A_DIE, SPECIAL,
                                       default_classifier, default_detail, default_gate,
                                       default_lean, default_outward, normalise, outward_crops)
from station.vision.colour import colour_name, has_colour
from station.vision.crops import (CONTEXT, CROP_SIZE, OUTWARD_JITTER, CropSource,
                                  outward_angle, pyramid_level, softness, unsharp)
from station.vision.special_dice import TOP_FACE as SPECIAL_TOP_FACE, measure_top_face
from station.vision.special_dice import (SpecialReading, bearing_gap, find_top_face,
                                         read_segmented, special_face_probability,
                                         top_face_places, warm_up_special)
from station.vision.segment import (SPRAWL_CLEAR, Candidate, around, blob_candidates,
                                    blob_components, blob_distances, closed_blobs,
                                    cluster_candidates, density_candidates, edge_map, open_blobs,
                                    other_colour_candidates, pip_candidates,
                                    pip_cluster_candidates, pip_groups, residue_candidates,
                                    strong_edges)
from station.vision.types import DetectedDie

MIN_FRAME = 32           # pixels: smaller images cannot show a readable die
WORK_SIDE = 960          # long side of the first search, pixels
SOFT_FRAME = 0.29        # a frame this soft or softer is sharpened first (`_sharpened_if_soft`)
SHARPEN = (1.0, 1.5)     # its unsharp mask: amount, Gaussian sigma in working-size pixels
MIN_WORK_DIE = 22        # dice smaller than this at working size: search again, finer
DIE_PROBABILITY = 0.8    # P(die) above which a candidate counts as a die
GATE_PASS = 0.2          # the gate's P(die) from which a crop goes to the classifier
FINE_GATE = 0.6          # ... in the fine grid (chosen on seed 776's trays: its points the
                         # gate gives less rarely find a die; docs/history/vision.md, 17th session)
SURE_GATE = 0.8          # ... in the looks whose reading counts only when read `SURE_FACE`
                         # sure: crops the gate gives less hardly ever are
                         # (docs/history/vision.md, fifteenth session)
READABLE = 0.5           # P(face | a die) below this: not a reading, flagged unreadable
SURE = 0.9               # below this, a die is doubtful (its grid points are read) and read
                         # again at other quarter turns, ...
AGAIN = 0.85             # ... unless it reads a pip face this sure (a leaning reading under
                         # `SURE` still is: other views often find a flat die's face in it;
                         # docs/history/vision.md, 16th and 17th sessions)
MAYBE_SPECIAL = 0.02     # expecting special dice: a die read as pips with at least this
                         # P(special) is shown to the special reader too (every special die
                         # it rescued on trays 300-359 had >= 0.04; real pip dice: 3 of 60)
DOUBTFUL_SPECIAL = 0.5   # a die the d6 network calls special less than this sure, given a
                         # die, is read as pips when a look reads a pip face (real pip dice
                         # so called read 0.31-0.41; docs/history/vision.md, 44th session)
SURE_SPECIAL = 0.95      # ... and its reading wins from this sure (it has seen no real pip
                         # dice, and swirled ones can look like numerals to it)
SPECIAL_BESIDE = (0.9, 1.15, 1.4)  # ... and a special die touching a die found is sought these x
SPECIAL_DIRECTIONS = 12       # a top face from it in this many directions, at places this x a top
SPECIAL_CLEAR = 0.8           # face from every die read with a face, read further where the face
SPECIAL_SCREEN = 0.7          # network reads a special face this sure (`_special_beside_look`,
SPECIAL_SCREEN_TURNS = 1      # forty-second session) at this many quarter turns (0.9 until the
                              # fifty-fifth session: a die beside another screens lower, and
                              # read_segmented still has to be SURE_SOUGHT of it)
SURE_SOUGHT = 0.9             # ... where a face read this sure is a die (`SURE_SPECIAL` until the
                              # sixty-second session: a clear 4 touching two pip dice, read 0.93
                              # there, was lost; real photos read the same)
MEASURED_DICE = 3             # the special looks' top face: the median side found (`find_top_face`)
MEASURED_SQUARE = 0.9         # at the surest of this many dice read with a face, found at least
MEASURED_OUTLINE = 48         # this square, on crops scaled to an outline this many pixels wide
SPECIAL_BLOB = 1.4            # ... round a die whose blob is at least this x the typical outline
                              # squared (a lone die's is 1.0-1.25; none under it: looked round too)
SPLIT_REACH = (0.35, 0.5)     # ... and a die reported cocked is read round it, these x the typical
                              # outline away in `SPECIAL_DIRECTIONS` directions: two touching
                              # special dice read as one cocked die at their contact lie
                              # 0.17-0.6 outlines from it (`_split_cocked_pair`, 73rd session)
SPLIT_NEAR = 0.7              # ... and the faces found there, with the dice read within this x
SPLIT_TURN = 90.0             # the outline of it, are the pair when two, this many degrees apart
                              # or more as seen from it (one on either side of the contact)
SPLIT_FACES_APART = 0.9       # ... and this x a top face apart or more: two flat dice's top faces
                              # lie a side apart or more, a leaning die's top and side faces
                              # (which read as two faces) 0.71 of a side
LONE_SCREEN = 0.7             # ... and a blob no die was taken at is read as a special die from
                              # this (`_lone_special_look`; the face network reads a lone MISFIRE
                              # die 0.83 at its outline's centre: 42nd and 52nd sessions)
FLAT_OVER_COCKED = 0.9   # ... and on a die it calls cocked less than `SURE`, a face the special
                         # reader reads this sure (its own cocked checks passed) wins: flat
                         # special dice the d6 network takes for leaning (a leaning die can
                         # read as a face 0.95 sure; docs/history/special-dice.md, 20th session)
SIZE_SPREAD = (0.8, 1.25)  # die sides within this factor of the typical die are kept as found
READ_SPREAD = (0.9, 1.1)   # ... and the dice finally found are read within this factor
TOUCHING = 1.2           # centres closer than this x die side: the dice touch
SAME_DIE = 0.6           # detections closer than this x die side are one die
SAME_SPOT = 0.3          # ... but two readings of one special face are one die only this close
                         # (x the smaller die side): the special reader reports a face where
                         # it finds the top face, one die read twice 0-4 px apart; two touching
                         # dice showing one face, 0.64 sides apart, were reported once
SAME_ARROW = 20.0        # ... and, both with a bearing, only when they point within this (deg)
SAME_FACE_BETWEEN = 0.9  # ... two pip readings of one face that close are one die when their
                         # midpoint reads that face this sure, given a die (the contact of two
                         # touching dice read 0.03-0.55 on the benchmark's trays, one die
                         # read twice 0.95-0.99: docs/history/vision.md, forty-third session)
SPLIT_APART = 0.8        # a leaning reading gives way to two dice readings this far apart
SURE_FACE = 0.95         # ... of which one read this sure as a face goes first, before a
                         # surer "leaning" (two touching dice, cut between them, look leaning)
JOIN = 1.0               # two unsure pip readings closer than this x side, whose midpoint
                         # reads a sure face, are one die (`_join_halves`)
ONE_PIP_LOOK = 0.3       # a die read as a 1 with doubt is read again this x side around it,
ONE_PIP_READ = 3         # at the places of eight that the gate finds likeliest to be a die
OUTWARD = (0.03, 0.06, 0.09)  # a die read without a face is read again this share of its distance
TOP_FACE = 0.85               # to the image centre farther out, at this share of its side
AWAY = (0.15, 0.3)            # ... and, overlapping another die, this share of its side away
AWAY_CONE = 75.0              # from it, in the compass directions within this many degrees
HALF_A_DIE = 0.03             # a candidate read as a die this likely, but not a die, farther
AROUND_CLEAR = 0.75           # than this x side from every die found, is looked around at
AROUND_STEP = 0.3             # eight places this x side away (a die cut off its centre)
AROUND_GROW = 1.3             # ... and a die found there read at its side and this x larger
DROPPED_STEP = 0.15           # a place read as a die but dropped (no sure face), `BESIDE_CLEAR`
DROPPED_SIZES = (0.6, 0.75, 0.9, 1.0)  # from every die found, is read at 3 x 3 places this x side
                              # apart, at these x side (`_dropped_die_look`, 34th session;
                              # 0.6, a top face, since the 39th: lone grey dice)
BESIDE_CLEAR = 0.6            # a pip face read this x the typical side from every die found,
BESIDE_SURE = 0.8             # but within `TOUCHING` of one, is read again there at that side,
                              # a die when this sure (`_beside_look`; docs/history/vision.md, 16th session)
BESIDE_NEAR = 0.4             # ... and from this x the side of a die read as a pip face, a die
BESIDE_NEAR_SURE = 0.6        # when read this sure and their midpoint reads no pip face (17th)
PIP_CLUSTER_FIRST = 0.8       # pips no die found explains (`_pip_cluster_look`), read at this x
PIP_CLUSTER_DIE = 0.5         # the typical side as a die this likely, are read 3 x 3 places this
PIP_CLUSTER_STEP = 0.1        # x side apart round them, at these x the typical side (about a top
PIP_CLUSTER_SIZES = (0.7, 0.75, 0.8, 0.85)  # face's size; seventy-first session)
AROUND_STEP_OTHER = 0.15      # a body beside a die (another colour, a blob's residue) is read at
OTHER_LEANING = 0.5           # nine places this x side apart; a die found there the lean check
                              # finds leaning this likely is not taken (`_read_bodies`, 26th session)
RESIDUE_CLEAR = 0.25          # a blob's residue is read only this x side from every die found (27th)
DENSITY_APART = 0.8           # once the grids are read, edge-density peaks this x side from every
DENSITY_NEW = 0.25            # die found and this x side from the first peaks, within this x side
DENSITY_NEAR = 3.0            # of a die found since, are read (`_density_again`, 20th session)
PAIR_RING = (0.2, 0.65)       # pip readings this x side from a leaning reading, on opposite sides
PAIR_APART = 0.5              # of it (cosine at most `PAIR_OPPOSITE`) and this x side apart, are
PAIR_OPPOSITE = -0.5          # two touching dice when read as dice `PAIR_DIE` sure this x side
PAIR_CENTRE = 0.5             # from it towards each (their centres), or when its blob is at least
PAIR_DIE = 0.9                # `PAIR_BLOB` dice large (18th session)
PAIR_BLOB = 4.0
LONE_GROW = (1.6, 2.2, 3.0)       # no die found: every candidate read again at these x its side
DETAIL_TURNS = (0, 1, 2, 3)   # an undecided die is read by the detail network at these quarter
DETAIL_SURE = 0.6             # turns, votes averaged; a face read this sure is taken (on
                              # validation the first wrong value came between 0.5 and 0.6)
CONTRAST_SURE = 0.5           # a die still undecided is read on crops with their contrast
                              # stretched: a face all three views read, this sure given a
                              # die on average, is taken (docs/history/vision.md, fourteenth session)
COLOUR_SIZES = (0.85, 1.0, 1.15)  # a die still undecided after that is read on crops lit by
                              # their colour distance from its body, and by the detail network
                              # at these x its side: a face all views read, `CONTRAST_SURE`
                              # sure on average, is taken (docs/history/vision.md, sixteenth session)
OUTWARD_SURE = 0.85           # a pip die read without a face by every look gets the face the
                              # outward network reads this sure (docs/history/vision.md, tenth session)
OUTWARD_RING = 0.15           # ... or else, read at eight places this x side around it,
OUTWARD_AGREE = 2             # `TOP_FACE` as large, the face this many looks read `SURE_FACE`
                              # sure (none leaning as sure; docs/history/vision.md, "More places")
SQUARE = 0.93                 # a faceless die's top face found in the image at least this
FACE_TO_DIE = 1.2             # square is read at this x its side (docs/history/vision.md, eleventh
FACE_SEARCH = 64              # session); sought where its outline is at most this many pixels
FACE_LOOK_SURE = 0.85         # ... and a pip face read there this sure, given a die, wins (a
                              # flat die's face there reads 0.85-0.95 sure; docs/history/vision.md, 16th)
FACE_SEED = 0.15              # none found there: sought again this x its side away from a
                              # touching die, then outward (docs/history/vision.md, 17th session)
PATCH_STEP = 0.15             # a die still without a face is read at 5 x 5 places this x its side
PATCH_REACH = 2               # apart (this many steps each way), its face taken when the lean
PATCH_LEANING = 0.2           # check finds it leaning less likely than this (28th session)
SMALL_PATCH = 0.65            # ... and, none read there, at this x the typical side, this x that
SMALL_PATCH_STEP = 0.12       # side apart (grey dice: 36th session)
LEAN_SIZE = 64                # the lean check's crop: this many pixels wide, LEAN_CONTEXT x a
LEAN_CONTEXT = 2.0            # die's side (the die 32 pixels wide); from LEAN_CUTOFF P(leaning)
LEAN_CUTOFF = 0.9352          # a die read with a value is reported leaning; only dice the
LEAN_DOUBT = 0.01             # classifier gives this P(leaning) are checked (cost: most real
                              # flat dice are under it; docs/history/vision.md, 21st-23rd sessions)
LEAN_DOUBT_LOW = (0.005, 0.99)  # ... and those it gives less, down to this, are flagged from this
                                # (leaning dice the classifier reads as flat: 44th session)
LEAN_ROUND_FROM = 0.5         # a die checked from LEAN_CUTOFF that the check finds leaning this
LEAN_ROUND_SHIFT = 0.15       # likely, under the cut-off, is checked again at 3 x 3 places this x
LEAN_ROUND_QUANTILE = 0.6     # its side apart round it, and this quantile of those counts too:
                              # the check swings with the crop (sixtieth session; as the special
                              # dice's, docs/special-dice.md). Not the dice under LEAN_DOUBT: on
                              # development trays that gained nothing, and on the speed frame of
                              # 30 real dice 4 of the 6 dice checked round were such dice
RECENTRE_SPOTS = 0.75         # a pip die still without a face, touching no other: its pips within
RECENTRE_WORK_SIDE = 32       # this x side of it (sought where dice are at most this many pixels)
RECENTRE_REACH = 0.5          # grouped, groups centred within this x side of it, away from other
RECENTRE_FACE = 0.8           # dice, read at this x the typical side; a pip face read this sure
RECENTRE_SURE = 0.9           # there is its face when the lean check finds it there leaning less
RECENTRE_FLAT = 0.2           # than this likely (`_recentred_on_pips`, seventy-first session)
FLAT_BY_CHECK = 0.1           # a die the classifier reads as leaning that the lean check finds
                              # leaning less than this likely is read as its likeliest pip face,
                              # when that face is `READABLE` given a flat die (leaning dice so
                              # read scored 0.125 or more: docs/history/vision.md, 44th session)
# Views of the second look, (turn in degrees counter-clockwise, mirrored left-right first): a
# die read with doubt is read again in the first set; one still not `SETTLED` in the second;
# one still undecided in the third. A classifier of axis-aligned crops (trained at any angle)
# gets quarter turns; one of outward-up crops (`classifier.outward_crops()`) only views that
# keep outward up: the mirror and turns within the jitter it was trained at.
LOOKS = (((180, False),), ((90, False), (270, False)),
         ((0, True), (90, True), (180, True), (270, True)))
OUTWARD_LOOKS = (((0, True),), ((OUTWARD_JITTER, False), (-OUTWARD_JITTER, False)),
                 ((OUTWARD_JITTER, True), (-OUTWARD_JITTER, True), (OUTWARD_JITTER / 2, False),
                  (-OUTWARD_JITTER / 2, False)))
SETTLED = 0.85           # a die read again once, now a pip face this sure, needs no more views


class TrayEdges:
    """The frame at working scale and its strong edges; candidates in frame pixels.

    The working frame is the crop pyramid's largest level with a long side of at most
    `work_side`: shrunk once for both.
    """

    def __init__(self, source: CropSource, work_side: int) -> None:
        k = pyramid_level(max(source.image.shape[:2]), work_side)
        self.work = source.level(k)
        self.scale = source.scale(k)[0]
        self.edges = strong_edges(edge_map(self.work))
        self.closed = closed_blobs(self.edges)
        self.filled = open_blobs(self.closed)
        self.dist = blob_distances(self.filled)
        self._components = None

    def _to_frame(self, found: list[Candidate]) -> list[Candidate]:
        s = self.scale
        return [Candidate(c.x / s, c.y / s, c.side / s) for c in found]

    def blobs(self) -> list[Candidate]:
        return self._to_frame(blob_candidates(self.dist))

    def blob_area(self, c: Candidate) -> float:
        """The area of the filled blob under `c`'s centre in frame pixels (0: none)."""
        if self._components is None:
            self._components = blob_components(self.filled)
        labels, stats = self._components
        y = min(max(round(c.y * self.scale), 0), labels.shape[0] - 1)
        x = min(max(round(c.x * self.scale), 0), labels.shape[1] - 1)
        label = labels[y, x]
        return float(stats[label, cv2.CC_STAT_AREA]) / self.scale ** 2 if label else 0.0

    def _to_work(self, found: list[Candidate]) -> list[Candidate]:
        s = self.scale
        return [Candidate(c.x * s, c.y * s, c.side * s) for c in found]

    def density(self, side: float, taken: list[Candidate], near: list[Candidate] = (),
                reach: float = 0.0) -> list[Candidate]:
        """Edge-density peaks away from the `taken` dice (with `near`: within `reach` sides
        of those)."""
        return self._to_frame(density_candidates(self.edges, side * self.scale,
                                                 self._to_work(taken), self._to_work(near),
                                                 reach))

    def pips(self, side: float, taken: list[Candidate]) -> list[Candidate]:
        """Lone pips away from the `taken` dice (`segment.pip_candidates`)."""
        return self._to_frame(pip_candidates(self.closed, self.work, side * self.scale,
                                             self._to_work(taken)))

    def pip_clusters(self, side: float, found: list[Candidate], clear: float
                     ) -> list[Candidate]:
        """Groups of pips in blobs of touching dice that the `found` dice do not explain
        (`segment.pip_cluster_candidates`)."""
        if self._components is None:
            self._components = blob_components(self.filled)
        return self._to_frame(pip_cluster_candidates(self._components, self.work,
                                                     side * self.scale, self._to_work(found),
                                                     clear))

    def other_colour(self, side: float, dice: list[Candidate], found: list[Candidate]
                     ) -> list[Candidate]:
        """Bodies of another colour touching the `dice`, away from the `found` ones
        (`segment.other_colour_candidates`)."""
        if self._components is None:
            self._components = blob_components(self.filled)
        return self._to_frame(other_colour_candidates(
            self.work, self._components, self._to_work(dice), self._to_work(found),
            side * self.scale))

    def residue(self, side: float, found: list[Candidate], held: list[Candidate]
                ) -> list[Candidate]:
        """Places in the blobs of the dice `held` that the `found` dice do not explain
        (`segment.residue_candidates`)."""
        if self._components is None:
            self._components = blob_components(self.filled)
        return self._to_frame(residue_candidates(self._components, self._to_work(found),
                                                 self._to_work(held), side * self.scale))

    def grid(self, side: float, taken: list[Candidate], doubtful: list[Candidate] = (),
             settled: list[Candidate] = (), unsure: list[Candidate] = (),
             coarse: bool | None = None) -> list[Candidate]:
        """Grids over clusters of touching dice and over blobs holding a `doubtful` die,
        away from the `settled` and `unsure` dice (`segment.cluster_candidates`)."""
        if self._components is None:
            self._components = blob_components(self.filled)
        work = [self._to_work(found) for found in (taken, settled, doubtful, unsure)]
        return self._to_frame(cluster_candidates(self._components, self.dist, side * self.scale,
                                                 *work[:3], unsure=work[3], coarse=coarse))


def propose(image: np.ndarray, side: float, work_side: int = WORK_SIDE) -> list[Candidate]:
    """Every candidate the reader would look at when the dice are `side` pixels wide (the
    training script's source of "not a die" crops)."""
    edges = TrayEdges(CropSource(image), work_side)
    return edges.blobs() + edges.density(side, []) + edges.grid(side, [])


def _crops(source: CropSource, candidates: list[Candidate], turn: float = 0.0,
           outward: bool | None = None) -> np.ndarray:
    """The classifier's (and the gate's) crops of the candidates, axis-aligned or turned
    outward-up as the classifier in use reads them (`outward`: so turned, or not, whatever
    it reads); `turn` degrees more."""
    if not (outward_crops() if outward is None else outward):
        return source.crops((c.x, c.y, c.side, turn) for c in candidates)
    h, w = source.image.shape[:2]
    return source.crops((c.x, c.y, c.side, outward_angle(c.x, c.y, w, h) + turn)
                        for c in candidates)


def _classify(source: CropSource, candidates: list[Candidate], best: int | None = None,
              gate_pass: float | None = None) -> np.ndarray:
    """Class probabilities of the candidates; those the gate gives less than `gate_pass`
    (`GATE_PASS`) are "not a die", and with `best`, all but the `best` it finds likeliest to
    be a die."""
    probs = np.zeros((len(candidates), CLASSES), np.float32)
    probs[:, NOT_A_DIE] = 1.0
    if not candidates:
        return probs
    crops = normalise(_crops(source, candidates))     # once, for the gate and the classifier
    gate = default_gate()
    passed = slice(None)
    if gate is not None:
        scores = gate.predict_normalised(crops)
        passed = scores >= (GATE_PASS if gate_pass is None else gate_pass)
        if best is not None:
            passed[np.argsort(-scores, kind="stable")[best:]] = False
    probs[passed] = default_classifier().predict_normalised(crops[passed])
    return probs


def _accept(candidates: list[Candidate], probs: np.ndarray
            ) -> list[tuple[Candidate, np.ndarray]]:
    """Candidates that are dice, most confident first, one per die."""
    dice = np.flatnonzero(1.0 - probs[:, NOT_A_DIE] >= DIE_PROBABILITY)
    if not len(dice):
        return []
    dice = dice[np.lexsort((-probs[dice, 1:].max(axis=1), ~_sure_face(probs[dice])))]
    x, y, side = np.array([(candidates[i].x, candidates[i].y, candidates[i].side)
                           for i in dice]).T
    same = np.hypot(x[:, None] - x, y[:, None] - y) <= SAME_DIE * np.maximum(side[:, None], side)
    kept, taken = [], np.zeros(len(dice), bool)
    for j in range(len(dice)):
        if not taken[j]:
            kept.append(j)
            taken |= same[j]
    kept = _split_leaning(kept, same, x, y, side, probs[dice, 1:].argmax(axis=1) + 1 == COCKED)
    return [(candidates[dice[j]], probs[dice[j]]) for j in kept]


def _split_leaning(kept: list[int], same: np.ndarray, x: np.ndarray, y: np.ndarray,
                   side: np.ndarray, leaning: np.ndarray) -> list[int]:
    """Two touching dice, cut between them, look like one leaning die: a kept leaning
    reading between two dice readings it alone suppressed gives way to them
    (`_opposite_pair`). Indices into `_accept`'s sorted dice, surest first."""
    if not leaning[kept].any():
        return kept
    result = []
    for j in kept:
        pair = None
        if leaning[j]:
            by_others = same[[k for k in kept if k != j]].any(axis=0)
            pair = _opposite_pair(j, [k for k in np.flatnonzero(same[j])
                                      if k != j and not leaning[k] and not by_others[k]],
                                  x, y, side)
        result += list(pair) if pair else [j]
    return result


def _opposite_pair(j: int, faces: list[int], x: np.ndarray, y: np.ndarray, side: np.ndarray
                   ) -> tuple[int, int] | None:
    """Of the readings `faces` (of a face, not leaning: another leaning reading beside
    reading `j` is the same cut), surest first, the first two on opposite sides of reading
    `j` and at least `SPLIT_APART` die sides apart (two dice's centres; closer, they were a
    leaning die's faces read from beside it: 0.7 gave 1-2 more of 145 leaning dice a
    value); None if no two are."""
    return next(((a, b) for n, a in enumerate(faces) for b in faces[n + 1:]
                 if (x[a] - x[j]) * (x[b] - x[j]) + (y[a] - y[j]) * (y[b] - y[j]) < 0
                 and math.hypot(x[a] - x[b], y[a] - y[b])
                 >= SPLIT_APART * max(side[a], side[b])), None)


def _split_seen(dice: list[tuple[Candidate, np.ndarray]], seen: list
                ) -> list[tuple[Candidate, np.ndarray]]:
    """`_split_leaning` across the search's passes: a die read as leaning gives way to two
    dice readings of any pass (`seen`) on opposite sides of it, each within `SAME_DIE` of
    it and of no other die found. Each pass keeps only its chosen readings, so a die read
    in the coarse grid and suppressed there by a leaning reading between it and its
    neighbour, whose reading came only in the fine grid, was no longer there to pair with."""
    leaning = [i for i, (_, p) in enumerate(dice) if int(p[1:].argmax()) + 1 == COCKED]
    if not leaning:
        return dice
    readings = [(c, p) for read, probs in seen for c, p in zip(read, probs)
                if 1.0 - p[NOT_A_DIE] >= DIE_PROBABILITY and int(p[1:].argmax()) + 1 != COCKED]
    if len(readings) < 2:
        return dice
    order = sorted(range(len(readings)), key=lambda k: (not _sure_face(readings[k][1]),
                                                        -readings[k][1][1:].max()))
    readings = [readings[k] for k in order]
    result = list(dice)
    for i in leaning:
        c = dice[i][0]
        others = [k for n, (k, _) in enumerate(dice) if n != i]
        near = [(r, p) for r, p in readings
                if math.hypot(r.x - c.x, r.y - c.y) <= SAME_DIE * max(r.side, c.side)
                and all(math.hypot(r.x - k.x, r.y - k.y) > SAME_DIE * max(r.side, k.side)
                        for k in others)]
        x, y, side = np.array([(c.x, c.y, c.side)] + [(r.x, r.y, r.side) for r, _ in near]
                              ).reshape(-1, 3).T
        pair = _opposite_pair(0, list(range(1, len(near) + 1)), x, y, side)
        if pair:
            result[i] = near[pair[0] - 1]
            result.append(near[pair[1] - 1])
    return result


def _split_touching(source: CropSource, dice: list[tuple[Candidate, np.ndarray]], seen: list,
                    side: float, edges: TrayEdges) -> list[tuple[Candidate, np.ndarray]]:
    """Two touching dice read as one leaning die at their contact, each read off its centre
    towards it: their readings lie under `SPLIT_APART` sides apart, so `_split_seen` leaves
    them (seed 776: 9 of the 25 dice missed beside a neighbour). A leaning die's own readings lie
    as near, reading its top face and its side faces, so the pair (`PAIR_RING`, opposite, at
    least `PAIR_APART` apart, each `READABLE` sure) counts only when both places `PAIR_CENTRE`
    sides out, where two dice's centres lie and a leaning die ends, read as dice `PAIR_DIE`
    sure with a pip face, or when the blob under the leaning reading is as large as
    `PAIR_BLOB` dice."""
    leaning = [i for i, (_, p) in enumerate(dice) if int(p[1:].argmax()) + 1 == COCKED]
    if not leaning:
        return dice
    readings = [(c, p) for read, probs in seen for c, p in zip(read, probs) if _die_face(p)]
    readings.sort(key=lambda r: -r[1][1:].max() / (1.0 - r[1][NOT_A_DIE]))
    pairs = []
    for i in leaning:
        k = dice[i][0]
        near = [(c, p) for c, p in readings
                if PAIR_RING[0] <= math.hypot(c.x - k.x, c.y - k.y) / side <= PAIR_RING[1]
                and all(math.hypot(c.x - o.x, c.y - o.y) > SAME_DIE * max(c.side, o.side)
                        for n, (o, _) in enumerate(dice) if n != i)]
        pair = next(((a, b) for n, a in enumerate(near) for b in near[n + 1:]
                     if _cosine(a[0], b[0], k) <= PAIR_OPPOSITE
                     and math.hypot(a[0].x - b[0].x, a[0].y - b[0].y) >= PAIR_APART * side), None)
        if pair:
            pairs.append((i, pair))
    if not pairs:
        return dice
    centres = []
    for i, pair in pairs:
        k = dice[i][0]
        for c, _ in pair:
            out = PAIR_CENTRE * side / math.hypot(c.x - k.x, c.y - k.y)
            centres.append(Candidate(k.x + (c.x - k.x) * out, k.y + (c.y - k.y) * out, side))
    probs = _classify(source, centres)
    dies = (1.0 - probs[:, NOT_A_DIE] >= PAIR_DIE) & np.array([_pip_face(p, READABLE)
                                                                for p in probs])
    result = list(dice)
    for n, (i, (a, b)) in enumerate(pairs):
        if dies[2 * n:2 * n + 2].all() or \
                edges.blob_area(dice[i][0]) >= PAIR_BLOB * side ** 2:
            result[i] = a
            result.append(b)
    return result


def _cosine(a: Candidate, b: Candidate, centre: Candidate) -> float:
    """The cosine of the angle at `centre` between `a` and `b`."""
    ax, ay, bx, by = a.x - centre.x, a.y - centre.y, b.x - centre.x, b.y - centre.y
    return (ax * bx + ay * by) / max(math.hypot(ax, ay) * math.hypot(bx, by), 1e-9)


def _second_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]]
                 ) -> list[tuple[Candidate, np.ndarray]]:
    """Dice read with doubt are read again half a turn round, and those not then read
    `SETTLED` sure as a pip face at the other two quarter turns (`LOOKS`); votes averaged.
    Those still undecided are read once more in the mirror, in four views: a mirrored die is
    a die, and the classifier learned so. A classifier of outward-up crops gets views that
    keep outward up (`OUTWARD_LOOKS`)."""
    first, more, mirrored = OUTWARD_LOOKS if outward_crops() else LOOKS
    doubtful = [i for i, (_, p) in enumerate(dice)
                if p[1:].max() < SURE * (1 - p[NOT_A_DIE]) and not _pip_face(p, AGAIN)]
    dice = _look_again(source, dice, doubtful, first, seen=1)
    unsettled = [i for i in doubtful if not _pip_face(dice[i][1], SETTLED)]
    dice = _look_again(source, dice, unsettled, more, seen=1 + len(first))
    undecided = [i for i in unsettled if _undecided(dice[i][1])]
    return _look_again(source, dice, undecided, mirrored, seen=1 + len(first) + len(more))


def _sure_face(probs: np.ndarray) -> np.ndarray:
    """Per reading (classes on the last axis): read as a face at least `SURE_FACE` sure."""
    faces = probs[..., 1:]
    return (faces.argmax(axis=-1) + 1 != COCKED) & (faces.max(axis=-1) >= SURE_FACE)


def _without_face(p: np.ndarray) -> bool:
    """Read as a leaning die, or not surely enough as any face: reported without a value."""
    return int(p[1:].argmax()) + 1 == COCKED or p[1:].max() < READABLE * (1 - p[NOT_A_DIE])


def _undecided(p: np.ndarray) -> bool:
    """Read as a die with a top face (not cocked, not special), but not surely enough."""
    return int(p[1:].argmax()) + 1 not in (COCKED, SPECIAL) and not _pip_face(p, READABLE)


def _any_face(p: np.ndarray, sure: float) -> bool:
    """Read as a pip face or a special die (not cocked) at least `sure` sure, given a die."""
    return int(p[1:].argmax()) + 1 != COCKED and p[1:].max() >= sure * (1 - p[NOT_A_DIE])


def _pip_face(p: np.ndarray, sure: float) -> bool:
    """Read as a pip face (not cocked, not special) at least `sure` sure, given a die."""
    return int(p[1:].argmax()) + 1 not in (COCKED, SPECIAL) and \
        p[1:].max() >= sure * (1 - p[NOT_A_DIE])


def _look_again(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                chosen: list[int], views: tuple[tuple[float, bool], ...], seen: int
                ) -> list[tuple[Candidate, np.ndarray]]:
    """The `chosen` dice read again in `views` ((turn in degrees, mirrored): a quarter turn
    turns the crop, another turn cuts it anew); every vote counts as much as each of the
    `seen` views their reading already averages."""
    if not chosen:
        return dice
    candidates = [dice[i][0] for i in chosen]
    crops = _crops(source, candidates)
    batches = []
    for turn, mirrored in views:
        quarter = turn % 90 == 0
        view = crops if quarter else _crops(source, candidates, turn)
        if mirrored:
            view = view[:, :, ::-1]
        batches.append(np.rot90(view, int(turn // 90), axes=(1, 2)) if quarter else view)
    votes = default_classifier().predict(np.ascontiguousarray(np.concatenate(batches)))
    votes = votes.reshape(len(views), len(chosen), CLASSES).sum(axis=0)
    dice = list(dice)
    for j, i in enumerate(chosen):
        c, p = dice[i]
        dice[i] = (c, (seen * p + votes[j]) / (seen + len(views)))
    return dice


def _search(source: CropSource, work_side: int, skip=None
            ) -> tuple[list[tuple[Candidate, np.ndarray]], TrayEdges,
                       dict[Candidate, SpecialReading | None]]:
    """The dice found at working size `work_side`; `skip(x, y)`: places that are no die
    (the calibration sheet's marker tiles), dropped before they are read. Also the special
    reader's readings of the dice the d6 network calls special (`_special_verdicts`)."""
    edges = TrayEdges(source, work_side)
    candidates = _off(edges.blobs(), skip)
    probs = _classify(source, candidates)
    dice = _accept(candidates, probs)
    if not dice:
        # No die read at its outline: a lone die the colour of the floor (a single die
        # rolled) may still be found around the places half taken for one.
        dice = _look_around(source, [], candidates, probs, None, skip) or \
            _lone_die(source, candidates, skip)
        if not dice:
            return [], edges, {}
        candidates = candidates + [c for c, _ in dice]
        probs = np.concatenate([probs, np.array([p for _, p in dice])])
    # Dice in one tray are one size: a candidate much smaller or larger than the typical die
    # (a blob that did not fill, two dice in one blob) is read again at the typical size.
    side = float(np.median([c.side for c, _ in dice]))
    candidates, probs = _resize(source, candidates, probs, side, SIZE_SPREAD)
    dice = _accept(candidates, probs)
    # Edge-density peaks, and grids over clusters read coarse to fine, kept off the dice
    # read already (`_grid_settled`, `_grid_unsure`); a die read as leaning needs them all:
    # two touching dice seen as one candidate between them look like a leaning die.
    taken = [c for c, _ in dice]
    doubtful = [c for c, p in dice if _without_face(p)]
    unsure = _grid_unsure(dice)
    seen = [(candidates, probs)]
    peaks = edges.density(side, taken)
    dice = _read_more(source, dice, _off(peaks + edges.grid(
        side, taken, doubtful, _grid_settled(dice, taken), unsure, coarse=True), skip), seen)
    dice = _read_more(source, dice, _off(edges.grid(
        side, taken, doubtful, _grid_settled(dice, taken), unsure, coarse=False), skip), seen,
        FINE_GATE)
    dice = _density_again(source, dice, edges, side, taken, peaks, skip, seen)
    dice = _pip_look(source, dice, _off(edges.pips(side, [c for c, _ in dice]), skip), seen)
    around_seen: list = []
    dice = _look_around(source, dice, [c for read, _ in seen for c in read],
                        np.concatenate([p for _, p in seen]), side, skip, around_seen)
    dice = _dropped_die_look(source, dice, seen + around_seen, side, skip)
    dice = _split_seen(dice, seen)
    dice = _split_touching(source, dice, seen + around_seen, side, edges)
    dice = _beside_look(source, dice, seen + around_seen, side, skip)
    dice = _other_colour_look(source, dice, edges, side, skip)
    dice = _residue_look(source, dice, edges, side, skip)
    if dice:
        # The dice are known now: each is read at nearly the size of the others.
        side = float(np.median([c.side for c, _ in dice]))
        found, probs = _resize(source, [c for c, _ in dice], np.array([p for _, p in dice]),
                               side, READ_SPREAD)
        dice = list(zip(found, probs))
    looked = _freed_die_look(source, _looks(source, dice), seen + around_seen, side, skip)
    looked = _pip_cluster_look(source, looked, edges, side, skip)
    # Dice still called special go to the special reader (`_special_verdicts`); the looks
    # run again when it calls some of them pip dice, or the d6 network called some special
    # only doubtfully (real swirled pip dice: `DOUBTFUL_SPECIAL`): rare, and only then paid
    # for.
    special = _special_verdicts(source, looked)
    pips = {c for c, reading in special.items() if reading is None} | \
        {c for c, p in looked if special.get(c) is not None and _doubtfully_special(p)}
    if pips:
        looked = _pips_or_special(_looks(source, looked, pips), looked, pips)
    return looked, edges, special


def _density_again(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                   edges: TrayEdges, side: float, taken: list[Candidate],
                   first: list[Candidate], skip, seen: list
                   ) -> list[tuple[Candidate, np.ndarray]]:
    """The `dice` and the dice at edge-density peaks found again once the grids are read,
    with every die found by then blanked (`segment.density_candidates`): a die whose outline
    did not fill (a grey die on a brown floor, a purple one on blue) beside dice the first
    search had not found (not among the `taken`) made no peak of its own, their edges
    drowned it. Only peaks within `DENSITY_NEAR` sides of a die found since (elsewhere the
    density is the `first` peaks'), farther than `DENSITY_NEW` sides from those (read
    already) and than `DENSITY_APART` sides from every die found (nearer, a peak lies on a
    found die's edge or on two touching dice's contact, and its reading counted one die
    twice on seed 776), nor within `segment.SPRAWL_CLEAR` sides of a die read without a face
    (a leaning die's tilted top face reads as a flat die's, as for the grids). Only peaks
    read as a pip face are kept: a leaning die found this late, read as leaning, was given
    its side face's value by the outward look (lean seed 99, tray 28)."""
    found = [c for c, _ in dice]
    new = [c for c in found if _farther(c, taken, SAME_DIE * side)]
    if not new:
        return dice
    doubtful = [c for c, p in dice if _without_face(p)]
    peaks = [c for c in _off(edges.density(side, found, new, DENSITY_NEAR), skip)
             if _farther(c, first, DENSITY_NEW * side)
             and _farther(c, found, DENSITY_APART * side)
             and _farther(c, doubtful, SPRAWL_CLEAR * side)]
    return _read_faces(source, dice, peaks, seen, READABLE)


def _farther(c: Candidate, others: list[Candidate], reach: float) -> bool:
    """`c` lies farther than `reach` from every one of the `others`."""
    return all(math.hypot(c.x - k.x, c.y - k.y) > reach for k in others)


def _looks(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
           pips: set[Candidate] = frozenset()) -> list[tuple[Candidate, np.ndarray]]:
    """The looks of step 5 at the dice found, those at the places `pips` read with their
    special vote set to 0 (voted out again after the second look, which averages the d6
    network's special votes)."""
    looked = _special_voted_out(_second_look(source, _special_voted_out(dice, pips)), pips)
    looked = _away_look(source, _outward_look(source, looked))
    looked = _colour_look(source, _contrast_look(source, _detail_look(source, looked)))
    looked = _one_pip_look(source, _join_halves(source, looked))
    return _patch_look(source, _top_face_look(source, _outward_opinion(source, looked)))


def _special_verdicts(source: CropSource, dice: list[tuple[Candidate, np.ndarray]]
                      ) -> dict[Candidate, SpecialReading | None]:
    """Dice the d6 network calls special after the looks, read by the special reader
    (`read_segmented`, kept for `_describe`: the costly read is made once a die). A die it
    reads as no special face (None: its own network calls it "other", pips or no die) is a
    pip die to the looks: `_search` runs them again with its special vote set to 0, so that
    they read it as a die without a face (the d6 network calls some plain pip dice special,
    which the special reader then leaves unread; docs/history/vision.md, nineteenth
    session). Dice called special only before the looks are not read: the looks settle most
    of them as pips, and each read costs 5-25 ms."""
    return {c: read_segmented(source.image, c.x, c.y, c.side) for c, p in dice
            if int(p[1:].argmax()) + 1 == SPECIAL}


def _special_voted_out(dice: list[tuple[Candidate, np.ndarray]], pips: set[Candidate]
                       ) -> list[tuple[Candidate, np.ndarray]]:
    """The `dice`, those at the places `pips` with their special vote set to 0 (the other
    votes as they were: a face is read only when a look reads it as surely as any die's)."""
    return [(c, np.where(np.arange(len(p)) == SPECIAL, 0.0, p).astype(p.dtype)) if c in pips
            else (c, p) for c, p in dice]


def _doubtfully_special(p: np.ndarray) -> bool:
    """Called special by the d6 network, but less than `DOUBTFUL_SPECIAL` likely given a die."""
    return int(p[1:].argmax()) + 1 == SPECIAL and \
        p[SPECIAL] < DOUBTFUL_SPECIAL * (1.0 - p[NOT_A_DIE])


def _pips_or_special(looked: list[tuple[Candidate, np.ndarray]],
                     before: list[tuple[Candidate, np.ndarray]],
                     pips: set[Candidate]) -> list[tuple[Candidate, np.ndarray]]:
    """The dice as the looks read them, but a die given to the looks as a pip die (`pips`:
    one the special reader read as no special face, or one the d6 network called special
    only doubtfully) that no look read as a pip face, `READABLE` sure, keeps its first
    reading: special (read by the special reader, or reported unreadable when it read no
    special face)."""
    first = {c: p for c, p in before if c in pips}
    return [(c, first[c]) if c in first and not _pip_face(p, READABLE) else (c, p)
            for c, p in looked]


def _look_around(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                 candidates: list[Candidate], probs: np.ndarray, side: float | None, skip,
                 seen: list | None = None) -> list[tuple[Candidate, np.ndarray]]:
    """Dice whose outline stays under the edge threshold (white on a white floor, grey on
    cardboard) leave candidates off their centre, which the classifier, trained on centred
    dice, turns away or half takes for a die. Each place where a candidate was read as a die
    at least `HALF_A_DIE` likely (but not a die), farther than `AROUND_CLEAR` sides from the
    dice found, is read again at nine places `AROUND_STEP` sides apart around it; a die
    found there is read once more at the centre of the looks that took it for a die, and
    counts when that reading is a face read `SURE_FACE` sure (as for the outward and away
    looks; less sure ones included a floor speck and a die read by its side face on the
    benchmark's frames: docs/history/vision.md, eighth session). The places are cut at the dice's
    `side`, or, with None (no die found yet), each at its candidate's own."""
    p_die = 1.0 - probs[:, NOT_A_DIE]
    half = np.flatnonzero((p_die >= HALF_A_DIE) & (p_die < DIE_PROBABILITY))
    if not len(half):
        return dice
    found = [c for c, _ in dice]
    places: list[Candidate] = []
    for i in half[np.argsort(-p_die[half], kind="stable")]:
        c = candidates[i] if side is None else Candidate(candidates[i].x, candidates[i].y, side)
        if all(math.hypot(c.x - k.x, c.y - k.y) > AROUND_CLEAR * max(c.side, k.side)
               for k in found) and \
                all(math.hypot(c.x - k.x, c.y - k.y) > AROUND_STEP * c.side for k in places):
            places.append(c)
    looks = _off([k for c in places for k in around(c.x, c.y, c.side, AROUND_STEP)], skip)
    if not looks:
        return dice
    probs = _classify(source, looks)
    if seen is not None:
        seen.append((looks, probs))
    new = _elsewhere(_accept(looks, probs), found)
    if not new:
        return dice
    # Each new die is read again at the centre of the looks that took it for a die.
    is_die = 1.0 - probs[:, NOT_A_DIE] >= DIE_PROBABILITY
    centred = []
    for c, _ in new:
        near = [k for k, d in zip(looks, is_die)
                if d and math.hypot(c.x - k.x, c.y - k.y) <= SAME_DIE * c.side]
        centred.append(Candidate(float(np.mean([k.x for k in near])),
                                 float(np.mean([k.y for k in near])), c.side))
    # ... and a size larger: the outline of such a die does not fill, so the dice of its
    # tray were often sized small too (white dice on a white floor: read at half their box).
    centred += [Candidate(c.x, c.y, c.side * AROUND_GROW) for c in centred]
    new = _elsewhere(_accept(centred, _classify(source, centred, gate_pass=SURE_GATE)), found)
    return dice + [(c, p) for c, p in new if _sure_face(p)]


def _dropped_die_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                      seen: list, side: float, skip) -> list[tuple[Candidate, np.ndarray]]:
    """Places any pass read as a die (`DIE_PROBABILITY`) but dropped for want of a sure face,
    farther than `BESIDE_CLEAR` sides from every die found, are read again at 3 x 3 places
    `DROPPED_STEP` sides apart round each, at `DROPPED_SIZES` x the typical `side`; a die
    read there `SURE_FACE` sure counts (as for the look around, which reads only places half
    taken for a die). A flat die whose outline did not fill (seen by the tray wall, on the
    development trays) leaves candidates off its top face that read it with doubt, while a
    crop nearer its top face's centre and size reads it surely. So does a die touching one
    found: two touching dice's top faces lie 0.65-0.9 sides apart, so the places read near
    the missed die's centre lie nearer the found die than `AROUND_CLEAR` (they were turned
    away until the seventieth session), but not nearer than `BESIDE_CLEAR`, within which a
    place is the found die's own."""
    found = [c for c, _ in dice]
    places: list[Candidate] = []
    for candidates, probs in seen:
        for c, p in zip(candidates, probs):
            if 1.0 - p[NOT_A_DIE] >= DIE_PROBABILITY and _farther(c, found, BESIDE_CLEAR * side) \
                    and _farther(c, places, AROUND_STEP * side):
                places.append(c)
    return _sure_faces_round(source, dice, places, side, DROPPED_STEP, DROPPED_SIZES, skip)


def _sure_faces_round(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                      places: list[Candidate], side: float, step: float,
                      sizes: tuple[float, ...], skip) -> list[tuple[Candidate, np.ndarray]]:
    """The `dice` and the dice read `SURE_FACE` sure at 3 x 3 places `step` sides apart
    round each of the `places`, at `sizes` x the typical `side`, elsewhere than the dice."""
    steps = (-step * side, 0.0, step * side)
    looks = _off([Candidate(c.x + dx, c.y + dy, side * f) for c in places
                  for dx in steps for dy in steps for f in sizes], skip)
    if not looks:
        return dice
    new = _elsewhere(_accept(looks, _classify(source, looks)), [c for c, _ in dice])
    return dice + [(c, p) for c, p in new if _sure_face(p)]


def _freed_die_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                    seen: list, side: float, skip) -> list[tuple[Candidate, np.ndarray]]:
    """The dropped-die look (`_dropped_die_look`) and the beside look (`_beside_look`) once
    more, once the looks have read the dice without a face again: a reading without a face
    between two touching dice kept them away from the die it overlapped (`BESIDE_CLEAR`);
    the looks move such a reading onto a die or drop it, which frees that
    die's place (docs/history/vision.md, thirty-fifth session)."""
    return _beside_look(source, _dropped_die_look(source, dice, seen, side, skip), seen, side,
                        skip)


def _beside_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]], seen: list,
                 side: float, skip) -> list[tuple[Candidate, np.ndarray]]:
    """Readings of a pip face or a special die (any pass, `seen`) farther than
    `BESIDE_CLEAR` typical sides from every die found, but nearer one than `TOUCHING` (a
    neighbour), are read again there at the typical `side`; a pip face or special die read
    `BESIDE_SURE` sure is a die (a special die touching a pip die was missed, as a pip die
    was before: docs/history/vision.md, thirty-sixth session). One die, one reading
    compares the larger of two candidates' sides, and a candidate cut on the blob of two
    touching dice is large, so a die read beside its touching neighbour was dropped for it
    (seed 776: 37 of 64 missed dice; every place there read 0.7 sure or more read the right
    face). Not farther out: a lone die seen from the side reads as its side face there.

    A neighbour read off its centre, towards the die, leaves the die's readings nearer than
    `BESIDE_CLEAR`: from `BESIDE_NEAR` sides of a die read as a pip face, a place read
    `BESIDE_NEAR_SURE` sure is a die when the midpoint of the two reads no pip face (two
    dice's midpoint is their contact, which reads leaning or no die; one die read twice off
    its centre reads its face there, as in `_join_halves`)."""
    if not dice:
        return dice
    read = [c for candidates, _ in seen for c in candidates]
    probs = np.concatenate([p for _, p in seen])
    pips = np.flatnonzero((1.0 - probs[:, NOT_A_DIE] >= DIE_PROBABILITY) & (
        probs[:, 1:].argmax(axis=1) + 1 != COCKED))
    xy = np.array([(read[i].x, read[i].y) for i in pips]).reshape(-1, 2)
    found = np.array([(c.x, c.y) for c, _ in dice])
    found_pip = ~np.isin(np.array([p[1:].argmax() + 1 for _, p in dice]), (COCKED, SPECIAL))
    distances = np.hypot(*(xy[:, None] - found).transpose(2, 0, 1)) / side
    nearest = distances.argmin(axis=1)
    apart = distances.min(axis=1)
    near = (apart > BESIDE_NEAR) & (apart <= BESIDE_CLEAR) & found_pip[nearest]
    beside = ((apart > BESIDE_CLEAR) | near) & (apart < TOUCHING)
    places: list[tuple[Candidate, Candidate | None]] = []     # and the midpoint to read
    for j in np.flatnonzero(beside)[np.argsort(-probs[pips[beside], 1:].max(axis=1),
                                               kind="stable")]:
        c = read[pips[j]]
        if all(math.hypot(c.x - k.x, c.y - k.y) > AROUND_STEP * side for k, _ in places):
            k = dice[nearest[j]][0]
            places.append((Candidate(c.x, c.y, side), Candidate(
                (c.x + k.x) / 2, (c.y + k.y) / 2, side) if near[j] else None))
    if skip is not None:
        places = [(c, m) for c, m in places if not skip(c.x, c.y)]
    if not places:
        return dice
    middles = [m for _, m in places if m is not None]
    probs = _classify(source, [c for c, _ in places] + middles)
    middle = iter(probs[len(places):])
    sure = np.array([_any_face(p, BESIDE_SURE) if m is None else
                     not _die_face(next(middle)) and _any_face(p, BESIDE_NEAR_SURE)
                     for p, (_, m) in zip(probs, places)], bool)
    probs = probs[:len(places)]
    return dice + _accept([c for (c, _), s in zip(places, sure) if s], probs[sure])


def _other_colour_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                       edges: TrayEdges, side: float, skip) -> list[tuple[Candidate, np.ndarray]]:
    """The `dice` and the dice found as a body of another colour beside one of them
    (`segment.other_colour_candidates`): two touching dice make one blob, read as one die
    and a leaning reading at their contact, and the other die was lost (on the design
    trays, 2 in 3 of the rendered dice missed touched a die of another colour). Each body
    is read at nine places `AROUND_STEP_OTHER` sides apart round its centre (found from
    colour alone, it lies off the die's centre); a pip face or special die read `SURE` sure
    (thirty-sixth session), farther than `BESIDE_CLEAR` sides from every die read with a
    face, is a die, unless the lean check finds it leaning `OTHER_LEANING` likely: a
    leaning die beside a die of another colour is a body of its own colour too, and its
    tilted top face reads as a flat one. A die read without a face at the new die's place
    (the contact's leaning reading) gives way to it (docs/history/vision.md, twenty-sixth
    session)."""
    faced = [c for c, p in dice if not _without_face(p)]
    return _read_bodies(source, dice, _off(edges.other_colour(side, [c for c, _ in dice], faced),
                                           skip), side)


def _residue_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                  edges: TrayEdges, side: float, skip) -> list[tuple[Candidate, np.ndarray]]:
    """The `dice` and the dice found where the blobs of the `dice` hold more than those read
    with a face explain (`segment.residue_candidates`): a die touching one read, whose blob
    the grids leave alone since its area looks explained (docs/history/vision.md,
    twenty-seventh session). A die read without a face explains nothing: two touching
    dice are often read as one die and a leaning reading at their contact. Places within
    `RESIDUE_CLEAR` sides of any die found are not read (that die was read there; reading
    them cost 1.5 ms on the real composite frame and found little)."""
    faced = [c for c, p in dice if not _without_face(p)]
    found = [c for c, _ in dice]
    return _read_bodies(source, dice, [c for c in _off(edges.residue(side, faced, found), skip)
                                       if _farther(c, found, RESIDUE_CLEAR * side)], side)


def _pip_cluster_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                      edges: TrayEdges, side: float, skip
                      ) -> list[tuple[Candidate, np.ndarray]]:
    """Groups of pips in blobs of touching dice that no die found explains
    (`TrayEdges.pip_clusters`, farther than `BESIDE_CLEAR` sides from every die found): each
    read as a die `PIP_CLUSTER_DIE` likely at `PIP_CLUSTER_FIRST` x the typical `side` is
    read at 3 x 3 places `PIP_CLUSTER_STEP` sides apart round it, at `PIP_CLUSTER_SIZES` x
    `side`; a die read there `SURE_FACE` sure counts. The classifier reads a die touching another
    surely only within about a tenth of a side of its top face's centre, and at its top
    face's size (seventieth and seventy-first sessions), where no earlier candidate may
    come; its pips' centre lies within about 0.3 sides of it. Most groups are pips of a
    found die's side faces, read as no die at the first crop."""
    found = [c for c, _ in dice]
    places = _off([Candidate(c.x, c.y, side * PIP_CLUSTER_FIRST)
                   for c in edges.pip_clusters(side, found, BESIDE_CLEAR)], skip)
    if not places:
        return dice
    probs = _classify(source, places)
    places = [c for c, p in zip(places, probs) if 1.0 - p[NOT_A_DIE] >= PIP_CLUSTER_DIE]
    return _sure_faces_round(source, dice, places, side, PIP_CLUSTER_STEP, PIP_CLUSTER_SIZES,
                             skip)


def _read_bodies(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                 bodies: list[Candidate], side: float) -> list[tuple[Candidate, np.ndarray]]:
    """The `dice` and the dice read round the `bodies`, places that lie off a touching die's
    centre, as `_other_colour_look` says."""
    if not bodies:
        return dice
    faced = [c for c, p in dice if not _without_face(p)]
    looks = [k for b in bodies for k in around(b.x, b.y, side, AROUND_STEP_OTHER)]
    probs = _classify(source, looks)
    chosen = [i for i, (c, p) in enumerate(zip(looks, probs))
              if 1.0 - p[NOT_A_DIE] >= DIE_PROBABILITY and _any_face(p, SURE)
              and _farther(c, faced, BESIDE_CLEAR * side)]
    if not chosen:
        return dice
    new = _accept([looks[i] for i in chosen], probs[chosen])
    leaning = _leaning([c for c, _ in new], source)
    new = [die for die, lean in zip(new, leaning) if lean < OTHER_LEANING]
    places = [c for c, _ in new]
    return [(c, p) for c, p in dice
            if not _without_face(p) or _farther(c, places, SAME_DIE * side)] + new


def _die_face(p: np.ndarray, sure: float = READABLE) -> bool:
    """Read as a die (`DIE_PROBABILITY`) with a pip face at least `sure` sure. `_pip_face`
    alone is true of a place read as no die at all (P(die) 0: 0 >= sure x 0), so a look
    that puts its reading in a die's stead asks this."""
    return bool(1.0 - p[NOT_A_DIE] >= DIE_PROBABILITY) and _pip_face(p, sure)


def _lone_die(source: CropSource, candidates: list[Candidate], skip
              ) -> list[tuple[Candidate, np.ndarray]]:
    """A lone die whose outline did not fill at all (white on a white floor) leaves a blob
    of its pips only, a candidate too small for the die: each candidate is read at
    `LONE_GROW` times its side; a pip face read `SURE_FACE` sure is a die (so large a crop
    of a lone d6 can look like a special die to the classifier), and else the places so
    read half taken for a die are looked around (`_look_around`)."""
    if not candidates:
        return []
    grown = [Candidate(c.x, c.y, c.side * k) for k in LONE_GROW for c in candidates]
    probs = _classify(source, grown)
    return [(c, p) for c, p in _accept(grown, probs) if _pip_face(p, SURE_FACE)] or \
        _look_around(source, [], grown, probs, None, skip)


def _elsewhere(dice: list[tuple[Candidate, np.ndarray]], found: list[Candidate]
               ) -> list[tuple[Candidate, np.ndarray]]:
    """The dice not at a `found` die's place (`SAME_DIE`)."""
    return [(c, p) for c, p in dice
            if all(math.hypot(c.x - k.x, c.y - k.y) > SAME_DIE * max(c.side, k.side)
                   for k in found)]


def _grid_settled(dice: list[tuple[Candidate, np.ndarray]], first: list[Candidate]
                  ) -> list[Candidate]:
    """The dice that need no grid points near them: read surely (`SURE`) as a face or a
    special die. A die the grid found (not among the `first` search's) may lie a third of
    its side off the point that found it: it spares the points near it only when read
    `SURE_FACE` sure (two dice seen overlapping need the points at their centres, or one
    reading between them wins)."""
    first = set(first)
    return [c for c, p in dice if p[1:].max() >= SURE and int(p[1:].argmax()) + 1 != COCKED
            and (c in first or p[1:].max() >= SURE_FACE)]


def _grid_unsure(dice: list[tuple[Candidate, np.ndarray]]) -> list[Candidate]:
    """The dice read as a pip face, not surely: grid points are kept only near their
    centres (a special die read unsurely keeps every point around it)."""
    return [c for c, p in dice if READABLE * (1 - p[NOT_A_DIE]) <= p[1:].max() < SURE
            and int(p[1:].argmax()) + 1 not in (COCKED, SPECIAL)]


def _read_more(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
               extra: list[Candidate], seen: list | None = None, gate_pass: float | None = None
               ) -> list[tuple[Candidate, np.ndarray]]:
    """The `dice` and the `extra` candidates read (gated at `gate_pass`, `_classify`), one
    reading per die (`_accept`); the candidates and their readings are added to `seen` (for
    `_look_around`)."""
    if not extra:
        return dice
    probs = _classify(source, extra, gate_pass=gate_pass)
    if seen is not None:
        seen.append((extra, probs))
    return _accept([c for c, _ in dice] + extra, np.concatenate(
        [np.array([p for _, p in dice]).reshape(-1, CLASSES), probs]))


def _pip_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
              pips: list[Candidate], seen: list) -> list[tuple[Candidate, np.ndarray]]:
    """The `dice` and the dice found at lone pips (`TrayEdges.pips`): those read as a pip
    face `SURE_FACE` sure, as for the look around (a pip of a leaning die, whose outline
    merged with its neighbour's, reads as a 1 less surely)."""
    return _read_faces(source, dice, pips, seen, SURE_FACE)


def _read_faces(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                extra: list[Candidate], seen: list, sure: float
                ) -> list[tuple[Candidate, np.ndarray]]:
    """The `dice` and those of the `extra` candidates read as a pip face `sure` sure. Every
    reading goes to `seen`, so the look around sees places half taken for a die there too."""
    if not extra:
        return dice
    probs = _classify(source, extra)
    seen.append((extra, probs))
    kept = [i for i, p in enumerate(probs) if _pip_face(p, sure)]
    if not kept:
        return dice
    return _accept([c for c, _ in dice] + [extra[i] for i in kept], np.concatenate(
        [np.array([p for _, p in dice]).reshape(-1, CLASSES), probs[kept]]))


def _off(candidates: list[Candidate], skip) -> list[Candidate]:
    """The candidates not at a place `skip` names."""
    return candidates if skip is None else [c for c in candidates if not skip(c.x, c.y)]


def _outward_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]]
                  ) -> list[tuple[Candidate, np.ndarray]]:
    """Dice read without a face (leaning, unreadable) are read again where a flat die's top
    face would be.

    A camera above the tray sees a die away from the image's centre partly from the side:
    higher points project farther out, so a flat die's top face lies outward of its
    outline's centre, and the classifier, which learned leaning dice by the side faces they
    show, may call it leaning. Read again on crops moved outward from the image centre by
    `OUTWARD` of the die's distance to it, a little smaller (`TOP_FACE`: the pips larger,
    which also reads some small real dice declined at their outline), a face read at least
    `SURE_FACE` sure wins. A leaning die leans any way, so its top face is rarely found
    there (the same look inward finds nothing: docs/history/vision.md, fifth session).
    """
    chosen = [i for i, (_, p) in enumerate(dice) if _without_face(p)]
    if not chosen:
        return dice
    h, w = source.image.shape[:2]
    cx, cy = w / 2, h / 2
    looks = [Candidate(c.x + k * (c.x - cx), c.y + k * (c.y - cy), c.side * TOP_FACE)
             for c in (dice[i][0] for i in chosen) for k in OUTWARD]
    probs = _classify(source, looks, gate_pass=SURE_GATE).reshape(len(chosen), len(OUTWARD),
                                                                 CLASSES)
    face = _sure_face(probs)
    dice = list(dice)
    for j, i in enumerate(chosen):
        if face[j].any():
            k = int(np.argmax(np.where(face[j], probs[j, :, 1:].max(axis=1), -1.0)))
            dice[i] = (looks[j * len(OUTWARD) + k], probs[j, k])
    return dice


def _away_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]]
               ) -> list[tuple[Candidate, np.ndarray]]:
    """Dice read without a face whose centre lies within a side of another die's are read
    again away from that die.

    Two touching dice, seen partly from the side, make outlines that overlap; a candidate
    cut between them shows two dice's edges and reads as leaning, while the die's top face
    lies farther from its neighbour. Read again at `AWAY` of its side in the compass
    directions within `AWAY_CONE` degrees of the way away from the neighbour, `TOP_FACE` as
    large: when every look read `SURE_FACE` sure reads the same face, the surest wins. Only
    for overlapping dice: a die merely leaning on its neighbour lies a side from it, and
    looks all round it would read its tilted top face (docs/history/vision.md, eighth session).
    """
    compass = np.arange(8) * (math.pi / 4)
    dice = list(dice)
    for i, (c, p) in enumerate(dice):
        if not _without_face(p):
            continue
        away = [math.atan2(c.y - k.y, c.x - k.x) for j, (k, _) in enumerate(dice)
                if j != i and math.hypot(c.x - k.x, c.y - k.y) < max(c.side, k.side)]
        turns = [a for a in compass if any(
            abs((a - b + math.pi) % (2 * math.pi) - math.pi) <= math.radians(AWAY_CONE)
            for b in away)]
        if not turns:
            continue
        looks = [Candidate(c.x + r * c.side * math.cos(a), c.y + r * c.side * math.sin(a),
                           c.side * TOP_FACE) for r in AWAY for a in turns]
        dice[i] = _agreed_look(source, looks, (SPECIAL,)) or dice[i]
    return dice


def _one_pip_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]]
                  ) -> list[tuple[Candidate, np.ndarray]]:
    """Dice read as a 1, not `SURE`, are read again `ONE_PIP_LOOK` of their side away: of the
    eight compass directions, at the `ONE_PIP_READ` the gate finds likeliest to be a die (on
    validation the same dice as all eight, at 3 crops instead of 8); when every look read
    `SURE_FACE` sure as a face reads the same face, not a 1, the surest wins.

    A candidate centred on one pip of a 2 (a dark die whose outline filled only around a
    pip) reads as a 1, often with doubt: on the benchmark's trays every die read as a 1
    wrongly was a 2, and all but two of them under `SURE`. The die's centre lies a third of
    its side from the pip, where its two pips read as a 2."""
    compass = np.arange(8) * (math.pi / 4)
    dice = list(dice)
    for i, (c, p) in enumerate(dice):
        if int(p[1:].argmax()) + 1 != 1 or p[1:].max() >= SURE:
            continue
        r = ONE_PIP_LOOK * c.side
        looks = [Candidate(c.x + r * math.cos(a), c.y + r * math.sin(a), c.side)
                 for a in compass]
        dice[i] = _agreed_look(source, looks, (SPECIAL, 1), best=ONE_PIP_READ) or dice[i]
    return dice


def _agreed_look(source: CropSource, looks: list[Candidate], not_faces: tuple[int, ...],
                 best: int | None = None) -> tuple[Candidate, np.ndarray] | None:
    """The surest of the `looks` (the `best` the gate likes, if given) read `SURE_FACE`
    sure as a face other than `not_faces`, when every such look reads the same face; None
    when none does or they disagree."""
    return _agreed(looks, _classify(source, looks, best, SURE_GATE), not_faces)


def _agreed(looks: list[Candidate], probs: np.ndarray, not_faces: tuple[int, ...],
            quorum: int = 1, leaning_vetoes: bool = False
            ) -> tuple[Candidate, np.ndarray] | None:
    """The surest of the `looks` (`probs`, one row each) read `SURE_FACE` sure as a face
    other than `not_faces`, when at least `quorum` looks do and all of them read the same
    face (and, with `leaning_vetoes`, no look reads leaning `SURE_FACE` sure); else None."""
    faces = probs[:, 1:].argmax(axis=1) + 1
    sure = _sure_face(probs) & ~np.isin(faces, not_faces)
    if not sure.any() or sure.sum() < quorum or len(set(faces[sure])) > 1:
        return None
    if leaning_vetoes and (probs[:, COCKED] >= SURE_FACE).any():
        return None
    k = int(np.argmax(np.where(sure, probs[:, 1:].max(axis=1), -1.0)))
    return looks[k], probs[k]


def _join_halves(source: CropSource, dice: list[tuple[Candidate, np.ndarray]]
                 ) -> list[tuple[Candidate, np.ndarray]]:
    """Two dice read as pip faces within `JOIN` sides of each other, neither `SURE_FACE`
    sure, whose midpoint reads as a face `SURE_FACE` sure, are one die read twice off its
    centre: the midpoint's reading replaces them.

    A die seen much from the side (at the frame's edge) makes a long blob with two
    distance maxima, neither at its top face's centre; both read as the die's face with
    doubt, farther apart than one die, one reading (`SAME_DIE`) allows, and the player is
    told of a die that is not there. Two touching dice's midpoint lies on their contact,
    which does not read as a sure face."""
    if len(dice) < 2:
        return dice
    probs = np.array([p for _, p in dice])
    x, y, side = np.array([(c.x, c.y, c.side) for c, _ in dice]).T
    pips = ~np.isin(probs[:, 1:].argmax(axis=1) + 1, (COCKED, SPECIAL))
    unsure = pips & ~_sure_face(probs)
    near = np.hypot(x[:, None] - x, y[:, None] - y) < JOIN * np.maximum(side[:, None], side)
    pairs = list(zip(*np.nonzero(np.triu(near & unsure & unsure[:, None], 1))))
    if not pairs:
        return dice
    middles = [Candidate(float(x[i] + x[j]) / 2, float(y[i] + y[j]) / 2,
                         float(side[i] + side[j]) / 2) for i, j in pairs]
    probs = _classify(source, middles, gate_pass=SURE_GATE)
    sure = _sure_face(probs) & (probs[:, 1:].argmax(axis=1) + 1 != SPECIAL)
    dice, gone = list(dice), set()
    for (i, j), middle, p, joined in zip(pairs, middles, probs, sure):
        if joined and not {i, j} & gone:
            dice[i] = (middle, p)
            gone.add(j)
    return [d for k, d in enumerate(dice) if k not in gone]


def _outward_opinion(source: CropSource, dice: list[tuple[Candidate, np.ndarray]]
                     ) -> list[tuple[Candidate, np.ndarray]]:
    """Pip dice still read without a face (leaning or unreadable, not special) are read by
    the outward network (`classifier.default_outward`, trained on crops turned outward-up)
    on an outward-up crop; a face it reads at least `OUTWARD_SURE` sure replaces the flag
    (its probabilities replace the classifier's). Averaged with the crop's mirror about the
    outward axis, the chosen network read no more dice (docs/history/vision.md, tenth session).
    Else the die is also read `OUTWARD_RING` of its side around its centre in the eight
    compass directions, `TOP_FACE` as large (the centre, where two side faces show or it
    touches a neighbour, may miss the top face): when at least `OUTWARD_AGREE` of the nine
    looks read `SURE_FACE` sure as one face, none as another face and none as leaning that
    sure, the surest of them wins, at its place (docs/history/vision.md, "More places": every
    looser choice gave some leaning die a value on validation).

    A flat die away from the frame's centre shows side faces inward of its top face, which
    the committed classifier, trained at any angle, often takes for a leaning die; the
    outward network knows where inward is and flags such dice far less, but more near the
    centre (docs/history/vision.md, ninth session). Here it only sees the dice every other look
    read without a face (docs/history/vision.md, tenth session)."""
    chosen = [i for i, (_, p) in enumerate(dice)
              if _without_face(p) and int(p[1:].argmax()) + 1 != SPECIAL]
    if not chosen or default_outward() is None:
        return dice
    compass = np.arange(8) * (math.pi / 4)
    looks = [[c] + [Candidate(c.x + OUTWARD_RING * c.side * math.cos(a),
                              c.y + OUTWARD_RING * c.side * math.sin(a), c.side * TOP_FACE)
                    for a in compass] for c in (dice[i][0] for i in chosen)]
    votes = default_outward().predict(_crops(source, [c for die in looks for c in die],
                                             outward=True)).reshape(len(chosen), -1, CLASSES)
    read = _sure_faces_taken(dice, chosen, votes[:, 0], OUTWARD_SURE)
    for j, i in enumerate(chosen):
        if read[i] is dice[i]:
            read[i] = _agreed(looks[j], votes[j], (SPECIAL,), OUTWARD_AGREE, True) or dice[i]
    return read


def _top_face_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]]
                   ) -> list[tuple[Candidate, np.ndarray]]:
    """Pip dice still read without a face are read again on their top face, found in the
    image (`special_dice.find_top_face`: the body-coloured region around the die's centre;
    sought on the crop pyramid's level where the die is at most `FACE_SEARCH` pixels wide,
    in less than half the time on the validation trays, the same readings), when it is at
    least `SQUARE` square and at no other die's place (`SAME_DIE`): the committed classifier
    reads a crop there `FACE_TO_DIE` times the face's side (as it was trained on flat dice),
    and a pip face read `FACE_LOOK_SURE` sure, given a die, wins, at its place.

    A flat die seen obliquely (two side faces show) or touching a neighbour is found off its
    top face, at an outline half again as large: on validation its detection lay 0.43 top
    faces off the top face's centre (median; 0.13 for the flat dice read), where no look
    reads it, while a crop at the top face read most of them. A leaning die's tilted top
    face reads as surely as a face there, but is foreshortened, which a flat die's seen
    from above is hardly: hence the squareness (docs/history/vision.md, eleventh session)."""
    chosen = [i for i, (_, p) in enumerate(dice)
              if _without_face(p) and int(p[1:].argmax()) + 1 != SPECIAL]
    h, w = source.image.shape[:2]
    looks, which = [], []
    for i in chosen:
        c = dice[i][0]
        # Sought from the die's centre, the face found may be a neighbour's (a centre cut on
        # their contact) or take in side faces (a flat die seen obliquely): sought again
        # `FACE_SEED` of its side away from the nearest touching die, then outward from the
        # image centre, where a flat die's top face lies (docs/history/vision.md, 17th session).
        ways = [math.atan2(c.y - h / 2, c.x - w / 2)]
        near = [k for j, (k, _) in enumerate(dice) if j != i
                and math.hypot(c.x - k.x, c.y - k.y) < TOUCHING * max(c.side, k.side)]
        if near:
            k = min(near, key=lambda k: math.hypot(c.x - k.x, c.y - k.y))
            ways.insert(0, math.atan2(c.y - k.y, c.x - k.x))
        look = _square_face(source, dice, i, c.x, c.y)
        for way in ways:
            if look is None:
                look = _square_face(source, dice, i, c.x + FACE_SEED * c.side * math.cos(way),
                                    c.y + FACE_SEED * c.side * math.sin(way))
        if look is not None:
            looks.append(look)
            which.append(i)
    if not looks:
        return dice
    probs = _classify(source, looks, gate_pass=SURE_GATE)
    dice = list(dice)
    for look, p, i in zip(looks, probs, which):
        if _die_face(p, FACE_LOOK_SURE):
            dice[i] = (look, p)
    return dice


def _patch_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]]
                ) -> list[tuple[Candidate, np.ndarray]]:
    """Pip dice still read without a face are read on a patch of places around them,
    `PATCH_STEP` of their side apart, `PATCH_REACH` steps each way, `TOP_FACE` as large,
    those nearer another die than `SAME_DIE` sides left out: when every place read
    `SURE_FACE` sure reads the same face and none reads leaning that sure, the surest wins,
    unless the lean check finds it leaning `PATCH_LEANING` likely. When no place reads a
    face or leaning that sure, a second patch is read at the typical die's top face
    (`SMALL_PATCH` of its side, `SMALL_PATCH_STEP` apart), with the same checks.

    The last of the looks. On the design trays most flat dice still read without a face
    lay 0.13-0.33 sides from their top face's centre, up to 50 degrees off the way outward
    that the outward looks take, and the classifier read nearly half of them 0.95 sure at
    that centre. A leaning die's tilted top face reads as surely: the lean check at its own
    cut-off let 15 of 429 such dice through, and at 0.5 still 4 of 404 on other trays, with
    flat dice found at 0.001-0.456; dice found here are all doubtful already, so the guard is
    strict (docs/history/vision.md, twenty-eighth session). The second patch reads dice
    whose outline takes in side faces of nearly their top face's shade (grey dice): cut at
    the outline's size, such a die reads leaning; cut at its top face's, as its face
    (docs/history/vision.md, thirty-sixth session)."""
    chosen = [i for i, (_, p) in enumerate(dice)
              if _without_face(p) and int(p[1:].argmax()) + 1 != SPECIAL]
    typical = float(np.median([c.side for c, p in dice if _pip_face(p, READABLE)] or [0.0]))
    dice = list(dice)
    for i in chosen:
        c = dice[i][0]
        for side, step, size in ((c.side, PATCH_STEP, TOP_FACE),
                                 (typical, SMALL_PATCH_STEP, SMALL_PATCH)):
            read = _patch(source, dice, i, side * step, side * size)
            if read is None:
                continue
            found, leaning = read
            if found is not None:
                guard = Candidate(found[0].x, found[0].y, c.side * TOP_FACE)
                if _leaning([guard], source)[0] < PATCH_LEANING:
                    dice[i] = found
            if found is not None or leaning:
                break
    return dice


def _patch(source: CropSource, dice: list[tuple[Candidate, np.ndarray]], i: int, step: float,
           side: float) -> tuple[tuple[Candidate, np.ndarray] | None, bool] | None:
    """Die `i` read at (2 `PATCH_REACH` + 1)^2 places `step` pixels apart round it, `side`
    pixels wide, those nearer another die than `SAME_DIE` sides left out: the agreed face
    (`_agreed`, leaning vetoes) or None, and whether a place read leaning `SURE_FACE` sure;
    None when no place is left (or `side` is 0: no die read with a face to size it)."""
    if side <= 0:
        return None
    c = dice[i][0]
    steps = range(-PATCH_REACH, PATCH_REACH + 1)
    looks = [Candidate(c.x + a * step, c.y + b * step, side) for a in steps for b in steps]
    looks = [k for k in looks if all(
        math.hypot(k.x - o.x, k.y - o.y) > SAME_DIE * max(c.side, o.side)
        for j, (o, _) in enumerate(dice) if j != i)]
    if not looks:
        return None
    probs = _classify(source, looks, gate_pass=SURE_GATE)
    return (_agreed(looks, probs, (SPECIAL,), leaning_vetoes=True),
            bool((probs[:, COCKED] >= SURE_FACE).any()))


def _square_face(source: CropSource, dice: list[tuple[Candidate, np.ndarray]], i: int,
                 x: float, y: float) -> Candidate | None:
    """The place to read die `i` on its top face sought from (x, y): the face found there at
    least `SQUARE` square and at no other die's place, as a candidate `FACE_TO_DIE` times
    its side; else None."""
    c = dice[i][0]
    level = pyramid_level(c.side, FACE_SEARCH)
    fx, fy = source.scale(level)
    face = find_top_face(source.level(level), (x + 0.5) * fx - 0.5, (y + 0.5) * fy - 0.5,
                         c.side * fx)
    if face is None or face.squareness < SQUARE:
        return None
    look = Candidate((face.x + 0.5) / fx - 0.5, (face.y + 0.5) / fy - 0.5,
                     face.side / fx * FACE_TO_DIE)
    if any(math.hypot(look.x - k.x, look.y - k.y) <= SAME_DIE * max(look.side, k.side)
           for j, (k, _) in enumerate(dice) if j != i):
        return None
    return look


def _detail_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]]
                 ) -> list[tuple[Candidate, np.ndarray]]:
    """Dice still undecided (read as a face, none of them surely enough) are read by the
    detail network on 48x48 crops, at `DETAIL_TURNS`, votes averaged; a face it reads at
    least `DETAIL_SURE` sure is taken (its probabilities replace the classifier's). Dice
    read as leaning or special are left as they are: the detail network does not decide
    whether a die leans."""
    chosen = [i for i, (_, p) in enumerate(dice) if _undecided(p)]
    if not chosen or default_detail() is None:
        return dice
    votes = _detail_votes(source, [dice[i][0] for i in chosen])
    return _sure_faces_taken(dice, chosen, votes, DETAIL_SURE)


def _contrast_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]]
                   ) -> list[tuple[Candidate, np.ndarray]]:
    """Dice still undecided after the detail look are read again on crops whose contrast is
    brought out: pips that differ from the body in hue more than in brightness (red dice
    with gold pips, smoke dice with red pips) stay faint after the networks' per-crop
    normalisation. Three views, each averaged over `DETAIL_TURNS`: the detail network on
    crops stretched per colour channel, the classifier and the detail network on crops
    with CLAHE on their lightness; a face all three read, `CONTRAST_SURE` sure given a die
    on their average, is taken."""
    chosen = [i for i, (_, p) in enumerate(dice) if _undecided(p)]
    if not chosen or default_detail() is None:
        return dice
    places = [(c.x, c.y, c.side, 0.0) for c, _ in (dice[i] for i in chosen)]
    small = _crops(source, [dice[i][0] for i in chosen])
    large = source.crops(places, DETAIL_SIZE)
    # an outward-up classifier is read only upright
    turns = (0,) if outward_crops() else DETAIL_TURNS
    return _agreed_views(dice, chosen, [
        lambda: _turned_votes(default_classifier(), _clahe(small), turns),
        lambda: _turned_votes(default_detail(), _stretched(large), DETAIL_TURNS),
        lambda: _turned_votes(default_detail(), _clahe(large), DETAIL_TURNS)])


def _colour_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]]
                 ) -> list[tuple[Candidate, np.ndarray]]:
    """Dice still undecided after the contrast look are read on crops whose lightness is
    each pixel's colour distance from the die's body (`_distance_lit`: gold pips on a red
    body, red pips on a smoke one, come out light on a dark die), by the classifier and the
    detail network, and by the detail network on plain crops at `COLOUR_SIZES` x its side
    (votes averaged); each at four quarter turns. A face all three read, `CONTRAST_SURE`
    sure given a die on their average, is taken. An outward-up classifier is read only
    upright."""
    chosen = [i for i, (_, p) in enumerate(dice) if _undecided(p)]
    if not chosen or default_detail() is None:
        return dice
    candidates = [dice[i][0] for i in chosen]
    large = source.crops([(c.x, c.y, c.side, 0.0) for c in candidates], DETAIL_SIZE)
    sized = source.crops([(c.x, c.y, c.side * f, 0.0) for f in COLOUR_SIZES for c in candidates],
                         DETAIL_SIZE)
    turns = (0,) if outward_crops() else DETAIL_TURNS
    return _agreed_views(dice, chosen, [
        lambda: _turned_votes(default_classifier(), _distance_lit(_crops(source, candidates)),
                              turns),
        lambda: _turned_votes(default_detail(), _distance_lit(large), DETAIL_TURNS),
        lambda: _turned_votes(default_detail(), sized, DETAIL_TURNS).reshape(
            len(COLOUR_SIZES), len(chosen), CLASSES).mean(axis=0)])


def _agreed_views(dice: list[tuple[Candidate, np.ndarray]], chosen: list[int],
                  views) -> list[tuple[Candidate, np.ndarray]]:
    """The `dice`, each `chosen` one (column j of each view's votes, die x class, for
    `chosen[j]`) with the views' average as its reading when the views read the same face,
    not leaning or special, `CONTRAST_SURE` sure given a die on the average. The `views`
    (callables, cheapest first) are read in turn only while some die is still read the
    same by all views read so far: a die they disagree on cannot be taken."""
    read, agreeing = [], list(range(len(chosen)))
    for view in views:
        read.append(view())
        faces = np.stack(read)[:, :, 1:].argmax(axis=2) + 1
        agreeing = [j for j in agreeing if faces[0, j] not in (COCKED, SPECIAL)
                    and (faces[:, j] == faces[0, j]).all()]
        if not agreeing:
            return dice
    mean = np.stack(read).mean(axis=0)
    dice = list(dice)
    for j in agreeing:
        if mean[j, faces[0, j]] >= CONTRAST_SURE * (1 - mean[j, NOT_A_DIE]):
            dice[chosen[j]] = (dice[chosen[j]][0], mean[j])
    return dice


def _distance_lit(crops: np.ndarray) -> np.ndarray:
    """Each crop (the die `CONTEXT` times smaller than it) with its lightness (CIE Lab)
    replaced by each pixel's colour distance from the body: the median colour of the
    die's central square, half its side (pips are well under half of it), stretched so that
    its 99th percentile is white. Hue and saturation are kept."""
    n = crops.shape[1]
    half = max(1, round(n / CONTEXT / 4))
    out = np.empty_like(crops)
    for crop, lit in zip(crops, out):
        lab = cv2.cvtColor(crop.astype(np.float32) / 255, cv2.COLOR_BGR2LAB)
        body = np.median(lab[n // 2 - half:n // 2 + half, n // 2 - half:n // 2 + half]
                         .reshape(-1, 3), axis=0)
        distance = np.sqrt(((lab - body) ** 2).sum(axis=2))
        lab[..., 0] = np.clip(distance * (100 / max(np.percentile(distance, 99), 1e-3)), 0, 100)
        lit[...] = np.clip(cv2.cvtColor(lab, cv2.COLOR_LAB2BGR) * 255, 0, 255)
    return out


def _turned_votes(network, crops: np.ndarray, turns: tuple[int, ...]) -> np.ndarray:
    """The network's class probabilities of the crops, averaged over quarter `turns`."""
    votes = network.predict(np.ascontiguousarray(
        np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in turns])))
    return votes.reshape(len(turns), len(crops), CLASSES).mean(axis=0)


def _stretched(crops: np.ndarray) -> np.ndarray:
    """Each crop's colour channels stretched from their 1st to 99th percentile to 0..255."""
    f = crops.astype(np.float32)
    low = np.percentile(f, 1, axis=(1, 2), keepdims=True)
    high = np.percentile(f, 99, axis=(1, 2), keepdims=True)
    return np.clip((f - low) / np.maximum(high - low, 1.0) * 255, 0, 255).astype(np.uint8)


def _clahe(crops: np.ndarray) -> np.ndarray:
    """Each crop with CLAHE (clip 2, 4 x 4 tiles) on its L channel (CIE Lab)."""
    clahe = cv2.createCLAHE(2.0, (4, 4))
    out = np.empty_like(crops)
    for crop, lit in zip(crops, out):
        lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)
        lab[..., 0] = clahe.apply(lab[..., 0])
        cv2.cvtColor(lab, cv2.COLOR_LAB2BGR, dst=lit)
    return out


def _sure_faces_taken(dice: list[tuple[Candidate, np.ndarray]], chosen: list[int],
                      votes: np.ndarray, sure: float) -> list[tuple[Candidate, np.ndarray]]:
    """The `dice`, each `chosen` one (`votes` row j for `chosen[j]`) with the votes as its
    reading when they read a face, not leaning or special, at least `sure`."""
    dice = list(dice)
    for j, i in enumerate(chosen):
        face = int(votes[j, 1:].argmax()) + 1
        if face not in (COCKED, SPECIAL) and votes[j, face] >= sure:
            dice[i] = (dice[i][0], votes[j])
    return dice


def _detail_votes(source: CropSource, candidates: list[Candidate]) -> np.ndarray:
    """The detail network's class probabilities of the candidates, averaged over
    `DETAIL_TURNS`."""
    return _turned_votes(default_detail(), source.crops(
        ((c.x, c.y, c.side, 0.0) for c in candidates), DETAIL_SIZE), DETAIL_TURNS)


def _resize(source: CropSource, candidates: list[Candidate], probs: np.ndarray, side: float,
            spread: tuple[float, float]) -> tuple[list[Candidate], np.ndarray]:
    """Candidates whose side is outside `spread` x `side` are read again at the nearest side
    within it; the others keep their reading."""
    low, high = spread[0] * side, spread[1] * side
    resized = [i for i, c in enumerate(candidates) if not low <= c.side <= high]
    if not resized:
        return candidates, probs
    candidates, probs = list(candidates), probs.copy()
    for i in resized:
        c = candidates[i]
        candidates[i] = Candidate(c.x, c.y, float(np.clip(c.side, low, high)))
    probs[resized] = _classify(source, [candidates[i] for i in resized])
    return candidates, probs


def warm_up() -> None:
    """Load now what a process's first `read_tray` would otherwise load in the middle of a
    read: the networks, each run once (both engines set a network up on its first run), and
    OpenCV's colour tables (its first Lab conversion builds them). On the benchmark machine a
    first read of a 640x640 photo took 0.22 s against 0.07 s for the next, 0.17 s of it the
    tables. For a service that reads for hours, so that its first roll is as quick as the rest."""
    cv2.cvtColor(np.zeros((1, 1, 3), np.uint8), cv2.COLOR_BGR2LAB)
    crop = np.zeros((1, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    for network in (default_gate(), default_classifier(), default_outward()):
        if network is not None:
            network.predict(crop)
    detail = default_detail()
    if detail is not None:
        detail.predict(np.zeros((1, DETAIL_SIZE, DETAIL_SIZE, 3), np.uint8))
    warm_up_special()


def read_tray(image_bgr: np.ndarray, calibration=None, *, expect_special: bool = False,
              faces=None) -> list[DetectedDie]:
    """All dice in a BGR tray frame; see the module docstring for how.

    `expect_special`: scatter or artillery dice are likely in the tray (the rules asked for
    them): a die read as pips with some doubt that it is special is also shown to the
    special-dice reader (step 6, ~16 ms a die), special dice touching the dice found are
    sought round them (`_special_beside_look`, a few ms a die) and lone ones in the blobs
    no die was taken at (`_lone_special_look`); off, only dice the d6 network calls special
    are read as special dice.
    `calibration` (a `calibration.TrayCalibration`, any frame size of its camera) adds each
    die's position in tray millimetres and turns scatter bearings to the tray's up edge;
    without it, bearings are clockwise from image up. A profile made at another aspect
    ratio raises `CalibrationError` (a ValueError).
    `faces` (a `taught_faces.TaughtFaces`): faces taught from photos (`station calibrate
    faces`); a die showing one is read as that face, with the flag "taught". None: nothing
    more is done.
    """
    if image_bgr is None or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise ValueError("read_tray needs a BGR colour image (height x width x 3)")
    if min(image_bgr.shape[:2]) < MIN_FRAME:
        raise ValueError(f"a {image_bgr.shape[1]}x{image_bgr.shape[0]} image is too small "
                         f"to hold dice: give a frame of at least {MIN_FRAME}x{MIN_FRAME}")
    image = image_bgr if image_bgr.dtype == np.uint8 else \
        np.clip(image_bgr, 0, 255).astype(np.uint8)
    source = _sharpened_if_soft(CropSource(image))
    image = source.image
    skip = None
    if calibration is not None:
        h, w = image.shape[:2]
        calibration = calibration.for_image(w, h)
        # The calibration sheet's marker tiles in the tray's corners are not dice; dropped
        # before the search sizes the dice, as the tiles are larger than dice.
        skip = calibration.on_marker
    dice, edges, special = _search(source, WORK_SIDE, skip)
    if dice and edges.scale < 1.0:
        work_die = float(np.median([c.side for c, _ in dice])) * edges.scale
        if work_die < MIN_WORK_DIE:
            finer = int(WORK_SIDE * min(MIN_WORK_DIE * 1.5 / work_die, 1.0 / edges.scale))
            pips_as_dice = _all_ones(dice)
            dice, _, special = _search(source, finer, skip)
            if pips_as_dice:
                # Small dice all read as 1s: likely the pips of larger dice whose outlines
                # a soft frame did not show (white dice on a white tray, an enlarged
                # frame). Searched coarser too, the reading that counts more pips is kept.
                coarser = _search(source, WORK_SIDE // 2, skip)
                if _pips_read(coarser[0]) > _pips_read(dice):
                    dice, _, special = coarser
    dice = _recentred_on_pips(source, _lean_check(source, dice), special)
    if expect_special:
        top_face = _typical_top_face(source, dice)
        dice = _special_beside_look(source, dice, special, skip, edges, top_face)
        dice = _lone_special_look(source, dice, special, skip, edges, top_face)
    read = [_describe(image, c, p, near, calibration, expect_special, special)
            for (c, p), near in zip(dice, _touching([c for c, _ in dice]))]
    if expect_special:
        dice, read = _split_cocked_pair(source, dice, read, special, skip, calibration)
    dice, read = _one_reading_a_die(source, dice, read)
    if faces is not None:
        read = faces.apply(image, read, [(c.x, c.y, c.side) for c, _ in dice])
    if not has_colour(image):
        for die in read:     # a monochrome frame: a die's brightness is not its colour
            die.colour = None
    return read


def _softness(source: CropSource) -> float:
    """`crops.softness` of the grey working frame (the real photos 0.07-0.11; a frame out of
    focus by a pixel or more 0.3 and more)."""
    k = pyramid_level(max(source.image.shape[:2]), WORK_SIDE)   # `TrayEdges`'s frame
    return softness(cv2.cvtColor(source.level(k), cv2.COLOR_BGR2GRAY))


def _sharpened_if_soft(source: CropSource) -> CropSource:
    """The frame, or, when it is `SOFT_FRAME` soft or softer (a camera out of focus), the
    frame through an unsharp mask (`SHARPEN`). Sixty-fifth session: on the real photos
    blurred by 1 and 1.5 px it reads 6 and 30 more dice of 1490 (amount 1.5: 3 fewer and 40
    more); on enlarged photos or a blur of 0.75 px, softer than the photos as taken but
    under the gate, a mask on every frame lost dice."""
    if _softness(source) < SOFT_FRAME:
        return source
    amount, sigma = SHARPEN
    k = pyramid_level(max(source.image.shape[:2]), WORK_SIDE)
    return CropSource(unsharp(source.image, amount, sigma / source.scale(k)[0]))


def _special_beside_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                         special: dict[Candidate, SpecialReading | None], skip,
                         edges: TrayEdges, top_face: float | None
                         ) -> list[tuple[Candidate, np.ndarray]]:
    """Expecting special dice: a special die touching a die found that no look found (the
    pair reads as the other die alone; docs/history/special-dice.md, forty-second session)
    is sought round each die found whose blob holds more than one die (`SPECIAL_BLOB`; no
    blob under it: round it too), and round each die read as a special face, from where
    it was read (its top face) whatever its blob (a pair of special dice alone in a
    roll is the typical outline its blob is measured by, and the die beside one read at
    its top face can lie inside a ring round the pair's centre; fifty-fifth session),
    in `SPECIAL_DIRECTIONS` directions, `SPECIAL_BESIDE` top
    faces away (a top face: `special_dice.TOP_FACE` of the typical outline), at places
    farther than `SPECIAL_CLEAR` top faces from every die read with a face, and from every
    die the special reader read (where it read it): a place the face network reads as a
    special face `SPECIAL_SCREEN` sure (`special_face_probability`, `SPECIAL_SCREEN_TURNS`
    quarter turns) is read by `read_segmented`, and a face read there `SURE_SOUGHT` sure,
    at a top face still that clear, is a die (its reading goes to `special`, for
    `_describe`). A die the special reader read as leaning is taken like the others:
    sought within too, and giving way to a face read there, leaning dice were read as
    faces (12 on the development trays with leaning dice)."""
    if not dice:
        return dice
    faced = [c for c, p in dice if not _without_face(p)]
    outline = float(np.median([c.side for c in faced or [c for c, _ in dice]]))
    face = top_face or SPECIAL_TOP_FACE * outline
    taken = _special_taken(dice, special)
    h, w = source.image.shape[:2]
    centres = []
    for c, _ in dice:
        if not 0 < edges.blob_area(c) < SPECIAL_BLOB * outline ** 2:
            centres.append((c.x, c.y))
        read = special.get(c)
        if read is not None and read.value is not None and read.centre:
            centres.append(read.centre)
    places = []
    for x, y in dict.fromkeys(centres):
        for k in range(SPECIAL_DIRECTIONS):
            angle = 2 * math.pi * k / SPECIAL_DIRECTIONS
            for reach in SPECIAL_BESIDE:
                spot = Candidate(x + reach * face * math.cos(angle),
                                 y + reach * face * math.sin(angle), face)
                if 0 <= spot.x < w and 0 <= spot.y < h and \
                        (skip is None or not skip(spot.x, spot.y)) and \
                        _farther(spot, taken, SPECIAL_CLEAR * face):
                    places.append(spot)
    return _special_places_read(source, dice, special, places, [outline] * len(places),
                                SPECIAL_SCREEN, taken)


def _lone_special_look(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                       special: dict[Candidate, SpecialReading | None], skip,
                       edges: TrayEdges, top_face: float | None
                       ) -> list[tuple[Candidate, np.ndarray]]:
    """Expecting special dice: a special die alone in its blob that the d6 network took for
    no die (a lone MISFIRE face, a symbol it never saw on a pip die; fifty-second session).
    The blob candidates of the first search that lie farther than `SPECIAL_CLEAR` top faces
    (`special_dice.TOP_FACE` of the typical outline, as in `_special_beside_look`; with no
    die found, of the candidate's own) from every die taken, and that the d6 network gives
    at least `MAYBE_SPECIAL` P(special), are screened
    (`special_face_probability`) from `LONE_SCREEN` at their centre and where a flat die's
    top face may lie in such an outline (`top_face_places`: a blob holds the die's shadow
    and side faces too), and read by `read_segmented` at it; a face read there
    `SURE_SOUGHT` sure is a die, as in `_special_beside_look`."""
    taken = _special_taken(dice, special)
    faced = [c.side for c, p in dice if not _without_face(p)] or [c.side for c, _ in dice]
    typical = float(np.median(faced)) if faced else None
    face = top_face or (SPECIAL_TOP_FACE * typical if typical else None)
    lone = [c for c in _off(edges.blobs(), skip)
            if _farther(c, taken, SPECIAL_CLEAR * (face or SPECIAL_TOP_FACE * c.side))]
    if lone:
        # Only where the d6 network gives a special die some chance: most such blobs are
        # walls, stains and pips, and screening each where a top face may lie costs.
        lone = [c for c, p in zip(lone, _classify(source, lone)) if p[SPECIAL] >= MAYBE_SPECIAL]
    image = source.image
    places, outlines = [], []
    for c in lone:
        outline = typical or c.side
        around = [(c.x, c.y, face or SPECIAL_TOP_FACE * outline)] + \
            top_face_places(image, c.x, c.y, outline)
        places += [Candidate(*place) for place in around]
        outlines += [outline] * len(around)
    return _special_places_read(source, dice, special, places, outlines, LONE_SCREEN, taken)


def _typical_top_face(source: CropSource, dice: list[tuple[Candidate, np.ndarray]]
                      ) -> float | None:
    """The side of a typical die's top face, for the special looks: the median of the top
    faces found (`MEASURED_SQUARE` square) at the `MEASURED_DICE` dice read surest with a
    face; None when none is found. A die's outline is 1.4-1.8 top faces wide alone and
    more round a touching pair, so `SPECIAL_TOP_FACE` of the median outline missed the top
    face by 0.84-1.38 times over the middle nine tenths of touching trays, the faces found
    by 0.92-0.99 times (sixty-third session)."""
    faced = sorted(((float(p.max()), c) for c, p in dice if not _without_face(p)),
                   key=lambda pair: -pair[0])[:MEASURED_DICE]
    found = [measure_top_face(source.image, c.x, c.y, c.side, MEASURED_OUTLINE)
             for _, c in faced]
    sides = [face.side for face in found if face is not None and face.squareness >= MEASURED_SQUARE]
    return float(np.median(sides)) if sides else None


def _split_cocked_pair(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                       read: list[DetectedDie], special: dict[Candidate, SpecialReading | None],
                       skip, calibration) -> tuple[list[tuple[Candidate, np.ndarray]],
                                                   list[DetectedDie]]:
    """Expecting special dice: two touching dice, one of them special at least (a scatter
    and an artillery die rolled together), can be read as one cocked die at their contact,
    one or neither read on its own. Each die reported cocked is read round it,
    `SPLIT_REACH` typical outlines away in `SPECIAL_DIRECTIONS` directions, as
    `_special_places_read` reads places (screened, then `read_segmented`, a face
    `SURE_SOUGHT` sure, clear of every other die taken). The faces so found and the dice
    read with a value within `SPLIT_NEAR` outlines of it are the pair when there are two
    of them, a found one at least, `SPLIT_TURN` degrees apart or more as seen from it (it
    lies between them) and `SPLIT_FACES_APART` top faces apart or more: the found faces
    replace it. A face found beside no other die does not, nor two closer: a leaning die's
    tilted top face and its side face read so too. With one face beside it, the pair's
    other die may be a pip die, which no special look reads (a pip 5 beside an arrow,
    flagged at their contact, was reported as the flag alone; seventy-fifth session): the
    d6 network reads the same places (`_pip_die_round`)."""
    cocked = [i for i, die in enumerate(read) if "cocked" in die.flags]
    if not cocked:
        return dice, read
    faced = [c for (c, p), die in zip(dice, read) if die.value is not None]
    outline = float(np.median([c.side for c in faced or [c for c, _ in dice]]))
    face = _typical_top_face(source, dice) or SPECIAL_TOP_FACE * outline
    h, w = source.image.shape[:2]
    dice, read = list(dice), list(read)
    for i in reversed(cocked):      # from the last, so that a pair put in moves no index
        c = dice[i][0]
        others = _special_taken([d for k, d in enumerate(dice) if k != i], special)
        turns = [2 * math.pi * k / SPECIAL_DIRECTIONS for k in range(SPECIAL_DIRECTIONS)]
        places = [Candidate(c.x + reach * outline * math.cos(turn),
                            c.y + reach * outline * math.sin(turn), face)
                  for reach in SPLIT_REACH for turn in turns]
        places = [spot for spot in places if 0 <= spot.x < w and 0 <= spot.y < h
                  and (skip is None or not skip(spot.x, spot.y))]
        found: dict[Candidate, SpecialReading | None] = {}
        new = _special_places_read(source, [], found, places, [outline] * len(places),
                                   SPECIAL_SCREEN, list(others))
        beside = [die.center for k, die in enumerate(read) if k != i and die.value is not None
                  and math.dist(die.center, (c.x, c.y)) <= SPLIT_NEAR * outline]
        if len(new) + len(beside) == 1:
            # The pair's other die may be a pip die, which no special look reads.
            new += _pip_die_round(source, places, outline,
                                  list(others) + [d for d, _ in new], SPECIAL_CLEAR * face)
        if not new or len(new) + len(beside) != 2:
            continue
        a, b = [(d.x, d.y) for d, _ in new] + beside
        turn = abs(math.atan2(a[1] - c.y, a[0] - c.x) - math.atan2(b[1] - c.y, b[0] - c.x))
        if math.degrees(min(turn, 2 * math.pi - turn)) < SPLIT_TURN or \
                math.dist(a, b) < SPLIT_FACES_APART * face:
            continue
        special.update(found)
        dice[i:i + 1] = new
        read[i:i + 1] = [_describe(source.image, d, p, True, calibration, True, special)
                         for d, p in new]
    return dice, read


def _pip_die_round(source: CropSource, places: list[Candidate], outline: float,
                   taken: list[Candidate], clear: float) -> list[tuple[Candidate, np.ndarray]]:
    """The pip die, if any, the d6 network reads at one of `places` (cut `outline` wide) as a
    pip face `SURE` sure, a die `DIE_PROBABILITY` sure, farther than `clear` from every die
    `taken`, and that the lean check (`_lean_check`) leaves flat: the surest such, alone."""
    spots = [Candidate(spot.x, spot.y, outline) for spot in places]
    probs = _classify(source, spots)
    for k in np.argsort(-probs[:, 1:].max(axis=1)):
        p = probs[k]
        if 1.0 - p[NOT_A_DIE] >= DIE_PROBABILITY and _pip_face(p, READABLE) \
                and _farther(spots[k], taken, clear):
            checked = _lean_check(source, [(spots[k], p)])
            return checked if _pip_face(checked[0][1], READABLE) else []
    return []


def _special_taken(dice: list[tuple[Candidate, np.ndarray]],
                   special: dict[Candidate, SpecialReading | None]) -> list[Candidate]:
    """The places a special die is not sought at: every die read with a face, and every die
    the special reader read (where it read it)."""
    return [Candidate(*special[c].centre, c.side) if special.get(c) is not None
            and special[c].centre else c for c, p in dice
            if not _without_face(p) or special.get(c) is not None]


def _special_places_read(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                         special: dict[Candidate, SpecialReading | None],
                         places: list[Candidate], outlines: list[float], screen_from: float,
                         taken: list[Candidate]) -> list[tuple[Candidate, np.ndarray]]:
    """`dice` and the special dice found at `places` (each a top face wide, a die's outline
    `outlines` wide): read surest first where the screen network reads a special face
    `screen_from` sure, by `read_segmented`; a face read `SURE_SOUGHT` sure whose top face
    lies farther than `SPECIAL_CLEAR` top faces from every die `taken` (and from each one
    found before it) is a die, its reading put in `special`."""
    if not places:
        return dice
    screened = special_face_probability(source.image, [(c.x, c.y, c.side) for c in places],
                                        SPECIAL_SCREEN_TURNS)
    dice = list(dice)
    for i in np.argsort(-screened):
        spot, outline = places[i], outlines[i]
        if screened[i] < screen_from:
            break
        clear = SPECIAL_CLEAR * spot.side
        if not _farther(spot, taken, clear):
            continue
        reading = read_segmented(source.image, spot.x, spot.y, outline)
        if reading is None or reading.value is None or reading.confidence < SURE_SOUGHT:
            continue
        die = Candidate(*(reading.centre or (spot.x, spot.y)), outline)
        if not _farther(die, taken, clear):
            continue
        p = np.zeros(CLASSES, np.float32)
        p[SPECIAL] = 1.0
        special[die] = reading
        taken.append(die)
        dice.append((die, p))
    return dice


def _one_reading_a_die(source: CropSource, dice: list[tuple[Candidate, np.ndarray]], read: list
                       ) -> tuple[list[tuple[Candidate, np.ndarray]], list]:
    """The dice and their readings, without one die read twice, of two readings closer than
    `SAME_DIE` sides the surer kept (a die touched only by the reading dropped is no longer
    flagged touching), when both are
    - the same special face: the special reader reports a face where it finds the die's top
      face, so two places on one special die (its top face, and its side, found by a look)
      can be read as the same face at one spot;
    - without a value (cocked or unreadable, of any kind): a die by the wall read as a cocked
      special die at its top face and as an unreadable pip die beside it is one re-roll;
    - the same pip face, and the classifier reads that face at their midpoint too
      (`SAME_FACE_BETWEEN`): two touching dice showing one face can be read this close, and
      the crop between them, on their contact, reads as no face or a leaning die (asked
      farther apart, two touching black 2s whose pips lined up across their contact read as
      a 2; docs/history/vision.md, forty-third session)."""
    near = [(i, k) for i in range(len(read)) for k in range(i + 1, len(read))
            if math.dist(read[i].center, read[k].center)
            < SAME_DIE * max(dice[i][0].side, dice[k][0].side)]
    one = {(i, k) for i, k in near
           if _one_die(read[i], read[k], min(dice[i][0].side, dice[k][0].side))}
    one |= _one_pip_face_between(source, dice, read, [pair for pair in near if pair not in one])
    if not one:
        return dice, read
    kept: list[int] = []
    for i in sorted(range(len(read)), key=lambda i: -read[i].confidence):
        if not any((min(i, k), max(i, k)) in one for k in kept):
            kept.append(i)
    kept.sort()
    dice, read = [dice[i] for i in kept], [read[i] for i in kept]
    for die, near_die in zip(read, _touching([c for c, _ in dice])):
        if not near_die and "touching" in die.flags:
            die.flags.remove("touching")
    return dice, read


def _one_die(a, b, side: float) -> bool:
    """Are readings `a` and `b`, close together, one die whatever lies between them
    (`_one_reading_a_die`): two readings without a value, or one special face at one spot
    (`SAME_SPOT` of the smaller die `side`) pointing one way (`SAME_ARROW`)?"""
    if a.value is None or b.value is None:
        return a.value is None and b.value is None
    return (a.kind != "d6" and (a.kind, a.value) == (b.kind, b.value)
            and math.dist(a.center, b.center) < SAME_SPOT * side
            and (a.bearing_deg is None or b.bearing_deg is None
                 or bearing_gap(a.bearing_deg, b.bearing_deg) <= SAME_ARROW))


def _one_pip_face_between(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                          read: list, pairs: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """Of `pairs` of readings, those of one pip face whose midpoint, cut at the larger side,
    the classifier reads as a die showing that face `SAME_FACE_BETWEEN` sure."""
    pips = [(i, k) for i, k in pairs if read[i].kind == read[k].kind == "d6"
            and read[i].value is not None and read[i].value == read[k].value]
    if not pips:
        return set()
    probs = _classify(source, [Candidate((read[i].center[0] + read[k].center[0]) / 2,
                                         (read[i].center[1] + read[k].center[1]) / 2,
                                         max(dice[i][0].side, dice[k][0].side))
                               for i, k in pips])
    return {(i, k) for (i, k), p in zip(pips, probs)
            if 1.0 - p[NOT_A_DIE] >= DIE_PROBABILITY and int(p[1:].argmax()) + 1 == read[i].value
            and p[read[i].value] >= SAME_FACE_BETWEEN * (1.0 - p[NOT_A_DIE])}


def _all_ones(dice: list[tuple[Candidate, np.ndarray]]) -> bool:
    """At least two dice read as a pip face, every one of them a 1."""
    faces = [int(p[1:].argmax()) + 1 for _, p in dice if _pip_face(p, READABLE)]
    return len(faces) >= 2 and all(face == 1 for face in faces)


def _pips_read(dice: list[tuple[Candidate, np.ndarray]]) -> int:
    """The pips on the dice read as a pip face `SURE` sure."""
    return sum(int(p[1:].argmax()) + 1 for _, p in dice if _pip_face(p, SURE))


def _lean_check(source: CropSource, dice: list[tuple[Candidate, np.ndarray]]
                ) -> list[tuple[Candidate, np.ndarray]]:
    """Dice read as a pip face surely enough to be given a value are shown to the lean check
    (`classifier.default_lean`) on an outward-up crop `LEAN_CONTEXT` times their side,
    `LEAN_SIZE` pixels wide; a die it finds leaning at least `LEAN_CUTOFF` likely is read
    as leaning (reported `cocked`, without a value). The classifier reads a leaning die's
    tilted top face as surely as a flat one's (issue #3: flagged, not guessed); the check sees
    the die twice as large and more of its surroundings, turned so that a flat die's side
    faces show below its top face (docs/history/vision.md, twenty-first session). A die it
    finds leaning `LEAN_ROUND_FROM` likely or more, under `LEAN_CUTOFF`, is checked round its
    place too (`_leaning_round`): the check swings with the crop (sixtieth session).
    The other way round, a die the classifier reads as leaning, whose likeliest other class
    is a pip face `READABLE` sure given a flat die, is read as that face when the check finds
    it leaning less than `FLAT_BY_CHECK` likely: flat dice by a neighbour or seen obliquely
    read as leaning to the classifier (forty-fourth session). Dice read as a pip face that
    the classifier gives under `LEAN_DOUBT` P(leaning), down to `LEAN_DOUBT_LOW`'s first
    value, are checked too, and flagged from its second: a surer bar for the flat dice most
    real dice are (forty-fourth session)."""
    low, sure = LEAN_DOUBT_LOW
    chosen = [i for i, (_, p) in enumerate(dice)
              if _pip_face(p, READABLE) and p[COCKED] >= low]
    read_leaning = [i for i, (_, p) in enumerate(dice) if int(p[1:].argmax()) + 1 == COCKED
                    and _pip_face(_flat(p), READABLE)]
    if not chosen + read_leaning or default_lean() is None:
        return dice
    lean = _leaning([dice[i][0] for i in chosen + read_leaning], source)
    dice = list(dice)
    cutoff = np.array([LEAN_CUTOFF if dice[i][1][COCKED] >= LEAN_DOUBT else sure for i in chosen])
    doubted = [k for k in range(len(chosen)) if LEAN_ROUND_FROM <= lean[k] < LEAN_CUTOFF
               and cutoff[k] == LEAN_CUTOFF]
    if doubted:
        lean[doubted] = np.maximum(lean[doubted],
                                   _leaning_round([dice[chosen[k]][0] for k in doubted], source))
    for i in np.asarray(chosen, int)[lean[:len(chosen)] >= cutoff]:
        c, p = dice[i]
        flagged = np.zeros_like(p)
        flagged[NOT_A_DIE], flagged[COCKED] = p[NOT_A_DIE], 1.0 - p[NOT_A_DIE]
        dice[i] = (c, flagged)
    for i in np.asarray(read_leaning, int)[lean[len(chosen):] < FLAT_BY_CHECK]:
        dice[i] = (dice[i][0], _flat(dice[i][1]))
    return dice


def _recentred_on_pips(source: CropSource, dice: list[tuple[Candidate, np.ndarray]],
                       special: dict[Candidate, SpecialReading | None]
                       ) -> list[tuple[Candidate, np.ndarray]]:
    """A pip die still without a face that touches no other die (`TOUCHING`), its pips
    grouped (`segment.pip_groups`, within `RECENTRE_SPOTS` sides of its place, shrunk to
    dice of `RECENTRE_WORK_SIDE` pixels): each group centred within `RECENTRE_REACH` sides of
    its place and farther than `BESIDE_CLEAR` sides from every other die is read at
    `RECENTRE_FACE` x the typical side; the surest pip face read there as a die
    (`DIE_PROBABILITY`) `RECENTRE_SURE` sure is the die's, read at that centre, when the
    lean check finds it there leaning less than `RECENTRE_FLAT` likely. A flat die seen
    obliquely, grey above all, is found at its outline's centre, 0.2-0.3 sides from its top
    face's, where the classifier or the lean check takes it for a leaning die (seventieth
    session); its top face's pips show where that face is. A die leaning on another, read
    at its tilted top face's pips, can pass the lean check there, so a die with another
    beside it is left as it is (seventy-first session)."""
    faceless = [i for i, (c, p) in enumerate(dice)
                if _without_face(p) and int(p[1:].argmax()) + 1 != SPECIAL
                and special.get(c) is None]
    if not faceless:
        return dice
    side = float(np.median([c.side for c, _ in dice]))
    places, owners = [], []
    for i in faceless:
        c = dice[i][0]
        others = [o for j, (o, _) in enumerate(dice) if j != i]
        if not _farther(c, others, TOUCHING * side):
            continue        # a die beside it may hold it leaning
        for x, y in pip_groups(source.image, c.x, c.y, RECENTRE_SPOTS * side, side,
                               RECENTRE_WORK_SIDE):
            place = Candidate(x, y, side * RECENTRE_FACE)
            if math.hypot(place.x - c.x, place.y - c.y) <= RECENTRE_REACH * side \
                    and _farther(place, others, BESIDE_CLEAR * side):
                places.append(place)
                owners.append(i)
    if not places:
        return dice
    probs = _classify(source, places)
    best: dict[int, int] = {}
    for n, (i, p) in enumerate(zip(owners, probs)):
        if _die_face(p, RECENTRE_SURE) and \
                (i not in best or p[1:].max() > probs[best[i]][1:].max()):
            best[i] = n
    if not best:
        return dice
    chosen = list(best.items())
    lean = _leaning([Candidate(places[n].x, places[n].y, side) for _, n in chosen], source)
    dice = list(dice)
    for (i, n), leaning in zip(chosen, lean):
        if leaning < RECENTRE_FLAT:
            dice[i] = (Candidate(places[n].x, places[n].y, dice[i][0].side), probs[n])
    return dice


def _flat(p: np.ndarray) -> np.ndarray:
    """Reading `p` of a die known to lie flat: its leaning vote shared out among the others in
    proportion, P(a die) kept."""
    flat = p.copy()
    flat[COCKED] = 0.0
    others = float(flat[1:].sum())
    if others > 0:
        flat[1:] *= (1.0 - p[NOT_A_DIE]) / others
    return flat


def _leaning(places: list[Candidate], source: CropSource) -> np.ndarray:
    """The lean check's P(leaning) of the dice at `places` (all 0 without its network)."""
    lean = default_lean()
    if lean is None or not places:
        return np.zeros(len(places))
    h, w = source.image.shape[:2]
    crops = source.crops([(c.x, c.y, c.side, outward_angle(c.x, c.y, w, h)) for c in places],
                         LEAN_SIZE, LEAN_CONTEXT)
    radial = [math.hypot(c.x - w / 2, c.y - h / 2) / w for c in places]
    return lean.predict_at(crops, radial)


def _leaning_round(places: list[Candidate], source: CropSource) -> np.ndarray:
    """The lean check's `LEAN_ROUND_QUANTILE` over the 3 x 3 places round each of `places`,
    `LEAN_ROUND_SHIFT` of its side apart."""
    steps = (-LEAN_ROUND_SHIFT, 0.0, LEAN_ROUND_SHIFT)
    round_them = [Candidate(c.x + dx * c.side, c.y + dy * c.side, c.side)
                  for c in places for dy in steps for dx in steps]
    lean = _leaning(round_them, source).reshape(len(places), len(steps) ** 2)
    return np.quantile(lean, LEAN_ROUND_QUANTILE, axis=1)


def _touching(found: list[Candidate]) -> np.ndarray:
    """Per die: another die's centre is closer than `TOUCHING` x the larger side."""
    if not found:
        return np.zeros(0, bool)
    x, y, side = np.array([(c.x, c.y, c.side) for c in found]).T
    near = np.hypot(x[:, None] - x, y[:, None] - y) < TOUCHING * np.maximum(side[:, None], side)
    np.fill_diagonal(near, False)
    return near.any(axis=1)


def _sure_of_kind(reading: SpecialReading) -> bool:
    """Is the special reader sure enough which die this is to name a die the d6 network
    calls cocked? Flagged cocked by its own face network, yes (the kind of all its faces'
    probabilities together, `special_dice._likely_kind`); otherwise the face read, or the
    face a lean-flagged reading took its kind from, must be `SURE_SPECIAL` sure."""
    if reading.value is not None:
        return reading.confidence >= SURE_SPECIAL
    return reading.kind_from_face is None or reading.kind_from_face >= SURE_SPECIAL


def _describe(image, c: Candidate, p: np.ndarray, touching: bool, calibration,
              expect_special: bool = False,
              known: dict[Candidate, SpecialReading | None] | None = None) -> DetectedDie:
    """The die read `p` at `c`, as reported; `known`: the special reader's readings made
    already, by place."""
    def special_reading() -> SpecialReading | None:
        if known is not None and c in known:
            return known[c]
        return read_segmented(image, c.x, c.y, c.side)

    die_classes = p[1:] / max(float(1.0 - p[NOT_A_DIE]), 1e-6)   # P(class | a die)
    best = int(die_classes.argmax()) + 1
    confidence = float(die_classes.max()) * float(1.0 - p[NOT_A_DIE])
    flags = ["touching"] if touching else []
    die = DetectedDie(kind="d6", value=best, center=(c.x, c.y), confidence=confidence,
                      colour=colour_name(image, c.x, c.y, c.side), flags=flags)
    special = None
    if best == SPECIAL:
        # Dice the classifier calls special go to the special reader (its own network tells
        # pips from special faces too, but the d6 network has seen real pip dice).
        special = special_reading()
    elif expect_special and p[SPECIAL] >= MAYBE_SPECIAL:
        # Special dice expected: a second opinion on a die read as pips, which stand unless
        # the special reader is sure of a face; on a cocked die, which die it is (a leaning
        # artillery die is not a third d6: the players are told to re-roll the right die)
        # when the special reader finds it leaning too or is sure of its face, or that face
        # when the d6 network doubts the lean and the special reader, whose own cocked
        # checks it passed, is sure of one. A face read doubtfully leaves it a d6, also
        # when the lean check flagged the die: its kind is that face's (a real brown pip
        # 6, a HIT 0.54 sure, became a "cocked scatter die", docs/history/special-dice.md).
        second = special_reading()
        if best == COCKED:
            sure = FLAT_OVER_COCKED if die_classes.max() < SURE else math.inf
        else:
            sure = SURE_SPECIAL
        if second is not None and second.value is not None and second.confidence >= sure:
            best, special, confidence = SPECIAL, second, second.confidence
        elif best == COCKED and second is not None and _sure_of_kind(second):
            special = second
    if best == COCKED:
        die.flags.append("cocked")
        die.value = None
        if special is not None:     # the special reader's guess of the kind, not its face
            die.kind = special.kind
    elif best == SPECIAL:
        if special is not None:
            die.kind, die.value = special.kind, special.value
            die.bearing_deg = special.bearing_deg
            die.center = special.centre or die.center     # its top face, where it was read
            die.confidence = min(confidence, special.confidence)
            if special.value is None:     # leaning on a die or the wall: re-roll it
                die.flags.append("cocked")
        else:
            die.flags.append("unreadable")
            die.value = None
    elif die_classes.max() < READABLE:
        die.flags.append("unreadable")
        die.value = None
    if calibration is not None:
        die.center_mm = calibration.to_mm(c.x, c.y)
        if die.bearing_deg is not None:
            die.image_bearing_deg = die.bearing_deg    # what a mark on the frame follows
            die.bearing_deg = calibration.bearing_to_tray(die.bearing_deg, c.x, c.y)
    return die
