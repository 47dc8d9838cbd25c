"""A tiny brute-force enumerator over whole boards: the reference the tests trust.

It shares no code with the solver's constraint building, grouping, reductions or
combination: it tries every placement of the unflagged mines among the covered cells and
checks every revealed number directly.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from math import comb

from .board import COVERED, FLAG, Board
from .errors import InconsistentBoardError, InvalidInputError

#: Most placements the brute force will try.
MAX_PLACEMENTS = 2_000_000


def brute_force(board: Board) -> dict[tuple[int, int], Fraction]:
    """Exact mine probability of every covered cell by trying every placement.

    Raises:
        InvalidInputError: More than :data:`MAX_PLACEMENTS` placements to try.
        InconsistentBoardError: No placement fits the numbers.
    """
    rows, cols = board.shape
    grid = board.cells.tolist()
    covered = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] == COVERED]
    left = board.mines - sum(row.count(FLAG) for row in grid)
    if left < 0 or left > len(covered):
        raise InconsistentBoardError("mine count does not fit the covered cells")
    if comb(len(covered), left) > MAX_PLACEMENTS:
        raise InvalidInputError("too many placements for the brute force")
    numbers = []
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] >= 0:
                nbrs = [
                    (r + dr, c + dc)
                    for dr in (-1, 0, 1)
                    for dc in (-1, 0, 1)
                    if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols
                ]
                numbers.append((grid[r][c], nbrs))
    hits = dict.fromkeys(covered, 0)
    total = 0
    for chosen in combinations(covered, left):
        mines = set(chosen)
        if all(
            sum(1 for cell in nbrs if cell in mines or grid[cell[0]][cell[1]] == FLAG) == v
            for v, nbrs in numbers
        ):
            total += 1
            for cell in chosen:
                hits[cell] += 1
    if total == 0:
        raise InconsistentBoardError("no placement fits the numbers")
    return {cell: Fraction(h, total) for cell, h in hits.items()}
