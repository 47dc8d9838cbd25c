"""The numbers' colours: a cell read as a number must be drawn in that number's colour.

The recogniser was trained on the classic look, whose numbers keep the colours of the
first Minesweeper: 1 blue, 2 green, 3 red, 4 navy, 5 maroon, 6 teal, 7 black (purple in
some clients), 8 grey. A number's ink, the pixels of its cell's inside that stand out of
the cell's background (the ring around the inside), must then have that number's hue
(blending with the grey background keeps a hue, so antialiased and zoomed digits keep
theirs). Only the family is checked, not
the shade: 1 and 4 are both blue, 3 and 5 both red; the looks and neighbour checks of
:mod:`.checks` stand for the rest.

The classic look's tiles are grey, too: opened tiles a plain light grey. A board whose
opened tiles have a hue, or are dark, is in another look (:func:`grey_opened`). These are
the checks that tell a look the recogniser reads from one it only seems to read: on
LibreMines' flower field, whose opened tiles are sand-coloured, it reads every 1 as a 4, the
same way on every cell, which no comparison of looks can see; on its dark looks it may read
every cell as an opened 0.
"""

from __future__ import annotations

import colorsys

import numpy as np

from .lattice import Lattice

#: The hue families each number may be drawn in.
FAMILIES = {
    1: ("blue",),
    2: ("green",),
    3: ("red",),
    4: ("blue",),
    5: ("red",),
    6: ("teal",),
    7: ("neutral", "purple"),
    8: ("neutral",),
}
#: Hue ranges (degrees, upper bound excluded) of the families with a hue.
HUES = (
    (0, 25, "red"),
    (75, 165, "green"),
    (165, 205, "teal"),
    (205, 265, "blue"),
    (265, 335, "purple"),
    (335, 361, "red"),
)
#: Least spread between a colour's strongest and weakest channel (0-255) for it to have a
#: hue at all; below it the ink is black, grey or white.
CHROMA = 48
#: Least distance from the cell's background (summed over R, G, B, 0-765) of an ink pixel.
INK = 100
#: Least share of a cell's inside that must be ink for its colour to count (fewer pixels,
#: no evidence either way).
SOME_INK = 0.02
#: Least channel value (0-255) of the opened tiles' grey: the classic looks' are 185-192,
#: the dark looks' (which the recogniser reads as all zeros) under 100.
LIGHT = 150
#: Share of the rim left out on each side of a cell (grid lines are not ink).
RIM = 0.15


def family(colour: np.ndarray) -> str:
    """The hue family of an R, G, B colour (0-255): ``"neutral"`` when it has no hue."""
    r, g, b = (float(x) for x in colour)
    if max(r, g, b) - min(r, g, b) < CHROMA:
        return "neutral"
    hue = colorsys.rgb_to_hsv(r / 255, g / 255, b / 255)[0] * 360
    return next((name for low, high, name in HUES if low <= hue < high), "yellow")


def off_colour(cells: np.ndarray, pixels: np.ndarray, lattice: Lattice) -> np.ndarray:
    """Which cells read as a number 1-8 have ink of another number's hue (booleans, the
    shape of ``cells``); a number with too little ink to tell is not marked."""
    out = np.zeros(cells.shape, dtype=bool)
    for r, c in zip(*np.nonzero(cells > 0), strict=True):
        top, bottom = lattice.ys[r], lattice.ys[r + 1]
        left, right = lattice.xs[c], lattice.xs[c + 1]
        dy, dx = round(RIM * (bottom - top)), round(RIM * (right - left))
        cell = pixels[top:bottom, left:right].astype(np.int32)
        ring = np.ones(cell.shape[:2], dtype=bool)
        ring[dy : cell.shape[0] - dy, dx : cell.shape[1] - dx] = False
        inside = cell[~ring]
        if not len(inside) or not ring.any():
            continue
        # The background from the ring around the inside: a digit may fill most of the
        # inside, while the ring is mostly the opened tile (a grid line is a pixel or two).
        background = np.median(cell[ring], axis=0)
        ink = inside[np.abs(inside - background).sum(axis=1) > INK]
        if len(ink) < SOME_INK * len(inside):
            continue
        out[r, c] = family(ink.mean(axis=0)) not in FAMILIES[int(cells[r, c])]
    return out


def grey_opened(cells: np.ndarray, pixels: np.ndarray, lattice: Lattice) -> bool:
    """Whether the cells read as opened (0-8) are light grey, as the classic look's are:
    the median colour of their pixels has no hue, and each channel at least :data:`LIGHT`
    (``True`` where none is read opened)."""
    parts = [
        pixels[lattice.ys[r] : lattice.ys[r + 1], lattice.xs[c] : lattice.xs[c + 1]].reshape(-1, 3)
        for r, c in zip(*np.nonzero(cells >= 0), strict=True)
    ]
    if not parts:
        return True
    colour = np.median(np.concatenate(parts), axis=0)
    return family(colour) == "neutral" and colour.min() >= LIGHT
