"""Draw the printable marker sheet: calibration/markers.png and markers.pdf (A4, true size).

    PYTHONPATH=. python calibration/make_sheet.py

Four ArUco 4x4_50 markers (ids 0-3), each MARKER_MM wide on a TILE_MM tile with cut lines,
labelled inside its tile's margin with the corner it goes to, and a 100 mm ruler to check the print scale.
Needs Pillow (the `sim` extra) for the PDF.
"""

from __future__ import annotations

import os

import cv2
import numpy as np

from station.vision.calibration import MARKER_IDS, MARKER_MM, TILE_MM, marker_image

DPI = 300
A4_MM = (210.0, 297.0)
CORNERS = {0: "top-left", 1: "top-right", 2: "bottom-right", 3: "bottom-left"}
SHEET_PLACE = {0: (0, 0), 1: (1, 0), 2: (1, 1), 3: (0, 1)}   # id -> (column, row)
SHEET_ORIGIN_MM = (35.0, 60.0)         # the top-left tile's corner on the page
SHEET_TRAY_MM = (90.0 + TILE_MM, 80.0 + TILE_MM)   # the uncut sheet as a tray: 130 x 120
HERE = os.path.dirname(os.path.abspath(__file__))


def mm(v: float) -> int:
    return int(round(v / 25.4 * DPI))


LABEL_MM = 1.6       # label text height, in the outer part of the tile's bottom margin
LABEL_GAP_MM = 0.9   # from the label's baseline to the cut line


def label(page: np.ndarray, words: str, x0_mm: float, y0_mm: float) -> None:
    """The tile's id and corner, centred in its bottom margin near the cut line: on the tile,
    so it is not cut off, and away from the marker, whose white quiet zone it must leave
    mostly clear for detection (a margin of 5 mm; the text's top stays 2.5 mm from it)."""
    font, thick = cv2.FONT_HERSHEY_SIMPLEX, 2
    scale = mm(LABEL_MM) / cv2.getTextSize("0", font, 1.0, thick)[0][1]
    (width, _), _ = cv2.getTextSize(words, font, scale, thick)
    x = mm(x0_mm + TILE_MM / 2) - width // 2
    y = mm(y0_mm + TILE_MM - LABEL_GAP_MM)
    cv2.putText(page, words, (x, y), font, scale, 0, thick, cv2.LINE_AA)


def sheet() -> np.ndarray:
    page = np.full((mm(A4_MM[1]), mm(A4_MM[0])), 255, np.uint8)
    font = cv2.FONT_HERSHEY_SIMPLEX

    def text(s, x_mm, y_mm, size=1.6, thick=3):
        cv2.putText(page, s, (mm(x_mm), mm(y_mm)), font, size, 0, thick, cv2.LINE_AA)

    text("Station tray markers - print at 100 % / Actual size (no 'fit to page')", 15, 20,
         1.5, 3)
    text("Cut along the grey lines. Push each tile into the tray corner named", 15, 30, 1.1, 2)
    text("on it, flat on the floor, text side up and readable from the front.", 15, 36, 1.1, 2)
    text("Then: station calibrate tray PHOTO.jpg  (see calibration/README.md)", 15, 42, 1.1, 2)
    for marker_id in MARKER_IDS:
        # Each tile in its own corner of the group, so that the uncut sheet is itself a
        # valid 130 x 120 mm tray: a photo of it checks the print and the calibration.
        col, row = SHEET_PLACE[marker_id]
        x0, y0 = SHEET_ORIGIN_MM[0] + col * 90, SHEET_ORIGIN_MM[1] + row * 80
        inset = (TILE_MM - MARKER_MM) / 2
        side = mm(MARKER_MM)
        page[mm(y0 + inset):mm(y0 + inset) + side, mm(x0 + inset):mm(x0 + inset) + side] = \
            marker_image(marker_id, side)
        cv2.rectangle(page, (mm(x0), mm(y0)), (mm(x0 + TILE_MM), mm(y0 + TILE_MM)), 160, 2)
        label(page, f"{marker_id}: {CORNERS[marker_id]}", x0, y0)
    # A ruler: 100 mm with 10 mm ticks, to check the printer kept the scale.
    y = 250
    cv2.line(page, (mm(35), mm(y)), (mm(135), mm(y)), 0, 3)
    for i in range(11):
        cv2.line(page, (mm(35 + 10 * i), mm(y)), (mm(35 + 10 * i), mm(y - (4 if i % 5 else 7))),
                 0, 3)
    text("100 mm: measure this line; it must be 99.5-100.5 mm, else print again at 100 %",
         35, y + 10, 1.0, 2)
    text(f"ArUco DICT_4X4_50, markers {MARKER_MM:.0f} mm on {TILE_MM:.0f} mm tiles", 35, y + 18,
         1.0, 2)
    return page


def main(folder: str = HERE) -> None:
    page = sheet()
    from PIL import Image
    image = Image.fromarray(page).convert("L")
    # The DPI in the PNG too, so that a viewer or printer that honours it prints true size.
    image.save(os.path.join(folder, "markers.png"), dpi=(DPI, DPI))
    image.save(os.path.join(folder, "markers.pdf"), resolution=DPI)
    print(f"wrote markers.png and markers.pdf ({page.shape[1]}x{page.shape[0]} px at {DPI} dpi)")


if __name__ == "__main__":
    main()
