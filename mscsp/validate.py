"""Argument checks shared by every public entry of the Python API.

Each check takes the value and the argument's name, and either returns the value in the form
the code uses (a Python ``int``, a ``(row, col)`` pair of ints) or raises one of the project's
errors naming the argument and the bad value, in one line: :class:`InvalidTypeError` (also a
``TypeError``) for a wrong type, :class:`InvalidInputError` (also a ``ValueError``) for a
value out of range. ``bool`` is never taken for a number, although Python counts it as an
``int``: ``mines=True`` is a mistake, not one mine.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .errors import InvalidInputError, InvalidTypeError

#: Longest shown form of a bad value in a message.
_SHOWN = 60


def describe(value: Any) -> str:
    """``value`` as messages show it: its type and a short repr (``float nan``, ``str '2'``),
    on one line (an array's repr spans several)."""
    try:
        shown = " ".join(repr(value).split())
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the error being reported
        shown = "(no repr)"
    if len(shown) > _SHOWN:
        shown = shown[: _SHOWN - 3] + "..."
    return f"{type(value).__name__} {shown}"


def is_integer(value: Any) -> bool:
    """Whether ``value`` is a whole number: an ``int`` or a numpy integer, never a bool."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def check_int(value: Any, name: str, minimum: int = 0) -> int:
    """``value`` as an ``int`` at least ``minimum``.

    Raises:
        InvalidTypeError: Not an integer (a float, bool, string, ``nan``...).
        InvalidInputError: Below ``minimum``.
    """
    if not is_integer(value):
        raise InvalidTypeError(f"{name} must be an integer, got {describe(value)}")
    number = int(value)
    if number < minimum:
        raise InvalidInputError(f"{name} must be an integer >= {minimum}, got {number}")
    return number


def check_mines(value: Any, name: str = "mines") -> int:
    """A mine count: an integer >= 0 (see :func:`check_int`)."""
    return check_int(value, name)


def check_time_limit(value: Any, name: str = "time_limit") -> float | None:
    """Seconds allowed: ``None`` (no limit) or a finite number >= 0.

    Raises:
        InvalidTypeError: Not a number (a string, a bool...).
        InvalidInputError: Negative, ``nan``, infinite or past the largest float.
    """
    if value is None:
        return None
    if not isinstance(value, int | float | np.integer | np.floating) or isinstance(value, bool):
        raise InvalidTypeError(f"{name} must be a number of seconds >= 0, got {describe(value)}")
    try:
        seconds = float(value)
    except OverflowError:  # an int past every float: no clock adds it
        seconds = math.inf
    if not (math.isfinite(seconds) and seconds >= 0):
        raise InvalidInputError(
            f"{name} must be a finite number of seconds >= 0, got {describe(value)}"
        )
    return value


def check_fraction(value: Any, name: str) -> float:
    """A number strictly between 0 and 1 (a density), as a ``float``.

    Raises:
        InvalidTypeError: Not a number (a string, a bool...).
        InvalidInputError: ``nan``, or not strictly between 0 and 1.
    """
    if not isinstance(value, int | float | np.integer | np.floating) or isinstance(value, bool):
        raise InvalidTypeError(f"{name} must be a number between 0 and 1, got {describe(value)}")
    number = float(value)
    if not 0 < number < 1:  # also refuses nan
        raise InvalidInputError(f"{name} must be strictly between 0 and 1, got {describe(value)}")
    return number


def check_number(value: Any, name: str, low: float, high: float = math.inf) -> float:
    """A finite number from ``low`` to ``high`` (both included), as a ``float``.

    Raises:
        InvalidTypeError: Not a number (a string, a bool...).
        InvalidInputError: ``nan``, infinite, or outside the range.
    """
    if not isinstance(value, int | float | np.integer | np.floating) or isinstance(value, bool):
        raise InvalidTypeError(f"{name} must be a number, got {describe(value)}")
    number = float(value)
    if not (math.isfinite(number) and low <= number <= high):  # (nan fails both)
        span = f">= {low:g}" if high == math.inf else f"from {low:g} to {high:g}"
        raise InvalidInputError(f"{name} must be a finite number {span}, got {describe(value)}")
    return number


def check_layouts(rows: Any, cols: Any, layouts: Any, firsts: Any) -> tuple[np.ndarray, np.ndarray]:
    """Games given as their mines' cells (``layouts``, games x mines) and first clicks
    (``firsts``), row-major on a rows x cols board, as contiguous ``int64`` arrays.

    Raises:
        InvalidTypeError: ``rows`` or ``cols`` not an integer, or the arrays not integers.
        InvalidInputError: A board without cells, arrays of the wrong shape, a cell off the
            board, a cell twice among a game's mines, or no safe cell left.
    """
    rows, cols = check_int(rows, "rows", 1), check_int(cols, "cols", 1)
    layouts, firsts = np.asarray(layouts), np.asarray(firsts)
    for name, array in (("layouts", layouts), ("firsts", firsts)):
        if array.dtype.kind not in "iu":
            raise InvalidTypeError(f"{name} must hold integers, got {array.dtype} values")
    if layouts.ndim != 2 or firsts.shape != (len(layouts),):
        raise InvalidInputError(
            f"layouts must be games x mines and firsts one cell a game, got shapes "
            f"{layouts.shape} and {firsts.shape}"
        )
    n = rows * cols
    if layouts.shape[1] >= n:
        raise InvalidInputError(f"{layouts.shape[1]} mines leave no safe cell of {n}")
    for name, array in (("layouts", layouts), ("firsts", firsts)):
        if array.size and (array.min() < 0 or array.max() >= n):
            raise InvalidInputError(f"{name} holds a cell off the {rows}x{cols} board")
    if layouts.shape[1] > 1 and (np.diff(np.sort(layouts, axis=1), axis=1) == 0).any():
        raise InvalidInputError("a game's layout holds a cell twice")
    return (
        np.ascontiguousarray(layouts, dtype=np.int64),
        np.ascontiguousarray(firsts, dtype=np.int64),
    )


def check_max_solutions(value: Any, name: str = "max_solutions") -> int | None:
    """A cap on solutions: ``None`` (no cap) or an integer >= 1 (see :func:`check_int`)."""
    return None if value is None else check_int(value, name, minimum=1)


def check_cell(shape: tuple[int, int], r: Any, c: Any, name: str = "cell") -> tuple[int, int]:
    """``(r, c)`` as a pair of ints on a board of ``shape`` (rows, cols).

    Raises:
        InvalidTypeError: ``r`` or ``c`` is not an integer.
        InvalidInputError: The cell is off the board.
    """
    if not (is_integer(r) and is_integer(c)):
        raise InvalidTypeError(
            f"{name} must be two integers (row, col), got ({describe(r)}, {describe(c)})"
        )
    r, c = int(r), int(c)
    rows, cols = shape
    if not (0 <= r < rows and 0 <= c < cols):
        raise InvalidInputError(f"{name} ({r}, {c}) is off the {rows}x{cols} board")
    return r, c


def check_pair(shape: tuple[int, int], cell: Any, name: str = "cell") -> tuple[int, int]:
    """A cell given as one ``(row, col)`` pair (a tuple or list), as :func:`check_cell`."""
    if not (isinstance(cell, tuple | list) and len(cell) == 2):
        raise InvalidTypeError(f"{name} must be a (row, col) pair, got {describe(cell)}")
    return check_cell(shape, cell[0], cell[1], name)


def check_grid(
    value: Any, name: str, shape: tuple[int, ...] | None = None, kinds: str = "iu"
) -> np.ndarray:
    """``value`` if it is a 2-D numpy array of one of the dtype ``kinds`` (``"b"``: bool,
    ``"iu"``: integers), of ``shape`` when one is given: what code that reads a board's
    arrays cell by cell (compiled code included, which checks no bounds) may take.

    Raises:
        InvalidTypeError: Not a numpy array, or another dtype.
        InvalidInputError: Not 2-D, or another shape.
    """
    if not isinstance(value, np.ndarray) or value.dtype.kind not in kinds:
        raise InvalidTypeError(
            f"{name} must be a numpy array of {'bools' if kinds == 'b' else 'integers'}, "
            f"got {describe(value)}"
        )
    if value.ndim != 2 or (shape is not None and value.shape != tuple(shape)):
        want = f"{shape[0]}x{shape[1]}" if shape is not None else "2-D"
        raise InvalidInputError(f"{name} must be a {want} array, got shape {value.shape}")
    return value


def check_cells(cells: Any, shape: tuple[int, ...], name: str = "cells") -> None:
    """Checks a list of (row, col) cells on a board of ``shape`` as one array (compiled
    code given them reads without bounds checks).

    Raises:
        InvalidInputError: Not (row, col) integer pairs, or a cell off the board.
    """
    rows, cols = shape
    if isinstance(cells, list) and all(
        type(cell) is tuple
        and len(cell) == 2
        and type(cell[0]) is int
        and type(cell[1]) is int
        and 0 <= cell[0] < rows
        and 0 <= cell[1] < cols
        for cell in cells
    ):
        return  # (a player's own few cells: checked without an array, many times a turn)
    at = np.asarray(cells)
    if at.size and (
        at.ndim != 2
        or at.shape[1] != 2
        or at.dtype.kind not in "iu"
        or at.min() < 0
        or (at >= shape).any()
    ):
        raise InvalidInputError(f"{name} must be (row, col) cells on the {shape} board")


def check_text(value: Any, name: str) -> str:
    """``value`` if it is a ``str`` (a name, a spec).

    Raises:
        InvalidTypeError: Anything else.
    """
    if not isinstance(value, str):
        raise InvalidTypeError(f"{name} must be a str, got {describe(value)}")
    return value
