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

from ..errors import InvalidInputError, InvalidTypeError
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
    """The hue family of an R, G, B colour (0-255): ``"neutral"`` when it has no hue.

    Raises:
        InvalidInputError: Not three finite values in 0-255.
    """
    values = np.asarray(colour, dtype=np.float64).reshape(-1)
    if values.shape != (3,) or not (np.isfinite(values) & (values >= 0) & (values <= 255)).all():
        raise InvalidInputError(f"a colour is three values in 0-255, got {values.tolist()[:4]}")
    r, g, b = values.tolist()
    if max(r, g, b) - min(r, g, b) < CHROMA:
        return "neutral"
    hue = colorsys.rgb_to_hsv(r / 255, g / 255, b / 255)[0] * 360
    return next((name for low, high, name in HUES if low <= hue < high), "yellow")


def _check(cells: np.ndarray, pixels: np.ndarray, lattice: Lattice) -> None:
    """Refuses a reading, image and grid that do not fit one another."""
    if not isinstance(lattice, Lattice):
        raise InvalidTypeError(f"lattice must be a Lattice, got {type(lattice).__name__}")
    if not isinstance(cells, np.ndarray) or not isinstance(pixels, np.ndarray):
        raise InvalidTypeError("cells and pixels must be numpy arrays")
    if cells.shape != (lattice.rows, lattice.cols) or cells.dtype.kind not in "iu":
        raise InvalidInputError(
            f"cells must be integer codes of the grid's {lattice.rows}x{lattice.cols} cells, "
            f"got {cells.dtype} {cells.shape}"
        )
    if pixels.ndim != 3 or pixels.shape[2] != 3 or pixels.dtype != np.uint8:
        raise InvalidInputError(f"pixels must be rows x columns x 3 uint8, got {pixels.shape}")
    if lattice.ys[-1] > pixels.shape[0] or lattice.xs[-1] > pixels.shape[1]:
        raise InvalidInputError("the grid runs past the image")


def off_colour(cells: np.ndarray, pixels: np.ndarray, lattice: Lattice) -> np.ndarray:
    """Which cells read as a number 1-8 have ink of another number's hue (booleans, the
    shape of ``cells``); a number with too little ink to tell is not marked.

    Raises:
        InvalidTypeError, InvalidInputError: ``cells``, ``pixels`` and ``lattice`` do not
            fit one another (see :func:`grey_opened`).
    """
    _check(cells, pixels, lattice)
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
    (``True`` where none is read opened).

    Raises:
        InvalidTypeError: ``cells`` or ``pixels`` not arrays, ``lattice`` not a Lattice.
        InvalidInputError: ``cells`` not integer codes of the grid's shape, ``pixels`` not
            rows x columns x 3 ``uint8``, or the grid past the image.
    """
    _check(cells, pixels, lattice)
    parts = [
        pixels[lattice.ys[r] : lattice.ys[r + 1], lattice.xs[c] : lattice.xs[c + 1]].reshape(-1, 3)
        for r, c in zip(*np.nonzero(cells >= 0), strict=True)
    ]
    if not parts:
        return True
    colour = np.median(np.concatenate(parts), axis=0)
    return family(colour) == "neutral" and colour.min() >= LIGHT
