"""Which cell a contradiction involves, for boards no mine layout fits.

The solver finds that a board is impossible deep inside propagation, counting or the final
combination, where cells are no longer at hand. This module names one involved cell after
the fact, on the error path only: it bisects over the revealed numbers in row-major order,
turning the numbers past a prefix back into covered cells. That only relaxes the board, so
the prefixes go from consistent (no numbers) to inconsistent (all of them), and the number
that first breaks them is part of a contradiction. When the numbers alone are consistent,
the total mine count is what does not fit, and a covered cell is named.
"""

from __future__ import annotations

import numpy as np

from .backends import Backend, get_backend
from .board import COVERED, FLAG, Board
from .constraints import build_system
from .errors import InconsistentBoardError
from .reduce import reduce_system

Cell = tuple[int, int]


def numbers_consistent(board: Board, counter: Backend | None = None) -> bool:
    """Whether some placement of mines satisfies every revealed number, whatever the total."""
    counter = counter or get_backend("dss")
    try:
        reduction = reduce_system(build_system(board))
    except InconsistentBoardError:
        return False
    return all(any(counter.count(component).counts) for component in reduction.components)


def locate_contradiction(board: Board, counter: Backend | None = None) -> Cell | None:
    """A cell involved in the board's contradiction, or ``None`` if the board is consistent.

    Args:
        board: A position that the solver reported inconsistent.
        counter: Backend used to count components (default ``dss``).
    """
    cells = board.cells
    flags = np.argwhere(cells == FLAG)
    if len(flags) > board.mines:
        return int(flags[0, 0]), int(flags[0, 1])
    counter = counter or get_backend("dss")
    numbers = np.argwhere(cells >= 0)

    def prefix_holds(k: int) -> bool:
        relaxed = cells.copy()
        rest = numbers[k:]
        relaxed[rest[:, 0], rest[:, 1]] = COVERED
        return numbers_consistent(Board(relaxed, board.mines), counter)

    if not prefix_holds(len(numbers)):
        low, high = 0, len(numbers)  # prefix_holds(low) and not prefix_holds(high)
        while high - low > 1:
            mid = (low + high) // 2
            low, high = (mid, high) if prefix_holds(mid) else (low, mid)
        return int(numbers[high - 1, 0]), int(numbers[high - 1, 1])
    covered = np.argwhere(cells == COVERED)
    if len(covered):
        return int(covered[0, 0]), int(covered[0, 1])
    return None
