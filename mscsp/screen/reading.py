"""A screenshot read into a board: the recogniser's guess, checked, with its doubts marked."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..board import COVERED, Board, parse_board
from ..errors import InvalidInputError
from .checks import UNREADABLE, checked
from .image import decode_image
from .lattice import find_lattice
from .obr import COVERED_OR_FLAG, recognise, require

#: How an unreadable cell is written in board text: no cell code, so the text does not
#: parse until the user writes what the screen shows there.
UNREADABLE_MARK = "#"
#: Most share of a board's cells unreadable: past it the checks doubt so much that the rest
#: are trusted only for want of evidence against them, and the board is refused whole.
DOUBT_LIMIT = 0.2
#: What the recogniser cannot tell apart, for the user.
FLAGS_NOTE = "flags are read as covered cells: the recogniser does not tell them apart"

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

    Args:
        image: The image file's bytes (PNG, JPEG, BMP, GIF or WebP).
        model: The recogniser's ``params.onnx``; ``None``: the file named by
            ``MSCSP_OBR_MODEL``.

    Raises:
        BackendUnavailableError: ms_toollib, Pillow or the model is missing.
        InvalidInputError: Not an image, too large, or no board found or recognised (the
            recogniser finds none, a grid whose size is not the image's, or more than
            :data:`DOUBT_LIMIT` of the cells unreadable).
    """
    path = require(model)
    pixels = decode_image(image)
    lattice = find_lattice(pixels)
    if lattice is None:
        raise InvalidInputError("no board found: the image shows no grid of cells")
    guess = recognise(pixels, path)
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
    doubts = int((found == UNREADABLE).sum())
    if doubts > DOUBT_LIMIT * found.size:
        raise InvalidInputError(
            f"no board recognised: {doubts} of {found.size} cells unreadable (the recogniser "
            "does not read this look; paste the board as text)"
        )
    return Reading(found, cells, lattice.cell_size)
