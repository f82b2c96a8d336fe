"""Constants of the tray calibration and the taught faces, free of cv2 and numpy.

The command line builds its parsers from them (the choices and defaults of `station
calibrate tray` and `station calibrate faces`), and building a parser should not load cv2
and the reader (about 0.2 s); `calibration.py` and `taught_faces.py` use them from here.
"""

DEFAULT_HFOV_DEG = 62.0        # Raspberry Pi Camera v2; v3 is 66, HQ with 6 mm lens ~63
DEFAULT_DIE_MM = 16.0
UP_EDGES = ("top", "right", "bottom", "left")   # the sheet's edge to call "up"
# The least side of a die's top face, in frame pixels, at which the special dice are read as
# the issue asks: per die on the benchmark's 1,000 trays (twenty-fifth session), artillery
# faces right 1254/1260 from 20 px, 134/136 at 16-20 px and 71/78 under 16 px.
# `station calibrate tray` warns a build whose dice come out smaller.
SMALL_DIE_PX = 20
# The most blur, as a Gaussian sigma in a share of the smallest die's top face, at which the
# pips stay plain: the real photos (dice about 34 px across the top face) read as well with
# 0.75 px of blur added, 0.7 points worse with 1 px and 3.4 points worse with 1.5 px
# (benchmarks/real_variants.py, thirty-third session). `station calibrate tray` measures the
# blur on the markers' edges and warns a build whose frames are softer.
SOFT_SHARE = 0.03

# The dice a face can be taught for, and their faces.
KINDS = {"d6": (1, 2, 3, 4, 5, 6), "artillery": (2, 4, 6, 8, 10, "misfire")}
