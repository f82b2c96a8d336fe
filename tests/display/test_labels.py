"""Where the dice labels go (station/display/labels.py), shared by the screen and
`station read --annotate`."""

from station.display.labels import _label_place, _overlap, padded, place_labels

TEXT = (0, -14, 20, 0)          # a label's text box relative to its anchor
PICTURE = (0, 0, 400, 400)

# The dice of a crowded real tray (byler-train IMG_20191208_112404), in the order the reader
# reports them: placed with four spots and no fallback, a "5" covered the "1" beside it.
CROWDED = [(374, 446), (270, 233), (478, 262), (320, 252), (426, 300), (364, 256), (310, 353),
           (320, 414), (202, 124), (396, 278), (224, 344), (377, 212), (282, 269), (463, 334),
           (301, 202), (495, 204), (333, 150), (372, 179), (473, 377), (360, 136), (317, 313),
           (335, 357), (387, 376), (443, 153)]


def test_a_label_goes_above_right_of_a_lone_die():
    (x, y), = place_labels([(100, 100)], [None], [TEXT], 10, PICTURE)
    assert (x, y) == (100 + 10 + 3, 100 - 10 - 2)


def test_with_no_free_spot_a_label_covers_the_least():
    """Every spot beside the die is covered, the one right of it only by a corner: the label
    goes there, not above right over whatever covers that spot."""
    taken = [(0, 0, 400, 92),           # everything above the die's ring
             (0, 108, 400, 400),        # everything below it
             (0, 0, 100, 400),          # everything left of its middle
             (130, 100, 140, 120)]      # a corner of the spot right of it
    assert _label_place(TEXT, (100, 100), 10, PICTURE, taken, []) == (113, 107)


def test_labels_on_a_crowded_tray_do_not_cover_each_other():
    doubtful = {(335, 357), (387, 376)}                 # labelled "2?" and "3?"
    extents = [(0, -16, 22 if centre in doubtful else 12, 1)   # in `station read`'s font
               for centre in CROWDED]
    anchors = place_labels(CROWDED, [None] * len(CROWDED), extents, 14, (0, 0, 640, 640))
    boxes = [padded(extent, anchor) for extent, anchor in zip(extents, anchors)]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert _overlap(a, b) == 0, (a, b)
