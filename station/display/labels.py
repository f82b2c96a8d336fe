"""Where the dice labels go on a tray picture: pure geometry, shared by the screen (Pillow)
and `station read --annotate` (OpenCV), so a crowded tray reads the same in both.

A label goes beside its die's ring and must not cover another die's ring, any die's middle,
a scatter arrow (a label over one hides the way it points) or a label placed before it."""

from __future__ import annotations

import math

Box = tuple[float, float, float, float]       # left, top, right, bottom

PAD = (3, 2)           # pixels around a label's text: the backing box that must stay clear
TOUCH = 2              # boxes overlapping by this many pixels or fewer do not cover each other
ARROW_SAMPLES = 12     # points along a scatter arrow that a label must not cover


def place_labels(centres: list[tuple[float, float]], tips: list[tuple[float, float] | None],
                 extents: list[Box], radius: float, picture: Box) -> list[tuple[float, float]]:
    """Each die's label anchor (its text's left end and baseline), in order.

    `centres`: the dice's middles; `tips`: where each die's drawn scatter arrow ends (None
    without one); `extents`: each label's text box relative to its anchor; `radius`: the
    rings' radius; `picture`: the box the labels should stay in."""
    taken: list[tuple[int, Box]] = []          # with the index of the die a box belongs to
    for index, ((cx, cy), tip) in enumerate(zip(centres, tips)):
        taken.append((index, (cx - radius, cy - radius, cx + radius, cy + radius)))
        taken.append((-1, (cx - 3, cy - 3, cx + 3, cy + 3)))   # its own label may cross the
        if tip is not None:                                     # ring, not the die itself
            taken += [(-1, (x - 3, y - 3, x + 3, y + 3)) for k in range(1, ARROW_SAMPLES + 1)
                      for x, y in [(cx + (tip[0] - cx) * k / ARROW_SAMPLES,
                                    cy + (tip[1] - cy) * k / ARROW_SAMPLES)]]
    anchors = []
    for index, (centre, extent) in enumerate(zip(centres, extents)):
        others = [c for other, c in enumerate(centres) if other != index]
        anchor = _label_place(extent, centre, radius, picture,
                              [box for owner, box in taken if owner != index], others)
        anchors.append(anchor)
        taken.append((-1, padded(extent, anchor)))
    return anchors


def padded(extent: Box, anchor: tuple[float, float]) -> Box:
    """The backing box of a label with text box `extent` drawn at `anchor`."""
    return (anchor[0] + extent[0] - PAD[0], anchor[1] + extent[1] - PAD[1],
            anchor[0] + extent[2] + PAD[0], anchor[1] + extent[3] + PAD[1])


def _label_place(extent: Box, centre: tuple[float, float], radius: float, picture: Box,
                 taken: list[Box], others: list[tuple[float, float]]) -> tuple[float, float]:
    """Where a die's label goes: beside its ring above right, else the first of above left,
    below right, below left, right, left, above and below that covers none of the boxes
    `taken`: those inside the picture first (down from its top edge if need be), then the
    others moved in from its side. A free spot whose middle lies nearer one of the `others`
    (the other dice's centres) than its own die is taken only when no free spot is nearer
    its own: a label must not seem to name its neighbour. When no spot is free, the one that
    covers the least."""
    cx, cy = centre
    x0, y0, x1, y1 = picture
    width, height = extent[2] - extent[0], extent[3] - extent[1]
    right, left = cx + radius + 3 - extent[0], cx - radius - 3 - width - extent[0]
    above, below = cy - radius - 2 - extent[3], cy + radius + 2 + height - extent[3]
    middle_x, middle_y = cx - width / 2 - extent[0], cy + height / 2 - extent[3]
    fits, moved = [], []        # the spots inside the picture first, then the others moved in
    for tx, ty in ((right, above), (left, above), (right, below), (left, below),
                   (right, middle_y), (left, middle_y), (middle_x, above), (middle_x, below)):
        text = (tx + extent[0], ty + extent[1], tx + extent[2], ty + extent[3])
        dx = max(0, x0 - text[0]) - max(0, text[2] - x1)
        dy = max(0, y0 - text[1]) - max(0, text[3] - y1)
        (moved if dx else fits).append(((tx + dx, ty + dy), padded(extent, (tx + dx, ty + dy))))
    spots = fits + moved
    covered = [sum(_overlap(box, b) for b in taken) for _, box in spots]
    free = [(spot, box) for (spot, box), area in zip(spots, covered) if area == 0]

    def owned(box: Box) -> bool:
        mx, my = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        return all(math.hypot(mx - cx, my - cy) <= math.hypot(mx - x, my - y) for x, y in others)
    least = min(range(len(spots)), key=lambda i: (covered[i], not owned(spots[i][1])))
    return next((spot for spot, box in free if owned(box)),
                free[0][0] if free else spots[least][0])


def _overlap(a: Box, b: Box) -> float:
    """The area box `a` covers of box `b`, less a `TOUCH` pixel margin on each side (touching
    by a pixel or two is not covering)."""
    return (max(0.0, min(a[2], b[2] - TOUCH) - max(a[0], b[0] + TOUCH))
            * max(0.0, min(a[3], b[3] - TOUCH) - max(a[1], b[1] + TOUCH)))
