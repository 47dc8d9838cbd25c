"""The board a player sees, and its text format.

A board is an ``int8`` array of cell codes (:data:`COVERED`, :data:`FLAG`, or a revealed
number 0-8) plus the total number of mines. The text format is what users paste::

    # optional comments
    30x16x99            <- optional header: width x height x mines (or "mines=99")
    ??1.
    ?F1.

Cells: ``?``/``H``/``h`` covered, ``.``/``0`` revealed zero, ``1``-``8`` numbers,
``F``/``f``/``*``/``!`` flags. Whitespace between cells is ignored (non-breaking spaces
included), and so is a UTF-8 byte-order mark: what a copy from a web page or an editor adds.
Anything else is refused with its line and column (counted from 1, as editors do); cells
in messages are ``(row, col)`` counted from 0, as on the probability map.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from .errors import (
    BoardParseError,
    InconsistentBoardError,
    InvalidInputError,
    InvalidTypeError,
    counted,
    format_cell,
    in_words,
    unmet_number,
)
from .validate import check_mines, describe

COVERED = -1
FLAG = -2

# The int8 codes as the bytes of Board.cells.tobytes(): a flag, a covered cell, the numbers.
_FLAG_BYTE, _COVERED_BYTE = bytes([FLAG & 0xFF]), bytes([COVERED & 0xFF])
_NUMBERS = bytes(range(9))
# Codes every cell may hold: no cell has fewer than 3 neighbours (a corner) unless the
# board is one cell wide (1 at its ends, none on a 1x1 board).
_PLAIN = _FLAG_BYTE + _COVERED_BYTE + bytes(range(4))
_PLAIN_THIN = _FLAG_BYTE + _COVERED_BYTE + bytes(1)
_UP_TO_5 = _FLAG_BYTE + _COVERED_BYTE + bytes(range(6))

#: Largest board accepted from text or by the engine (cells), and longest side.
MAX_CELLS = 1_000_000
MAX_SIDE = 10_000
MAX_TEXT = 32 * MAX_CELLS  # characters; generous room for spaces and comments

_CELL_CODES = {"?": COVERED, "H": COVERED, "h": COVERED, ".": 0}
_CELL_CODES.update({flag: FLAG for flag in "Ff*!"})
_CELL_CODES.update({str(d): d for d in range(9)})
#: Invisible characters pasted text carries that mean nothing (zero-width space, BOM).
_IGNORED = "\u200b\ufeff"
#: Digits a header number may have (a board holds at most MAX_CELLS cells).
_MAX_DIGITS = 9
# "\d" also matches other scripts' digits (and int() reads them): such a header is found,
# then refused by _header_int, as the same digits are refused as cells.
_HEADER_SIZE = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*[xX]\s*(\d+)\s*$")
_HEADER_MINES = re.compile(r"^\s*mines\s*=\s*(\d+)\s*$", re.IGNORECASE)


@dataclass(frozen=True, eq=False)
class Board:
    """A position as the player sees it.

    Attributes:
        cells: ``int8`` array (rows x cols): ``COVERED``, ``FLAG`` or a revealed number 0-8.
            Any 2-D array-like of integers is taken and stored as a new ``int8`` array once
            every value is checked; an ``int8`` array is kept as it is.
        mines: Total number of mines on the board, flagged ones included.

    Raises:
        InvalidTypeError: ``cells`` is not a 2-D array of integers, or ``mines`` not an
            integer.
        InvalidInputError: A shape below 1x1 or over :data:`MAX_CELLS` / :data:`MAX_SIDE`,
            a value other than a cell code, or ``mines < 0``.
        InconsistentBoardError: A number above its neighbour count, more flags than mines,
            or more mines than flags and covered cells (the message names a cell).
    """

    cells: np.ndarray
    mines: int

    def __post_init__(self) -> None:
        # Players, solvers and the game engine make a Board every turn: an int8 array is
        # checked on its bytes (see _check_cells) and kept: a few microseconds on expert.
        cells = self.cells
        if type(cells) is not np.ndarray or cells.dtype != np.int8:
            cells = _int8_cells(cells)
            object.__setattr__(self, "cells", cells)
        mines = self.mines
        if type(mines) is not int or mines < 0:  # (the common case costs two comparisons)
            mines = check_mines(mines)
            object.__setattr__(self, "mines", mines)
        _check_cells(cells, mines)

    @property
    def rows(self) -> int:
        return int(self.cells.shape[0])

    @property
    def cols(self) -> int:
        return int(self.cells.shape[1])

    @property
    def shape(self) -> tuple[int, int]:
        return self.rows, self.cols

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.mines == other.mines and np.array_equal(self.cells, other.cells)

    def __hash__(self) -> int:
        return hash((self.mines, self.cells.shape, self.cells.tobytes()))

    def to_text(self, header: bool = True) -> str:
        """Formats the board in the text format (round-trips through :func:`parse_board`)."""
        return format_board(self, header=header)

    def __str__(self) -> str:
        return self.to_text()


def check_board(value: Any, name: str = "board") -> Board:
    """``value`` if it is a :class:`~mscsp.board.Board`; otherwise a hint on how to make one.

    Raises:
        InvalidTypeError: Anything else (text, an array, ``None``...).
    """
    if isinstance(value, Board):
        return value
    if isinstance(value, str | bytes | bytearray):
        hint = ": parse it with mscsp.parse_board first"
    elif isinstance(value, np.ndarray | list | tuple):
        hint = ": wrap it in mscsp.Board(cells, mines)"
    else:
        hint = ""
    raise InvalidTypeError(f"{name} must be a mscsp.Board, got {describe(value)}{hint}")


def format_board(board: Board, header: bool = True) -> str:
    """Returns the text form of ``board``: a ``WxHxM`` header line, then one line per row."""
    symbols = {COVERED: "?", FLAG: "F", 0: "."}
    lines = [f"{board.cols}x{board.rows}x{board.mines}"] if header else []
    for row in board.cells.tolist():
        lines.append("".join(symbols.get(v, str(v)) for v in row))
    return "\n".join(lines) + "\n"


def _int8_cells(cells: Any) -> np.ndarray:
    """A new ``int8`` array of ``cells`` (an array-like of integers), once every value is a
    cell code: a value such as 300 is refused, never wrapped."""
    try:
        array = np.asarray(cells)
    except (TypeError, ValueError, OverflowError):  # ragged lists, objects numpy refuses
        array = None
    if array is None or array.dtype.kind not in "iu":
        shown = describe(cells) if array is None else f"{describe(cells)} (dtype {array.dtype})"
        raise InvalidTypeError(f"cells must be a 2-D array of integers, got {shown}")
    _check_shape(array.shape)
    if array.min() < FLAG or array.max() > 8:
        _refuse_codes(array)
    return array.astype(np.int8)


def _check_shape(shape: tuple[int, ...]) -> None:
    rows, cols = shape if len(shape) == 2 else (0, 0)
    if 0 < rows <= MAX_SIDE and 0 < cols <= MAX_SIDE and rows * cols <= MAX_CELLS:
        return
    if rows < 1 or cols < 1:
        raise InvalidInputError(f"cells must be a 2-D array of at least 1x1, got shape {shape}")
    raise InvalidInputError(
        f"board {rows}x{cols} too large (limit {MAX_CELLS} cells, {MAX_SIDE} a side)"
    )


def _refuse_codes(cells: np.ndarray) -> None:
    r, c = (int(v) for v in np.argwhere((cells < FLAG) | (cells > 8))[0])
    raise InvalidInputError(
        f"cells[{r}, {c}] is {int(cells[r, c])}: not a cell code (-2 flag, -1 covered, "
        "0-8 revealed number)"
    )


def _check_cells(cells: np.ndarray, mines: int) -> None:
    """Checks an ``int8`` board: shape, cell codes, numbers, flags and mines.

    Raises:
        InvalidInputError: A bad shape or a value that is no cell code.
        InconsistentBoardError: A number above its neighbour count, more flags than mines,
            or more mines than flags and covered cells.
    """
    _check_shape(cells.shape)
    # Byte strings, not numpy calls: each of these costs well under a microsecond on an
    # expert board, where a numpy call costs one or two.
    data = cells.tobytes()
    rows, cols = cells.shape
    thin = rows == 1 or cols == 1
    rest = data.translate(None, _PLAIN_THIN if thin else _PLAIN)
    if rest:  # a number some cell cannot hold, or no cell code at all
        if rest.translate(None, _NUMBERS):
            _refuse_codes(cells)
        if thin or not _border_fits(data, cols):
            _check_numbers(cells)
    flags, covered = data.count(_FLAG_BYTE), data.count(_COVERED_BYTE)
    if flags > mines:
        first = _first(cells == FLAG)
        raise InconsistentBoardError(
            f"{counted(flags, 'flag')} but only {counted(mines, 'mine')}: "
            f"{in_words(flags - mines)} too many (the first flag is at {format_cell(first)})",
            first,
        )
    if mines - flags > covered:
        if not covered:
            _check_flags_only(cells)  # (a number that wants a mine is the one at fault)
        # No number is at fault: the cell named is the first that could hold a mine.
        first = _first(cells == COVERED)
        held = [counted(n, noun) for n, noun in ((flags, "flag"), (covered, "covered cell")) if n]
        room = f"only {' and '.join(held)}" if held else "no covered cell"
        where = f" (the first covered cell is at {format_cell(first)})" if first else ""
        raise InconsistentBoardError(
            f"{counted(mines, 'mine')} but {room} to hold them{where}",
            first or _first(cells == FLAG),  # (None: no cell can hold a mine)
        )


def _check_flags_only(cells: np.ndarray) -> None:
    """On a board with no covered cell, refuses the first number (row by row) that its
    flags do not satisfy: with no covered cell it cannot be met."""
    rows, cols = cells.shape
    flag = np.pad(cells == FLAG, 1).astype(np.int8)
    around = sum(
        flag[1 + dr : rows + 1 + dr, 1 + dc : cols + 1 + dc]
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if dr or dc
    )
    unmet = _first((cells >= 0) & (cells != around))
    if unmet is not None:
        raise unmet_number(int(cells[unmet]), unmet, int(around[unmet]), 0, 0, 0)


def _border_fits(data: bytes, cols: int) -> bool:
    """Whether the border of a board at least 2x2 (its bytes, row-major) holds no number
    above its neighbours: 3 in a corner, 5 along an edge; inside cells have 8."""
    edges = data[:cols] + data[-cols:] + data[::cols] + data[cols - 1 :: cols]
    corners = bytes((data[0], data[cols - 1], data[-cols], data[-1]))
    return not edges.translate(None, _UP_TO_5) and not corners.translate(None, _PLAIN)


def bordered(a: np.ndarray, value: bool | int = 0) -> np.ndarray:
    """``a`` with a one-cell border of ``value`` (as ``np.pad(a, 1, constant_values=value)``,
    without its overhead: players pad a board on every guess).

    Raises:
        InvalidInputError: ``a`` is not a 2-D array.
    """
    if not isinstance(a, np.ndarray) or a.ndim != 2:
        raise InvalidInputError(f"bordered takes a 2-D array, got {describe(a)}")
    out = np.full((a.shape[0] + 2, a.shape[1] + 2), value, dtype=a.dtype)
    out[1:-1, 1:-1] = a
    return out


@lru_cache(maxsize=64)
def neighbour_counts(rows: int, cols: int) -> np.ndarray:
    """Number of neighbours each cell has on a rows x cols board (3, 5 or 8 inside).

    Cached and read-only: solvers ask for it on every position.
    """
    counts = neighbour_sum(np.ones((rows, cols), dtype=np.int8))
    counts.flags.writeable = False
    return counts


def neighbour_sum(a: np.ndarray) -> np.ndarray:
    """Sum of the 8 neighbours of every cell of ``a`` (``int16``; outside the board counts 0).

    The board is the last two axes, so a batch of boards ``(..., rows, cols)`` works too.
    """
    a = a.astype(np.int16, copy=False)
    # Vertical pass (the rows above and below), then the horizontal pass over those sums.
    col = a.copy()
    col[..., 1:, :] += a[..., :-1, :]
    col[..., :-1, :] += a[..., 1:, :]
    out = col.copy()
    out[..., 1:] += col[..., :-1]
    out[..., :-1] += col[..., 1:]
    out -= a
    return out


def parse_board(text: str | bytes, mines: int | None = None) -> Board:
    """Parses a pasted position.

    Args:
        text: The board text (``str``, or ``bytes`` in UTF-8).
        mines: Total mine count (an integer >= 0), used when the text has no header. If
            both are given they must agree.

    Returns:
        The parsed :class:`Board`.

    Raises:
        InvalidTypeError: ``text`` is not text, or ``mines`` not an integer.
        InvalidInputError: ``mines`` is negative.
        BoardParseError: On malformed text; the message names the line and column.
        InconsistentBoardError: The text is a board no mine layout fits (more flags than
            mines, a number above its neighbour count...); the message names a cell.
    """
    if not isinstance(text, str | bytes | bytearray):
        raise InvalidTypeError(f"text must be a str or bytes, got {describe(text)}")
    if mines is not None:
        mines = check_mines(mines)
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BoardParseError(f"input is not UTF-8 text (byte {exc.start})") from None
    text = text.removeprefix("\ufeff")
    if len(text) > MAX_TEXT:
        raise BoardParseError(f"input too large ({len(text)} characters; limit {MAX_TEXT})")
    if "\x00" in text:
        raise BoardParseError("input looks like binary data (contains NUL bytes)")

    header: tuple[int, int, int] | None = None
    header_mines: int | None = None
    rows: list[list[int]] = []
    row_lines: list[int] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not rows and header is None and header_mines is None:
            m = _HEADER_SIZE.match(line)
            if m:
                w, h, k = (_header_int(g, lineno) for g in m.groups())
                header, header_mines = (w, h, k), k
                continue
            m = _HEADER_MINES.match(line)
            if m:
                header_mines = _header_int(m.group(1), lineno)
                continue
        rows.append(_parse_row(line, lineno))
        row_lines.append(lineno)
        if len(rows[-1]) != len(rows[0]):
            raise BoardParseError(
                f"ragged rows: this row has {len(rows[-1])} cells, "
                f"the first row has {len(rows[0])}",
                lineno,
            )
        if len(rows) * len(rows[0]) > MAX_CELLS or len(rows) > MAX_SIDE:
            raise BoardParseError(f"board too large (limit {MAX_CELLS} cells)", lineno)

    if not rows:
        raise BoardParseError("empty input: no board rows found")
    n_rows, n_cols = len(rows), len(rows[0])
    if header is not None and header[:2] != (n_cols, n_rows):
        raise BoardParseError(
            f"header says {header[0]}x{header[1]} (width x height) but the grid is "
            f"{n_cols}x{n_rows}"
        )
    if header_mines is not None and mines is not None and header_mines != mines:
        raise BoardParseError(f"mine count {mines} conflicts with the header's {header_mines}")
    total = header_mines if header_mines is not None else mines
    if total is None:
        raise BoardParseError(
            "missing mine count: add a header line 'WxHxM' or 'mines=M', or pass --mines"
        )

    cells = np.array(rows, dtype=np.int8)
    _check_numbers(cells, row_lines)
    return Board(cells, total)


def _first(mask: np.ndarray) -> tuple[int, int] | None:
    found = np.argwhere(mask)
    return (int(found[0, 0]), int(found[0, 1])) if len(found) else None


def _header_int(digits: str, lineno: int) -> int:
    if not digits.isascii():
        raise BoardParseError(f"header number {digits!r}: digits must be ASCII 0-9", lineno)
    # int() of thousands of digits is slow and then refused by Python; no board needs them.
    if len(digits) > _MAX_DIGITS:
        raise BoardParseError(
            f"header number of {len(digits)} digits is too large (boards hold at most "
            f"{MAX_CELLS} cells)",
            lineno,
        )
    return int(digits)


def _parse_row(line: str, lineno: int) -> list[int]:
    row = []
    for col, ch in enumerate(line, start=1):
        if ch.isspace() or ch in _IGNORED:
            continue
        code = _CELL_CODES.get(ch)
        if code is None:
            if ch == "9":
                raise BoardParseError("'9' is not a valid cell: numbers go up to 8", lineno, col)
            shown = repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}"
            raise BoardParseError(
                f"unknown cell {shown}: expected ? or H (covered), . or 0-8 (revealed), "
                "F, * or ! (flag)",
                lineno,
                col,
            )
        row.append(code)
        if len(row) > MAX_SIDE:
            raise BoardParseError(f"row too long (limit {MAX_SIDE} cells)", lineno)
    return row


def _check_numbers(cells: np.ndarray, row_lines: list[int] | None = None) -> None:
    """Refuses a number above its neighbour count, naming the cell (and its text line)."""
    too_big = cells > neighbour_counts(*cells.shape)
    if np.count_nonzero(too_big):  # (a quarter of the time of too_big.any())
        r, c = (int(v) for v in np.argwhere(too_big)[0])
        n = int(neighbour_counts(*cells.shape)[r, c])
        where = "" if row_lines is None else f"line {row_lines[r]}: "
        raise InconsistentBoardError(
            f"{where}the {int(cells[r, c])} at {format_cell((r, c))} exceeds its "
            f"{counted(n, 'neighbour')}",
            (r, c),
        )
