"""Pseudo 50/50s: guesses that risk nothing a coin toss later would not risk anyway.

A pair of covered cells side by side, or a 2x2 box of them, whose outer cells (those that
touch only one cell of the pair, or the box's four diagonal corners) are all known mines or
off the board, can be told apart only by clicking the cells themselves: every other cell
sees the pair's total, or the box's row and column totals, and nothing more. Swapping the
pair (or the box's two diagonals) then gives another layout that no click elsewhere tells
apart, and just as likely.

So when a cell ``t`` of such a pattern is a mine *only* in layouts that have such a twin (a
pair that never holds two mines; a box that, whenever ``t`` is a mine, holds exactly ``t``'s
diagonal), every player must lose at least half of those layouts, and clicking ``t`` now
loses exactly that half: nothing is risked that would not be risked later, and a safe ``t``
shows a number at once. This is David Hill's pseudo 50/50 rule, rebuilt from its
description; :func:`pseudo_fifty` finds such a cell with one conditional solve per pattern.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from ..backends import Backend
from ..board import COVERED, FLAG, Board
from ..engine import compiled
from ..errors import InconsistentBoardError
from ..probabilities import Solution
from ..solver import kernel_solves, solve
from ..validate import check_grid
from .base import Cell, neighbours


def _pairs(cells: np.ndarray, missing: int) -> list[tuple[Cell, Cell]]:
    """Covered side-by-side pairs with ``missing`` outer cells that are neither known mines
    nor off the board (outer cells: those touching only one cell of the pair), in row-major
    order, by the engine (:func:`mscsp.engine._regions.pairs`)."""
    return compiled.pairs(cells, missing)


def pair_patterns(cells: np.ndarray) -> list[tuple[Cell, Cell]]:
    """Covered side-by-side pairs whose cells touching only one of them are mines or off-board.

    Returns:
        ``(a, b)`` pairs in row-major order, ``a`` above or left of ``b``.

    Raises:
        InvalidTypeError: ``cells`` is not an integer array.
        InvalidInputError: ``cells`` is not 2-D.
    """
    return _pairs(check_grid(cells, "cells"), 0)


def box_patterns(cells: np.ndarray) -> Iterator[tuple[Cell, Cell, Cell, Cell]]:
    """Covered 2x2 boxes whose four diagonal corner cells are mines or off the board (by
    the engine, :func:`mscsp.engine._regions.boxes`).

    Yields:
        ``(top-left, top-right, bottom-left, bottom-right)`` in row-major order.

    Raises:
        InvalidTypeError: ``cells`` is not an integer array.
        InvalidInputError: ``cells`` is not 2-D.
    """
    check_grid(cells, "cells")
    yield from compiled.boxes(cells)


def given_mine(board: Board, cell: Cell, backend: str | Backend) -> np.ndarray | None:
    """Mine probabilities of ``board`` given that ``cell`` is a mine (``None``: it cannot be)."""
    cells = board.cells.copy()
    cells[cell] = FLAG
    given = Board(cells, board.mines)
    if isinstance(backend, Backend) and kernel_solves(backend, given):
        probs = compiled.probability_map(given)  # (the Solution's own map, not built)
        if probs is not None:
            return probs
    try:
        after = solve(given, backend)
    except InconsistentBoardError:
        return None
    return after.probabilities if after.weight else None


def pseudo_fifty(
    board: Board,
    solution: Solution,
    backend: str | Backend,
    living: Callable[[Cell], bool],
    checks: compiled.Checks | None = None,
) -> Cell | None:
    """A cell of a pseudo 50/50 to click now, or ``None`` (pairs first, then boxes).

    Args:
        board: The position, every proven mine flagged.
        solution: Its solution.
        backend: Counting backend for the conditional solves.
        living: Whether a cell would show something new (a dead cell is never chosen from a
            box; from a pair only when both cells are dead).
        checks: The position's patterns and the conditional solves the engine made
            already (:func:`mscsp.engine.compiled.checks`); else they are looked for and
            made here.
    """
    probs = solution.probabilities

    def uncertain(cell: Cell) -> bool:
        return 0.0 < probs[cell] < 1.0

    def given(cell: Cell) -> Mapping[Cell, float] | np.ndarray | None:
        """:func:`given_mine` of ``cell``, as the engine made it where it did."""
        if checks is not None and cell in checks.given:
            return checks.given[cell]
        return given_mine(board, cell, backend)

    pairs = pair_patterns(board.cells) if checks is None else checks.pairs
    boxes = box_patterns(board.cells) if checks is None else checks.boxes
    for a, b in pairs:
        if not (uncertain(a) and uncertain(b)):
            continue
        after = given(a)
        if after is not None and after[b] == 0.0:
            return b if living(b) and not living(a) else a
    for box in boxes:
        for k, t in enumerate(box):
            if not uncertain(t) or not living(t):
                continue
            after = given(t)
            if after is None:
                continue
            # Indices 0-3 are TL, TR, BL, BR: t's diagonal partner is 3 - k.
            if after[box[3 - k]] == 1.0 and all(
                after[box[j]] == 0.0 for j in range(4) if j not in (k, 3 - k)
            ):
                return t
    return None


@dataclass(frozen=True)
class Looming:
    """A pair that one more mine would turn into a pseudo 50/50.

    Attributes:
        pair: Two covered side-by-side cells, each a mine with probability exactly 1/2.
        enabler: Their one outer cell that is still covered and not known to be a mine.
        risk: Chance of losing to the pair later: if the enabler is a mine, nothing but a
            coin toss can settle the pair, so half the enabler's mine probability.
    """

    pair: tuple[Cell, Cell]
    enabler: Cell
    risk: float

    def settles(self, cell: Cell) -> bool:
        """Whether clicking ``cell`` now takes this risk out of the game (or faces it)."""
        return cell == self.enabler or cell in self.pair


def looming_fifties(
    board: Board, solution: Solution, checks: compiled.Checks | None = None
) -> list[Looming]:
    """Pairs at exactly 1/2 whose outer cells are all known mines or off the board but one.

    A click anywhere else leaves the risk in the game; clicking the enabler (or a cell of the
    pair) settles it now. David Hill's long-term risk, rebuilt from its description.
    ``checks``: the position's patterns where the engine found them already
    (:func:`mscsp.engine.compiled.checks`; else they are looked for here).
    """
    rows, cols = board.cells.shape
    half = {
        cell
        for odd in solution.odds
        if not isinstance(odd.cells, np.ndarray) and 2 * odd.num == odd.den
        for cell in odd.cells
    }
    probs = solution.probabilities
    found = []
    for a, b in _pairs(board.cells, 1) if checks is None else checks.loose:
        if a not in half or b not in half:
            continue
        outer = set(neighbours(a, rows, cols)) ^ set(neighbours(b, rows, cols))
        outer -= {a, b}
        (enabler,) = (n for n in outer if board.cells[n] != FLAG)
        if board.cells[enabler] == COVERED and 0.0 < probs[enabler] < 1.0:
            found.append(Looming((a, b), enabler, float(probs[enabler]) / 2))
    return found
