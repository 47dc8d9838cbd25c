"""The compiled small-board path of :func:`mscsp.solve` (numba, extra ``fast``).

On a beginner board the pure pipeline spends its time in a few hundred small interpreted
steps, spread over every stage. Here one compiled kernel does what the pipeline does, stage
for stage (constraints from the numbers and the single-point rules, groups, propagation and
the subset rule, components, their counts by enumeration, the combination with the cells
next to no number), over the board's flat cell codes, and writes plain integers that
:func:`solve` turns into the very :class:`~mscsp.probabilities.Solution` the pure path gives:
the same odds in the same order, the same components and counts, the same weight and
probability map. Counts are exact: the kernel works in 64-bit integers only where every
number it computes provably fits (it bounds them first), and hands the position back to the
pure path (which uses Python integers) otherwise, as it does for an inconsistent board (so
that the error raised is the pure path's own) and for components too large to enumerate.

numba is imported, and the kernel compiled or loaded from its on-disk cache, at the first
small solve, not at ``import mscsp``.
"""

from __future__ import annotations

import os
from functools import cache, lru_cache
from operator import itemgetter
from types import ModuleType

import numpy as np

from .board import Board
from .constraints import Component, ComponentCount
from .probabilities import CellOdds, Solution

#: Set (to anything but ``0``) to make :func:`mscsp.solve` take the pure path everywhere.
PURE_ENV = "MSCSP_PURE"

#: Kernel status codes (the first integer it writes).
_DONE = 1


@cache
def _kernel():
    """The compiled kernel, or ``None`` when numba is missing."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return None
    from . import _kernel as module

    return module.solve_flat


def available() -> bool:
    """Whether the compiled path can run here (numba importable, not switched off)."""
    return os.environ.get(PURE_ENV, "0") == "0" and _kernel() is not None


@lru_cache(maxsize=64)
def _coords(rows: int, cols: int) -> list[tuple[int, int]]:
    return [divmod(i, cols) for i in range(rows * cols)]


def _cells(flat: list[int], coords: list[tuple[int, int]]) -> tuple:
    return itemgetter(*flat)(coords) if len(flat) > 1 else (coords[flat[0]],)


def solve_small(board: Board) -> Solution | None:
    """The solution of ``board`` by the kernel, or ``None`` where the pure path must answer."""
    cells = board.cells
    if cells.dtype != np.int8 or not cells.flags.c_contiguous:
        return None
    rows, cols = cells.shape
    out = np.empty(64 * cells.size + 256, dtype=np.int64)
    probs = np.empty((rows, cols))
    free = np.empty((rows, cols), dtype=np.bool_)
    status = _kernel()(cells.reshape(-1), rows, cols, board.mines, out, probs, free)
    if status != _DONE:
        return None
    data = out[: out[1]].tolist()
    coords = _coords(rows, cols)
    odds = []
    weight = data[2]
    fixed_weight = 1
    i = 3
    n = data[i]
    i += 1
    for _ in range(n):  # groups fixed at neither 0 nor all their cells
        x, size, count = data[i : i + 3]
        i += 3
        odds.append(CellOdds(_cells(data[i : i + count], coords), x, size))
        i += count
        fixed_weight *= _comb(size, x)
    for mine in (0, 1):  # the cells proven safe, then those proven mines
        count = data[i]
        i += 1
        if count:
            odds.append(CellOdds(_cells(data[i : i + count], coords), mine, 1))
            i += count
    n_comp = data[i]
    i += 1
    components = []
    for _ in range(n_comp):
        m = data[i]
        i += 1
        sizes = tuple(data[i : i + m])
        i += m
        n_cons = data[i]
        i += 1
        stated = []
        for _ in range(n_cons):
            length = data[i]
            stated.append((tuple(data[i + 1 : i + 1 + length]), data[i + 1 + length]))
            i += length + 2
        length = data[i]
        i += 1
        counts = tuple(data[i : i + length])
        i += length
        cell_counts = []
        for _ in range(m):
            cell_counts.append(tuple(data[i : i + length]))
            i += length
        group_cells = []
        for _ in range(m):
            count = data[i]
            group = _cells(data[i + 1 : i + 1 + count], coords)
            group_cells.append(group)
            odds.append(CellOdds(group, data[i + 1 + count], weight))
            i += count + 2
        components.append(
            (
                Component(sizes, tuple(stated), tuple(group_cells)),
                ComponentCount(counts, tuple(cell_counts)),
            )
        )
    if data[i]:
        odds.append(CellOdds(free, data[i + 1], weight))
    solution = Solution(board=board, odds=odds, components=components, weight=weight * fixed_weight)
    solution.__dict__["probabilities"] = probs
    return solution


def _comb(n: int, k: int) -> int:
    from math import comb

    return comb(n, k)


def numba_module() -> ModuleType | None:
    """numba, when installed (for tests and benchmarks that report its version)."""
    try:
        import numba
    except ImportError:
        return None
    return numba
