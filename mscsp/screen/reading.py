"""A screenshot read into a board: the recogniser's guess, checked, with its doubts marked."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..board import COVERED, Board, parse_board
from ..errors import InvalidInputError
from .checks import UNREADABLE, checked
from .colours import grey_opened, off_colour
from .image import MAX_PIXELS, decode_image
from .lattice import Lattice, find_lattice
from .obr import COVERED_OR_FLAG, recognise, require

#: How an unreadable cell is written in board text: no cell code, so the text does not
#: parse until the user writes what the screen shows there.
UNREADABLE_MARK = "#"
#: Most share of a board's cells unreadable: past it the checks doubt so much that the rest
#: are trusted only for want of evidence against them, and the board is refused whole.
DOUBT_LIMIT = 0.2
#: What the recogniser cannot tell apart, for the user.
FLAGS_NOTE = "flags are read as covered cells: the recogniser does not tell them apart"
#: Zooms the board may be shown to the recogniser at (whole factors, 1 to this): it read
#: Metasweeper's classic look at 16 pixels a cell wrongly on a quarter of beginner boards,
#: and most of them right zoomed twice (docs/screenshots.md).
ZOOMS = 3
#: The cell size, in pixels, of the zoom tried first (the recogniser's best, measured).
CELL_TO = 36
#: Largest cell a zoom may make, in pixels.
MAX_CELL_SHOWN = 72
#: A board whose numbers are off their classic colours on more than this share of them,
#: and on at least :data:`OFF_COLOUR_LEAST`, is in a look the recogniser does not read
#: (a misread cell or two of the classic look is marked unreadable instead).
OFF_COLOUR, OFF_COLOUR_LEAST = 0.25, 3
#: Cells of margin added around the board shown (see :func:`_zoomed`): on Metasweeper's
#: classic look at 24 pixels a cell, 1 of 12 boards was refused without it, none with it.
PAD = 4

Cell = tuple[int, int]


@dataclass(frozen=True)
class Reading:
    """A board read from a screenshot.

    Attributes:
        cells: ``int8`` rows x columns: ``COVERED`` (covered or flagged), a number 0-8, or
            :data:`~mscsp.screen.checks.UNREADABLE`.
        guess: The recogniser's own answer in the same codes, before the checks (what
            they caught is where it differs from ``cells``).
        cell_size: The cells' mean height and width in the image, in pixels.
    """

    cells: np.ndarray
    guess: np.ndarray
    cell_size: tuple[float, float]

    @property
    def doubts(self) -> int:
        """How many cells are unreadable."""
        return int((self.cells == UNREADABLE).sum())

    @property
    def unreadable(self) -> list[Cell]:
        """The cells the checks doubt, ``(row, col)`` in reading order."""
        return [(int(r), int(c)) for r, c in np.argwhere(self.cells == UNREADABLE)]

    def text(self, mines: int | None = None) -> str:
        """The board text (``#`` where unreadable), with a ``WxHxM`` header if ``mines``."""
        codes = {COVERED: "?", 0: ".", UNREADABLE: UNREADABLE_MARK}
        lines = ["".join(codes.get(int(v), str(int(v))) for v in row) for row in self.cells]
        rows, cols = self.cells.shape
        header = [f"{cols}x{rows}x{mines}"] if mines is not None else []
        return "\n".join(header + lines) + "\n"

    def board(self, mines: int | None) -> Board:
        """The board, as a pasted one (``mines``: the total, which no screenshot holds).

        Raises:
            InvalidInputError: Cells are unreadable (the message lists them).
            BoardParseError: No mine count.
            InconsistentBoardError: No layout of ``mines`` mines fits.
        """
        doubts = self.unreadable
        if doubts:
            shown = " ".join(f"({r},{c})" for r, c in doubts[:10])
            more = f" and {len(doubts) - 10} more" if len(doubts) > 10 else ""
            raise InvalidInputError(
                f"{len(doubts)} cells unreadable: {shown}{more}; no odds from a board with "
                f"doubts: save the board text, write each {UNREADABLE_MARK} as the screen "
                "shows it (? . 1-8), and pass the file instead of --image"
            )
        return parse_board(self.text(), mines=mines)


def read_screenshot(image: bytes, model: str | os.PathLike[str] | None = None) -> Reading:
    """The board in a screenshot, read by ms_toollib's recogniser and checked.

    The recogniser misreads some boards at one zoom and reads them right at another, so the
    board is shown to it at up to :data:`ZOOMS` zooms (the first nearest :data:`CELL_TO`
    pixels a cell), until a reading passes every check; else the reading with the fewest
    cells in doubt is kept.

    Args:
        image: The image file's bytes (PNG, JPEG, BMP, GIF or WebP).
        model: The recogniser's ``params.onnx``; ``None``: the file named by
            ``MSCSP_OBR_MODEL``.

    Raises:
        BackendUnavailableError: ms_toollib, Pillow or the model is missing.
        InvalidInputError: Not an image, too large, or no board found or recognised (the
            recogniser finds none, a grid whose size is not the image's, or more than
            :data:`DOUBT_LIMIT` of the cells unreadable, at every zoom).
    """
    path = require(model)
    pixels = decode_image(image)
    lattice = find_lattice(pixels)
    if lattice is None:
        raise InvalidInputError("no board found: the image shows no grid of cells")
    best: Reading | None = None
    why = ""
    for factor in _factors(lattice):
        try:
            found = _read(pixels, lattice, path, factor)
        except InvalidInputError as exc:
            why = why or str(exc)  # (the first zoom's reason: the likeliest to be read)
            continue
        if best is None or found.doubts < best.doubts:
            best = found
        if not found.doubts:
            break
    if best is None:
        raise InvalidInputError(why)
    if best.doubts > DOUBT_LIMIT * best.cells.size:
        raise InvalidInputError(
            f"no board recognised: {best.doubts} of {best.cells.size} cells unreadable (the "
            "recogniser does not read this look; paste the board as text)"
        )
    return best


def _read(pixels: np.ndarray, lattice: Lattice, model: Path, factor: int) -> Reading:
    """The recogniser's reading of the board zoomed by ``factor``, checked.

    Raises:
        InvalidInputError: No board found, or one whose size is not the lattice's.
    """
    guess = recognise(_zoomed(pixels, lattice, factor), model)
    if guess is None:
        raise InvalidInputError("no board found: the recogniser finds none in the image")
    rows, cols = len(guess), len(guess[0])
    if (rows, cols) != (lattice.rows, lattice.cols):
        raise InvalidInputError(
            f"no board recognised: the recogniser reads {cols}x{rows} cells (width x "
            f"height), the image's grid has {lattice.cols}x{lattice.rows}"
        )
    raw = np.array(guess, dtype=np.int16)
    cells = np.full(raw.shape, UNREADABLE, dtype=np.int8)
    numbers = (raw >= 0) & (raw <= 8)
    cells[numbers] = raw[numbers]
    cells[raw == COVERED_OR_FLAG] = COVERED  # anything else it answers is unreadable
    found = checked(cells, pixels, lattice)
    if not grey_opened(cells, pixels, lattice):  # (as read: the checks may doubt them all)
        raise InvalidInputError(
            "no board recognised: the opened cells are not the classic light grey: the recogniser "
            "reads the classic look only; paste the board as text"
        )
    # The colours last: a number the checks already doubt (a flag read as a number) says
    # nothing of the look.
    off = off_colour(found, pixels, lattice)
    numbers = int((found > 0).sum())
    if off.sum() >= OFF_COLOUR_LEAST and off.sum() > OFF_COLOUR * numbers:
        raise InvalidInputError(
            f"no board recognised: {off.sum()} of {numbers} numbers are not drawn in the "
            "classic colours (1 blue, 2 green, 3 red, ...): the recogniser reads the classic "
            "look only; paste the board as text"
        )
    found[off] = UNREADABLE
    return Reading(found, cells, lattice.cell_size)


def _factors(lattice: Lattice) -> list[int]:
    """The zooms tried: whole factors up to :data:`ZOOMS` (at most :data:`MAX_CELL_SHOWN`
    pixels a cell, the unzoomed image always), nearest :data:`CELL_TO` a cell first."""
    size = min(lattice.cell_size)
    factors = [f for f in range(1, ZOOMS + 1) if f == 1 or size * f <= MAX_CELL_SHOWN]
    return sorted(factors, key=lambda f: (abs(math.log(size * f / CELL_TO)), f))


def _zoomed(pixels: np.ndarray, lattice: Lattice, factor: int) -> np.ndarray:
    """The board as the recogniser is shown it: with a cell of margin, each pixel repeated
    ``factor`` times each way (as clients zoom), and :data:`PAD` cells more of margin, its
    edge pixels repeated (it misreads the edge columns of a board with little around it).
    ``pixels`` as they are where that would pass the decoder's own limit."""
    cell = math.ceil(max(lattice.cell_size))
    top, left = max(lattice.ys[0] - cell, 0), max(lattice.xs[0] - cell, 0)
    board = pixels[top : lattice.ys[-1] + cell, left : lattice.xs[-1] + cell]
    pad = PAD * cell * factor
    height, width = board.shape[0] * factor + 2 * pad, board.shape[1] * factor + 2 * pad
    if height * width > MAX_PIXELS:
        return pixels
    if factor > 1:
        board = board.repeat(factor, axis=0).repeat(factor, axis=1)
    return np.ascontiguousarray(np.pad(board, ((pad, pad), (pad, pad), (0, 0)), mode="edge"))
