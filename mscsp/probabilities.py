"""Combining component counts with the global mine count into exact cell probabilities."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache
from math import comb

import numpy as np

from .board import FLAG, Board, neighbour_counts
from .constraints import Cell, Component, ComponentCount, System
from .errors import InconsistentBoardError
from .reduce import Reduction


def convolve(a: Sequence[int], b: Sequence[int]) -> list[int]:
    """Product of two polynomials given as coefficient lists (Python integers)."""
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


@lru_cache(maxsize=1024)
def binomial_row(n: int, upto: int) -> tuple[int, ...]:
    """``(C(n, 0), ..., C(n, upto))`` (zeros past ``n``), cached across positions."""
    row = [1] + [0] * max(upto, 0)
    for j in range(1, min(n, upto) + 1):
        row[j] = row[j - 1] * (n - j + 1) // j
    return tuple(row)


@dataclass(frozen=True, slots=True)
class CellOdds:
    """Cells sharing one exact mine probability ``num / den``."""

    cells: tuple[Cell, ...] | np.ndarray
    num: int
    den: int


@dataclass
class Solution:
    """Exact mine probabilities of every covered cell of a board.

    Attributes:
        board: The solved position.
        odds: Cells with their exact probability as ``num / den`` (integers).
        components: The independent components with their counts.
        weight: Number of mine layouts consistent with the board (flags taken as mines).
    """

    board: Board
    odds: list[CellOdds]
    components: list[tuple[Component, ComponentCount]] = field(default_factory=list)
    weight: int = 0

    @cached_property
    def probabilities(self) -> np.ndarray:
        """Float array (rows x cols): NaN on revealed cells, 1.0 on flags."""
        out = np.full(self.board.shape, np.nan)
        out[self.board.cells == FLAG] = 1.0
        for odd in self.odds:
            value = odd.num / odd.den
            if isinstance(odd.cells, np.ndarray):
                out[odd.cells] = value
            else:
                for r, c in odd.cells:
                    out[r, c] = value
        return out

    @cached_property
    def exact(self) -> dict[Cell, Fraction]:
        """Exact probability of every covered cell, as :class:`fractions.Fraction`."""
        result: dict[Cell, Fraction] = {}
        for odd in self.odds:
            value = Fraction(odd.num, odd.den)
            cells = odd.cells
            if isinstance(cells, np.ndarray):
                cells = [(int(r), int(c)) for r, c in np.argwhere(cells)]
            for cell in cells:
                result[cell] = value
        return result

    def _cells_where(self, pick) -> list[Cell]:
        found = []
        for odd in self.odds:
            if pick(odd):
                cells = odd.cells
                if isinstance(cells, np.ndarray):
                    cells = [(int(r), int(c)) for r, c in np.argwhere(cells)]
                found.extend(cells)
        return sorted(found)

    @cached_property
    def safe(self) -> list[Cell]:
        """Covered cells that hold no mine in any solution."""
        return self._cells_where(lambda odd: odd.num == 0)

    @cached_property
    def mines(self) -> list[Cell]:
        """Covered (unflagged) cells that hold a mine in every solution."""
        return self._cells_where(lambda odd: odd.num == odd.den)

    @cached_property
    def best_move(self) -> Cell | None:
        """The covered cell least likely to hold a mine.

        Exact ties go to the cell with the fewest neighbours (a corner or edge cell opens
        more often), then to the first in row-major order. ``None`` if nothing is covered.
        """
        if not self.odds:
            return None
        lowest = min(self.odds, key=lambda odd: odd.num / odd.den)
        nbrs = neighbour_counts(*self.board.shape)
        best = None
        for odd in self.odds:
            if odd.num * lowest.den != lowest.num * odd.den:  # exact comparison
                continue
            cells = odd.cells
            if isinstance(cells, np.ndarray):
                idx = np.argwhere(cells)
                first = np.lexsort((idx[:, 1], idx[:, 0], nbrs[cells]))[0]
                cells = [(int(idx[first, 0]), int(idx[first, 1]))]
            for r, c in cells:
                key = (int(nbrs[r, c]), r, c)
                if best is None or key < best:
                    best = key
        return best[1], best[2]


def combine(
    board: Board, system: System, reduction: Reduction, counts: list[ComponentCount]
) -> Solution:
    """Weights component counts by ``C(unconstrained cells, mines left)`` into probabilities.

    Raises:
        InconsistentBoardError: No placement of the remaining mines satisfies the board.
    """
    odds: list[CellOdds] = []
    fixed_mines = 0
    fixed_weight = 1
    certain: tuple[list, list] = ([], [])  # safe cells, mine cells
    for g, x in reduction.fixed:
        size = int(system.sizes[g])
        if x in (0, size):
            certain[x > 0].extend(system.cells[g])
        else:
            odds.append(CellOdds(system.cells[g], x, size))
            fixed_weight *= comb(size, x)
        fixed_mines += x
    for value, cells in enumerate(certain):
        if cells:
            odds.append(CellOdds(tuple(cells), value, 1))
    left = system.remaining - fixed_mines
    n_free = system.n_unconstrained
    free_row = binomial_row(n_free, left)

    def free_ways(mines: int) -> int:
        return free_row[mines] if mines >= 0 else 0

    polys = [list(c.counts) for c in counts]
    prefix = [[1]]
    for p in polys:
        prefix.append(convolve(prefix[-1], p))
    suffix = [[1]]
    for p in reversed(polys):
        suffix.append(convolve(suffix[-1], p))
    suffix.reverse()
    everything = prefix[-1]
    weight = sum(w * free_ways(left - k) for k, w in enumerate(everything))
    if weight == 0:
        raise InconsistentBoardError(
            f"no placement of the {system.remaining} unflagged mines satisfies the numbers"
        )
    for i, (comp, count) in enumerate(zip(reduction.components, counts, strict=True)):
        others = convolve(prefix[i], suffix[i + 1])
        # ways[k]: completions of the rest of the board when this component holds k mines.
        ways = [
            sum(w * free_ways(left - k - s) for s, w in enumerate(others) if w)
            for k in range(len(count.counts))
        ]
        for cells, cell_count in zip(comp.cells, count.cell_counts, strict=True):
            num = sum(c * w for c, w in zip(cell_count, ways, strict=False) if c)
            odds.append(CellOdds(cells, num, weight))
    if n_free:
        row = binomial_row(n_free - 1, left - 1)
        num = sum(w * row[left - k - 1] for k, w in enumerate(everything) if left - k - 1 >= 0)
        odds.append(CellOdds(system.unconstrained, num, weight))
    return Solution(
        board=board,
        odds=odds,
        components=list(zip(reduction.components, counts, strict=True)),
        weight=weight * fixed_weight,
    )
