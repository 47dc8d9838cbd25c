"""Certain cells of a whole position, decided with a backend (:mod:`.decision`'s primitives).

Kept apart from :mod:`.decision` because it needs the registry and the backend class, while
:mod:`.base` needs :mod:`.decision`: so no module of the two depends on the other both ways.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InconsistentBoardError
from .decision import Cell, _add, _totals, decide_components, merge_components

if TYPE_CHECKING:
    from ..board import Board
    from .base import Backend


@dataclass(frozen=True)
class PositionDecision:
    """Certain cells of a position.

    Attributes:
        safe: Covered cells that are safe in every layout consistent with the board.
        mines: Unflagged cells that hold a mine in every consistent layout.
        calls: Solver calls used (0 when decided from counts or by the reductions alone).
    """

    safe: frozenset[Cell]
    mines: frozenset[Cell]
    calls: int


def decide_position(board: Board, backend: str | Backend = "sat") -> PositionDecision:
    """Certain cells of ``board`` with the backend's :meth:`~Backend.decide`.

    The same as the ``safe`` and ``mines`` of :func:`mscsp.solve` (flags count as mines and
    are not listed), without counting when the backend decides natively.

    Raises:
        InconsistentBoardError: No layout satisfies the board.
        BackendUnavailableError: The backend's package is missing.
    """
    import numpy as np

    from ..constraints import build_system
    from ..reduce import reduce_system
    from . import get_backend

    solver = get_backend(backend)
    system = build_system(board)
    reduction = reduce_system(system)
    safe: set[Cell] = set()
    mines: set[Cell] = set()
    left = system.remaining
    for g, x in reduction.fixed:
        size = int(system.sizes[g])
        if x == 0:
            safe.update(system.cells[g])
        elif x == size:
            mines.update(system.cells[g])
        left -= x
    n_free = system.n_unconstrained
    if left < 0 or left > n_free + sum(c.n_cells for c in reduction.components):
        raise InconsistentBoardError(
            f"no placement of the {system.remaining} unflagged mines satisfies the numbers"
        )
    calls = 0
    fewest = most = 0
    if reduction.components and solver.decides:
        merged, cells = merge_components(reduction.components)
        decision = solver.decide(merged, lo=left - n_free, hi=left)
        calls = decision.calls
        fewest, most = decision.fewest, decision.most
        decided = [(decision, cells)]
    elif reduction.components:
        counts = [solver.count(c) for c in reduction.components]
        decisions = decide_components(reduction.components, counts, left - n_free, left)
        decided = [(d, c.cells) for d, c in zip(decisions, reduction.components, strict=True)]
        reachable = 1
        for count in counts:
            reachable = _add(reachable, _totals(count))
        inside = [k for k in range(max(left - n_free, 0), left + 1) if reachable >> k & 1]
        if not inside:
            raise InconsistentBoardError(
                f"no placement of the {system.remaining} unflagged mines satisfies the numbers"
            )
        fewest, most = inside[0], inside[-1]
    else:
        decided = []
    for decision, cells in decided:
        for g in decision.safe:
            safe.update(cells[g])
        for g in decision.mines:
            mines.update(cells[g])
    if n_free:
        free = [(int(r), int(c)) for r, c in np.argwhere(system.unconstrained)]
        if fewest == left:  # every solution puts all the mines on the frontier
            safe.update(free)
        elif most == left - n_free:  # every solution fills every free cell
            mines.update(free)
    return PositionDecision(frozenset(safe), frozenset(mines), calls)
